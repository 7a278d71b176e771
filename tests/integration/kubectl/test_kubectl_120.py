"""Debian's kubectl 1.20 (package ``kubernetes-client``) against a real ``podscale up``.

kubectl-wire.md §9: 1.20 speaks legacy discovery only, validates create/apply client-side
against the protobuf openapi v2 (``--validate=false`` skips that), describes an
HPA through autoscaling/v2beta2 falling back to autoscaling/v1, and autoscales with a v1
JSON body. The Debian package would replace the Cloud SDK dispatcher at /usr/bin/kubectl, so
its binary is extracted elsewhere and named by ``PODSCALE_KUBECTL_120``; without it the
module is skipped. Assertions are on kubectl's own output; ``-v=6``/``-v=8`` logs show
which URLs it used and what it sent.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

KUBECTL_120_ENV = "PODSCALE_KUBECTL_120"
NO_VALIDATION = "--validate=false"

REPLICA_SET = """\
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: {name}
  labels: {{app: {name}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: web
        image: {image}
        ports: [{{containerPort: 80}}]
"""

HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {name}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: ReplicaSet, name: {target}}}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 50}}}}
"""

# A client-go request line at -v=6: "... round_trippers.go:445] GET http://h:p/path 404 Not Found".
REQUEST_LINE = re.compile(r"\] (GET|POST|PUT|PATCH|DELETE) https?://[^/\s]+(\S+) (\d{3}) ")


@pytest.fixture(scope="module")
def kubectl_120_binary() -> str:
    path = os.environ.get(KUBECTL_120_ENV, "")
    if not path or not os.access(path, os.X_OK):
        pytest.skip(
            f"{KUBECTL_120_ENV} does not name an executable kubectl 1.20 ({path!r}): extract "
            "Debian's kubernetes-client with apt-get download + dpkg-deb -x and export it"
        )
    return path


@pytest.fixture(scope="module")
def plane(
    kubectl_120_binary: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ControlPlaneProcess]:
    started = start_control_plane(tmp_path_factory.mktemp("plane-120"))
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def kubectl(
    plane: ControlPlaneProcess, kubectl_120_binary: str, tmp_path_factory: pytest.TempPathFactory
) -> Kubectl:
    home = tmp_path_factory.mktemp("home-120")
    workdir = tmp_path_factory.mktemp("manifests-120")
    return Kubectl(kubectl_120_binary, plane.kubeconfig, home, workdir)


def create(kubectl: Kubectl, template: str, name: str, **extra: str) -> str:
    manifest = kubectl.write(f"{name}.yaml", template.format(name=name, **extra))
    return kubectl.ok("create", "-f", manifest, NO_VALIDATION)


def requests_of(log: str) -> list[tuple[str, str, int]]:
    """(method, path with query, status) of each request in a ``-v=6`` log."""
    return [(m[1], m[2], int(m[3])) for m in REQUEST_LINE.finditer(log)]


def test_it_is_kubectl_1_20_against_the_server(kubectl: Kubectl) -> None:
    out = kubectl.ok("version")
    assert 'Client Version: version.Info{Major:"1", Minor:"20", GitVersion:"v1.20.' in out
    assert 'Server Version: version.Info{Major:"1", Minor:"32", GitVersion:"v1.32.0"' in out


def test_create_validates_client_side_against_openapi_v2(kubectl: Kubectl) -> None:
    manifest = kubectl.write("made.yaml", REPLICA_SET.format(name="made", image="nginx:1.25"))
    # 1.20 validates against the protobuf /openapi/v2 itself (it has no server-side field
    # validation), so no --validate=false is needed.
    verbose = kubectl("create", "-f", manifest, "-v=6")
    assert verbose.returncode == 0, verbose.output
    assert ("GET", "/openapi/v2?timeout=32s", 200) in requests_of(verbose.stderr)
    assert verbose.stdout == "replicaset.apps/made created\n"
    again = kubectl("create", "-f", manifest)
    assert again.returncode == 1
    assert again.stderr.strip() == (
        'Error from server (AlreadyExists): error when creating "made.yaml": '
        'replicasets.apps "made" already exists'
    )
    bogus = kubectl.write(
        "bogus.yaml",
        REPLICA_SET.format(name="bogus", image="nginx:1.25").replace(
            "  replicas: 2\n", "  replicas: 2\n  bogus: 1\n"
        ),
    )
    refused = kubectl("create", "-f", bogus)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'error: error validating "bogus.yaml": error validating data: '
        'ValidationError(ReplicaSet.spec): unknown field "bogus" in '
        "io.k8s.api.apps.v1.ReplicaSetSpec; if you choose to ignore these errors, turn "
        "validation off with --validate=false"
    )


def test_get_table_wide_and_yaml(kubectl: Kubectl) -> None:
    create(kubectl, REPLICA_SET, "shown", image="nginx:1.25")
    assert create(kubectl, HPA, "shownhpa", target="shown") == (
        "horizontalpodautoscaler.autoscaling/shownhpa created\n"
    )
    table = [line.split() for line in kubectl.ok("get", "rs", "shown").splitlines()]
    assert table[0] == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    assert table[1][:4] == ["shown", "2", "0", "0"]
    wide = [line.split() for line in kubectl.ok("get", "rs", "shown", "-o", "wide").splitlines()]
    assert wide[0][5:] == ["CONTAINERS", "IMAGES", "SELECTOR"]
    assert wide[1][5:] == ["web", "nginx:1.25", "app=shown"]
    hpa = kubectl.ok("get", "hpa", "shownhpa").splitlines()
    assert hpa[0].split() == [
        "NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"
    ]  # fmt: skip
    assert "ReplicaSet/shown   cpu: <unknown>/50%   1         5         0" in hpa[1]
    as_yaml = "\n" + kubectl.ok("get", "hpa", "shownhpa", "-o", "yaml")
    for line in (
        "apiVersion: autoscaling/v2",
        "kind: HorizontalPodAutoscaler",
        "  name: shownhpa",
        "        averageUtilization: 50",
        "  desiredReplicas: 0",
    ):
        assert f"\n{line}\n" in as_yaml, line
    missing = kubectl("get", "rs", "nosuch")
    assert missing.returncode == 1
    assert (
        missing.stderr.strip()
        == 'Error from server (NotFound): replicasets.apps "nosuch" not found'
    )


def test_get_uses_legacy_discovery(
    kubectl: Kubectl, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A fresh HOME has no discovery cache: 1.20 fetches /api, /apis and every group version.
    fresh = Kubectl(
        kubectl.binary, kubectl.kubeconfig, tmp_path_factory.mktemp("fresh"), kubectl.workdir
    )
    result = fresh("get", "hpa", "-v=6")
    assert result.returncode == 0, result.output
    seen = {(method, path.split("?")[0], code) for method, path, code in requests_of(result.stderr)}
    for path in ("/api", "/apis", "/api/v1", "/apis/apps/v1", "/apis/autoscaling/v2"):
        assert ("GET", path, 200) in seen, path


def test_scale_and_the_current_replicas_precondition(kubectl: Kubectl) -> None:
    create(kubectl, REPLICA_SET, "scaled", image="nginx:1.25")
    assert kubectl.ok("scale", "rs", "scaled", "--replicas=3") == "replicaset.apps/scaled scaled\n"
    assert kubectl.ok("get", "rs", "scaled", "-o", "jsonpath={.spec.replicas}") == "3"
    conflict = kubectl("scale", "rs", "scaled", "--current-replicas=1", "--replicas=4")
    assert conflict.returncode == 1
    assert conflict.stderr.strip() == "error: Expected replicas to be 1, was 3"
    kubectl.ok("scale", "rs", "scaled", "--current-replicas=3", "--replicas=4")
    assert kubectl.ok("get", "rs", "scaled", "-o", "jsonpath={.spec.replicas}") == "4"


def test_describe_hpa_falls_back_from_v2beta2_to_v1(kubectl: Kubectl) -> None:
    create(kubectl, REPLICA_SET, "described", image="nginx:1.25")
    create(kubectl, HPA, "describedhpa", target="described")
    result = kubectl("describe", "hpa", "describedhpa", "-v=6")
    assert result.returncode == 0, result.output
    hpa_path = "/namespaces/default/horizontalpodautoscalers/describedhpa"
    requests = requests_of(result.stderr)
    assert ("GET", f"/apis/autoscaling/v2beta2{hpa_path}", 404) in requests
    assert ("GET", f"/apis/autoscaling/v1{hpa_path}", 200) in requests
    for fragment in (
        "Name:                     describedhpa\n",
        "Namespace:                default\n",
        "Reference:                ReplicaSet/described\n",
        "Target CPU utilization:   50%\n",
        "Current CPU utilization:  <unknown>%\n",
        "Min replicas:             1\n",
        "Max replicas:             5\n",
        "ReplicaSet pods:          0 current / 0 desired\n",
        "Events:                   <none>\n",
    ):
        assert fragment in result.stdout, fragment


def test_autoscale_posts_v1_json(kubectl: Kubectl) -> None:
    create(kubectl, REPLICA_SET, "auto", image="nginx:1.25")
    result = kubectl("autoscale", "rs", "auto", "--min=2", "--max=4", "--cpu-percent=70", "-v=8")
    assert result.returncode == 0, result.output
    assert result.stdout == "horizontalpodautoscaler.autoscaling/auto autoscaled\n"
    assert "POST http://" in result.stderr
    assert "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers?" in result.stderr
    [body] = re.findall(r"Request Body: (\{.*\})\n", result.stderr)
    sent = json.loads(body)
    assert (sent["apiVersion"], sent["kind"]) == ("autoscaling/v1", "HorizontalPodAutoscaler")
    assert sent["spec"]["targetCPUUtilizationPercentage"] == 70
    row = kubectl.ok("get", "hpa", "auto").splitlines()[1].split()
    assert row[1:6] == ["ReplicaSet/auto", "cpu:", "<unknown>/70%", "2", "4"]
    # Stored once, served as v2: the v1 CPU target became a Resource metric.
    stored = json.loads(kubectl.ok("get", "hpa.v2.autoscaling", "auto", "-o", "json"))
    assert stored["spec"]["metrics"] == [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 70},
            },
        }
    ]


def test_apply_twice_then_unchanged(kubectl: Kubectl) -> None:
    first = kubectl.write("applied1.yaml", REPLICA_SET.format(name="applied", image="nginx:1.25"))
    second = kubectl.write("applied2.yaml", REPLICA_SET.format(name="applied", image="nginx:1.26"))
    assert kubectl.ok("apply", "-f", first, NO_VALIDATION) == "replicaset.apps/applied created\n"
    assert kubectl.ok("apply", "-f", second, NO_VALIDATION) == (
        "replicaset.apps/applied configured\n"
    )
    assert kubectl.ok("apply", "-f", second, NO_VALIDATION) == (
        "replicaset.apps/applied unchanged\n"
    )
    image = kubectl.ok(
        "get", "rs", "applied", "-o", "jsonpath={.spec.template.spec.containers[0].image}"
    )
    assert image == "nginx:1.26"


def test_delete(kubectl: Kubectl) -> None:
    create(kubectl, REPLICA_SET, "doomed", image="nginx:1.25")
    create(kubectl, REPLICA_SET, "orphaner", image="nginx:1.25")
    create(kubectl, HPA, "doomedhpa", target="doomed")
    assert kubectl.ok("delete", "hpa", "doomedhpa") == (
        'horizontalpodautoscaler.autoscaling "doomedhpa" deleted\n'
    )
    assert kubectl.ok("delete", "rs", "doomed") == 'replicaset.apps "doomed" deleted\n'
    gone = kubectl("get", "rs", "doomed")
    assert gone.returncode == 1
    assert (
        gone.stderr.strip() == 'Error from server (NotFound): replicasets.apps "doomed" not found'
    )
    # No garbage collector runs yet: an orphan deletion stays pending on its finalizer.
    out = kubectl.ok("delete", "rs", "orphaner", "--cascade=orphan", "--wait=false")
    assert out == 'replicaset.apps "orphaner" deleted\n'
    pending = kubectl.ok("get", "rs", "orphaner", "-o", "jsonpath={.metadata.finalizers}")
    assert pending == '["orphan"]'
    again = kubectl("delete", "hpa", "doomedhpa")
    assert again.returncode == 1
    assert again.stderr.strip() == (
        'Error from server (NotFound): horizontalpodautoscalers.autoscaling "doomedhpa" not found'
    )
