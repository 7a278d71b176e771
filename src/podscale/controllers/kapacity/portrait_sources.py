"""What each of an IHPA's portrait providers offers now, and when it may offer something else.

``offer_of`` turns one ``types.PortraitProvider`` into a ``reconcile.ProviderResult``
(an offer with the provider's priority, or Kapacity's error text) plus the instant the
offer may next change, which the controller shell uses to wake itself (Kapacity's cron
provider triggers a reconcile at each rule's start and end; podscale's work queue
``add_after`` does the same on virtual time):
- Static: ``portraits.static_portrait``, never expiring, never changing by itself;
- Cron: ``cron_portrait.cron_portrait`` over the rules; the next change is the earliest
  next start or end fire time of any rule;
- Dynamic: the value is computed by the caller (``reactive``, through a metrics client)
  and handed in as ``dynamic``; a Dynamic provider with no value yet offers nothing.
Kapacity's provider identifiers: "Static", "Cron", "Dynamic-<portraitType>".
Pure: ``now`` is a parameter.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from podscale.controllers.kapacity import cron_portrait as cron
from podscale.controllers.kapacity.portraits import PortraitOffer, PortraitValue, static_portrait
from podscale.controllers.kapacity.reconcile import ProviderResult
from podscale.controllers.kapacity.types import PortraitProvider, ProviderType
from podscale.cron import CronError, parse

__all__ = ["Sourced", "dynamic_provider_id", "offer_of"]


@dataclass(frozen=True, slots=True)
class Sourced:
    result: ProviderResult
    changes_at: dt.datetime | None = None


def dynamic_provider_id(portrait_type: str) -> str:
    return f"{ProviderType.DYNAMIC.value}-{portrait_type}"


def _cron_edges(provider: PortraitProvider, now: dt.datetime) -> dt.datetime | None:
    soonest: dt.datetime | None = None
    for rule in provider.crons or ():
        try:
            zone = cron.load_zone(rule.time_zone)
            edges = [
                parse(spec, "standard").next_after(now, zone) for spec in (rule.start, rule.end)
            ]
        except (CronError, cron.CronPortraitError):
            continue  # reported by cron_portrait
        for edge in edges:
            if edge is not None and (soonest is None or edge < soonest):
                soonest = edge
    return soonest


def offer_of(
    provider: PortraitProvider, now: dt.datetime, dynamic: PortraitValue | None = None
) -> Sourced:
    """``provider``'s offer now; ``dynamic`` is a Dynamic provider's computed value."""
    if provider.type == ProviderType.STATIC and provider.static_replicas is not None:
        value = static_portrait(provider.static_replicas)
        return Sourced(ProviderResult(PortraitOffer(provider.priority, value)))
    if provider.type == ProviderType.CRON and provider.crons is not None:
        rules = [
            cron.ReplicaCron(r.name, r.start, r.end, r.replicas, r.time_zone)
            for r in provider.crons
        ]
        try:
            found = cron.cron_portrait(rules, now)
        except cron.CronPortraitError as exc:
            return Sourced(ProviderResult(error=f"failed to fetch portrait value: {exc}"))
        return Sourced(
            ProviderResult(PortraitOffer(provider.priority, found)), _cron_edges(provider, now)
        )
    if provider.type == ProviderType.DYNAMIC and provider.dynamic is not None:
        return Sourced(ProviderResult(PortraitOffer(provider.priority, dynamic)))
    # validation.portrait_problem reports an unknown type or a missing part first.
    return Sourced(ProviderResult(error=f'unknown portrait provider type "{provider.type}"'))
