"""The values ``PushMetricsProvider`` stores: entries, their expiry and value parsing.

``push_series.PushSeries`` (the base of ``push.PushMetricsProvider``) keeps one
``PushEntry`` per series, with when it was pushed and when it stops being served
(``expired``); every written value goes through ``quantity_of`` (a ``Quantity``, finite as a
double: ``metricsapis.samples.is_finite``), whose ``milli_quantity`` shortcut parses the
milli-unit texts the simulated kubelets push for every pod at every publish; a read of
several matching series of one object serves their ``combined`` sample. Pure.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import NamedTuple

from podscale.api import Quantity, parse_quantity
from podscale.apiserver.metricsapis.samples import CustomSample, ExternalSample, is_finite

__all__ = ["PushEntry", "QuantityLike", "combined", "expired", "milli_quantity", "quantity_of"]

QuantityLike = Quantity | str | int | float


class PushEntry(NamedTuple):
    """A stored sample (timestamp always set), when it was pushed and when it stops being
    served (a NamedTuple: one is built per pod at every publish of the simulated kubelets)."""

    sample: CustomSample | ExternalSample
    pushed_at: datetime
    expires_at: datetime | None


def expired(entry: PushEntry, now: datetime) -> bool:
    return entry.expires_at is not None and entry.expires_at <= now


def quantity_of(value: QuantityLike) -> Quantity:
    if isinstance(value, str):
        milli = milli_quantity(value)
        if milli is not None:
            return milli  # always finite
    quantity = value if isinstance(value, Quantity) else parse_quantity(value)
    if not is_finite(quantity):
        raise ValueError(f"metric value {value!r} is not a finite number")
    return quantity


@functools.lru_cache(maxsize=4096)  # a pure function of the text, as the parse cache is
def milli_quantity(text: str) -> Quantity | None:
    """``parse_quantity(text)`` for a whole positive number of milli-units without leading
    zeros and of at most 18 digits (``"8123m"``: what the simulated kubelets push for every
    pod at every publish, a new text nearly each time, so the parse cache seldom holds it);
    None for any other text. The parser reads such a text as ``digits x 10**-3`` and echoes
    it back unless the digits end in ``000`` (then ``"1"``, not ``"1000m"``, is canonical)."""
    digits = text[:-1]
    if (
        text[-1:] != "m"
        or not 0 < len(digits) <= 18
        or digits[0] == "0"
        or not (digits.isascii() and digits.isdigit())
    ):
        return None
    return Quantity(int(digits), -3, "DecimalSI", None if digits.endswith("000") else text)


def combined(samples: list[CustomSample]) -> CustomSample:
    """One sample for an object whose matching series are summed; newest timestamp wins."""
    newest = max(samples, key=lambda s: s.timestamp.timestamp() if s.timestamp else 0.0)
    total = samples[0].value
    for sample in samples[1:]:
        total = total + sample.value
    return newest._replace(value=total, labels=())
