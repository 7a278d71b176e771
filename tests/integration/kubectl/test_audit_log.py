"""``podscale up --audit-log-path``: real kubectl's requests land in the audit log.

kubectl scales a Deployment through its ``scale`` subresource; the log must show that write
(verb patch or update, depending on kubectl's version) as the token's user, with the
request's user agent and a final status, as kube-apiserver's audit log would.
"""

from __future__ import annotations

import time
from pathlib import Path

from podscale.apiserver.audit import read_events

from .conftest import Kubectl, start_control_plane

# Metadata events are flushed per event by a thread: allow it a moment after kubectl exits.
FLUSH_SECONDS = 10.0


def _scale_writes(path: Path) -> list[dict[str, object]]:
    deadline = time.monotonic() + FLUSH_SECONDS
    while True:
        writes = [
            event
            for event in read_events(path)
            if event.get("objectRef", {}).get("subresource") == "scale"
            and event["verb"] in ("update", "patch")
        ]
        if writes or time.monotonic() > deadline:
            return writes
        time.sleep(0.05)  # real time: waiting on another process's writer thread


def test_kubectl_scale_is_audited_as_a_scale_write(
    kubectl_binary: str, private_home: Path, tmp_path: Path
) -> None:
    audit_path = tmp_path / "audit.log"
    plane = start_control_plane(
        tmp_path / "data", auth=True, extra=("--audit-log-path", str(audit_path))
    )
    try:
        kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
        kubectl.ok("create", "deployment", "x", "--image=nginx")
        kubectl.ok("scale", "deploy/x", "--replicas=3")
        assert kubectl("get", "deploy", "missing").returncode != 0
        writes = _scale_writes(audit_path)
    finally:
        plane.stop()
    assert len(writes) == 1, writes
    (write,) = writes
    assert write["objectRef"] == {
        "resource": "deployments",
        "namespace": "default",
        "name": "x",
        "apiGroup": "apps",
        "apiVersion": "v1",
        "subresource": "scale",
        **{k: v for k, v in write["objectRef"].items() if k in ("uid", "resourceVersion")},
    }
    assert write["stage"] == "ResponseComplete"
    assert write["user"]["username"] == "podscale-admin"
    assert write["responseStatus"] == {"metadata": {}, "code": 200}
    assert str(write["userAgent"]).startswith("kubectl")
    assert write["sourceIPs"] == ["127.0.0.1"]
    events = read_events(audit_path)
    creates = [
        e
        for e in events
        if e["verb"] == "create" and e.get("objectRef", {}).get("resource") == "deployments"
    ]
    assert [e["objectRef"]["name"] for e in creates] == ["x"]
    missing = [e for e in events if e.get("objectRef", {}).get("name") == "missing"]
    assert missing
    assert missing[-1]["responseStatus"]["reason"] == "NotFound"
    assert len({e["auditID"] for e in events}) == len(events)  # one event per request
