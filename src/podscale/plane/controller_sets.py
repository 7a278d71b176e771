"""Which controllers an embedded control plane runs, and what they bring to its server.

``plane.embedded.EmbeddedControlPlane`` takes a ``ControllerFactory`` (``default_controllers``:
every controller of ``podscale.controllers.registry``; ``controllers_from_flag``: the subset
``--controllers`` enables, as ``plane.workloads`` reads it for ``podscale up``) and hands what
it builds from the plane's ``ControllerContext`` to ``register_controllers``, which registers
each on the ``ControllerManager`` together with what it brings to the API server's
``ServerState``: KEDA's operator its validating webhook (``controllers.keda.webhook``), the
HPA controller its upstream-named Prometheus metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from podscale.apiserver.state import ServerState
from podscale.controllers.hpa import HorizontalPodAutoscalerController
from podscale.controllers.keda.controller import ScaledObjectController
from podscale.controllers.keda.webhook import scaled_object_hook
from podscale.controllers.manager import Controller, ControllerManager
from podscale.controllers.registry import ControllerContext, build_controllers, select_controllers

__all__ = [
    "ControllerFactory",
    "controllers_from_flag",
    "default_controllers",
    "register_controllers",
]

ControllerFactory = Callable[[ControllerContext], list[Controller]]


def default_controllers(context: ControllerContext) -> list[Controller]:
    """The controllers of the embedded control plane: every controller of
    ``podscale.controllers.registry`` (ReplicaSet, Deployment, StatefulSet, garbage
    collector, HPA, namespace). ``controllers_from_flag`` selects a subset as
    ``--controllers`` does."""
    return build_controllers(context)


def controllers_from_flag(flag: str) -> ControllerFactory:
    """A factory for the controllers ``--controllers`` (e.g. ``*,-garbagecollector``)
    enables; raises ``ValueError`` for an unknown name."""
    enabled = select_controllers(flag)

    def factory(context: ControllerContext) -> list[Controller]:
        return build_controllers(context, enabled)

    return factory


def register_controllers(
    manager: ControllerManager, state: ServerState, controllers: Iterable[Controller]
) -> None:
    """Register ``controllers`` on ``manager``, in order, each with what it brings to the
    server's ``state``."""
    for controller in controllers:
        manager.register(controller)
        if isinstance(controller, ScaledObjectController):
            # KEDA's admission webhook comes with its install: with the operator, the
            # server refuses what KEDA's webhook would (``controllers.keda.webhook``).
            state.admission_hooks.register(scaled_object_hook())
        # Exactly the HPA's: the PHPA controller reuses it but not its metric names.
        if type(controller) is HorizontalPodAutoscalerController:
            # Its upstream-named Prometheus metrics, on the server's /metrics.
            state.metrics_registry.register(controller.monitor)
