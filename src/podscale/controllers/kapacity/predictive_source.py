"""The Predictive portrait's shell: usage history in, a TimeSeries of replicas out.

Where Kapacity runs an external forecasting job on a schedule and reads the TimeSeries it
writes on a HorizontalPortrait, ``PredictivePortraits`` makes the series in process, per
IHPA and provider, every ``refreshInterval`` (``predictive.PredictiveConfig``; sooner when
the provider's metrics or config change): it reads the target's pods (``reactive.
read_target``, for the requests a Utilization target needs), the history of the first
metric's series (``podscale.history``, written by the usage-history controller for the
target: ``cpu_usage`` / ``memory_usage``, totals over its pods) over ``historyLength`` at
``sampleInterval``, fits it with ``controllers.phpa.forecasting.fit_series`` (``model``:
``auto`` backtests, else a ``podscale.forecast.select.FORECASTERS`` name) and turns the
forecast into points (``predictive.time_series``). Each reconcile offers the point in
force (``predictive.value_now``) and says when the offer changes next (the next point, or
the next refit), which the controller wakes for.

Without a history store, enough history or a forecastable metric there is no new series:
the reason is logged (as the Reactive portrait does), the last series is kept until it
expires (Kapacity keeps a HorizontalPortrait's data until its expiry), and the next try
comes a ``sampleInterval`` later.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from dataclasses import dataclass

from podscale.controllers.kapacity.portraits import PortraitValue
from podscale.controllers.kapacity.predictive import (
    PredictiveConfig,
    PredictiveError,
    TimeSeriesPortrait,
    per_pod_target,
    read_config,
    time_series,
    value_now,
)
from podscale.controllers.kapacity.provider_spec import DynamicProvider
from podscale.controllers.kapacity.reactive import ReactiveError, read_target
from podscale.controllers.kapacity.reading import KapacityError
from podscale.controllers.kapacity.types import Ihpa
from podscale.controllers.phpa.forecasting import Fit, fit_series
from podscale.controllers.runtime_api import ControllerApi
from podscale.forecast.types import ForecastError, Series
from podscale.history import SeriesKey, SeriesReader

__all__ = ["PROVIDER", "PredictivePortraits"]

_LOG = logging.getLogger(__name__)
PROVIDER = "Dynamic-Predictive"


@dataclass(frozen=True, slots=True)
class _Held:
    portrait: TimeSeriesPortrait | None
    next_fit: dt.datetime
    signature: str


def _floor(now: dt.datetime, step: dt.timedelta) -> dt.datetime:
    return now - (now - dt.datetime.min.replace(tzinfo=now.tzinfo)) % step


class PredictivePortraits:
    """The TimeSeries per ``(object key, provider index)``; see the module docstring."""

    def __init__(
        self, api: ControllerApi, history: SeriesReader | None, fit: Fit = fit_series
    ) -> None:
        self._api = api
        self._history = history
        self._fit = fit
        self._held: dict[str, dict[int, _Held]] = {}

    def forget(self, key: str) -> None:
        self._held.pop(key, None)

    async def offer(
        self, key: str, index: int, ihpa: Ihpa, spec: DynamicProvider, now: dt.datetime
    ) -> tuple[PortraitValue | None, dt.datetime | None]:
        """The value in force now and when to look again."""
        signature = repr((spec.metrics, spec.algorithm.config))
        held = self._held.setdefault(key, {})
        last = held.get(index)
        if last is None or last.signature != signature or now >= last.next_fit:
            last = await self._refit(key, index, ihpa, spec, now, signature, last)
            held[index] = last
        if last.portrait is None:
            return None, last.next_fit
        value, changes = value_now(last.portrait, PROVIDER, now)
        return value, last.next_fit if changes is None else min(changes, last.next_fit)

    async def _refit(
        self,
        key: str,
        index: int,
        ihpa: Ihpa,
        spec: DynamicProvider,
        now: dt.datetime,
        signature: str,
        last: _Held | None,
    ) -> _Held:
        path = f"spec.portraitProviders[{index}].dynamic.algorithm.config"
        try:
            config = read_config(spec.algorithm.config, path)
        except KapacityError as err:
            config = PredictiveConfig()
            reason = str(err)
        else:
            try:
                portrait = await self._generate(ihpa, spec, config, now)
            except (PredictiveError, ReactiveError, ForecastError) as err:
                reason = str(err)
            else:
                return _Held(portrait, now + config.refresh, signature)
        _LOG.info("predictive portrait of %s not generated: %s", key, reason)
        kept = None if last is None or last.signature != signature else last.portrait
        return _Held(kept, now + config.step, signature)

    async def _generate(
        self, ihpa: Ihpa, spec: DynamicProvider, config: PredictiveConfig, now: dt.datetime
    ) -> TimeSeriesPortrait:
        if self._history is None:
            raise PredictiveError("the controller has no history store")
        if not spec.metrics:
            raise PredictiveError("the provider lists no metrics to forecast")
        target = ihpa.spec.target
        _, _, pods = await read_target(self._api, ihpa.namespace, target.to_json())
        series_name, share = per_pod_target(spec.metrics[0], pods)
        key = SeriesKey(ihpa.namespace, target.kind, target.name, series_name)
        end = _floor(now, config.step)
        start = end - config.history
        points = self._history.read(key, start, end, config.step)
        if not points:
            raise PredictiveError(f"no history of {key.text()} in the last {config.history}")
        series = Series.from_points(points, start=start, end=end, step=config.step)
        horizon = math.ceil((config.horizon + config.step + config.lead) / config.step)
        fitted = self._fit(series, horizon, config.model)
        if fitted.forecast is None:
            raise PredictiveError(f"{fitted.reason}: {fitted.message}")
        return time_series(fitted.forecast, share, end, config)
