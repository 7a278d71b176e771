"""Real kubectl's server-side apply against ``podscale up``: create and update by
``apply --server-side``, a conflict with another manager (kubectl's message),
``--force-conflicts``, a client-side ``apply`` of the same object afterwards, and
``get --show-managed-fields`` listing the Apply and Update entries; and the client-side to
server-side apply migration kubectl performs."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

MINORS = (27, 33)

MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: web
        image: {image}
"""


@pytest.fixture(scope="module", params=MINORS, ids=[f"kubectl-1.{m}" for m in MINORS])
def kubectl(
    request: pytest.FixtureRequest, kubectl_binary: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubectl]:
    minor = int(request.param)
    plane: ControlPlaneProcess = start_control_plane(
        tmp_path_factory.mktemp(f"plane-{minor}"), minor=minor
    )
    try:
        yield Kubectl(
            kubectl_binary,
            plane.kubeconfig,
            tmp_path_factory.mktemp("home"),
            tmp_path_factory.mktemp("work"),
        )
    finally:
        plane.stop()


def _managers(kubectl: Kubectl) -> dict[tuple[str, str, str], dict[str, object]]:
    return _managers_of(kubectl, "web")


def test_server_side_apply_conflict_force_and_client_side_apply(kubectl: Kubectl) -> None:
    manifest = kubectl.write("web.yaml", MANIFEST.format(replicas=2, image="nginx:1.25"))
    created = kubectl.ok("apply", "--server-side", "-f", manifest)
    assert "deployment.apps/web serverside-applied" in created
    updated = kubectl.write("web.yaml", MANIFEST.format(replicas=2, image="nginx:1.26"))
    assert "serverside-applied" in kubectl.ok("apply", "--server-side", "-f", updated)
    assert ("kubectl", "Apply", "") in _managers(kubectl)

    kubectl.ok("scale", "deployment", "web", "--replicas=4")
    # kubectl 1.27 sends no fieldManager for scale (its User-Agent names it "kubectl").
    (scaler,) = [key for key in _managers(kubectl) if key[1:] == ("Update", "scale")]
    assert scaler[0] in ("kubectl", "kubectl-scale")
    scale_entry = _managers(kubectl)[scaler]
    assert scale_entry["fieldsV1"] == {"f:spec": {"f:replicas": {}}}

    conflict = kubectl("apply", "--server-side", "-f", updated)
    assert conflict.returncode != 0
    assert "Apply failed with 1 conflict" in conflict.stderr
    assert f'conflict with "{scaler[0]}" with subresource "scale" using apps/v1' in (
        conflict.stderr
    )
    assert ".spec.replicas" in conflict.stderr
    assert "--force-conflicts" in conflict.stderr  # kubectl's own advice follows the 409

    forced = kubectl.ok("apply", "--server-side", "--force-conflicts", "-f", updated)
    assert "serverside-applied" in forced
    after = _managers(kubectl)
    assert scaler not in after
    assert "f:replicas" in json.dumps(after[("kubectl", "Apply", "")]["fieldsV1"])

    client_side = kubectl.write("web.yaml", MANIFEST.format(replicas=2, image="nginx:1.27"))
    kubectl.ok("apply", "-f", client_side)
    image = kubectl.ok(
        "get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"
    )
    assert image == "nginx:1.27"
    shown = kubectl.ok("get", "deployment", "web", "-o", "yaml", "--show-managed-fields")
    assert "operation: Apply" in shown
    assert "operation: Update" in shown


MIGRATED = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: default
  labels: {labels}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
"""


def test_client_side_then_server_side_apply_migrates_ownership(kubectl: Kubectl) -> None:
    # kubectl (1.26+) moves what kubectl-client-side-apply owned to its Apply entry when it
    # first applies server-side (a patch of managedFields the server keeps as sent): a field
    # dropped from the manifest then goes, as with client-side apply's last-applied.
    first = MIGRATED.format(name="migrate", labels="{team: a, tier: web}")
    kubectl.ok("apply", "-f", kubectl.write("migrate.yaml", first))
    before = _managers_of(kubectl, "migrate")
    assert ("kubectl-client-side-apply", "Update", "") in before
    second = MIGRATED.format(name="migrate", labels="{team: a}")
    out = kubectl.ok("apply", "--server-side", "-f", kubectl.write("migrate.yaml", second))
    assert "serverside-applied" in out
    after = _managers_of(kubectl, "migrate")
    assert ("kubectl-client-side-apply", "Update", "") not in after
    assert "f:tier" not in json.dumps(after[("kubectl", "Apply", "")]["fieldsV1"])
    labels = json.loads(kubectl.ok("get", "deployment", "migrate", "-o", "json"))["metadata"][
        "labels"
    ]
    assert labels == {"team": "a"}


def _managers_of(kubectl: Kubectl, name: str) -> dict[tuple[str, str, str], dict[str, object]]:
    out = kubectl.ok("get", "deployment", name, "-o", "json", "--show-managed-fields")
    entries = json.loads(out)["metadata"]["managedFields"]
    return {(e["manager"], e["operation"], e.get("subresource", "")): e for e in entries}
