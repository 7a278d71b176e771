"""KEDA's `cron` scaler: `desiredReplicas` inside the start/end window, 1 outside it.

The window rule and the value are `podscale.controllers.keda.triggers.cron`'s
(`cron_active`, `cron_desired`); this module only makes them a `Scaler`. The trigger is
active exactly inside its window. A time zone that cannot be loaded fails the read
(KEDA loads it at read time too) with KEDA's `unable to load timezone: ...` text.
"""

from __future__ import annotations

from datetime import datetime

from podscale.controllers.keda.scalers.base import ScalerError, ScalerReading
from podscale.controllers.keda.triggers.cron import INACTIVE_VALUE, CronTrigger, cron_active
from podscale.controllers.keda.triggers.spec import TriggerError

__all__ = ["CronScaler"]


class CronScaler:
    def __init__(self, trigger: CronTrigger) -> None:
        self.trigger = trigger

    async def read(self, now: datetime) -> ScalerReading:
        try:
            active = cron_active(self.trigger, now)
        except TriggerError as err:
            raise ScalerError(str(err)) from None
        value = self.trigger.desired_replicas if active else INACTIVE_VALUE
        return ScalerReading(float(value), active)

    async def close(self) -> None:
        return None
