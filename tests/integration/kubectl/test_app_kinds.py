"""A typical application's manifests against ``podscale up`` with the real kubectl: Deployment,
Service, ConfigMap, Secret, ServiceAccount, PodDisruptionBudget and HPA apply unchanged,
``kubectl get`` prints upstream's columns for the new kinds, and a Service keeps its cluster
IP across a restart without it being handed to another Service. The secret's value never
appears in what the server prints.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

SECRET_VALUE = "s3cr3t-do-not-log-me"

APP = f"""\
apiVersion: v1
kind: ServiceAccount
metadata: {{name: shop}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: shop-config}}
data:
  LOG_LEVEL: info
  settings.json: '{{"cache": true}}'
---
apiVersion: v1
kind: Secret
metadata: {{name: shop-secret}}
type: Opaque
stringData:
  password: {SECRET_VALUE}
data:
  api-key: {base64.b64encode(b"key-123").decode()}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: shop, labels: {{app: shop}}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: shop}}}}
  template:
    metadata: {{labels: {{app: shop}}}}
    spec:
      serviceAccountName: shop
      containers:
      - name: web
        image: nginx:1.25
        ports: [{{containerPort: 8080, name: http}}]
        envFrom:
        - configMapRef: {{name: shop-config}}
        - secretRef: {{name: shop-secret}}
        resources: {{requests: {{cpu: 100m}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: shop}}
spec:
  selector: {{app: shop}}
  ports:
  - name: http
    port: 80
    targetPort: http
  - name: metrics
    port: 9090
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: shop}}
spec:
  minAvailable: 1
  selector: {{matchLabels: {{app: shop}}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: shop}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: shop}}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}
"""

LEASE = """\
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: shop-leader}
spec: {holderIdentity: shop-0, leaseDurationSeconds: 15}
"""

OTHER = """\
apiVersion: v1
kind: Service
metadata: {name: other}
spec:
  type: NodePort
  selector: {app: other}
  ports: [{port: 8080}]
"""


def _header(output: str) -> list[str]:
    return output.splitlines()[0].split("  ")


def _columns(output: str) -> list[str]:
    return [part.strip() for part in _header(output) if part.strip()]


def test_typical_app_applies_and_prints_upstream_columns(
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    data_dir = tmp_path / "data"
    plane = start_control_plane(data_dir)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    applied = kubectl.ok("apply", "-f", kubectl.write("app.yaml", APP)).splitlines()
    assert applied == [
        "serviceaccount/shop created",
        "configmap/shop-config created",
        "secret/shop-secret created",
        "deployment.apps/shop created",
        "service/shop created",
        "poddisruptionbudget.policy/shop created",
        "horizontalpodautoscaler.autoscaling/shop created",
    ]
    kubectl.ok("apply", "-f", kubectl.write("lease.yaml", LEASE))
    # Applying the same manifests again changes nothing (but the Secret: its stringData is
    # never stored, so kubectl's three-way patch always sends it again, as on a cluster).
    again = kubectl.ok("apply", "-f", "app.yaml")
    assert "service/shop unchanged" in again
    assert "configmap/shop-config unchanged" in again
    assert "secret/shop-secret configured" in again

    svc = kubectl.ok("get", "svc", "shop")
    assert _columns(svc) == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]
    row = svc.splitlines()[1].split()
    assert row[:2] == ["shop", "ClusterIP"]
    assert row[3:5] == ["<none>", "80/TCP,9090/TCP"]
    cluster_ip = row[2]
    assert cluster_ip.startswith("10.0.0.")
    wide = kubectl.ok("get", "svc", "shop", "-o", "wide")
    assert _columns(wide)[-1] == "SELECTOR"
    assert wide.splitlines()[1].split()[-1] == "app=shop"

    expected = {
        "configmap/shop-config": ["NAME", "DATA", "AGE"],
        "secret/shop-secret": ["NAME", "TYPE", "DATA", "AGE"],
        "serviceaccount/shop": ["NAME", "SECRETS", "AGE"],
        "poddisruptionbudget.policy/shop": [
            "NAME",
            "MIN AVAILABLE",
            "MAX UNAVAILABLE",
            "ALLOWED DISRUPTIONS",
            "AGE",
        ],
        "lease.coordination.k8s.io/shop-leader": ["NAME", "HOLDER", "AGE"],
    }
    for name, columns in expected.items():
        assert _columns(kubectl.ok("get", name)) == columns, name
    assert kubectl.ok("get", "cm", "shop-config").splitlines()[1].split()[:2] == [
        "shop-config",
        "2",
    ]
    assert kubectl.ok("get", "secret", "shop-secret").splitlines()[1].split()[:3] == [
        "shop-secret",
        "Opaque",
        "2",
    ]
    assert kubectl.ok("get", "pdb", "shop").splitlines()[1].split()[:4] == ["shop", "1", "N/A", "0"]
    assert kubectl.ok("get", "lease", "shop-leader").splitlines()[1].split()[:2] == [
        "shop-leader",
        "shop-0",
    ]
    together = kubectl.ok("get", "svc,cm,secret,sa,pdb,lease")
    for kind in ("service/shop", "configmap/shop-config", "secret/shop-secret"):
        assert kind in together
    # stringData went into data on write, base64 encoded; it is never stored itself.
    secret = json.loads(kubectl.ok("get", "secret", "shop-secret", "-o", "json"))
    assert "stringData" not in secret
    assert base64.b64decode(secret["data"]["password"]).decode() == SECRET_VALUE
    # kubectl explain reads the published OpenAPI v3 schemas.
    assert "targetPort" in kubectl.ok("explain", "service.spec.ports")

    # A restart keeps the cluster IP, and another Service never gets it.
    code, rest = plane.stop()
    assert code == 0, rest
    assert SECRET_VALUE not in "\n".join(plane.announced) + rest
    second = start_control_plane(data_dir)
    control_plane_factory.append(second)
    assert kubectl.ok("get", "svc", "shop").splitlines()[1].split()[2] == cluster_ip
    assert "service/shop unchanged" in kubectl.ok("apply", "-f", "app.yaml")
    kubectl.ok("apply", "-f", kubectl.write("other.yaml", OTHER))
    other = kubectl.ok("get", "svc", "other").splitlines()[1].split()
    assert other[1] == "NodePort"
    assert other[2] != cluster_ip
    assert other[4].startswith("8080:3")
    assert other[4].endswith("/TCP")
    wanted = OTHER.replace("other", "taken").replace("type: NodePort", f"clusterIP: {cluster_ip}")
    taken = kubectl("apply", "-f", kubectl.write("taken.yaml", wanted))
    assert taken.returncode == 1
    assert f"failed to allocate IP {cluster_ip}: provided IP is already allocated" in taken.stderr
    code, rest = second.stop()
    assert code == 0
    assert SECRET_VALUE not in rest
