"""podscale's own kubeconfig reader for the common cases (files, tokens, certificates, CA).

``podscale.client.kubeconfig`` calls ``read_selection``; when the chosen user or cluster
uses something this reader does not handle (an ``exec`` plugin, an ``auth-provider``,
impersonation, a proxy, a malformed entry) it raises ``Unsupported`` and
``podscale.client.kubeconfig_official`` (the ``kubernetes`` package's loader) takes over.
Behaviour follows kubectl's (client-go's ``clientcmd``): the files of a ``KUBECONFIG``
list are merged with the first file to set a name (or ``current-context``) winning;
relative file paths resolve against the directory of the file that names them; ``*-data``
wins over the file; a token file wins over an inline token; a context without a server
means ``http://localhost:8080``, as kubectl's defaults.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from podscale.client.connection import Connection, KubeconfigError, Selection

__all__ = ["Merged", "Unsupported", "kubeconfig_paths", "merge", "read_selection", "select"]

JSON = dict[str, Any]

DEFAULT_SERVER = "http://localhost:8080"  # kubectl's server when the kubeconfig names none

# What this reader understands in each entry; anything else sends the file to the fallback.
# ``extensions`` (and ``disable-compression``, a client hint) change nothing for podscale.
CLUSTER_KEYS = frozenset(
    {
        "server",
        "certificate-authority",
        "certificate-authority-data",
        "insecure-skip-tls-verify",
        "tls-server-name",
        "disable-compression",
        "extensions",
    }
)
USER_KEYS = frozenset(
    {
        "token",
        "tokenFile",
        "client-certificate",
        "client-certificate-data",
        "client-key",
        "client-key-data",
        "username",
        "password",
        "extensions",
    }
)
CONTEXT_KEYS = frozenset({"cluster", "user", "namespace", "extensions"})


class Unsupported(Exception):
    """The kubeconfig needs the official loader; the message says what this reader lacks."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One named cluster, user or context, and the directory its relative paths start from."""

    value: JSON
    base: str


@dataclass(slots=True)
class Merged:
    """The merged view of one or more kubeconfig files (first setter wins)."""

    clusters: dict[str, Entry] = field(default_factory=dict)
    users: dict[str, Entry] = field(default_factory=dict)
    contexts: dict[str, Entry] = field(default_factory=dict)
    current_context: str = ""


def kubeconfig_paths(explicit: str | None, environ: Mapping[str, str], home: str) -> list[str]:
    """The files to read, as kubectl picks them: ``--kubeconfig`` alone, else the existing
    files of ``$KUBECONFIG`` (duplicates dropped), else ``~/.kube/config`` if it exists."""
    if explicit:
        return [explicit]
    listed = environ.get("KUBECONFIG", "")
    if listed:
        paths = [p for p in dict.fromkeys(listed.split(os.pathsep)) if p]
        return [p for p in paths if os.path.exists(p)]
    default = os.path.join(home, ".kube", "config")
    return [default] if os.path.exists(default) else []


def load_document(path: str) -> JSON:
    """One file parsed; ``KubeconfigError`` in kubectl's words when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
    except FileNotFoundError:
        raise KubeconfigError(f"stat {path}: no such file or directory") from None
    except OSError as err:
        raise KubeconfigError(f'error loading config file "{path}": {err.strerror}') from None
    except yaml.YAMLError as err:
        problem = getattr(err, "problem", None) or str(err)
        raise KubeconfigError(f'error loading config file "{path}": yaml: {problem}') from None
    if document is None:  # an empty file is an empty config for kubectl
        return {}
    if not isinstance(document, dict):
        raise Unsupported(f"{path} is not a YAML mapping")
    return document


def _named(items: object, inner: str, where: str) -> list[tuple[str, JSON]]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise Unsupported(f"{where} is not a list")
    named = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise Unsupported(f"an entry of {where} has no name")
        value = item.get(inner) or {}
        if not isinstance(value, dict):
            raise Unsupported(f"{where} {item['name']!r} is not a mapping")
        named.append((item["name"], value))
    return named


def merge(documents: Sequence[tuple[str, JSON]]) -> Merged:
    """Merge parsed files in order; the first file to set a name or ``current-context`` wins."""
    merged = Merged()
    for path, document in documents:
        base = os.path.dirname(os.path.abspath(path))
        for key, inner, table in (
            ("clusters", "cluster", merged.clusters),
            ("users", "user", merged.users),
            ("contexts", "context", merged.contexts),
        ):
            for name, value in _named(document.get(key), inner, key):
                table.setdefault(name, Entry(value, base))
        current = document.get("current-context")
        if not merged.current_context and isinstance(current, str):
            merged.current_context = current
    return merged


def _check_keys(entry: JSON, known: frozenset[str], what: str) -> None:
    unknown = sorted(set(entry) - known)
    if unknown:
        raise Unsupported(f"{what} uses {', '.join(unknown)}")


def _text(entry: JSON, key: str) -> str | None:
    value = entry.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise Unsupported(f"{key} is not a string")
    return value


def _path(entry: Entry, key: str) -> str | None:
    value = _text(entry.value, key)
    return value if value is None else os.path.join(entry.base, value)


def _data(entry: JSON, key: str) -> bytes | None:
    value = _text(entry, key)
    if value is None:
        return None
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error:
        raise Unsupported(f"{key} is not base64") from None


def _authorization(user: Entry) -> str | None:
    token_file = _path(user, "tokenFile")
    if token_file is not None:  # client-go: the token file's content beats an inline token
        try:
            with open(token_file, encoding="utf-8") as handle:
                token = handle.read().strip()
        except OSError as err:
            raise KubeconfigError(f"open {token_file}: {err.strerror}") from None
    else:
        token = _text(user.value, "token") or ""
    if token:
        return f"Bearer {token}"
    username, password = _text(user.value, "username"), _text(user.value, "password")
    if username is not None and password is not None:
        pair = base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
        return f"Basic {pair}"
    return None


def select(merged: Merged, context: str | None) -> Selection:
    """The connection of ``context`` (default: ``current-context``) and its namespace."""
    name = context or merged.current_context
    if name and name not in merged.contexts:
        raise KubeconfigError(f"context was not found for specified context: {name}")
    chosen = merged.contexts[name].value if name else {}
    _check_keys(chosen, CONTEXT_KEYS, f"context {name!r}")
    cluster_name, user_name = _text(chosen, "cluster"), _text(chosen, "user")
    cluster = merged.clusters.get(cluster_name or "", Entry({}, ""))
    user = merged.users.get(user_name or "", Entry({}, ""))
    _check_keys(cluster.value, CLUSTER_KEYS, f"cluster {cluster_name!r}")
    _check_keys(user.value, USER_KEYS, f"user {user_name!r}")
    insecure = cluster.value.get("insecure-skip-tls-verify", False)
    if not isinstance(insecure, bool):
        raise Unsupported("insecure-skip-tls-verify is not a boolean")
    server = (_text(cluster.value, "server") or DEFAULT_SERVER).rstrip("/")
    ca_data = _data(cluster.value, "certificate-authority-data")
    cert_data = _data(user.value, "client-certificate-data")
    key_data = _data(user.value, "client-key-data")
    connection = Connection(
        server=server,
        authorization=_authorization(user),
        verify=not insecure,
        ca_file=None if ca_data else _path(cluster, "certificate-authority"),
        cert_file=None if cert_data else _path(user, "client-certificate"),
        key_file=None if key_data else _path(user, "client-key"),
        ca_data=ca_data,
        cert_data=cert_data,
        key_data=key_data,
        tls_server_name=_text(cluster.value, "tls-server-name"),
    )
    return Selection(connection, _text(chosen, "namespace"))


def read_selection(
    explicit: str | None, context: str | None, environ: Mapping[str, str], home: str
) -> Selection:
    """Read the kubeconfig files kubectl would read and resolve ``context`` from them."""
    paths = kubeconfig_paths(explicit, environ, home)
    return select(merge([(path, load_document(path)) for path in paths]), context)
