"""Writing to a served podscale from a CLI test: a POST of one object, which must be created
(the describe tests create custom resource definitions and objects this way, then run the
command against the server)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any


def post(url: str, body: dict[str, Any]) -> None:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201
