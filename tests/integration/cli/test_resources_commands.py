"""End to end: the resource commands over HTTP against a real in-thread API server.

Each test drives the click commands (``podscale get|describe|create|apply|delete|scale|
autoscale``) with ``--kubeconfig`` pointing at a podscale server on a background thread,
success and error paths alike. The server runs on a FakeClock so AGE columns are stable;
where real kubectl is installed, ``test_same_output_as_kubectl`` compares outputs byte for
byte against the same server.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from click.testing import CliRunner, Result

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.cli.main import cli
from podscale.plane.files import write_kubeconfig
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    clock = FakeClock()
    running = start_in_thread(create_app(MemoryStore(clock), clock=clock))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def kubeconfig(server: RunningServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kube") / "config"
    write_kubeconfig(path, server=server.url, token=None)
    return path


@pytest.fixture
def run(server: RunningServer, kubeconfig: Path, tmp_path: Path) -> Any:
    """``run("get", "rs", namespace="x")``: invoke a command against the server, in a
    namespace that exists unless ``create=False`` (writes into a missing one are refused,
    as on a cluster)."""

    def invoke(*args: str, namespace: str | None = None, create: bool = True) -> Result:
        extra = ["--kubeconfig", str(kubeconfig)]
        if namespace:
            extra += ["-n", namespace]
        if namespace and create:
            body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
            created = httpx.post(f"{server.url}/api/v1/namespaces", json=body, timeout=30)
            assert created.status_code in (201, 409), created.text
        return CliRunner().invoke(cli, [*args, *extra], catch_exceptions=False)

    return invoke


def _workload(name: str, *, kind: str = "ReplicaSet", replicas: int = 2, **extra: Any) -> JSON:
    containers = extra.pop(
        "containers",
        [
            {
                "name": "web",
                "image": "nginx:1.25",
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                "ports": [{"containerPort": 80}, {"containerPort": 8080}],
            },
            {"name": "side", "image": "busybox"},
        ],
    )
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "labels": {"app": name, **extra.pop("labels", {})}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": containers},
            },
        },
    }


def _write(tmp_path: Path, name: str, *documents: JSON) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(documents))
    return path


def test_create_get_and_already_exists(run: Any, tmp_path: Path) -> None:
    manifest = _write(tmp_path, "rs.yaml", _workload("alpha"), _workload("beta"))
    created = run("create", "-f", str(manifest), namespace="create")
    assert (created.exit_code, created.stdout) == (
        0,
        "replicaset.apps/alpha created\nreplicaset.apps/beta created\n",
    )
    again = run("create", "-f", str(manifest), namespace="create")
    assert again.exit_code == 1
    assert again.stderr.splitlines() == [
        f'Error from server (AlreadyExists): error when creating "{manifest}": '
        f'replicasets.apps "{name}" already exists'
        for name in ("alpha", "beta")
    ]
    table = run("get", "rs", namespace="create")
    assert table.stdout == (
        "NAME    DESIRED   CURRENT   READY   AGE\n"
        "alpha   2         0         0       0s\n"
        "beta    2         0         0       0s\n"
    )
    wide = run("get", "replicasets.apps", "alpha", "-o", "wide", namespace="create")
    assert wide.stdout.splitlines()[0].split() == [
        "NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR",
    ]  # fmt: skip
    assert "web,side" in wide.stdout
    assert "app=alpha" in wide.stdout


def test_create_list_document_and_invalid_object(run: Any, tmp_path: Path) -> None:
    bad = _workload("neg", replicas=-1)
    listing = {"apiVersion": "v1", "kind": "List", "items": [_workload("ok"), bad]}
    result = run("create", "-f", str(_write(tmp_path, "list.yaml", listing)), namespace="invalid")
    assert result.exit_code == 1
    assert result.stdout == "replicaset.apps/ok created\n"
    assert result.stderr == (
        'The ReplicaSet "neg" is invalid: spec.replicas: Invalid value: -1: '
        "must be greater than or equal to 0\n"
    )


def _not_found(what: str) -> str:
    return f"Error from server (NotFound): {what} not found\n"


@pytest.mark.parametrize(
    ("args", "stdout", "stderr", "exit_code"),
    [
        (("get", "rs"), "", "No resources found in empty namespace.\n", 0),
        (("get", "nodes"), "", "No resources found\n", 0),
        (("get", "rs", "nosuch"), "", _not_found('namespaces "empty"'), 1),
        (("get", "widgets"), "", 'error: the server doesn\'t have a resource type "widgets"\n', 1),
        (("delete", "deploy", "nosuch"), "", _not_found('deployments.apps "nosuch"'), 1),
        (("describe", "hpa", "nosuch"), "", _not_found('namespaces "empty"'), 1),
        (("autoscale", "rs", "nosuch", "--max=3"), "", _not_found('replicasets.apps "nosuch"'), 1),
        (
            ("scale", "rs", "nosuch", "--replicas=1"),
            "",
            'error: no objects passed to scale replicasets.apps "nosuch" not found\n',
            1,
        ),
    ],
    ids=[
        "empty",
        "empty-cluster-scoped",
        "get-missing-namespace",
        "unknown-type",
        "delete-missing",
        "describe-missing-namespace",
        "autoscale-missing",
        "scale-missing",
    ],
)
def test_error_and_empty_paths(
    run: Any, args: tuple[str, ...], stdout: str, stderr: str, exit_code: int
) -> None:
    result = run(*args, namespace="empty", create=False)
    assert (result.exit_code, result.stdout, result.stderr) == (exit_code, stdout, stderr)


def test_get_yaml_json_name_and_all_namespaces(run: Any, tmp_path: Path) -> None:
    run("create", "-f", str(_write(tmp_path, "a.yaml", _workload("gamma"))), namespace="out")
    single = yaml.safe_load(run("get", "rs", "gamma", "-o", "yaml", namespace="out").stdout)
    assert (single["kind"], single["metadata"]["name"]) == ("ReplicaSet", "gamma")
    listed = yaml.safe_load(run("get", "rs", "-o", "json", namespace="out").stdout)
    assert listed["kind"] == "List"
    assert [i["apiVersion"] for i in listed["items"]] == ["apps/v1"]
    assert run("get", "rs/gamma", "-o", "name", namespace="out").stdout == "replicaset.apps/gamma\n"
    everywhere = run("get", "rs", "-A", "-l", "app=gamma").stdout.splitlines()
    assert everywhere[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert everywhere[1].split()[:2] == ["out", "gamma"]


def test_apply_create_unchanged_configured_with_removals(run: Any, tmp_path: Path) -> None:
    first = _workload("delta", labels={"tier": "front"})
    path = _write(tmp_path, "apply.yaml", first)
    assert (
        run("apply", "-f", str(path), namespace="apply").stdout == "replicaset.apps/delta created\n"
    )
    assert (
        run("apply", "-f", str(path), namespace="apply").stdout
        == "replicaset.apps/delta unchanged\n"
    )
    second = _workload(
        "delta",
        replicas=4,
        containers=[
            {
                "name": "web",
                "image": "nginx:1.26",
                "env": [{"name": "B", "value": "2"}],
                "ports": [{"containerPort": 8080}],
            }
        ],
    )
    path = _write(tmp_path, "apply.yaml", second)
    assert (
        run("apply", "-f", str(path), namespace="apply").stdout
        == "replicaset.apps/delta configured\n"
    )
    live = yaml.safe_load(run("get", "rs", "delta", "-o", "yaml", namespace="apply").stdout)
    assert live["metadata"]["labels"] == {"app": "delta"}
    assert live["spec"]["replicas"] == 4
    (container,) = live["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "nginx:1.26"
    assert container["env"] == [{"name": "B", "value": "2"}]
    assert container["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]
    assert container["imagePullPolicy"] == "IfNotPresent"  # defaulted fields are kept
    recorded = live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert yaml.safe_load(recorded)["spec"]["replicas"] == 4


def test_apply_reports_invalid_patch(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path, "apply.yaml", _workload("eps"))
    run("apply", "-f", str(path), namespace="apply-bad")
    path = _write(tmp_path, "apply.yaml", _workload("eps", replicas=-3))
    result = run("apply", "-f", str(path), namespace="apply-bad")
    assert result.exit_code == 1
    assert result.stderr == (
        'The ReplicaSet "eps" is invalid: spec.replicas: Invalid value: -3: '
        "must be greater than or equal to 0\n"
    )


def test_scale_and_current_replicas_precondition(run: Any, tmp_path: Path) -> None:
    run("create", "-f", str(_write(tmp_path, "s.yaml", _workload("zeta"))), namespace="scale")
    assert run("scale", "rs", "zeta", "--replicas=3", namespace="scale").stdout == (
        "replicaset.apps/zeta scaled\n"
    )
    mismatch = run("scale", "rs", "zeta", "--replicas=5", "--current-replicas=2", namespace="scale")
    assert (mismatch.exit_code, mismatch.stderr) == (1, "error: Expected replicas to be 2, was 3\n")
    ok = run("scale", "rs/zeta", "--replicas=5", "--current-replicas=3", namespace="scale")
    assert ok.exit_code == 0
    live = yaml.safe_load(run("get", "rs", "zeta", "-o", "yaml", namespace="scale").stdout)
    assert live["spec"]["replicas"] == 5


def test_autoscale_then_describe_hpa(run: Any, tmp_path: Path) -> None:
    workload = _workload("eta", kind="Deployment")
    run("create", "-f", str(_write(tmp_path, "d.yaml", workload)), namespace="auto")
    result = run(
        "autoscale", "deploy", "eta", "--max=5", "--min=2", "--cpu-percent=70", namespace="auto"
    )
    assert result.stdout == "horizontalpodautoscaler.autoscaling/eta autoscaled\n"
    duplicate = run("autoscale", "deploy", "eta", "--max=5", namespace="auto")
    assert duplicate.stderr == (
        'Error from server (AlreadyExists): horizontalpodautoscalers.autoscaling "eta" '
        "already exists\n"
    )
    named = run("autoscale", "deploy", "eta", "--max=4", "--name=eta-default", namespace="auto")
    assert named.exit_code == 0
    table = run("get", "hpa", namespace="auto").stdout.splitlines()
    assert table[0].split() == [
        "NAME",
        "REFERENCE",
        "TARGETS",
        "MINPODS",
        "MAXPODS",
        "REPLICAS",
        "AGE",
    ]
    assert "cpu: <unknown>/70%" in table[1]
    text = run("describe", "hpa", "eta", namespace="auto").stdout
    lines = text.splitlines()
    assert lines[0].split() == ["Name:", "eta"]
    assert "Reference:                                             Deployment/eta" in lines
    assert "  resource cpu on pods  (as a percentage of request):  <unknown> / 70%" in lines
    assert "Min replicas:                                          2" in lines
    assert "Deployment pods:                                       0 current / 0 desired" in lines
    assert lines[-1].split() == ["Events:", "<none>"]


def test_describe_replica_set(run: Any, tmp_path: Path) -> None:
    run("create", "-f", str(_write(tmp_path, "r.yaml", _workload("theta"))), namespace="desc")
    text = run("describe", "rs", "theta", namespace="desc").stdout
    assert text.startswith(
        "Name:         theta\nNamespace:    desc\nSelector:     app=theta\n"
        "Labels:       app=theta\nAnnotations:  <none>\n"
        "Replicas:     0 current / 2 desired\n"
        "Pods Status:  0 Running / 0 Waiting / 0 Succeeded / 0 Failed\nPod Template:\n"
    )
    assert "    Ports:       80/TCP, 8080/TCP\n" in text


@pytest.mark.parametrize("cascade", ["background", "orphan", "foreground"])
def test_delete_each_cascade_and_from_file(run: Any, tmp_path: Path, cascade: str) -> None:
    namespace = f"del-{cascade}"
    path = _write(tmp_path, "x.yaml", _workload("iota"), _workload("kappa"))
    run("create", "-f", str(path), namespace=namespace)
    deleted = run("delete", "rs", "iota", f"--cascade={cascade}", namespace=namespace)
    assert deleted.stdout == 'replicaset.apps "iota" deleted\n'
    from_file = run("delete", "-f", str(path), namespace=namespace)
    assert from_file.stdout.splitlines()[-1] == 'replicaset.apps "kappa" deleted'


KUBECTL = shutil.which("kubectl")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.parametrize(
    "args",
    [
        ("get", "rs"),
        ("get", "rs", "-o", "wide"),
        ("get", "hpa", "-A"),
        ("get", "rs", "lambda", "-o", "yaml"),
        ("get", "rs", "lambda", "-o", "json", "--show-managed-fields"),
        ("describe", "rs", "lambda"),
        ("describe", "hpa", "lambda"),
        ("describe", "deploy", "mu"),
        ("get", "rs", "missing", "lambda"),
        ("describe", "hpa", "missing"),
        ("describe", "rs"),
    ],
    ids=[
        "get",
        "wide",
        "hpa-all",
        "yaml",
        "json-with-managed-fields",
        "describe-rs",
        "describe-hpa",
        "describe-deploy",
        "get-missing",
        "describe-missing",
        "describe-all",
    ],
)
def test_same_output_as_kubectl(
    run: Any, kubeconfig: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    namespace = "kubectl"
    manifests = _write(
        tmp_path,
        "k.yaml",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        _workload("lambda"),
        _workload("mu", kind="Deployment"),
    )
    run("apply", "-f", str(manifests), namespace=namespace)
    run("autoscale", "rs", "lambda", "--max=4", "--cpu-percent=60", namespace=namespace)
    home = tmp_path / "home"
    home.mkdir()
    assert KUBECTL is not None
    real = subprocess.run(
        [KUBECTL, "--kubeconfig", str(kubeconfig), "-n", namespace, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": str(home)},
        check=False,
    )
    ours = run(*args, namespace=namespace)
    assert (ours.stdout, ours.stderr) == (real.stdout, real.stderr)
    assert (ours.exit_code == 0) == (real.returncode == 0)


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (None, 'error: the path "{path}" does not exist\n'),
        ("kind: ReplicaSet\n", 'error: error validating "{path}": error validating data: '
         "apiVersion not set; if you choose to ignore these errors, turn validation off with "
         "--validate=false\n"),
        ("apiVersion: v9\nkind: Widget\nmetadata: {name: w}\n",
         'error: resource mapping not found for name: "w" namespace: "" from "{path}": '
         'no matches for kind "Widget" in version "v9"\n'),
        ("", "error: no objects passed to create\n"),
    ],
    ids=["missing-file", "no-api-version", "unknown-kind", "empty"],
)  # fmt: skip
def test_manifest_errors(run: Any, tmp_path: Path, document: str | None, expected: str) -> None:
    path = tmp_path / "m.yaml"
    if document is not None:
        path.write_text(document)
    result = run("create", "-f", str(path))
    assert (result.exit_code, result.stderr) == (1, expected.format(path=path))


def test_unreachable_server(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "config"
    write_kubeconfig(config, server=f"http://127.0.0.1:{port}", token=None)
    result = CliRunner().invoke(cli, ["get", "rs", "--kubeconfig", str(config)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"The connection to the server 127.0.0.1:{port} was refused - "
        "did you specify the right host or port?\n"
    )
