"""The one error `podscale.cron` raises for bad schedule text.

`CronError.field` names the part of the spec at fault ("minute", "day-of-week",
"@every", "spec", ...) so that `podscale.controllers.cronhpa` can build a field path
and message from it; `str()` reads "<field>: <message>", the message worded as the go
cron library of that dialect words it.
"""

from __future__ import annotations


class CronError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
