"""CustomResourceDefinitions and their custom resources with the real kubectl against
``podscale up``: apply a CRD, then apply, get (table and YAML), patch, scale and delete a
custom resource; deleting the CRD takes its resources with it. The resources survive a
restart of the server in between.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - {name: Schedule, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              image: {type: string}
              replicas: {type: integer, minimum: 0, default: 1}
          status:
            type: object
            properties:
              replicas: {type: integer}
"""

CRONTAB = """\
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: nightly
spec:
  cronSpec: "0 3 * * *"
  image: backup:1.0
"""


def _start(data_dir: Path, planes: list[ControlPlaneProcess]) -> ControlPlaneProcess:
    plane = start_control_plane(data_dir)
    planes.append(plane)
    return plane


def test_custom_resources_with_kubectl(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    data_dir = tmp_path / "data"
    plane = _start(data_dir, control_plane_factory)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)

    applied = kubectl.ok("apply", "-f", kubectl.write("crd.yaml", CRD))
    assert "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com" in applied
    kubectl.ok("wait", "--for=condition=Established", "crd/crontabs.stable.example.com")
    assert "created" in kubectl.ok("apply", "-f", kubectl.write("ct.yaml", CRONTAB))

    table = kubectl.ok("get", "crontabs")
    assert table.split("\n")[0].split() == ["NAME", "SCHEDULE", "REPLICAS"]
    assert table.split("\n")[1].split()[0] == "nightly"
    assert "nightly" in kubectl.ok("get", "ct")
    assert "crontab.stable.example.com/nightly" in kubectl.ok("get", "all", "-o", "name")

    served = yaml.safe_load(kubectl.ok("get", "crontab", "nightly", "-o", "yaml"))
    assert served["apiVersion"] == "stable.example.com/v1"
    assert served["spec"]["replicas"] == 1  # the schema's default
    assert served["metadata"]["generation"] == 1

    kubectl.ok("patch", "crontab", "nightly", "--type=merge", "-p", '{"spec":{"image":"b:2"}}')
    kubectl.ok("scale", "crontab", "nightly", "--replicas=3")
    patched = json.loads(kubectl.ok("get", "crontab", "nightly", "-o", "json"))
    assert patched["spec"]["image"] == "b:2"
    assert patched["spec"]["replicas"] == 3
    assert patched["metadata"]["generation"] == 3

    refused = kubectl("patch", "crontab", "nightly", "-p", '{"spec":{"image":"c"}}')
    assert refused.returncode != 0  # strategic merge is not served for custom resources

    plane.stop()
    plane = _start(data_dir, control_plane_factory)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    again = json.loads(kubectl.ok("get", "crontab", "nightly", "-o", "json"))
    assert again["spec"]["replicas"] == 3

    kubectl.ok("apply", "-f", kubectl.write("second.yaml", CRONTAB.replace("nightly", "hourly")))
    kubectl.ok("delete", "crontab", "hourly")
    kubectl.ok("delete", "crd", "crontabs.stable.example.com")
    gone = kubectl("get", "crontabs")
    assert gone.returncode != 0
    assert "crontabs.stable.example.com" not in kubectl.ok("get", "crd")
