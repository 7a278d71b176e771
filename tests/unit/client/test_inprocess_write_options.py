"""The in-process client's write options: a plain write's are made once per manager.

``inprocess_calls.write_options`` keeps the (frozen) options of a write without dry run or field
validation by its manager and force; they must be the options the general path builds,
and a different manager, force, dry run or validation mode must get its own.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from podscale.apiserver.registry.admission import WriteOptions, parse_write_options
from podscale.client.inprocess_calls import write_options


def _general(
    dry_run: bool, field_validation: str | None, manager: str, force: bool | None
) -> WriteOptions:
    mode = field_validation or "Ignore"
    options = parse_write_options(["All"] if dry_run else [], mode)
    return replace(
        options,
        field_manager=manager,
        force=None if force is None else ("true" if force else "false"),
    )


@pytest.mark.parametrize(
    ("dry_run", "field_validation", "manager", "force"),
    [
        (False, None, "kube-controller-manager", None),
        (False, None, "kubelet", None),
        (False, None, "kubelet", True),
        (False, None, "kubelet", False),
        (True, None, "kubelet", None),
        (False, "Strict", "kubelet", None),
        (False, "Warn", "kubelet", True),
    ],
    ids=["controller", "kubelet", "force", "no-force", "dry-run", "strict", "warn-force"],
)
def test_options_are_the_general_paths(
    dry_run: bool, field_validation: str | None, manager: str, force: bool | None
) -> None:
    expected = _general(dry_run, field_validation, manager, force)
    # Twice: the second call is served from what the first kept (for plain writes).
    assert write_options(dry_run, field_validation, manager, force) == expected
    assert write_options(dry_run, field_validation, manager, force) == expected


def test_each_manager_gets_its_own() -> None:
    first = write_options(False, None, "a")
    assert write_options(False, None, "b").field_manager == "b"
    assert write_options(False, None, "a") is first
    assert write_options(False, None, "a", True).force == "true"
