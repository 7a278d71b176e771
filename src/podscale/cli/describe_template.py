"""The ``Pod Template:`` section of ``describe rs|deploy|sts``, in kubectl's layout.

Labels and annotations, containers (image, ports, host ports, command, args, limits and
requests, environment, mounts), volumes, node selectors and tolerations, as kubectl's
``DescribePodTemplate`` writes them into a ``DescribeWriter`` (``podscale.cli.describe_text``).
Probes and volume source details are summarised, not spelled out. Used by
``podscale.cli.describe``; pure.
"""

from __future__ import annotations

from typing import Any

from podscale.apiserver.printing.format import format_quantity
from podscale.cli.describe_text import DescribeWriter

__all__ = ["write_pod_template"]

JSON = dict[str, Any]


def _ports(ports: list[Any], field: str) -> str:
    return ", ".join(
        f"{p.get(field, 0)}/{p.get('protocol') or 'TCP'}" for p in ports if isinstance(p, dict)
    )


def _write_ports(out: DescribeWriter, title: str, text: str) -> None:
    if "," in text:
        out.write(2, f"{title}s:\t{text}\n")
    else:
        out.write(2, f"{title}:\t{text or '<none>'}\n")


def _write_lines(out: DescribeWriter, title: str, values: Any) -> None:
    if values:
        out.write(2, f"{title}:\n")
        for value in values:
            out.write(3, f"{value}\n")


def _write_resources(out: DescribeWriter, resources: Any) -> None:
    for title, field in (("Limits", "limits"), ("Requests", "requests")):
        values = (resources or {}).get(field) or {}
        if values:
            out.write(2, f"{title}:\n")
            for name in sorted(values):
                out.write(3, f"{name}:\t{format_quantity(values[name])}\n")


def _env_source(source: JSON) -> str:
    if "fieldRef" in source:
        ref = source["fieldRef"] or {}
        return f"({ref.get('apiVersion', '')}:{ref.get('fieldPath', '')})"
    if "resourceFieldRef" in source:
        ref = source["resourceFieldRef"] or {}
        return f"{ref.get('resource', '')} ({ref.get('containerName', '')})"
    for kind, label in (("secretKeyRef", "secret"), ("configMapKeyRef", "configmap")):
        if kind in source:
            ref = source[kind] or {}
            return f"<set to the key '{ref.get('key', '')}' in {label} '{ref.get('name', '')}'>"
    return "<set from a source>"


def _write_env(out: DescribeWriter, env: list[Any]) -> None:
    out.write(2, "Environment:" + ("" if env else "\t<none>") + "\n")
    for var in env:
        if not isinstance(var, dict):
            continue
        name = var.get("name", "")
        if isinstance(var.get("valueFrom"), dict):
            out.write(3, f"{name}:\t{_env_source(var['valueFrom'])}\n")
            continue
        for index, line in enumerate(str(var.get("value") or "").split("\n")):
            out.write(3, f"{name}:\t{line}\n" if index == 0 else f"\t{line}\n")


def _write_mounts(out: DescribeWriter, mounts: list[Any]) -> None:
    out.write(2, "Mounts:" + ("" if mounts else "\t<none>") + "\n")
    for mount in sorted(
        (m for m in mounts if isinstance(m, dict)), key=lambda m: str(m.get("mountPath"))
    ):
        flags = ["ro" if mount.get("readOnly") else "rw"]
        if mount.get("subPath"):
            flags.append(f'path="{mount["subPath"]}"')
        out.write(
            3, f"{mount.get('mountPath', '')} from {mount.get('name', '')} ({','.join(flags)})\n"
        )


def _write_containers(out: DescribeWriter, title: str, containers: list[Any]) -> None:
    out.write(1, f"{title}:\n")
    for container in containers:
        if not isinstance(container, dict):
            continue
        ports = [p for p in container.get("ports") or [] if isinstance(p, dict)]
        out.write(1, f" {container.get('name', '')}:\n")
        out.write(2, f"Image:\t{container.get('image', '')}\n")
        _write_ports(out, "Port", _ports(ports, "containerPort"))
        _write_ports(out, "Host Port", _ports(ports, "hostPort"))
        _write_lines(out, "Command", container.get("command"))
        _write_lines(out, "Args", container.get("args"))
        _write_resources(out, container.get("resources"))
        _write_env(out, list(container.get("env") or []))
        _write_mounts(out, list(container.get("volumeMounts") or []))


def _write_volumes(out: DescribeWriter, volumes: list[Any]) -> None:
    if not volumes:
        out.write(1, "Volumes:\t<none>\n")
        return
    out.write(1, "Volumes:\n")
    for volume in volumes:
        if not isinstance(volume, dict):
            continue
        out.write(1, f" {volume.get('name', '')}:\n")
        if isinstance(volume.get("emptyDir"), dict):
            empty_dir = volume["emptyDir"]
            size = empty_dir.get("sizeLimit")
            out.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n")
            out.write(2, f"Medium:\t{empty_dir.get('medium', '')}\n")
            out.write(2, f"SizeLimit:\t{format_quantity(size) if size else '<unset>'}\n")
            continue
        sources = sorted(k for k in volume if k != "name")
        out.write(2, f"Type:\t{sources[0] if sources else '<unknown>'}\n")


def _toleration(toleration: JSON) -> str:
    text = str(toleration.get("key") or "")
    if toleration.get("value"):
        text += f"={toleration['value']}"
    if toleration.get("effect"):
        text += f":{toleration['effect']}"
    if toleration.get("operator") == "Exists" and not toleration.get("value"):
        text += " op=Exists" if toleration.get("key") else "op=Exists"
    if toleration.get("tolerationSeconds") is not None:
        text += f" for {toleration['tolerationSeconds']}s"
    return text


def write_pod_template(out: DescribeWriter, template: Any) -> None:
    """kubectl's ``DescribePodTemplate`` for ``spec.template``."""
    out.write(0, "Pod Template:\n")
    if not isinstance(template, dict):
        out.write(1, "<unset>")
        return
    metadata = template.get("metadata") or {}
    spec = template.get("spec") or {}
    out.write_map("  Labels", metadata.get("labels"))
    if metadata.get("annotations"):
        out.write_map("  Annotations", metadata.get("annotations"))
    if spec.get("serviceAccountName"):
        out.write(1, f"Service Account:\t{spec['serviceAccountName']}\n")
    if spec.get("initContainers"):
        _write_containers(out, "Init Containers", list(spec["initContainers"]))
    _write_containers(out, "Containers", list(spec.get("containers") or []))
    _write_volumes(out, list(spec.get("volumes") or []))
    out.write_map("  Node-Selectors", spec.get("nodeSelector"))
    listed = [t for t in spec.get("tolerations") or [] if isinstance(t, dict)]
    tolerations = [_toleration(t) for t in sorted(listed, key=lambda t: str(t.get("key") or ""))]
    if not tolerations:
        out.write(0, "  Tolerations:\t<none>\n")
    for index, text in enumerate(tolerations):
        out.write(0, f"  Tolerations:\t{text}\n" if index == 0 else f"\t{text}\n")
    if spec.get("priorityClassName"):
        out.write(1, f"Priority Class Name:\t{spec['priorityClassName']}\n")
