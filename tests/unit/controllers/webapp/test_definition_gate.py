"""``GatedListWatcher``: an absent kind lists empty, and a CRD established meanwhile is never
lost to the race with that list."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.client.informer import Gone
from podscale.controllers.webapp.definition_gate import GatedListWatcher

JSON = dict[str, Any]
NOT_FOUND = ApiError(404, {"message": "the server could not find the requested resource"})


class _AbsentKind:
    """The kind's list: a 404, optionally after the CRD became established meanwhile."""

    def __init__(self, on_list: Any = None) -> None:
        self.on_list = on_list

    async def list(self) -> tuple[list[JSON], str]:
        if self.on_list is not None:
            self.on_list()
        raise NOT_FOUND


def _gate(on_list: Any = None) -> GatedListWatcher:
    gate = GatedListWatcher(object(), kind_for("v1", "ConfigMap"))  # type: ignore[arg-type]
    gate._inner = _AbsentKind(on_list)  # type: ignore[assignment]
    return gate


async def _next(gate: GatedListWatcher) -> None:
    async for _ in gate.watch(""):
        pass


@pytest.mark.parametrize("opened_during_list", [True, False], ids=["race", "no-crd-yet"])
def test_a_crd_established_while_listing_relists_at_once(opened_during_list: bool) -> None:
    async def scenario() -> bool:
        gate: GatedListWatcher = _gate()
        if opened_during_list:
            gate._inner = _AbsentKind(gate.open)  # type: ignore[assignment]
        assert await gate.list() == ([], "")
        try:
            await asyncio.wait_for(_next(gate), 0.5)
        except Gone:
            return True  # asked for a relist at once
        except TimeoutError:
            return False  # waiting for an open() (or the recheck, minutes away)
        return False

    assert asyncio.run(scenario()) is opened_during_list
