"""Asking the ``MetricsClient`` exactly what one decision will ask, before deciding.

The engine's ``decide`` reads a synchronous ``MetricsSource``; the controller's client is
async. Rather than re-deriving from the HPA spec which metric calls ``decide`` will make
(and risking a mismatch in some branch), the controller runs ``decide`` once against a
``QueryRecorder``, which notes every call and answers "unavailable", then fetches those
queries through the client (``fetch_answers``) and runs ``decide`` again against the
``RecordedMetrics``. ``decide`` is pure, and each metric's query does not depend on any
other metric's answer, so the second run asks exactly the recorded questions.
Failures are kept as ``MetricsUnavailable`` answers, so the engine sets upstream's
``FailedGet*Metric`` conditions and events from them.

``QueryMemory`` keeps each HPA's recorded queries while the inputs they depend on (the
spec, the scale's replicas and selector, the HPAs sharing its pods) stay the same, and
records again when a replay reports a question it had no answer for (``missed``); its
``decide`` is that round of one sync (record if needed, fetch, decide) for the HPA
controller (``controller``), whose ``_decide`` it is handed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

import orjson

from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.hpa.decision import Decision
from podscale.hpa.types import MetricsUnavailable, PodMetric

__all__ = ["MetricQuery", "QueryMemory", "QueryRecorder", "RecordedMetrics", "fetch_answers"]

_NOT_FETCHED: Final = "metric not fetched"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# ``_canonical(list(args))`` of argument tuples of strings and None only (a resource
# query's: every HPA sync replays it): such a tuple's text depends on nothing else, and
# equal tuples of those types have equal texts (no 1 == 1.0 == True among them).
_TEXT_ARGS: dict[tuple[Any, ...], str] = {}
_TEXT_ARGS_LIMIT: Final = 4096


def _args_text(args: tuple[Any, ...]) -> str:
    known = _TEXT_ARGS.get(args) if all(a is None or type(a) is str for a in args) else None
    if known is not None:
        return known
    text = _canonical(list(args))
    if all(a is None or type(a) is str for a in args):
        if len(_TEXT_ARGS) >= _TEXT_ARGS_LIMIT:
            _TEXT_ARGS.clear()
        _TEXT_ARGS[args] = text
    return text


@dataclass(frozen=True, slots=True)
class MetricQuery:
    """One ``MetricsSource`` call: ``kind`` is ``resource``, ``pods``, ``object`` or
    ``external``; ``args`` the call's arguments, in order (dicts as given)."""

    kind: str
    args: tuple[Any, ...]
    # The query's identity (kind and canonical JSON of the arguments), computed once: a
    # remembered query is looked up by it at every sync. The arguments are never changed
    # after construction (the recorder keeps them as the engine passed them).
    key: tuple[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (self.kind, _canonical(list(self.args))))


class _ByQuery:
    """The four ``MetricsSource`` calls, each handed to ``_on`` as its ``MetricQuery`` kind
    and arguments: the one place the recorder and the replay spell the protocol out."""

    __slots__ = ()

    def _on(self, kind: str, *args: Any) -> Any:
        raise NotImplementedError

    def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        result: tuple[dict[str, PodMetric], datetime] = self._on(
            "resource", resource, namespace, selector, container
        )
        return result

    def pods_metric(
        self,
        metric_name: str,
        namespace: str,
        selector: str,
        metric_selector: dict[str, Any] | None,
    ) -> tuple[dict[str, PodMetric], datetime]:
        result: tuple[dict[str, PodMetric], datetime] = self._on(
            "pods", metric_name, namespace, selector, metric_selector
        )
        return result

    def object_metric(
        self,
        metric_name: str,
        namespace: str,
        described_object: dict[str, Any],
        metric_selector: dict[str, Any] | None,
    ) -> tuple[int, datetime]:
        result: tuple[int, datetime] = self._on(
            "object", metric_name, namespace, described_object, metric_selector
        )
        return result

    def external_metric(
        self, metric_name: str, namespace: str, metric_selector: dict[str, Any] | None
    ) -> tuple[list[int], datetime]:
        result: tuple[list[int], datetime] = self._on(
            "external", metric_name, namespace, metric_selector
        )
        return result


@dataclass(slots=True)
class QueryRecorder(_ByQuery):
    """A ``MetricsSource`` that records each question and cannot answer any."""

    queries: list[MetricQuery] = field(default_factory=list)

    def _on(self, kind: str, *args: Any) -> Any:
        query = MetricQuery(kind, args)
        if all(q.key != query.key for q in self.queries):
            self.queries.append(query)
        raise MetricsUnavailable(_NOT_FETCHED)


# An answer: the client's result, or the MetricsUnavailable it raised.
Answer = tuple[Any, datetime] | MetricsUnavailable


@dataclass(frozen=True, slots=True)
class RecordedMetrics(_ByQuery):
    """A ``MetricsSource`` replaying fetched answers; ``seconds`` is how long each query
    took to fetch (for the controller's metric computation histogram)."""

    answers: Mapping[tuple[str, str], Answer]
    seconds: Mapping[tuple[str, str], float] = field(default_factory=dict)
    # The questions asked that had no answer: the queries fetched were not all of them.
    missed: list[MetricQuery] = field(default_factory=list)

    def _on(self, kind: str, *args: Any) -> Any:
        # The query's key without the query: it is made only when it was not answered.
        answer = self.answers.get((kind, _args_text(args)))
        if answer is None:
            self.missed.append(MetricQuery(kind, args))
            raise MetricsUnavailable(_NOT_FETCHED)
        if isinstance(answer, MetricsUnavailable):
            raise MetricsUnavailable(str(answer))
        value, timestamp = answer
        # The calculator may add entries to a per-pod answer: hand out a copy.
        if isinstance(value, dict | list):
            value = type(value)(value)
        return value, timestamp


async def _ask(client: MetricsClient, query: MetricQuery) -> tuple[Any, datetime]:
    if query.kind == "resource":
        return await client.resource_metric(*query.args)
    if query.kind == "pods":
        return await client.pods_metric(*query.args)
    if query.kind == "object":
        return await client.object_metric(*query.args)
    return await client.external_metric(*query.args)


async def fetch_answers(
    client: MetricsClient,
    queries: list[MetricQuery],
    *,
    timer: Callable[[], float] = time.perf_counter,
) -> RecordedMetrics:
    """Ask ``client`` every query, in order; failures become recorded answers."""
    answers: dict[tuple[str, str], Answer] = {}
    seconds: dict[tuple[str, str], float] = {}
    for query in queries:
        started = timer()
        try:
            answers[query.key] = await _ask(client, query)
        except MetricsUnavailable as err:
            answers[query.key] = err
        seconds[query.key] = timer() - started
    return RecordedMetrics(answers, seconds)


class QueryMemory:
    """Per HPA key: the inputs its metric queries were last recorded from, and those
    queries."""

    def __init__(self) -> None:
        self._queries: dict[str, tuple[bytes, list[MetricQuery]]] = {}

    def forget(self, key: str) -> None:
        self._queries.pop(key, None)

    async def decide(
        self,
        key: str,
        hpa: Mapping[str, Any],
        scale: Mapping[str, Any],
        controlling: list[str],
        decide: Callable[[QueryRecorder | RecordedMetrics], Decision],
        client: MetricsClient,
        timer: Callable[[], float],
    ) -> tuple[Decision, RecordedMetrics]:
        """``decide`` on ``client``'s answers to the queries it asks, recorded afresh when
        the inputs changed or a replay missed one; also the answers, for their timings."""
        inputs = orjson.dumps(
            [hpa.get("spec"), scale.get("spec"), scale.get("status"), controlling],
            option=orjson.OPT_SORT_KEYS,
        )
        remembered = self._queries.get(key)
        queries = remembered[1] if remembered is not None and remembered[0] == inputs else None
        while True:
            if queries is None:
                recorder = QueryRecorder()
                decide(recorder)
                queries = recorder.queries
                self._queries[key] = (inputs, queries)
                fresh = True
            else:
                fresh = False
            recorded = await fetch_answers(client, queries, timer=timer)
            decision = decide(recorded)
            if fresh or not recorded.missed:
                return decision, recorded
            queries = None  # the remembered questions were not all of them: record again
