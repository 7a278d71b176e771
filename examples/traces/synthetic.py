"""Generate the synthetic seasonal traces of this directory (deterministic: fixed seed).

Each trace is eight days of requests per minute (``minute,requests``, the format
``podscale.runtime.load.TraceRate`` reads), so a replay can score day eight with the seven
days before it as history (``podscale replay --trace FILE --from 10080m --duration 1440m
--history 7d``). Minute 0 is a Monday 00:00. Shapes (requests per minute, before noise):

- ``synthetic-daily.csv``: a daily cycle, 100 at 04:00 to 500 at 16:00 (a raised cosine);
- ``synthetic-weekly.csv``: the same on weekdays, a third of the swing on Saturday and
  Sunday (day 8, scored, is the Monday after the weekend);
- ``synthetic-spike.csv``: 140 all day with a short burst to 700 from 09:00 to 09:20 each day
  (a rise from base to burst in one minute);
- ``synthetic-trend.csv``: the daily cycle growing 8% a day (day 8 is 1.7x day 1);
- ``synthetic-random-walk.csv``: no season at all: a geometric random walk (1.5% per minute,
  pulled gently back towards 250, kept within 60..650).

Every minute is multiplied by Gaussian noise N(1, 0.05) and rounded. Run from the
repository root: ``python3 examples/traces/synthetic.py`` rewrites the five files
byte-for-byte.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

SEED = 20261126
DAYS = 8
MINUTES = DAYS * 1440
NOISE = 0.05
HERE = Path(__file__).resolve().parent


def daily(minute: int) -> float:
    """100 at 04:00, 500 at 16:00."""
    phase = 2 * math.pi * ((minute % 1440) - 240) / 1440
    return 100 + 400 * (1 - math.cos(phase)) / 2


def weekly(minute: int) -> float:
    weekend = (minute // 1440) % 7 >= 5
    return 100 + (daily(minute) - 100) * (1 / 3 if weekend else 1)


def spike(minute: int) -> float:
    return 700.0 if 540 <= minute % 1440 < 560 else 140.0


def trend(minute: int) -> float:
    return daily(minute) * 1.08 ** (minute / 1440)


def random_walk(rng: np.random.Generator) -> list[float]:
    level, values = math.log(250), []
    for step in rng.normal(0, 0.015, MINUTES):
        level += step + 0.002 * (math.log(250) - level)
        level = min(max(level, math.log(60)), math.log(650))
        values.append(math.exp(level))
    return values


def write(name: str, values: list[float], rng: np.random.Generator) -> None:
    noise = rng.normal(1, NOISE, len(values))
    rows = [
        f"{m},{max(0, round(v * n))}\n" for m, (v, n) in enumerate(zip(values, noise, strict=True))
    ]
    (HERE / name).write_text("minute,requests\n" + "".join(rows), encoding="utf-8")


def main() -> None:
    rng = np.random.default_rng(SEED)
    shapes: dict[str, Callable[[int], float]] = {
        "synthetic-daily.csv": daily,
        "synthetic-weekly.csv": weekly,
        "synthetic-spike.csv": spike,
        "synthetic-trend.csv": trend,
    }
    for name, shape in shapes.items():
        write(name, [shape(m) for m in range(MINUTES)], rng)
    write("synthetic-random-walk.csv", random_walk(rng), rng)


if __name__ == "__main__":
    main()
