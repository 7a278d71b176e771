"""The status of a CustomResourceDefinition as upstream's apiextensions controllers keep it.

Pure decisions over CRD dicts, applied by ``lifecycle``:

- ``NamesAccepted`` (the naming controller): each requested name is taken unless another CRD
  of the same group already accepted it, in which case the old accepted name stays and the
  condition is False with ``PluralConflict``/``SingularConflict``/``ShortNamesConflict``/
  ``KindConflict``/``ListKindConflict`` and ``"x" is already in use``; with no conflict it is
  True, ``NoConflicts``, ``no conflicts found``; ``status.acceptedNames`` holds the result.
- ``Established`` (the establishing controller): True, ``InitialNamesAccepted``, once the names
  are accepted; until then False, ``NotAccepted``. Upstream sets it a moment after the names;
  here both land in one status write.
- ``status.storedVersions`` gains the storage version (upstream's CRD strategy adds it on
  every create and update).
- ``Terminating`` (the finalizer controller and the CRD delete): ``terminating_condition``.

A condition's ``lastTransitionTime`` changes only when its status does (``SetCRDCondition``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from podscale.api.timestamps import format_time
from podscale.apiserver.customresources.definitions import find_condition, storage_version

__all__ = ["reconcile_status", "set_condition", "terminating_condition"]

JSON = dict[str, Any]

_NAME_FIELDS = ("plural", "singular", "shortNames", "kind", "listKind", "categories")


def set_condition(status: JSON, condition: JSON, now: datetime) -> None:
    """Put ``condition`` into ``status.conditions`` (replacing one of its type), keeping the
    old transition time when its status did not change."""
    conditions = status.get("conditions")
    if not isinstance(conditions, list):
        conditions = status["conditions"] = []
    new = dict(condition)
    for index, old in enumerate(conditions):
        if isinstance(old, dict) and old.get("type") == condition["type"]:
            same = old.get("status") == condition["status"] and old.get("lastTransitionTime")
            new["lastTransitionTime"] = old["lastTransitionTime"] if same else format_time(now)
            conditions[index] = new
            return
    new["lastTransitionTime"] = format_time(now)
    conditions.append(new)


def terminating_condition(reason: str, message: str, *, status: str = "True") -> JSON:
    return {"type": "Terminating", "status": status, "reason": reason, "message": message}


def _claimed_names(crd: JSON, others: Iterable[JSON]) -> tuple[set[str], set[str]]:
    """Resource names and kinds other CRDs of ``crd``'s group have accepted."""
    group = (crd.get("spec") or {}).get("group")
    name = (crd.get("metadata") or {}).get("name")
    resources: set[str] = set()
    kinds: set[str] = set()
    for other in others:
        if (other.get("spec") or {}).get("group") != group:
            continue
        if (other.get("metadata") or {}).get("name") == name:
            continue
        accepted = (other.get("status") or {}).get("acceptedNames") or {}
        resources.update(str(accepted.get(key) or "") for key in ("plural", "singular"))
        resources.update(str(item) for item in accepted.get("shortNames") or [])
        kinds.update(str(accepted.get(key) or "") for key in ("kind", "listKind"))
    resources.discard("")
    kinds.discard("")
    return resources, kinds


def _fresh(requested: str, accepted: str, used: set[str]) -> str | None:
    """None when ``requested`` may be taken, else upstream's conflict message."""
    if requested == accepted or requested not in used:
        return None
    return f'"{requested}" is already in use'


def _names_and_condition(crd: JSON, others: Iterable[JSON]) -> tuple[JSON, JSON]:
    requested = (crd.get("spec") or {}).get("names") or {}
    accepted = (crd.get("status") or {}).get("acceptedNames") or {}
    resources, kinds = _claimed_names(crd, others)
    names = dict(accepted)
    failure: tuple[str, str] | None = None
    for key, reason, used in (
        ("plural", "PluralConflict", resources),
        ("singular", "SingularConflict", resources),
    ):
        message = _fresh(str(requested.get(key) or ""), str(accepted.get(key) or ""), used)
        if message is None:
            names[key] = requested.get(key)
        else:
            failure = (reason, message)
    wanted_short = list(requested.get("shortNames") or [])
    if wanted_short != list(accepted.get("shortNames") or []):
        own = set(accepted.get("shortNames") or [])
        own.update(str(accepted.get(key) or "") for key in ("plural", "singular"))
        clashes = [
            f'"{short}" is already in use'
            for short in wanted_short
            if short not in own and short in resources
        ]
        if clashes:
            # An aggregate of one error prints bare; of several, as a bracketed list.
            text = clashes[0] if len(clashes) == 1 else "[" + ", ".join(clashes) + "]"
            failure = ("ShortNamesConflict", text)
        else:
            names["shortNames"] = wanted_short
    for key, reason in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
        message = _fresh(str(requested.get(key) or ""), str(accepted.get(key) or ""), kinds)
        if message is None:
            names[key] = requested.get(key)
        else:
            failure = (reason, message)
    if "categories" in requested:
        names["categories"] = requested["categories"]
    else:
        names.pop("categories", None)
    clean = {key: names[key] for key in _NAME_FIELDS if names.get(key) not in (None, "", [])}
    if failure is None:
        condition = {
            "type": "NamesAccepted",
            "status": "True",
            "reason": "NoConflicts",
            "message": "no conflicts found",
        }
    else:
        condition = {
            "type": "NamesAccepted",
            "status": "False",
            "reason": failure[0],
            "message": failure[1],
        }
    return clean, condition


def _established(names_accepted: bool) -> JSON:
    if names_accepted:
        return {
            "type": "Established",
            "status": "True",
            "reason": "InitialNamesAccepted",
            "message": "the initial names have been accepted",
        }
    return {
        "type": "Established",
        "status": "False",
        "reason": "NotAccepted",
        "message": "not all names are accepted",
    }


def reconcile_status(crd: JSON, others: Iterable[JSON], now: datetime) -> JSON | None:
    """The status ``crd`` should have given the other stored CRDs, or None when its status
    is already right. A CRD being deleted keeps its names (upstream's controllers only
    reserve names of live ones and the finalizer does the rest)."""
    status = crd.get("status")
    new: JSON = copy.deepcopy(status) if isinstance(status, dict) else {}
    stored = new.get("storedVersions")
    stored = list(stored) if isinstance(stored, list) else []
    version = storage_version(crd)
    if version and version not in stored:
        stored.append(version)
    new["storedVersions"] = stored
    requested = (crd.get("spec") or {}).get("names") or {}
    accepted = new.get("acceptedNames") or {}
    same_names = {k: v for k, v in requested.items() if v not in (None, "", [])} == {
        k: v for k, v in accepted.items() if v not in (None, "", [])
    }
    if not same_names or find_condition(crd, "NamesAccepted") is None:
        names, naming = _names_and_condition(crd, others)
        new["acceptedNames"] = names
        set_condition(new, naming, now)
    naming_now = find_condition(new_crd := {"status": new}, "NamesAccepted")
    accepted_ok = naming_now is not None and naming_now.get("status") == "True"
    established = find_condition(new_crd, "Established")
    if established is None or (accepted_ok and established.get("status") != "True"):
        set_condition(new, _established(accepted_ok), now)
    new.setdefault("conditions", [])
    return None if new == status else new
