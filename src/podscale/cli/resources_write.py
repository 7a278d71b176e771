"""``podscale create -f | delete | scale | autoscale``: the writing commands, as kubectl does them.

Each function takes an open ``HttpApi`` and the command's ``Target`` and returns a ``Report``
with kubectl's lines: ``replicaset.apps/web created``, ``replicaset.apps "web" deleted``,
``replicaset.apps/web scaled``, ``horizontalpodautoscaler.autoscaling/web autoscaled``.
Server errors are worded by ``describe_api_error``; ``create`` goes on after a failed object
and reports every failure, like kubectl. ``apply -f`` lives in ``podscale.cli.apply``; the
click layer in ``podscale.cli.resources``.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.cli.manifests import Manifest
from podscale.cli.resources_core import (
    CommandError,
    Report,
    Target,
    describe_api_error,
    qualified_name,
    resolve_kind,
)
from podscale.client.http import ApiError, HttpApi

__all__ = [
    "CASCADE_POLICIES",
    "autoscale_object",
    "create_manifests",
    "delete_manifests",
    "delete_objects",
    "scale_object",
]

JSON = dict[str, Any]

# kubectl's --cascade values and the propagationPolicy each sends.
CASCADE_POLICIES: Final = {
    "background": "Background",
    "orphan": "Orphan",
    "foreground": "Foreground",
}


async def create_manifests(api: HttpApi, target: Target, manifests: list[Manifest]) -> Report:
    """POST every object; ``kind.group/name created`` or kubectl's error per object."""
    report = Report()
    for manifest in manifests:
        namespace = manifest.namespace(target.namespace)
        try:
            created = await api.create(manifest.kind, namespace, manifest.obj)
        except ApiError as err:
            context = f'error when creating "{manifest.source}":'
            report.errors.append(describe_api_error(err, context))
            continue
        name = (created.get("metadata") or {}).get("name") or manifest.name
        report.out.append(f"{qualified_name(manifest.kind)}/{name} created")
    return report


async def delete_objects(
    api: HttpApi, target: Target, resource: str, names: tuple[str, ...], cascade: str
) -> Report:
    """DELETE each named object with the cascade's propagation policy."""
    kind = resolve_kind(resource)
    namespace = target.namespace if kind.namespaced else None
    report = Report()
    if not names:
        raise CommandError("error: resource(s) were provided, but no name was specified")
    for name in names:
        try:
            await api.delete(kind, namespace, name, propagation=CASCADE_POLICIES[cascade])
        except ApiError as err:
            report.errors.append(describe_api_error(err))
            continue
        report.out.append(f'{qualified_name(kind)} "{name}" deleted')
    return report


async def delete_manifests(
    api: HttpApi, target: Target, manifests: list[Manifest], cascade: str
) -> Report:
    """``delete -f``: DELETE every object the file names."""
    report = Report()
    for manifest in manifests:
        namespace = manifest.namespace(target.namespace)
        try:
            await api.delete(
                manifest.kind, namespace, manifest.name, propagation=CASCADE_POLICIES[cascade]
            )
        except ApiError as err:
            report.errors.append(describe_api_error(err))
            continue
        report.out.append(f'{qualified_name(manifest.kind)} "{manifest.name}" deleted')
    return report


async def scale_object(
    api: HttpApi,
    target: Target,
    resource: str,
    name: str,
    *,
    replicas: int,
    current_replicas: int | None = None,
) -> Report:
    """Set ``spec.replicas`` through the scale subresource.

    Without a precondition this is a merge PATCH of ``/scale``; with ``current_replicas``
    kubectl GETs the Scale, checks the count client-side and PUTs it back with its
    resourceVersion, so a concurrent change fails with the server's Conflict.
    """
    if replicas < 0:
        raise CommandError(
            "error: The --replicas=COUNT flag is required, "
            "and COUNT must be greater than or equal to 0"
        )
    kind = resolve_kind(resource)
    if kind.subresource("scale") is None:
        raise CommandError(f"error: cannot scale {qualified_name(kind)}")
    namespace = target.namespace if kind.namespaced else None
    report = Report()
    try:
        await api.get(kind, namespace, name)
    except ApiError as err:
        # kubectl's scale builder swallows the lookup error into this message.
        prefix = "error: no objects passed to scale " if err.status == 404 else ""
        report.errors.append(
            prefix + (str(err.body.get("message")) if prefix else describe_api_error(err))
        )
        return report
    try:
        if current_replicas is None:
            await api.patch(
                kind, namespace, name, {"spec": {"replicas": replicas}}, subresource="scale"
            )
        else:
            scale = await api.get(kind, namespace, name, subresource="scale")
            actual = int((scale.get("spec") or {}).get("replicas") or 0)
            if actual != current_replicas:
                raise CommandError(
                    f"error: Expected replicas to be {current_replicas}, was {actual}"
                )
            scale.setdefault("spec", {})["replicas"] = replicas
            await api.update(kind, namespace, scale, subresource="scale")
    except ApiError as err:
        report.errors.append(describe_api_error(err))
        return report
    report.out.append(f"{qualified_name(kind)}/{name} scaled")
    return report


async def autoscale_object(
    api: HttpApi,
    target: Target,
    resource: str,
    name: str,
    *,
    max_replicas: int,
    min_replicas: int | None = None,
    cpu_percent: int | None = None,
    hpa_name: str | None = None,
) -> Report:
    """Create an autoscaling/v2 HPA for the named scalable object (kubectl 1.33's shape).

    The target is read first, so a missing one gives kubectl's NotFound. Without
    ``cpu_percent`` no metric is sent and the server defaults one (80% CPU).
    """
    kind = resolve_kind(resource)
    if kind.subresource("scale") is None:
        raise CommandError(f"error: cannot autoscale a {kind.kind}: not scalable")
    namespace = target.namespace if kind.namespaced else None
    hpa_kind = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
    report = Report()
    try:
        scaled = await api.get(kind, namespace, name)
        spec: JSON = {
            "scaleTargetRef": {"apiVersion": kind.api_version, "kind": kind.kind, "name": name},
            "maxReplicas": max_replicas,
        }
        if min_replicas is not None:
            spec["minReplicas"] = min_replicas
        if cpu_percent is not None:
            target_spec = {"type": "Utilization", "averageUtilization": cpu_percent}
            spec["metrics"] = [
                {"type": "Resource", "resource": {"name": "cpu", "target": target_spec}}
            ]
        hpa: JSON = {
            "apiVersion": hpa_kind.api_version,
            "kind": hpa_kind.kind,
            "metadata": {"name": hpa_name or (scaled.get("metadata") or {}).get("name") or name},
            "spec": spec,
        }
        created = await api.create(hpa_kind, namespace, hpa)
    except ApiError as err:
        report.errors.append(describe_api_error(err))
        return report
    created_name = (created.get("metadata") or {}).get("name") or hpa["metadata"]["name"]
    report.out.append(f"{qualified_name(hpa_kind)}/{created_name} autoscaled")
    return report
