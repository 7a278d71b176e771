"""The informer keeps its cache in step: list, watch, resume, relist on 410, resync."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from podscale.api.selectors import parse_selector
from podscale.client.informer import EventHandler, Gone, Informer
from podscale.testing import FakeClock

JSON = dict[str, Any]


def pod(name: str, rv: int, *, namespace: str = "default", app: str = "web") -> JSON:
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "resourceVersion": str(rv),
            "labels": {"app": app},
        }
    }


@dataclass
class ScriptedSource:
    """Answers lists and watches from a script; stops the informer when it runs out."""

    lists: list[tuple[list[JSON], str]]
    watches: list[list[tuple[str, JSON]] | Gone]
    informer: Informer | None = None
    watched_from: list[str] = field(default_factory=list)

    async def list(self) -> tuple[list[JSON], str]:
        return self.lists.pop(0)

    async def watch(self, resource_version: str) -> AsyncIterator[tuple[str, JSON]]:
        self.watched_from.append(resource_version)
        if not self.watches:
            assert self.informer is not None
            self.informer.stop()
            return
        step = self.watches.pop(0)
        if isinstance(step, Gone):
            raise step
        for event in step:
            yield event


@dataclass
class Recorder:
    seen: list[tuple[str, str]] = field(default_factory=list)

    def handler(self) -> EventHandler:
        return EventHandler(
            on_add=lambda o: self.seen.append(("add", o["metadata"]["name"])),
            on_update=lambda old, new: self.seen.append(("update", new["metadata"]["name"])),
            on_delete=lambda o: self.seen.append(("delete", o["metadata"]["name"])),
        )


def run(source: ScriptedSource, recorder: Recorder, **kwargs: Any) -> Informer:
    informer = Informer(source, FakeClock(), **kwargs)
    source.informer = informer
    informer.add_handler(recorder.handler())
    asyncio.run(asyncio.wait_for(informer.run(), timeout=5))
    return informer


def test_list_then_watch_keeps_the_cache_and_tells_handlers() -> None:
    source = ScriptedSource(
        lists=[([pod("a", 1), pod("b", 2)], "2")],
        watches=[
            [("ADDED", pod("c", 3)), ("MODIFIED", pod("a", 4)), ("DELETED", pod("b", 5))],
            [("BOOKMARK", {"metadata": {"resourceVersion": "9"}})],
        ],
    )
    recorder = Recorder()
    informer = run(source, recorder)
    assert informer.has_synced()
    assert recorder.seen == [
        ("add", "a"),
        ("add", "b"),
        ("add", "c"),
        ("update", "a"),
        ("delete", "b"),
    ]
    assert [p["metadata"]["name"] for p in informer.lister.list("default")] == ["a", "c"]
    # Each new watch resumes where the last one ended (a bookmark moves it too).
    assert source.watched_from == ["2", "5", "9"]
    assert informer.resource_version == "9"


def test_gone_relists_and_reconciles() -> None:
    source = ScriptedSource(
        lists=[([pod("a", 1), pod("b", 2)], "2"), ([pod("a", 7), pod("d", 8)], "8")],
        watches=[Gone("too old resource version: 2 (5)"), []],
    )
    recorder = Recorder()
    informer = run(source, recorder)
    assert recorder.seen[2:] == [("delete", "b"), ("update", "a"), ("add", "d")]
    assert sorted(p["metadata"]["name"] for p in informer.lister.list()) == ["a", "d"]
    assert source.watched_from == ["2", "8", "8"]


def test_lister_filters_by_namespace_selector_and_index() -> None:
    objects = [pod("a", 1), pod("b", 2, app="db"), pod("c", 3, namespace="other")]
    source = ScriptedSource(lists=[(objects, "3")], watches=[])
    informer = run(
        source,
        Recorder(),
        indexers={"app": lambda o: [o["metadata"]["labels"]["app"]]},
    )
    lister = informer.lister
    assert [p["metadata"]["name"] for p in lister.list("default", parse_selector("app=web"))] == [
        "a"
    ]
    assert [p["metadata"]["name"] for p in lister.list(None)] == ["a", "b", "c"]
    assert [p["metadata"]["name"] for p in lister.by_index("app", "web")] == ["a", "c"]
    assert lister.get("other", "c") is not None
    assert lister.get("default", "c") is None


def test_resync_tells_handlers_about_every_object_again() -> None:
    async def scenario() -> list[tuple[str, str]]:
        recorder = Recorder()
        ticks: list[float] = []
        release = asyncio.Event()

        async def sleep(seconds: float) -> None:
            ticks.append(seconds)
            if len(ticks) > 1:
                await release.wait()  # only one resync in this test

        source = ScriptedSource(lists=[([pod("a", 1), pod("b", 2)], "2")], watches=[])
        informer = Informer(source, FakeClock(), resync=timedelta(seconds=30), sleep=sleep)
        informer.add_handler(recorder.handler())

        async def hold_watch(resource_version: str) -> AsyncIterator[tuple[str, JSON]]:
            while not informer.stopped:
                await asyncio.sleep(0)
            return
            yield  # pragma: no cover - makes this an async generator

        source.watch = hold_watch  # type: ignore[method-assign]
        task = asyncio.create_task(informer.run())
        for _ in range(50):
            await asyncio.sleep(0)
        informer.stop()
        release.set()
        await asyncio.wait_for(task, timeout=5)
        assert ticks[0] == 30.0
        return recorder.seen

    seen = asyncio.run(scenario())
    assert seen == [("add", "a"), ("add", "b"), ("update", "a"), ("update", "b")]
