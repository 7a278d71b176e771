"""The namespace controller: a Terminating namespace is emptied of every served kind, then
finalized so the API server deletes it. ``deletion`` holds the pure decisions, ``controller``
the shell that lists, deletes and writes the namespace's conditions and finalizers."""

from podscale.controllers.namespace.controller import (
    DELETION_GRACE_PERIOD,
    NamespaceContentError,
    NamespaceController,
)

__all__ = ["DELETION_GRACE_PERIOD", "NamespaceContentError", "NamespaceController"]
