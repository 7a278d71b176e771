"""The controllers and simulated nodes ``podscale up`` runs next to its API server.

``build_workloads`` makes an ``EmbeddedControlPlane`` (``podscale.runtime.embedded``) over
the server's own in-process API and clock: the controllers ``--controllers`` enables
(ReplicaSet, Deployment, StatefulSet, garbage collector) and, unless ``--no-simulate``, the
simulated nodes, scheduler and kubelets that give pods a life. ``serve_with_workloads`` runs
it and uvicorn on one event loop (``serve.run_control_plane`` calls it): a controller
failure stops the server with the error; the server stopping stops the controllers.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import TYPE_CHECKING

import uvicorn

from podscale.controllers.registry import select_controllers
from podscale.runtime.embedded import EmbeddedControlPlane, controllers_from_flag
from podscale.runtime.simulated import default_node_specs

if TYPE_CHECKING:
    from podscale.cli.serve import ControlPlane

__all__ = ["build_workloads", "serve_with_workloads"]


def build_workloads(plane: ControlPlane) -> EmbeddedControlPlane | None:
    """The controllers (and simulated nodes) ``podscale up`` runs next to its API server,
    over the server's own in-process API and clock; None when none are asked for."""
    options = plane.options
    factory = controllers_from_flag(options.controllers)
    if plane.api is None or (not options.simulate and not select_controllers(options.controllers)):
        return None
    return EmbeddedControlPlane(
        plane.api.state.clock,
        api=plane.api,
        nodes=default_node_specs(options.nodes) if options.simulate else (),
        seed=options.seed,
        workers=options.workers,
        simulate=options.simulate,
        controllers=factory,
    )


async def serve_with_workloads(
    server: uvicorn.Server, sock: socket.socket, plane: ControlPlane, failures: list[str]
) -> None:
    """uvicorn and the embedded controllers on one event loop; a controller failure stops
    the server (with the error), the server stopping stops the controllers."""
    workloads = build_workloads(plane)
    task: asyncio.Task[None] | None = None

    def on_done(done: asyncio.Task[None]) -> None:
        if not done.cancelled() and done.exception() is not None:
            failures.append(f"the controllers stopped: {done.exception()}")
            server.should_exit = True

    if workloads is not None:
        task = asyncio.create_task(workloads.run(), name="podscale-controllers")
        task.add_done_callback(on_done)
    try:
        await server.serve(sockets=[sock])
    finally:
        if workloads is not None and task is not None:
            workloads.stop()
            task.remove_done_callback(on_done)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
