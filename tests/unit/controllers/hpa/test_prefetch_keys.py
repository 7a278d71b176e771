"""A replayed query's key (``prefetch._args_text``, kept for argument tuples of strings and
None) is the canonical JSON ``MetricQuery`` keys its answer by, memo or not."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.hpa import prefetch
from podscale.controllers.hpa.prefetch import MetricQuery, RecordedMetrics
from podscale.hpa.types import PodMetric

_ARGS = st.lists(
    st.one_of(
        st.none(),
        st.text(max_size=6),
        st.integers(-2, 2),
        st.booleans(),
        st.floats(allow_nan=False, width=16),
        st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
    ),
    max_size=4,
).map(tuple)


@given(_ARGS)
def test_the_key_text_is_the_canonical_json(args: tuple[Any, ...]) -> None:
    expected = prefetch._canonical(list(args))
    assert prefetch._args_text(args) == expected
    assert prefetch._args_text(args) == expected  # again: from the memo when kept


@pytest.mark.parametrize(
    ("first", "second"),
    [(("1",), (1,)), ((1,), (True,)), ((1,), (1.0,)), ((None,), ("null",))],
    ids=["string-vs-int", "int-vs-bool", "int-vs-float", "none-vs-string"],
)
def test_equal_hashing_arguments_keep_their_own_texts(
    first: tuple[Any, ...], second: tuple[Any, ...]
) -> None:
    prefetch._args_text(first)
    assert prefetch._args_text(second) == prefetch._canonical(list(second))


def test_a_replay_finds_the_recorded_answer_and_reports_a_miss() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    query = MetricQuery("resource", ("cpu", "ns", "app=web", None))
    answer = ({"p": PodMetric(100, at, at - at)}, at)
    for _ in range(2):  # the second replay reads the memo
        recorded = RecordedMetrics({query.key: answer})
        assert recorded.resource_metric("cpu", "ns", "app=web", None) == answer
        with pytest.raises(Exception, match="metric not fetched"):
            recorded.resource_metric("memory", "ns", "app=web", None)
        assert [q.args for q in recorded.missed] == [("memory", "ns", "app=web", None)]
