"""Who a request is: the user the authentication in front of the API server vouches for.

podscale has one credential, the bearer token ``podscale up`` writes; whoever holds it is
``podscale-admin`` in the groups ``system:masters`` (upstream's unconditional superuser
group) and ``system:authenticated``. The ASGI guard in front of the app
(``podscale.apiserver.auth.access.AccessGuard``) records that in the request scope under
``USER_SCOPE_KEY`` once the token matched; a request without it (``--no-auth``, the
in-process client) is upstream's anonymous user, which podscale likewise lets do anything
(kube-apiserver with ``--authorization-mode=AlwaysAllow``). ``reviews`` answers the self
reviews (``kubectl auth whoami`` / ``can-i``) from this.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["ADMIN_USER", "ANONYMOUS_USER", "USER_SCOPE_KEY", "UserInfo", "user_of"]


@dataclass(frozen=True, slots=True)
class UserInfo:
    """upstream's ``user.Info`` as SelfSubjectReview reports it."""

    username: str
    groups: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"username": self.username, "groups": list(self.groups)}


ADMIN_USER: Final = UserInfo("podscale-admin", ("system:masters", "system:authenticated"))
ANONYMOUS_USER: Final = UserInfo("system:anonymous", ("system:unauthenticated",))
USER_SCOPE_KEY: Final = "podscale.user"


def user_of(scope: Mapping[str, Any]) -> UserInfo:
    """The authenticated user of an ASGI request scope; anonymous when none was recorded."""
    user = scope.get(USER_SCOPE_KEY)
    return user if isinstance(user, UserInfo) else ANONYMOUS_USER
