"""What the EffectiveHorizontalPodAutoscaler's schema cannot check: pure, one message each.

``spec_errors`` lists the problems of a read spec (``types.EhpaSpec``) as ``field: why``:
``maxReplicas`` below ``minReplicas`` (or below 1), ``specificReplicas`` negative, an
unknown ``algorithmType``, a cron with a duplicate name, a ``start``/``end`` that is no
standard five-field cron (robfig/cron's ``ParseStandard``, as Crane reads them) or an
unknown ``timezone`` (an IANA name, ``UTC`` or ``Local``). The controller reports them
(``Ready`` False, reason ``InvalidSpec``) instead of generating an HPA that cannot work;
Crane finds the cron ones only when its metric adapter fails to serve the cron metric.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from podscale.controllers.ehpa.types import EhpaSpec
from podscale.cron import CronError, parse

__all__ = ["ALGORITHMS", "spec_errors", "zone_of"]

ALGORITHMS = ("dsp", "percentile")


def zone_of(name: str | None, local: ZoneInfo) -> ZoneInfo:
    """A cron's zone: UTC when unset, the controller's own for ``Local``. Raises
    ``ValueError`` for an unknown name."""
    if not name or name == "UTC":
        return ZoneInfo("UTC")
    if name == "Local":
        return local
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}") from None


def spec_errors(spec: EhpaSpec) -> list[str]:
    errors: list[str] = []
    if spec.max_replicas < 1:
        errors.append(f"spec.maxReplicas: must be at least 1, got {spec.max_replicas}")
    elif spec.max_replicas < spec.min_replicas:
        errors.append(
            f"spec.maxReplicas: must be greater than or equal to minReplicas "
            f"({spec.min_replicas}), got {spec.max_replicas}"
        )
    if spec.specific_replicas is not None and spec.specific_replicas < 0:
        errors.append(f"spec.specificReplicas: must be non-negative, got {spec.specific_replicas}")
    p = spec.prediction
    if p is not None and p.algorithm is not None and p.algorithm not in ALGORITHMS:
        errors.append(
            f"spec.prediction.predictionAlgorithm.algorithmType: unsupported value "
            f"{p.algorithm!r}: supported values: {', '.join(ALGORITHMS)}"
        )
    if p is not None and p.window_seconds is not None and p.window_seconds <= 0:
        errors.append("spec.prediction.predictionWindowSeconds: must be positive")
    seen: set[str] = set()
    for i, cron in enumerate(spec.crons):
        path = f"spec.crons[{i}]"
        if cron.name in seen:
            errors.append(f"{path}.name: duplicate cron name {cron.name!r}")
        seen.add(cron.name)
        for part, text in (("start", cron.start), ("end", cron.end)):
            try:
                parse(text, "standard")
            except CronError as err:
                errors.append(f"{path}.{part}: {err}")
        try:
            zone_of(cron.timezone, ZoneInfo("UTC"))
        except ValueError as err:
            errors.append(f"{path}.timezone: {err}")
        if cron.target_replicas < 0:
            errors.append(f"{path}.targetReplicas: must be non-negative")
    return errors
