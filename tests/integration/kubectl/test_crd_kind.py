"""CustomResourceDefinitions with the real kubectl against ``podscale up``: ``apply`` creates
and re-applies a realistic multi-version CRD, ``get crd`` prints upstream's default table
(NAME, CREATED AT), short names resolve, ``explain`` reads the published schema, an invalid
CRD is refused with upstream's field path and text, and ``delete`` removes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

NAME = "sandboxes.lab.podscale.dev"

# Two versions with differing schemas (v1alpha1 lacks quota), int-or-string, an opaque
# preserved config, a list-map keyed by two fields, status and scale subresources and
# printer columns: the features a real operator's CRD uses.
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sandboxes.lab.podscale.dev
  labels: {team: lab}
spec:
  group: lab.podscale.dev
  scope: Namespaced
  names:
    plural: sandboxes
    singular: sandbox
    kind: Sandbox
    shortNames: [sbx]
    categories: [lab]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.workers
        statusReplicasPath: .status.workers
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - {name: Workers, type: integer, jsonPath: .spec.workers}
    - {name: Image, type: string, jsonPath: .spec.image, priority: 1}
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            required: [image]
            properties:
              image: {type: string, minLength: 1}
              workers: {type: integer, minimum: 0, default: 1}
              timeout: {x-kubernetes-int-or-string: true}
              quota:
                type: object
                additionalProperties: {type: string}
              tuning:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
                    protocol: {type: string, default: TCP, enum: [TCP, UDP]}
          status:
            type: object
            properties:
              workers: {type: integer}
              selector: {type: string}
  - name: v1alpha1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: lab.podscale.dev/v1alpha1 Sandbox is deprecated; use v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
"""

BROKEN = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.lab.podscale.dev}
spec:
  group: lab.podscale.dev
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {description: no type here}
"""


# The oldest and newest kubectl minors the dispatcher bundles.
@pytest.mark.parametrize("minor", [27, 33], ids=["kubectl-1.27", "kubectl-1.33"])
def test_crd_apply_get_explain_delete(
    minor: int,
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", minor=minor)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)

    created = kubectl.ok("apply", "-f", kubectl.write("crd.yaml", CRD))
    assert created.strip() == f"customresourcedefinition.apiextensions.k8s.io/{NAME} created"
    again = kubectl.ok("apply", "-f", "crd.yaml")
    assert again.strip() == f"customresourcedefinition.apiextensions.k8s.io/{NAME} unchanged"

    table = kubectl.ok("get", "crd").splitlines()
    assert table[0].split() == ["NAME", "CREATED", "AT"]
    name, created_at = table[1].split()
    assert name == NAME
    assert created_at.endswith("Z")
    assert "T" in created_at

    stored = json.loads(kubectl.ok("get", "customresourcedefinitions", NAME, "-o", "json"))
    assert stored["status"]["storedVersions"] == ["v1"]
    assert stored["spec"]["conversion"] == {"strategy": "None"}
    assert stored["spec"]["names"]["listKind"] == "SandboxList"

    explained = kubectl.ok("explain", "crd.spec.versions.schema")
    assert "CustomResourceDefinition" in explained
    assert "openAPIV3Schema" in explained

    refused = kubectl("apply", "-f", kubectl.write("broken.yaml", BROKEN))
    assert refused.returncode != 0
    assert (
        "spec.validation.openAPIV3Schema.properties[spec].properties[size].type: "
        "Required value: must not be empty for specified object fields"
    ) in refused.output

    deleted = kubectl.ok("delete", "crd", NAME)
    assert deleted.strip() == f'customresourcedefinition.apiextensions.k8s.io "{NAME}" deleted'
    assert kubectl.ok("get", "crds", "-o", "name").strip() == ""
