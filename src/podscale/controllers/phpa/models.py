"""Each PHPA's fitted forecast models, refit on their refresh, and the demand they predict.

``controllers.phpa.predict`` asks ``SeriesModels`` once per sync and forecast series:
``model`` returns the series' last fit (``prediction.Model``) unless its refresh is due or
what it was fitted on changed, in which case it reads the series' history from the history
store (``podscale.history``) and fits it (``forecasting.fit_series`` by default); ``demand``
reads the forecast over ``[now, now + lead]`` corrected by the recent actual series
(``forecasting.peak_demand``). The fit and the correction are injected, so tests can pin
them. The models live in memory only: a restarted controller refits at its first sync.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Final

from podscale.controllers.phpa.decisions import REASON_NO_MODEL, REASON_UNAVAILABLE
from podscale.controllers.phpa.forecasting import Correct, Fit, Fitted, peak_demand
from podscale.controllers.phpa.prediction import Model, minute
from podscale.controllers.phpa.types import PredictionSpec
from podscale.forecast.types import ForecastError, Series
from podscale.history import HistoryStore, SeriesKey

__all__ = ["MARGIN", "RECENT", "RETRY", "STEP", "SeriesModels"]

STEP: Final = timedelta(minutes=1)
# The actual series the forecast's level is corrected against.
RECENT: Final = timedelta(minutes=30)
# Forecast this far past the next refit and lead, so a late refit still finds a forecast.
MARGIN: Final = timedelta(minutes=15)
# A fit that found no model is retried sooner than a refresh: history may just be arriving.
RETRY: Final = timedelta(minutes=15)


class SeriesModels:
    """Per PHPA key, the last fit of each forecast series; see the module docstring."""

    def __init__(self, series: HistoryStore, fit: Fit, correct: Correct) -> None:
        self._series = series
        self._fit = fit
        self._correct = correct
        self._models: dict[str, dict[str, Model]] = {}

    def of(self, key: str) -> dict[str, Model] | None:
        """The PHPA's models by series name (None before its first fit)."""
        return self._models.get(key)

    def forget(self, key: str) -> None:
        """Drop a deleted PHPA's models."""
        self._models.pop(key, None)

    def model(
        self,
        key: str,
        series_key: SeriesKey,
        settings: PredictionSpec,
        lead: timedelta,
        now: datetime,
    ) -> Model:
        """The series' model, refit when its refresh is due or its inputs changed."""
        models = self._models.setdefault(key, {})
        signature = (series_key.text(), settings.algorithm, settings.history)
        known = models.get(series_key.series)
        if known is not None and known.signature == signature and now < known.next_fit:
            return known
        end = minute(now)
        start = end - settings.history
        points = self._series.read(series_key, start, end, STEP)
        if not points:
            message = f"no history of {series_key.text()} in the last {settings.history}"
            fitted = Fitted(None, None, None, REASON_UNAVAILABLE, message)
        else:
            series = Series.from_points(points, start=start, end=end, step=STEP)
            horizon = math.ceil((settings.refresh_interval + lead + MARGIN) / STEP)
            try:
                fitted = self._fit(series, horizon, settings.algorithm)
            except ForecastError as err:
                fitted = Fitted(None, None, None, REASON_NO_MODEL, str(err))
        wait = settings.refresh_interval if fitted.forecast is not None else RETRY
        model = Model(fitted, now, signature, now + min(wait, settings.refresh_interval))
        models[series_key.series] = model
        return model

    def demand(
        self,
        model: Model,
        series_key: SeriesKey,
        settings: PredictionSpec,
        lead: timedelta,
        now: datetime,
    ) -> float | None:
        """The peak demand the model forecasts within the lead, corrected by the recent
        actual series (None without a forecast)."""
        forecast = model.fitted.forecast
        if forecast is None:
            return None
        end = minute(now)
        recent = Series.from_points(
            self._series.read(series_key, end - RECENT, end, STEP),
            start=end - RECENT,
            end=end,
            step=STEP,
        )
        return peak_demand(
            forecast,
            recent,
            now=now,
            lead=lead,
            quantile=settings.quantile,
            correct=self._correct,
        )
