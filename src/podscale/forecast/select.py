"""The forecasters by name, and the choice of one per workload by backtest.

``FORECASTERS`` maps the algorithm names of the autoscalers' specs to factories. ``choose``
holds the last ``holdout`` of the history back, fits each candidate on the rest, and scores
its prediction of the hold-out by mean absolute error relative to the hold-out's mean level
(averaged with the same score on the hold-out before, when the history is long enough).
The naive baselines (``naive``) are always scored too; the best candidate is used only when
it beats the best of them by ``MARGIN`` (10%), refit on the whole history. Otherwise the
``Choice`` carries no forecast and a reason, which the autoscalers report in their
conditions: a workload whose history does not predict it is served by the reactive path
alone, never worse than by it.
A candidate that cannot fit (``ForecastError``) or is not installed is skipped, its reason
kept. ``dsp`` and ``percentile`` (Crane's) are imported only when used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np

from podscale.forecast.adapt import corrected_path
from podscale.forecast.naive import LastValueForecaster, SeasonalNaiveForecaster
from podscale.forecast.prepare import observed, span
from podscale.forecast.seasonal import (
    SEASONAL_HISTORY,
    HoltWintersForecaster,
    MstlForecaster,
)
from podscale.forecast.types import Forecast, Forecaster, ForecastError, Series

__all__ = [
    "BASELINES",
    "DEFAULT_CANDIDATES",
    "DEFAULT_LEAD",
    "FOLDS",
    "FORECASTERS",
    "MARGIN",
    "Choice",
    "choose",
]


def _dsp() -> Forecaster:
    # Crane's models live in their own modules, imported when first asked for (the ignore
    # lets this module type-check where they are not installed yet).
    from podscale.forecast.dsp import DspForecaster  # type: ignore[import-not-found, unused-ignore]

    forecaster: Forecaster = DspForecaster()
    return forecaster


def _percentile() -> Forecaster:
    from podscale.forecast.percentile import (  # type: ignore[import-not-found, unused-ignore]
        PercentileForecaster,
    )

    forecaster: Forecaster = PercentileForecaster()
    return forecaster


FORECASTERS: dict[str, Callable[[], Forecaster]] = {
    "holtWinters": HoltWintersForecaster,
    "mstl": MstlForecaster,
    "dsp": _dsp,
    "percentile": _percentile,
    "seasonalNaive": SeasonalNaiveForecaster,
    "lastValue": LastValueForecaster,
}
DEFAULT_CANDIDATES = ("holtWinters", "mstl", "dsp")
BASELINES = ("seasonalNaive", "lastValue")
# A hold-out is a day or two: a model must beat the best baseline by more than their luck.
# With one hold-out and no margin, Holt-Winters "beat" the last value on about half of the
# random walks tried (by a few percent); with two hold-outs and the margin, on 1 of 12.
MARGIN = 0.1
FOLDS = 2
# How far ahead the autoscalers read a forecast when nobody says (a pod's 90 s to Ready,
# a 15 s sync and a 60 s metrics resolution, rounded up): the lead of the calibration.
DEFAULT_LEAD = timedelta(minutes=3)


@dataclass(frozen=True, slots=True)
class Choice:
    """The forecast to use (None: none), the model it came from, every scored model's
    relative hold-out error by name, and why, in words for a condition message. ``short``:
    there is no forecast because the history is too short to choose (more of it may yet
    make one), as opposed to no model beating the baselines."""

    forecast: Forecast | None
    model: str | None
    errors: Mapping[str, float] = field(default_factory=dict)
    reason: str = ""
    short: bool = False


def _scores(errors: Mapping[str, float], failures: Mapping[str, str]) -> str:
    scored = [f"{name} {error:.2f}" for name, error in errors.items()]
    failed = [f"{name}: {why}" for name, why in failures.items()]
    return ", ".join(scored + failed)


def _lead_sigma(
    held: Sequence[tuple[np.ndarray, np.ndarray]], lead: timedelta, step: timedelta
) -> float:
    """The standard deviation of the hold-out errors of level-corrected predictions made
    ``lead`` ahead (0 when none could be made)."""
    steps = max(0, round(lead / step))
    errors = []
    for predicted, actual in held:
        path = corrected_path(predicted, actual, steps, step)
        usable = np.isfinite(path) & np.isfinite(actual)
        errors.append(actual[usable] - path[usable])
    joined = np.concatenate(errors) if errors else np.zeros(0)
    return float(np.std(joined)) if joined.shape[0] > 1 else 0.0


def choose(
    history: Series,
    horizon: int,
    *,
    candidates: Sequence[str] = DEFAULT_CANDIDATES,
    holdout: timedelta = timedelta(days=1),
    lead: timedelta = DEFAULT_LEAD,
) -> Choice:
    """The best candidate by backtest on the last ``holdout``, refit on all of ``history``
    and forecasting ``horizon`` steps after it; or no forecast and the reason.

    The history must cover ``SEASONAL_HISTORY`` (two days) to fit plus the hold-out to
    check, counted from its first value (leading NaN steps are history not recorded yet);
    with a second hold-out's length more, the ``FOLDS`` (two) hold-outs before its end are
    each predicted from what precedes them and the errors averaged. ``Choice.errors`` are
    relative to each hold-out's mean level; the forecast's ``backtest_error`` is the
    winner's absolute mean error, in the series' unit. The forecast's ``scale`` is at least
    the spread of the winner's hold-out errors as the autoscalers meet them: each hold-out
    step predicted with the level correction of ``lead`` earlier (``adapt.corrected_path``),
    so every model's quantiles (Crane's DSP has no error model of its own) are calibrated.
    Unknown names raise ValueError: the callers' specs are validated against
    ``FORECASTERS``."""
    unknown = [name for name in candidates if name not in FORECASTERS]
    if unknown:
        raise ValueError(f"unknown forecasters {unknown}; known: {sorted(FORECASTERS)}")
    try:
        filled = observed(history)
    except ForecastError as error:
        return Choice(None, None, {}, str(error))
    covered = len(filled) * filled.step
    needed = SEASONAL_HISTORY + holdout
    if covered < needed:
        return Choice(
            None,
            None,
            {},
            f"history of {span(covered)} is shorter than the {span(needed)} a seasonal model"
            f" needs ({span(SEASONAL_HISTORY)} to fit, {span(holdout)} to check)",
            short=True,
        )
    # Score on the history as recorded: interpolated steps of a hold-out are not scored.
    recorded = history.tail(len(filled)).values
    steps = max(1, int(holdout / history.step))
    # One hold-out is one day's luck: when the history allows, the day before is held out
    # too (fit on what precedes it) and the errors are averaged.
    folds = min(FOLDS, int((covered - SEASONAL_HISTORY) / holdout))
    errors: dict[str, float] = {}
    absolute: dict[str, float] = {}
    failures: dict[str, str] = {}
    # Per model, each fold's prediction of its hold-out and the hold-out itself.
    held: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for fold in range(folds):
        cut = len(recorded) - (fold + 1) * steps
        train = Series(filled.start, filled.step, recorded[:cut])
        actual = recorded[cut : cut + steps]
        known = np.isfinite(actual)
        if not known.any():
            continue
        level = float(np.mean(np.abs(actual[known])))
        for name in dict.fromkeys([*candidates, *BASELINES]):
            if name in failures:
                continue
            try:
                predicted = FORECASTERS[name]().fit(train, steps).mean
            except ForecastError as error:
                failures[name] = str(error)
                continue
            except ImportError as error:
                failures[name] = f"not available ({error})"
                continue
            held.setdefault(name, []).append((predicted, actual))
            mae = float(np.mean(np.abs(predicted[known] - actual[known])))
            absolute[name] = absolute.get(name, 0.0) + mae / folds
            errors[name] = errors.get(name, 0.0) + (mae / level if level > 0 else mae) / folds
    for name in failures:  # a model that failed on one fold is not scored on the others
        errors.pop(name, None)
        absolute.pop(name, None)
    if not errors:
        return Choice(None, None, {}, f"the last {span(holdout)} of the history holds no value")
    where = (
        f"the last {span(holdout)}"
        if folds == 1
        else f"the last {folds} hold-outs of {span(holdout)}"
    )

    baseline = min((errors[name] for name in BASELINES if name in errors), default=np.inf)
    scored = [name for name in candidates if name in errors and name not in BASELINES]
    winner = min(scored, key=lambda name: errors[name], default=None)
    scores = _scores(errors, failures)
    if winner is None or not errors[winner] < (1 - MARGIN) * baseline:
        return Choice(
            None,
            None,
            errors,
            f"no model beats the naive forecast on {where} ({scores})",
        )
    try:
        forecast = FORECASTERS[winner]().fit(history, horizon)
    except ForecastError as error:
        return Choice(None, None, errors, f"{winner} won the backtest but failed to refit: {error}")
    sigma = _lead_sigma(held.get(winner, []), lead, history.step)
    forecast = dataclasses.replace(
        forecast, backtest_error=absolute[winner], scale=np.maximum(forecast.scale, sigma)
    )
    return Choice(
        forecast,
        winner,
        errors,
        f"{winner} beats the naive forecast on {where} ({scores})",
    )
