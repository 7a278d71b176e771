"""Forecasting a workload's demand from its history: pure functions, no clock, no I/O.

``types``: ``Series`` (a regular series, NaN for a missing step), ``Forecast`` (values
ahead with an error scale for quantiles) and the ``Forecaster`` protocol every model
implements, and ``ForecastError`` (``HistoryTooShort`` when more history may yet help).
Models and the selection by backtest live in their own modules of this package.
"""

from podscale.forecast.types import Forecast, Forecaster, ForecastError, HistoryTooShort, Series

__all__ = ["Forecast", "ForecastError", "Forecaster", "HistoryTooShort", "Series"]
