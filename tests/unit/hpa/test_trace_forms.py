"""``trace_to_dict`` builds a recommendation's plain form directly (``trace._plain``'s branch
for an int count and a datetime): each is what the plain conversion gives, whatever zone its
time is in, and a caller changing what it got changes nothing kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from podscale.hpa import trace
from podscale.hpa.conditions import format_time
from podscale.hpa.types import Recommendation

_ZONES = st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-7))])
_TIMES = st.builds(
    lambda moment, zone: moment.replace(tzinfo=UTC).astimezone(zone),
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1)),
    _ZONES,
)


@given(st.lists(st.tuples(st.integers(0, 50), _TIMES), max_size=8))
def test_forms_equal_the_plain_conversion(entries: list[tuple[int, datetime]]) -> None:
    for replicas, moment in entries * 2:  # twice: the second time from what was kept
        form = trace._plain(Recommendation(replicas, moment))
        assert form == {"replicas": replicas, "timestamp": format_time(moment)}


def test_one_instant_in_two_zones_and_a_bool_count() -> None:
    moment = datetime(2026, 1, 1, 12, tzinfo=UTC)
    shifted = moment.astimezone(timezone(timedelta(hours=5)))
    assert moment == shifted
    for at in (moment, shifted):
        assert trace._plain(Recommendation(1, at)) == {
            "replicas": 1,
            "timestamp": "2026-01-01T12:00:00Z",
        }
    # Equal to Recommendation(1, moment), yet not an int count: converted as it is.
    odd = trace._plain(Recommendation(True, moment))  # type: ignore[arg-type]
    assert odd["replicas"] is True


def test_a_changed_form_does_not_change_the_kept_one() -> None:
    entry = Recommendation(3, datetime(2026, 1, 1, tzinfo=UTC))
    first = trace._plain(entry)
    first["replicas"] = 99
    assert trace._plain(entry) == {"replicas": 3, "timestamp": "2026-01-01T00:00:00Z"}
