"""The wall clock, for production: the only place in ``podscale.store`` that reads it.

``interface.Clock`` is the protocol; the backends (``memory``, ``sqlite``) take any clock so
simulations can drive them with virtual time. ``objects.format_timestamp`` renders what a
clock returns the way upstream stores ``metav1.Time``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from podscale.store.interface import Clock

__all__ = ["Clock", "SystemClock"]


class SystemClock:
    """Real time, timezone-aware UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)
