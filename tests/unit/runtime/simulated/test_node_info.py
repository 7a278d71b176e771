"""``nodeInfo`` of the simulated nodes: what generated clients require of a NodeSystemInfo."""

from __future__ import annotations

import pytest
from kubernetes.client import V1NodeSystemInfo

from podscale.apiserver.discovery import version_info
from podscale.runtime.simulated.nodes import node_info

REQUIRED = (
    "architecture",
    "bootID",
    "containerRuntimeVersion",
    "kernelVersion",
    "kubeProxyVersion",
    "kubeletVersion",
    "machineID",
    "operatingSystem",
    "osImage",
    "systemUUID",
)


@pytest.mark.parametrize("name", ["node-1", "a"], ids=["numbered", "short"])
def test_node_info_has_every_field_the_generated_model_requires(name: str) -> None:
    info = node_info(name)
    assert all(info.get(key) for key in REQUIRED), sorted(set(REQUIRED) - set(info))
    # The official client's model raises ValueError on a missing required field.
    by_attribute = {attr: info.get(key) for attr, key in V1NodeSystemInfo.attribute_map.items()}
    model = V1NodeSystemInfo(**by_attribute)
    assert model.boot_id == info["bootID"]


def test_kubelet_version_is_the_version_the_server_reports() -> None:
    assert node_info("n")["kubeletVersion"] == version_info()["gitVersion"]


def test_ids_are_stable_per_node_and_differ_between_nodes() -> None:
    assert node_info("n1") == node_info("n1")
    first, second = node_info("n1"), node_info("n2")
    for key in ("machineID", "systemUUID", "bootID"):
        assert first[key] != second[key]
