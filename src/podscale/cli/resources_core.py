"""Shared plumbing of the resource commands: targets, names, Tables and kubectl's error text.

``podscale.cli.resources`` (the click layer) builds a ``Target`` from ``--kubeconfig``,
``--context`` and ``-n``; the cores (``resources_get``, ``resources_write``, ``describe``,
``apply``) open an ``HttpApi`` on it, resolve user-typed resource names through
``podscale.api.kind_discovery.find_resource`` and report failures as ``CommandError`` whose text is
what kubectl prints (``Error from server (NotFound): ...``, ``The ReplicaSet "x" is
invalid: ...``), as built by kubectl's ``cmdutil.CheckErr``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from podscale.api.kind_discovery import find_resource
from podscale.api.kinds import KindInfo
from podscale.client.connection import Connection
from podscale.client.http import ApiError, HttpApi
from podscale.client.kubeconfig import load_kubeconfig

__all__ = [
    "TABLE_ACCEPT",
    "CommandError",
    "Report",
    "Target",
    "describe_api_error",
    "describe_missing",
    "get_table",
    "qualified_name",
    "resolve_kind",
    "target_from_kubeconfig",
]

JSON = dict[str, Any]

# What kubectl get sends for the default and wide outputs (kubectl-wire.md §2).
TABLE_ACCEPT: Final = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,"
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)


class CommandError(Exception):
    """A failure to report as is (one or more lines); the command exits 1."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where commands go: the server connection and the namespace they default to."""

    connection: Connection
    namespace: str


def target_from_kubeconfig(
    path: str | None, context: str | None, namespace: str | None = None
) -> Target:
    """The kubeconfig's server and credentials; the namespace is ``namespace``, else the
    context's, else ``default`` (kubectl's order). CommandError when the file is unusable."""
    try:
        selection = load_kubeconfig(path, context)
    except Exception as err:  # KubeconfigError, OSError, YAML errors: all user-facing
        raise CommandError(f"error: {err}") from None
    return Target(selection.connection, namespace or selection.namespace or "default")


def resolve_kind(name: str) -> KindInfo:
    """The kind kubectl would pick for a typed resource name (``rs``, ``deployments.apps``)."""
    matches = find_resource(name)
    if not matches:
        raise CommandError(f'error: the server doesn\'t have a resource type "{name}"')
    return matches[0]


def qualified_name(kind: KindInfo) -> str:
    """``replicaset.apps``, ``pod``: the singular resource and group kubectl prints."""
    return f"{kind.singular}.{kind.group}" if kind.group else kind.singular


async def get_table(api: HttpApi, path: str, params: dict[str, str] | None = None) -> JSON:
    """GET ``path`` as a server-side printed ``meta.k8s.io/v1`` Table (kubectl's Accept)."""
    table: Any = await api.request("GET", path, params=params, accept=TABLE_ACCEPT)
    if not isinstance(table, dict) or table.get("kind") != "Table":
        raise CommandError("error: the server sent a malformed Table")
    return table


def _cause_text(cause: JSON) -> str:
    field = str(cause.get("field") or "")
    message = str(cause.get("message") or "")
    return f"{field}: {message}" if field else message


def _invalid_text(body: JSON) -> str:
    details = body.get("details")
    text = "The request is invalid"
    if not isinstance(details, dict):
        message = str(body.get("message") or "")
        return f"{text}: {message}" if message else text
    if details.get("kind") or details.get("name"):
        text = f'The {details.get("kind") or ""} "{details.get("name") or ""}" is invalid'
    causes = [c for c in details.get("causes") or [] if isinstance(c, dict)]
    if not causes:
        return text
    if len(causes) == 1:
        return f"{text}: {_cause_text(causes[0])}"
    return f"{text}: \n" + "\n".join(f"* {_cause_text(c)}" for c in causes)


def describe_api_error(err: ApiError, context: str = "") -> str:
    """kubectl's text for a failed request; ``context`` is e.g. ``error when creating "f":``.

    422 Invalid is rebuilt from ``details.kind/name`` and the causes (the message is ignored,
    as kubectl does); everything else is ``Error from server (Reason): [context ]message``.
    """
    body = err.body
    if err.status == 422 and body.get("reason") == "Invalid":
        return _invalid_text(body)
    message = str(body.get("message") or "")
    if context:
        message = f"{context} {message}"
    reason = err.reason
    if not reason:
        reason = {404: "NotFound", 409: "Conflict", 500: "InternalError"}.get(err.status, "")
    return f"Error from server ({reason}): {message}" if reason else f"Error from server: {message}"


@dataclass
class Report:
    """What a command printed: ``out`` lines go to stdout, ``errors`` to stderr (exit 1),
    ``notes`` to stderr without failing (kubectl's "No resources found")."""

    out: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors)


async def describe_missing(
    api: HttpApi, kind: KindInfo, namespace: str | None, err: ApiError
) -> str:
    """kubectl get/describe text for a failed GET: a NotFound in a namespace that does not
    exist is reported as the namespace's NotFound, as kubectl (1.31+) does."""
    if err.status == 404 and kind.namespaced and namespace:
        namespace_kind = find_resource("namespaces")[0]
        try:
            await api.get(namespace_kind, None, namespace)
        except ApiError as missing:
            if missing.status == 404:
                return describe_api_error(missing)
    return describe_api_error(err)
