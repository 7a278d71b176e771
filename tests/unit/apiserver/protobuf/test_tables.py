"""The committed protobuf field tables match upstream's descriptors, as kubectl embeds them.

scripts/gen_protobuf_schemas.py wrote the tables from kubectl 1.33's compiled
``generated.proto`` descriptors; regenerating them here and comparing field by field catches
a hand edit or a wrong number. Skips (with the reason) where that kubectl is not installed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from podscale.apiserver.protobuf.schema import MESSAGES, MessageSpec, parse_tables

ROOT = Path(__file__).resolve().parents[4]
GENERATOR = ROOT / "scripts" / "gen_protobuf_schemas.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_protobuf_schemas", GENERATOR)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shape(spec: MessageSpec) -> dict[int, tuple[Any, ...]]:
    return {
        number: (
            f.json_name,
            f.go_name,
            f.kind,
            f.repeated,
            f.pointer,
            f.inline,
            f.message.name if f.message else None,
            f.key,
            f.value,
        )
        for number, f in spec.fields.items()
    }


def test_tables_match_the_descriptors_kubectl_embeds() -> None:
    generator = _generator()
    binary = Path(generator.DEFAULT_KUBECTL)
    if not binary.exists():
        pytest.skip(f"{binary} is not installed: the descriptors come from that kubectl")
    tables: dict[str, str] = {}
    for text in generator.generate(binary).values():
        namespace: dict[str, Any] = {}
        exec(compile(text, "<generated>", "exec"), namespace)
        tables.update(namespace["MESSAGES"])
    fresh = parse_tables(tables)
    assert sorted(fresh) == sorted(MESSAGES)
    for name, spec in fresh.items():
        assert _shape(spec) == _shape(MESSAGES[name]), name


def test_a_deployment_reaches_every_pod_field_through_its_template() -> None:
    # A spot check that does not need kubectl: numbers kubectl 1.33 was seen sending.
    pod_spec = MESSAGES["core.PodSpec"].fields
    assert pod_spec[2].json_name == "containers"
    assert pod_spec[2].repeated
    assert MESSAGES["apps.DeploymentSpec"].fields[3].message is MESSAGES["core.PodTemplateSpec"]
    assert MESSAGES["core.Volume"].fields[2].inline
