"""``podscale manifests``: print what a cluster needs to run ``podscale controller-manager``.

Parses the flags and prints ``podscale.controllermanager.manifests.render_manifests``;
``deploy/podscale.yaml`` is its output with the defaults. Loaded by ``podscale.cli.main``
only when the command runs.
"""

from __future__ import annotations

import click

from podscale.controllermanager.manifests import (
    DEFAULT_IMAGE,
    DEFAULT_NAMESPACE,
    ManifestOptions,
    render_manifests,
    select_manifest_controllers,
)

__all__ = ["manifests"]


@click.command("manifests")
@click.option(
    "--controllers",
    default=None,
    metavar="LIST",
    help="Controllers to deploy, kube-controller-manager's syntax (default: the "
    "podscale-only ones: cronhpa, ehpa, phpa, keda-operator, usage-history, ihpa, "
    "replicaprofile; '*' adds the HPA controller).",
)
@click.option("--namespace", default=DEFAULT_NAMESPACE, show_default=True)
@click.option("--image", default=DEFAULT_IMAGE, show_default=True)
def manifests(controllers: str | None, namespace: str, image: str) -> None:
    """Print the manifests that run podscale's controllers on a Kubernetes cluster."""
    try:
        chosen = select_manifest_controllers(controllers)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="'--controllers'") from None
    options = ManifestOptions(controllers=chosen, namespace=namespace, image=image)
    click.echo(render_manifests(options), nl=False)
