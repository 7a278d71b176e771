"""Health endpoints as upstream's apiserver serves them: ``/livez``, ``/readyz``, ``/healthz``.

``app._route`` calls ``render_health`` for the three paths. Each endpoint runs a list of
named checks: every endpoint has ``ping`` (the server answers), and ``/readyz`` adds the
readiness checks of ``ServerState.readiness_sources`` (the embedded plane's
``podscale.client.supervisor.Supervisor`` registers one per supervised component, failing
while that component waits out a restart backoff), so a component in backoff makes
``/readyz`` fail while ``/livez`` stays ok.

The output is upstream's (k8s.io/apiserver ``healthz``): ``ok`` when every check passes;
with ``?verbose`` one ``[+]name ok`` line per check and ``<endpoint> check passed``; on any
failure always the verbose listing with ``[-]name failed: reason withheld`` (the endpoints
are anonymous, so reasons stay out of them) and ``<endpoint> check failed``, with status
500. ``?exclude=name`` (repeatable) skips a check (``[+]name excluded: ok``) and warns
about names that match no check. ``/readyz/<name>`` runs one check: ``ok``, or 500 with
``internal server error: <reason>``, as upstream's per-check handlers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["HEALTH_ENDPOINTS", "HealthCheck", "HealthResponse", "render_health"]

HEALTH_ENDPOINTS: Final = ("healthz", "livez", "readyz")


@dataclass(frozen=True, slots=True)
class HealthCheck:
    """A named check: ``check()`` returns None when healthy, else the (private) reason."""

    name: str
    check: Callable[[], str | None]


@dataclass(frozen=True, slots=True)
class HealthResponse:
    """What to answer: the status code and the plain-text body."""

    status: int
    body: str


PING: Final = HealthCheck("ping", lambda: None)


def _checks_for(
    endpoint: str, readiness: Sequence[HealthCheck], liveness: Sequence[HealthCheck]
) -> list[HealthCheck]:
    # Liveness is the server itself: a component in backoff is alive, only not ready.
    return [PING, *readiness] if endpoint == "readyz" else [PING, *liveness]


def render_health(
    endpoint: str,
    check_name: str | None,
    *,
    verbose: bool,
    excluded: Sequence[str],
    readiness: Sequence[HealthCheck],
    liveness: Sequence[HealthCheck] = (),
) -> HealthResponse | None:
    """The answer for ``/<endpoint>`` (``check_name`` None) or ``/<endpoint>/<check_name>``;
    None when no such check exists (the caller answers 404). ``liveness`` adds checks to
    ``/healthz`` and ``/livez`` (``podscale controller-manager``'s ``leaderElection``)."""
    checks = _checks_for(endpoint, readiness, liveness)
    if check_name is not None:
        for check in checks:
            if check.name == check_name:
                reason = check.check()
                if reason is None:
                    return HealthResponse(200, "ok")
                return HealthResponse(500, f"internal server error: {reason}\n")
        return None
    unmatched = list(dict.fromkeys(excluded))
    lines: list[str] = []
    failed = False
    for check in checks:
        if check.name in unmatched:
            unmatched.remove(check.name)
            lines.append(f"[+]{check.name} excluded: ok\n")
            continue
        if check.check() is None:
            lines.append(f"[+]{check.name} ok\n")
        else:
            failed = True
            lines.append(f"[-]{check.name} failed: reason withheld\n")
    if unmatched:
        quoted = ",".join(f'"{name}"' for name in sorted(unmatched))
        lines.append(f"warn: some health checks cannot be excluded: no matches for {quoted}\n")
    listing = "".join(lines)
    if failed:
        # Go's http.Error ends the body with a newline.
        return HealthResponse(500, f"{listing}{endpoint} check failed\n")
    if not verbose:
        return HealthResponse(200, "ok")
    return HealthResponse(200, f"{listing}{endpoint} check passed\n")
