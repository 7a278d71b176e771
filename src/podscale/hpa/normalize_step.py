"""The normalization step of ``decide``: stabilize, then limit, recording conditions.

Upstream's ``normalizeDesiredReplicas`` (no ``behavior``) and
``normalizeDesiredReplicasWithBehaviors`` wrap the pure building blocks of ``normalize``
and ``policies`` with the ``AbleToScale`` and ``ScalingLimited`` conditions. This module
does the same and also records the stabilization and limit traces, including what each
scaling policy alone would allow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import podscale.hpa.conditions as c
from podscale.hpa.normalize import (
    LIMIT_MESSAGES,
    STABILIZATION_MESSAGES,
    clamp_to_rate_limit,
    legacy_scale_up_limit,
    limit_legacy,
    stabilize_recommendation,
    stabilize_with_behavior,
)
from podscale.hpa.policies import policy_proposals, select_limit
from podscale.hpa.sync import SyncRecorder
from podscale.hpa.trace import LimitTrace, PolicyTrace, StabilizationTrace
from podscale.hpa.types import Config, History

__all__ = ["normalize_desired_replicas"]


def _policy_traces(
    proposals: Sequence[tuple[Mapping[str, Any], int]],
) -> tuple[PolicyTrace, ...]:
    return tuple(
        PolicyTrace(
            str(policy.get("type", "")),
            int(policy.get("value", 0)),
            int(policy.get("periodSeconds", 0)),
            allows,
        )
        for policy, allows in proposals
    )


def normalize_desired_replicas(
    sync: SyncRecorder,
    history: History,
    desired_replicas: int,
    *,
    current_replicas: int,
    min_replicas: int,
    max_replicas: int,
    behavior: dict[str, Any] | None,
    config: Config,
) -> tuple[int, StabilizationTrace, LimitTrace]:
    """normalizeDesiredReplicas / ...WithBehaviors: stabilize, then limit, with conditions."""
    now = sync.now
    seen = tuple(history.recommendations)
    if behavior is None:
        stabilized = stabilize_recommendation(history, desired_replicas, now=now, config=config)
        reason = c.SCALE_DOWN_STABILIZED
        up_window = None
        down_window = config.downscale_stabilization.total_seconds()
    else:
        stabilized, reason = stabilize_with_behavior(
            history,
            desired_replicas,
            current_replicas=current_replicas,
            behavior=behavior,
            now=now,
            config=config,
        )
        up_window = float(behavior["scaleUp"].get("stabilizationWindowSeconds") or 0)
        down = behavior["scaleDown"].get("stabilizationWindowSeconds")
        down_window = (
            config.downscale_stabilization.total_seconds() if down is None else float(down)
        )
    if stabilized != desired_replicas:
        sync.condition(c.ABLE_TO_SCALE, "True", reason, STABILIZATION_MESSAGES[reason])
    else:
        reason = c.READY_FOR_NEW_SCALE
        sync.condition(c.ABLE_TO_SCALE, "True", reason, STABILIZATION_MESSAGES[reason])
    stab_trace = StabilizationTrace(
        "legacy" if behavior is None else "behavior",
        seen,
        down_window,
        up_window,
        desired_replicas,
        stabilized,
        reason,
    )
    direction = (
        "up"
        if stabilized > current_replicas
        else "down"
        if stabilized < current_replicas
        else "none"
    )
    rate_limit: int | None = None
    select_policy: str | None = None
    policies: tuple[PolicyTrace, ...] = ()
    if behavior is None:
        limited, limit_reason = limit_legacy(
            stabilized,
            current_replicas=current_replicas,
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            config=config,
        )
        if direction == "up":
            rate_limit = legacy_scale_up_limit(current_replicas, config=config)
    else:
        # limit_by_policies, unrolled so the trace keeps each policy's proposal.
        if direction != "none":
            rules = behavior["scaleUp" if direction == "up" else "scaleDown"]
            sign = 1 if direction == "up" else -1
            proposals = policy_proposals(
                current_replicas, rules=rules, history=history, now=now, direction=sign
            )
            rate_limit = select_limit(
                current_replicas, rules=rules, proposals=proposals, direction=sign
            )
            select_policy = str(rules.get("selectPolicy", "Max"))
            policies = _policy_traces(proposals)
        limited, limit_reason = clamp_to_rate_limit(
            stabilized,
            current_replicas=current_replicas,
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            rate_limit=rate_limit,
        )
    limited_flag = "True" if limited != stabilized else "False"
    sync.condition(c.SCALING_LIMITED, limited_flag, limit_reason, LIMIT_MESSAGES[limit_reason])
    limit_trace = LimitTrace(
        stabilized,
        limited,
        limit_reason,
        min_replicas,
        max_replicas,
        direction,
        rate_limit,
        select_policy,
        policies,
    )
    return limited, stab_trace, limit_trace
