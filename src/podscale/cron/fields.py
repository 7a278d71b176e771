"""The six time fields of a cron spec as bit sets, read the way robfig/cron reads them.

A field is a comma list of ranges: `*` or `?` (every value, and the "star" bit that the
day-of-month/day-of-week rule in `podscale.cron.schedule` consults), `N`, `N-M`, each with
an optional `/step` (`N/step` runs to the field's maximum). Month and day-of-week accept
three-letter English names in any case. Numbers are read as Go's `strconv.Atoi` reads
them. `podscale.cron.parse` calls `parse_field` once per field.

The two dialects differ in one rule: robfig/cron v3 ("standard") drops the star bit when
a star has a step above 1 (`*/2` in day-of-month is then a restriction), the go-cron fork
("cronhpa") keeps it. Errors keep each library's wording (v3 lower-case, the fork
capitalised) behind the field's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from podscale.cron.errors import CronError

Dialect = Literal["cronhpa", "standard"]

STAR_BIT = 1 << 63


@dataclass(frozen=True)
class Bounds:
    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()  # names[i] is the value low + i


SECONDS = Bounds("second", 0, 59)
MINUTES = Bounds("minute", 0, 59)
HOURS = Bounds("hour", 0, 23)
DAYS_OF_MONTH = Bounds("day-of-month", 1, 31)
MONTHS = Bounds(
    "month",
    1,
    12,
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
)
DAYS_OF_WEEK = Bounds("day-of-week", 0, 6, ("sun", "mon", "tue", "wed", "thu", "fri", "sat"))
FIELDS = (SECONDS, MINUTES, HOURS, DAYS_OF_MONTH, MONTHS, DAYS_OF_WEEK)

_MAX_INT64 = (1 << 63) - 1


def bits(low: int, high: int, step: int = 1) -> int:
    value = 0
    for i in range(low, high + 1, step):
        value |= 1 << i
    return value


def every(bounds: Bounds) -> int:
    """All values of a field plus the star bit, as the libraries' descriptors build them."""
    return bits(bounds.low, bounds.high) | STAR_BIT


def parse_field(text: str, bounds: Bounds, dialect: Dialect) -> int:
    # Go splits with FieldsFunc, so empty items between commas vanish; a field of only
    # commas therefore matches nothing and the schedule never fires (as in Go).
    value = 0
    for item in text.split(","):
        if item:
            value |= _parse_range(item, bounds, dialect)
    return value


def _message(dialect: Dialect, text: str) -> str:
    return text[0].upper() + text[1:] if dialect == "cronhpa" else text


def _parse_range(expr: str, bounds: Bounds, dialect: Dialect) -> int:
    def fail(text: str) -> CronError:
        return CronError(bounds.name, _message(dialect, text))

    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = bounds.low, bounds.high, STAR_BIT
    else:
        start = _int_or_name(low_and_high[0], bounds, dialect)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], bounds, dialect)
        else:
            raise fail(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _atoi_non_negative(range_and_step[1], bounds, dialect)
        if single:
            end = bounds.high
        if step > 1 and dialect == "standard":
            extra = 0
    else:
        raise fail(f"too many slashes: {expr}")
    if start < bounds.low:
        raise fail(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise fail(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise fail(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise fail(f"step of range should be a positive number: {expr}")
    return bits(start, end, step) | extra


def _int_or_name(expr: str, bounds: Bounds, dialect: Dialect) -> int:
    lowered = expr.lower()
    if lowered in bounds.names:
        return bounds.low + bounds.names.index(lowered)
    return _atoi_non_negative(expr, bounds, dialect)


def _atoi_non_negative(expr: str, bounds: Bounds, dialect: Dialect) -> int:
    number = atoi(expr)
    if isinstance(number, str):
        raise CronError(
            bounds.name, _message(dialect, f"failed to parse int from {expr}: {number}")
        )
    if number < 0:
        raise CronError(
            bounds.name, _message(dialect, f"negative number ({number}) not allowed: {expr}")
        )
    return number


def atoi(text: str) -> int | str:
    """Go's `strconv.Atoi`: an int, or the text of its error (sign, ASCII digits only)."""
    quoted = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all("0" <= ch <= "9" for ch in digits):
        return f"strconv.Atoi: parsing {quoted}: invalid syntax"
    number = int(text)
    if number > _MAX_INT64 or number < -_MAX_INT64 - 1:
        return f"strconv.Atoi: parsing {quoted}: value out of range"
    return number
