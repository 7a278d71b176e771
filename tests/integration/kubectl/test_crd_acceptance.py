"""One CRD through real kubectl on ``podscale up``, the way a user meets it: a structural
schema with nested objects, int-or-string, a list-map, a CEL rule, printer columns (one for
``-o wide``), status and scale subresources. kubectl gets, describes and explains it, sees the
schema's and the rule's errors in upstream's words, and the CRD's deletion takes the custom
resources with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: queues.messaging.podscale.test
spec:
  group: messaging.podscale.test
  scope: Namespaced
  names: {plural: queues, singular: queue, kind: Queue, shortNames: [q]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.consumers
        statusReplicasPath: .status.consumers
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - {name: Consumers, type: integer, jsonPath: .spec.consumers}
    - {name: Max, type: integer, jsonPath: .spec.maxConsumers}
    - {name: Retention, type: string, jsonPath: .spec.retention, priority: 1}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: How the queue is consumed.
            required: [maxConsumers]
            x-kubernetes-validations:
            - rule: self.consumers <= self.maxConsumers
              message: consumers must not exceed maxConsumers
            properties:
              consumers: {type: integer, minimum: 0, default: 1}
              maxConsumers: {type: integer, minimum: 1}
              retention: {x-kubernetes-int-or-string: true}
              partitions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    weight: {type: integer}
          status:
            type: object
            properties:
              consumers: {type: integer}
              selector: {type: string}
"""

ORDERS = """\
apiVersion: messaging.podscale.test/v1
kind: Queue
metadata:
  name: orders
spec:
  maxConsumers: 5
  retention: 7d
  partitions:
  - {name: eu, weight: 2}
  - {name: us, weight: 1}
"""


@pytest.mark.parametrize("minor", [27, 33])
def test_a_crd_as_a_user_meets_it(
    minor: int,
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", minor=minor)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    kubectl.ok("apply", "-f", kubectl.write("crd.yaml", CRD))
    kubectl.ok("wait", "--for=condition=Established", "crd/queues.messaging.podscale.test")
    kubectl.ok("apply", "-f", kubectl.write("orders.yaml", ORDERS))

    table = kubectl.ok("get", "queues").splitlines()
    # Declared columns replace the default Age column, as upstream's table convertor does.
    assert table[0].split() == ["NAME", "CONSUMERS", "MAX"]
    assert table[1].split()[:3] == ["orders", "1", "5"]  # consumers defaulted to 1
    wide = kubectl.ok("get", "q", "-o", "wide").splitlines()
    assert wide[0].split() == ["NAME", "CONSUMERS", "MAX", "RETENTION"]
    assert wide[1].split()[:4] == ["orders", "1", "5", "7d"]

    described = kubectl.ok("describe", "queue", "orders")
    assert "Max Consumers:  5" in described
    assert "API Version:  messaging.podscale.test/v1" in described
    explained = kubectl.ok("explain", "queues.spec")
    assert "How the queue is consumed." in explained
    assert "maxConsumers" in explained

    too_many = ORDERS.replace("maxConsumers: 5", "maxConsumers: 5\n  consumers: 9")
    refused = kubectl("apply", "-f", kubectl.write("too-many.yaml", too_many))
    assert refused.returncode != 0
    assert (
        'The Queue "orders" is invalid: spec: Invalid value: "object": '
        "consumers must not exceed maxConsumers"
    ) in refused.stderr
    wrong_type = ORDERS.replace("maxConsumers: 5", 'maxConsumers: "five"')
    refused = kubectl("apply", "-f", kubectl.write("wrong-type.yaml", wrong_type))
    assert refused.returncode != 0
    assert (
        'spec.maxConsumers: Invalid value: "string": '
        'spec.maxConsumers in body must be of type integer: "string"'
    ) in refused.stderr
    duplicate = ORDERS.replace("name: us", "name: eu")
    refused = kubectl("apply", "-f", kubectl.write("duplicate.yaml", duplicate))
    assert refused.returncode != 0
    assert "spec.partitions[1]: Duplicate value:" in refused.stderr

    kubectl.ok("scale", "queue", "orders", "--replicas=3")
    scaled = json.loads(kubectl.ok("get", "queue", "orders", "-o", "json"))
    assert scaled["spec"]["consumers"] == 3
    refused = kubectl("scale", "queue", "orders", "--replicas=6")  # the rule holds on /scale
    assert refused.returncode != 0
    assert "consumers must not exceed maxConsumers" in refused.stderr

    kubectl.ok("delete", "crd", "queues.messaging.podscale.test")
    gone = kubectl("get", "queues")
    assert gone.returncode != 0
    # kubectl's cached discovery may still name the type: the server then answers 404.
    assert (
        "the server doesn't have a resource type" in gone.stderr
        or "the server could not find the requested resource" in gone.stderr
    )
