"""Publishing an EffectiveHorizontalPodAutoscaler's two external metrics, per sync.

Crane splits this between its TimeSeriesPrediction (fitting), its metric collector and its
adapter (serving); ``Publisher`` is that part of one controller, in memory:

- ``predict`` refits the forecasts that are due (``forecasting.due`` / ``fit``, per EHPA
  and prediction identifier), sets the EHPA's ``crane_autoscaling_prediction`` series (the
  largest forecast of the window, ``decisions.prediction_value``, labelled as
  ``metrics.selector_labels`` plus ``algorithm``) and returns the per-pod ``averageValue``
  of each metric that has a prediction, with the reasons of the others (for
  ``status.prediction_ready``). Only the identifiers of ``metrics.FORECAST_SERIES`` are
  forecast; a ``Utilization`` target with no available pod is Crane's error
  (``status.Failed`` ``FailedReconcileHPA``).
- ``publish_cron`` sets the ``crane_autoscaling_cron`` series (``decisions.cron_value``).
- ``no_prediction`` / ``forget`` drop an EHPA's fits and series.
The series go to the plane's external metrics through ``published.Published``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from podscale.api import Quantity
from podscale.apiserver.metricsapis.providers import ExternalMetricsWriter
from podscale.apiserver.metricsapis.samples import Labels
from podscale.controllers.ehpa import decisions, forecasting, metrics
from podscale.controllers.ehpa.kind import CRON_METRIC, PREDICTION_METRIC
from podscale.controllers.ehpa.published import Published, as_quantity
from podscale.controllers.ehpa.status import Failed
from podscale.controllers.ehpa.types import EhpaSpec
from podscale.history import SeriesKey, SeriesReader

__all__ = ["Publisher"]

JSON = dict[str, Any]


class Publisher:
    """The fits and published series of every EHPA (see the module docstring)."""

    def __init__(
        self,
        writer: ExternalMetricsWriter | None,
        history: SeriesReader | None,
        zone: ZoneInfo,
        make: forecasting.ForecasterFactory,
    ) -> None:
        self.published = Published(writer)
        self._history = history
        self._zone = zone
        self._make = make
        # Per EHPA key, per prediction identifier: the latest fit.
        self._fits: dict[str, dict[str, forecasting.Fit]] = {}

    def forget(self, key: str) -> None:
        """The EHPA is gone: drop its fits and every series it published."""
        self._fits.pop(key, None)
        self.published.forget(key)

    def no_prediction(self, key: str, namespace: str) -> None:
        """Prediction is off: drop the EHPA's fits and prediction series."""
        self._fits.pop(key, None)
        self.published.set(key, namespace, PREDICTION_METRIC, {})

    def fit_of(self, key: str, identifier: str) -> forecasting.Fit | None:
        """The latest fit of one metric of one EHPA (for tests and describe)."""
        return self._fits.get(key, {}).get(identifier)

    def predict(
        self,
        key: str,
        namespace: str,
        spec: EhpaSpec,
        pods: Sequence[Mapping[str, Any]],
        now: datetime,
    ) -> tuple[dict[str, str], list[str]]:
        """Refit what is due, publish the predictions; the ``averageValue`` of each
        identifier with one, and why the others have none."""
        prediction = spec.prediction
        assert prediction is not None
        assert prediction.window_seconds is not None
        fits = self._fits.setdefault(key, {})
        predicted: dict[str, str] = {}
        series: dict[Labels, Quantity] = {}
        reasons: list[str] = []
        for metric in spec.metrics:
            identifier = metrics.prediction_identifier(metric)
            name = metrics.FORECAST_SERIES.get(identifier or "")
            if identifier is None or name is None:
                continue
            if self._history is None:
                reasons.append("no history store")
                continue
            fit = fits.get(identifier)
            if forecasting.due(fit, prediction, now):
                series_key = SeriesKey(namespace, spec.target.kind, spec.target.name, name)
                fit = forecasting.fit(self._history, series_key, prediction, now, self._make)
                fits[identifier] = fit
            assert fit is not None
            if fit.forecast is None:
                reasons.append(f"{identifier}: {fit.reason}")
                continue
            value = decisions.prediction_value(fit.forecast, now, prediction.window_seconds)
            if value is None:
                reasons.append(f"{identifier}: the forecast is outdated")
                continue
            target = metrics.prediction_target(metric, pods)
            if target is None:
                raise Failed(
                    "FailedReconcileHPA",
                    "failed to get available pods. ",
                    ("Warning", "FailedCreateHPAObject"),
                )
            labels = metrics.selector_labels(spec, namespace, identifier)
            labels["algorithm"] = prediction.algorithm or ""
            series[tuple(sorted(labels.items()))] = as_quantity(value)
            predicted[identifier] = target
        self.published.set(key, namespace, PREDICTION_METRIC, series)
        return predicted, reasons

    def publish_cron(
        self, key: str, namespace: str, spec: EhpaSpec, replicas: int, count: int, now: datetime
    ) -> None:
        """Set the EHPA's cron series (none without crons). ``replicas``: the target's
        current replicas; ``count``: the generated HPA's metrics, the cron's included."""
        if not spec.cron_enabled:
            self.published.set(key, namespace, CRON_METRIC, {})
            return
        value = decisions.cron_value(
            spec, now, self._zone, current_replicas=replicas, hpa_metrics=count
        )
        labels = metrics.selector_labels(spec, namespace, metrics.CRON_IDENTIFIER)
        self.published.set(
            key, namespace, CRON_METRIC, {tuple(sorted(labels.items())): as_quantity(value)}
        )
