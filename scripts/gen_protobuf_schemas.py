"""Write podscale's protobuf field tables from the descriptors a kubectl binary carries.

kubectl (like every Go program built from k8s.io/api) embeds each API package's compiled
``generated.proto`` as a gzipped ``FileDescriptorProto``, gogo options included: field
numbers, wire types, Go field names (``customname``) and whether a field is a pointer
(``nullable``). This script finds them, walks the messages reachable from the kinds podscale
decodes, and writes ``src/podscale/apiserver/protobuf/schemas_*.py`` in the compact notation
``protobuf.schema`` reads. Usage::

    python3 scripts/gen_protobuf_schemas.py [/path/to/kubectl.1.33]

tests/unit/apiserver/protobuf/test_tables.py checks the committed tables against the same
descriptors, so a hand edit that drifts from upstream fails there.
"""

from __future__ import annotations

import re
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"

# Proto package -> podscale's short package name.
PACKAGES = {
    "k8s.io.api.core.v1": "core",
    "k8s.io.api.apps.v1": "apps",
    "k8s.io.api.autoscaling.v1": "autoscaling_v1",
    "k8s.io.api.autoscaling.v2": "autoscaling_v2",
    "k8s.io.api.policy.v1": "policy",
    "k8s.io.api.coordination.v1": "coordination",
    "k8s.io.api.events.v1": "events",
    "k8s.io.api.authentication.v1": "authn_v1",
    "k8s.io.api.authentication.v1beta1": "authn_v1beta1",
    "k8s.io.api.authorization.v1": "authz_v1",
    "k8s.io.apimachinery.pkg.apis.meta.v1": "meta",
}
# Messages with a JSON form of their own (protobuf_decode gives them a type code).
SPECIAL = {
    ".k8s.io.apimachinery.pkg.api.resource.Quantity": "q",
    ".k8s.io.apimachinery.pkg.apis.meta.v1.Time": "t",
    ".k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "mt",
    ".k8s.io.apimachinery.pkg.apis.meta.v1.Duration": "dur",
    ".k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "fv1",
    ".k8s.io.apimachinery.pkg.util.intstr.IntOrString": "ios",
    ".k8s.io.apimachinery.pkg.runtime.RawExtension": "raw",
    # Go's ``type ExtraValue []string``: a list in JSON, a wrapper message on the wire.
    ".k8s.io.api.authentication.v1.ExtraValue": "ss",
}
SCALARS = {3: "i64", 5: "i32", 8: "b", 9: "s", 12: "y"}
# Go structs embedded with ``json:",inline"``: their fields sit in the parent's JSON object.
# The descriptors do not say so (gogo's ``embed`` option is not set), the Go types do.
INLINE = {
    ("core.ConfigMapEnvSource", "localObjectReference"),
    ("core.ConfigMapKeySelector", "localObjectReference"),
    ("core.ConfigMapProjection", "localObjectReference"),
    ("core.ConfigMapVolumeSource", "localObjectReference"),
    ("core.SecretEnvSource", "localObjectReference"),
    ("core.SecretKeySelector", "localObjectReference"),
    ("core.SecretProjection", "localObjectReference"),
    ("core.EphemeralContainer", "ephemeralContainerCommon"),
    ("core.Probe", "handler"),
    ("core.Volume", "volumeSource"),
}
ROOTS = [
    "core.Pod",
    "core.Node",
    "core.Namespace",
    "core.Event",
    "core.ConfigMap",
    "core.Secret",
    "core.Service",
    "core.ServiceAccount",
    "core.Binding",
    "apps.Deployment",
    "apps.ReplicaSet",
    "apps.StatefulSet",
    "autoscaling_v1.HorizontalPodAutoscaler",
    "autoscaling_v1.Scale",
    "autoscaling_v2.HorizontalPodAutoscaler",
    "policy.PodDisruptionBudget",
    "coordination.Lease",
    "events.Event",
    "authn_v1.SelfSubjectReview",
    "authn_v1beta1.SelfSubjectReview",
    "authz_v1.SelfSubjectAccessReview",
    "authz_v1.SelfSubjectRulesReview",
]
# Output module -> (role sentence, packages, core messages reachable from this root first).
MODULES = {
    "meta": ("apimachinery meta/v1 (ObjectMeta and its parts)", ["meta"], None),
    "volume": ("core/v1 volume sources (reachable from Volume)", ["core"], "core.Volume"),
    "pod": ("core/v1 pod and container types", ["core"], "core.Pod"),
    "core": ("the remaining core/v1 kinds (Node, Service, Event, ...)", ["core"], None),
    "apps": ("apps/v1 (Deployment, ReplicaSet, StatefulSet)", ["apps"], None),
    "autoscaling": (
        "autoscaling/v1 and autoscaling/v2",
        ["autoscaling_v1", "autoscaling_v2"],
        None,
    ),
    "groups": (
        "policy/v1, coordination.k8s.io/v1 and events.k8s.io/v1",
        ["policy", "coordination", "events"],
        None,
    ),
    "auth": (
        "the self reviews of kubectl auth (authentication and authorization)",
        ["authn_v1", "authn_v1beta1", "authz_v1"],
        None,
    ),
}


def fields(buf: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(number, value) of a message's fields: ints for varints, bytes for payloads."""
    pos = 0

    def varint() -> int:
        nonlocal pos
        result = shift = 0
        while True:
            byte = buf[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result
            shift += 7

    while pos < len(buf):
        tag = varint()
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            yield number, varint()
        elif wire == 2:
            size = varint()
            yield number, buf[pos : pos + size]
            pos += size
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        else:
            raise ValueError(f"unexpected wire type {wire}")


def descriptors(binary: Path) -> dict[str, bytes]:
    """File name -> FileDescriptorProto bytes of every generated.proto in the binary."""
    data = binary.read_bytes()
    found: dict[str, bytes] = {}
    for match in re.finditer(rb"\x1f\x8b\x08\x00\x00\x00\x00\x00[\x00\x02\x04]\xff", data):
        try:
            out = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[match.start() :])
        except zlib.error:
            continue
        if out[:1] == b"\x0a" and out[2 : 2 + out[1]].endswith(b"generated.proto"):
            found[out[2 : 2 + out[1]].decode()] = out
    return found


def messages(files: dict[str, bytes]) -> dict[str, list[dict[int, object]]]:
    """Qualified proto message name (".pkg.Name", nested too) -> its field descriptors."""
    table: dict[str, list[dict[int, object]]] = {}

    def walk(prefix: str, raw: bytes) -> None:
        parts = list(fields(raw))
        name = next(v for k, v in parts if k == 1)
        assert isinstance(name, bytes)
        qualified = f"{prefix}.{name.decode()}"
        table[qualified] = []
        for key, value in parts:
            assert key not in (2, 3) or isinstance(value, bytes)
            if key == 2:
                assert isinstance(value, bytes)
                entry: dict[int, object] = {}
                for k, v in fields(value):
                    entry[k] = v
                opts = entry.get(8)
                entry[8] = dict(fields(opts)) if isinstance(opts, bytes) else {}
                table[qualified].append(entry)
            elif key == 3:
                assert isinstance(value, bytes)
                walk(qualified, value)

    for raw in files.values():
        parts = list(fields(raw))
        package = next(v for k, v in parts if k == 2)
        assert isinstance(package, bytes)
        for key, value in parts:
            if key == 4:
                assert isinstance(value, bytes)
                walk("." + package.decode(), value)
    return table


def short(qualified: str) -> str:
    package, _, name = qualified[1:].rpartition(".")
    return f"{PACKAGES[package]}.{name}"


def type_code(entry: dict[int, object], table: dict[str, list[dict[int, object]]]) -> str:
    if entry[5] != 11:
        return SCALARS[int(str(entry[5]))]
    type_name = bytes(entry[6]).decode()  # type: ignore[call-overload]
    if type_name in SPECIAL:
        return SPECIAL[type_name]
    if type_name.endswith("Entry") and type_name.rpartition(".")[0] in table:
        key, value = (type_code(f, table) for f in table[type_name])
        return f"{{{key}:{value}}}"
    return short(type_name)


def field_token(
    entry: dict[int, object], message: str, table: dict[str, list[dict[int, object]]]
) -> str:
    own = message.split(".", 1)[0]
    json_name = bytes(entry[10]).decode()  # type: ignore[call-overload]
    code = type_code(entry, table)
    if "." in code and code.split(".", 1)[0] == own:
        code = code.split(".", 1)[1]
    options = entry[8]
    assert isinstance(options, dict)
    is_map = code.startswith("{")
    if (message, json_name) in INLINE:
        code += "+"
    elif entry[4] == 3 and not is_map:
        code += "*"
    elif entry[4] != 3 and options.get(65001) != 0 and entry[5] != 12:
        code += "?"  # a pointer: present on the wire means set, even to a zero value
    go_name = bytes(options.get(65004, entry[10])).decode()
    token = f"{entry[3]}:{json_name}:{code}"
    if go_name != json_name[:1].upper() + json_name[1:]:
        token += f":{go_name}"
    return token


def reachable(table: dict[str, list[dict[int, object]]]) -> list[str]:
    """Short names of every non-special, non-map message reachable from ROOTS, in order."""
    by_short = {short(q): q for q in table if q[1:].rpartition(".")[0] in PACKAGES}
    seen: list[str] = []
    todo = list(ROOTS)
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.append(name)
        for entry in table[by_short[name]]:
            for code in re.findall(r"[a-z_0-9]+\.[A-Za-z0-9]+", type_code(entry, table)):
                todo.append(code)
    return seen


def render(module: str, role: str, specs: list[tuple[str, str]]) -> str:
    lines = [
        f'"""Protobuf field tables: {role}.',
        "",
        "Generated by scripts/gen_protobuf_schemas.py; regenerate rather than edit. The notation:",
        "``protobuf.schema``.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
        "MESSAGES: Final = {",
    ]
    for name, spec in specs:
        tokens = spec.split(" ")
        chunks: list[str] = []
        current = ""
        for token in tokens:
            candidate = f"{current} {token}" if current else token
            if len(candidate) > 84 and current:
                chunks.append(current + " ")
                current = token
            else:
                current = candidate
        chunks.append(current)
        if len(chunks) == 1 and len(f'    "{name}": "{chunks[0]}",') <= 100:
            lines.append(f'    "{name}": "{chunks[0]}",')
        else:
            lines.append(f'    "{name}": (')
            lines.extend(f'        "{chunk}"' for chunk in chunks)
            lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(binary: Path) -> dict[str, str]:
    """Module name -> source text."""
    table = messages(descriptors(binary))
    by_short = {short(q): q for q in table if q[1:].rpartition(".")[0] in PACKAGES}
    wanted = reachable(table)

    def spec(name: str) -> str:
        return " ".join(field_token(e, name, table) for e in table[by_short[name]])

    def closure(root: str) -> list[str]:
        seen: list[str] = []
        todo = [root]
        while todo:
            name = todo.pop()
            if name in seen or not name.startswith("core."):
                continue
            seen.append(name)
            todo.extend(
                re.findall(
                    r"[a-z_0-9]+\.[A-Za-z0-9]+",
                    " ".join(type_code(e, table) for e in table[by_short[name]]),
                )
            )
        return seen

    volume = set(closure("core.Volume")) | set(closure("core.PersistentVolumeClaimSpec"))
    pod = set(closure("core.Pod")) - volume
    out: dict[str, str] = {}
    for module, (role, packages, _) in MODULES.items():
        names = sorted(n for n in wanted if n.split(".", 1)[0] in packages)
        if module == "volume":
            names = [n for n in names if n in volume]
        elif module == "pod":
            names = [n for n in names if n in pod]
        elif module == "core":
            names = [n for n in names if n not in volume and n not in pod]
        out[module] = render(module, role, [(n, spec(n)) for n in names])
    return out


def main() -> None:
    binary = Path(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_KUBECTL)
    for module, text in generate(binary).items():
        path = ROOT / "src" / "podscale" / "apiserver" / "protobuf" / f"schemas_{module}.py"
        path.write_text(text)
        print(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")


if __name__ == "__main__":
    main()
