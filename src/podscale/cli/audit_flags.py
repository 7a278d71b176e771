"""``podscale up``'s audit log flags, named and defaulted as kube-apiserver's.

``--audit-log-path`` turns the audit log on (``podscale.apiserver.audit``): every request
the API server serves is one ``audit.k8s.io/v1`` Event line at level Metadata, ``-`` writes
to stdout. Unlike kube-apiserver, which audits nothing without ``--audit-policy-file``,
podscale audits every request at Metadata when only the path is given (no policy files
yet). ``--audit-log-maxsize`` (megabytes before the file is rotated, 0 never) and
``--audit-log-maxbackup`` (rotated files kept, 0 all) as upstream's log backend.
``audit_flags`` decorates the command, ``audit_settings`` pops the values from its keyword
arguments (as ``service_flags.service_settings`` does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["audit_flags", "audit_settings"]

F = TypeVar("F", bound=Callable[..., Any])


def audit_flags(command: F) -> F:
    options = [
        click.option(
            "--audit-log-path",
            default=None,
            help="Write every API request as an audit.k8s.io/v1 Event (one JSON line, level "
            "Metadata) to this file; '-' means stdout. Off by default.",
        ),
        click.option(
            "--audit-log-maxsize",
            type=click.IntRange(0),
            default=0,
            show_default=True,
            help="Megabytes an audit log file may reach before it is rotated (0: never).",
        ),
        click.option(
            "--audit-log-maxbackup",
            type=click.IntRange(0),
            default=0,
            show_default=True,
            help="Rotated audit log files to keep (0: all).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def audit_settings(values: dict[str, Any]) -> dict[str, Any]:
    """Pop the ``audit_flags`` values as ``UpOptions`` keyword arguments."""
    path = values.pop("audit_log_path", None)
    maxsize = values.pop("audit_log_maxsize", 0)
    maxbackup = values.pop("audit_log_maxbackup", 0)
    if path == "":
        raise click.UsageError("--audit-log-path must name a file, or '-' for stdout")
    if path is None and (maxsize or maxbackup):
        raise click.UsageError(
            "--audit-log-maxsize and --audit-log-maxbackup need --audit-log-path"
        )
    return {
        "audit_log_path": path,
        "audit_log_maxsize": maxsize,
        "audit_log_maxbackup": maxbackup,
    }
