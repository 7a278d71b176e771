"""What discovery and kubectl derive from the kind registry (``podscale.api.kinds.KINDS``).

- ``served_group_versions``: the (group, version) pairs in discovery order, each group's
  preferred version first (``apiserver.discovery``, the OpenAPI documents);
- ``preferred_version``: a group's preferred (and storage) version;
- ``find_resource``: a user-typed resource name (plural, singular, short name or kind,
  optionally qualified with a version and/or group) resolved as kubectl does, for the CLI
  (``cli.resources_core``).
"""

from __future__ import annotations

from podscale.api.kinds import KINDS, KindInfo

__all__ = ["find_resource", "preferred_version", "served_group_versions"]


def find_resource(name: str) -> list[KindInfo]:
    """Resolve a user-typed resource name the way kubectl does.

    Matches plural, singular, short name or kind case-insensitively; ``name`` may be qualified
    with a version and/or group (``hpa.v1.autoscaling``, ``deployments.apps``). The preferred
    version of a group comes first, so ``result[0]`` is what kubectl would pick.
    """
    lowered = name.strip().lower()
    base, _, qualifier = lowered.partition(".")
    version, group = _split_qualifier(qualifier)
    matches = [
        info
        for info in KINDS
        if info.top_level
        and base in (info.plural, info.singular, info.kind.lower(), *info.short_names)
        and (group is None or info.group == group)
        and (version is None or info.version == version)
    ]
    return sorted(matches, key=lambda info: not info.preferred)


def _split_qualifier(qualifier: str) -> tuple[str | None, str | None]:
    """Split "v1.autoscaling" / "apps" / "" into (version, group); None means "any"."""
    if not qualifier:
        return None, None
    head, _, rest = qualifier.partition(".")
    served_versions = {info.version for info in KINDS}
    if head in served_versions and rest:
        return head, rest
    return None, qualifier


def served_group_versions() -> list[tuple[str, str]]:
    """(group, version) pairs in discovery order; each group's preferred version first."""
    seen: list[tuple[str, str]] = []
    for info in KINDS:
        if info.group_version not in seen:
            seen.append(info.group_version)
    return seen


def preferred_version(group: str) -> str:
    """The preferred (and storage) version of ``group``; KeyError if the group is not served."""
    for info in KINDS:
        if info.group == group and info.preferred:
            return info.version
    raise KeyError(f'the server could not find the requested group "{group}"')
