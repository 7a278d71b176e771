"""The PHPA's stored model document (``prediction.model_document``) and the minute its
history reads end at; the decision reshaping (invalid spec, Preview mode) is exercised end
to end in tests/integration/controllers/test_phpa.py."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from podscale.controllers.phpa.forecasting import Fitted
from podscale.controllers.phpa.prediction import Model, minute, model_document
from podscale.forecast.types import Forecast

AT = datetime(2026, 3, 2, 9, 30, 10, 250000, tzinfo=UTC)
FORECAST = Forecast("holt", AT, timedelta(minutes=1), np.arange(1.0, 4.0), np.full(3, 0.5))
SIGNATURE = ("default/Deployment/web/cpu", "auto", timedelta(days=1))


def model(fitted: Fitted) -> Model:
    return Model(fitted, AT, SIGNATURE, AT + timedelta(minutes=30))


@pytest.mark.parametrize(
    ("fitted", "expected"),
    [
        (
            Fitted(FORECAST, "holt", 0.25, "ModelFitted", "fitted"),
            {"model": "holt", "backtestError": 0.25},
        ),
        (Fitted(FORECAST, "holt", math.inf, "ModelFitted", "fitted"), {"model": "holt"}),
        (Fitted(FORECAST, "holt", None, "ModelFitted", "fitted"), {"model": "holt"}),
        (Fitted(None, "holt", 0.5, "NoModel", "too short"), {"backtestError": 0.5}),
        (Fitted(None, None, None, "HistoryUnavailable", "no history"), {}),
    ],
    ids=["fitted", "non-finite-error-left-out", "no-error", "no-forecast-no-model", "nothing"],
)
def test_model_document_entry(fitted: Fitted, expected: dict[str, Any]) -> None:
    document = model_document({"cpu": model(fitted)})
    entry = document["series"]["cpu"]
    assert entry == {
        "fittedAt": "2026-03-02T09:30:10Z",
        "reason": fitted.reason,
        "message": fitted.message,
        **expected,
    }


def test_model_document_orders_series_by_name() -> None:
    fitted = Fitted(None, None, None, "HistoryUnavailable", "no history")
    document = model_document({"rps": model(fitted), "cpu": model(fitted)})
    assert list(document["series"]) == ["cpu", "rps"]


def test_minute_truncates_seconds_and_microseconds() -> None:
    assert minute(AT) == datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
