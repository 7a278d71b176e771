"""The kubectl sessions of docs/custom-resources.md, run with the real kubectl.

Every ``$ kubectl ...`` line of the page's console blocks runs, in the page's order, against
a fresh ``podscale up`` with ``examples/crds/workerpool-crd.yaml`` installed (from the
repository root, as the page's commands are written), and its output must be the lines the
page shows below it: compared word by word (column padding aside), ages read as any age,
and ``...`` standing for any lines.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

ROOT = Path(__file__).parents[3]
PAGE = ROOT / "docs" / "custom-resources.md"
BLOCK = re.compile(r"^```\n(.*?)^```$", re.DOTALL | re.MULTILINE)
AGE = re.compile(r"^\d+(s|m\d*s?)$")


def sessions() -> list[tuple[list[str], list[str]]]:
    """Each ``$ kubectl`` command of the page (continuation lines joined) and the lines the
    page shows as its output."""
    found: list[tuple[list[str], list[str]]] = []
    for block in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        lines = block.splitlines()
        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            if not line.startswith("$ kubectl "):
                continue
            command = line[2:]
            while command.endswith("\\"):
                command = command[:-1] + lines[index].strip()
                index += 1
            output = []
            while index < len(lines) and not lines[index].startswith("$ "):
                output.append(lines[index])
                index += 1
            found.append((shlex.split(command, comments=True)[1:], output))
    return found


def words(line: str) -> list[str]:
    return ["<age>" if AGE.match(word) else word for word in line.split()]


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` line by line, ``...`` skipping any lines."""
    if not expected:
        return not actual
    if expected[0].strip() == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return (
        bool(actual)
        and words(expected[0]) == words(actual[0])
        and matches(expected[1:], actual[1:])
    )


def test_the_page_has_sessions() -> None:
    commands = [" ".join(args[:2]) for args, _ in sessions()]
    assert "apply -f" in commands
    assert "scale wp" in commands
    assert "explain workerpool.spec.queue" in commands


def test_the_pages_kubectl_sessions(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data")
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, ROOT)
    kubectl.ok("apply", "-f", "examples/crds/workerpool-crd.yaml")
    kubectl.ok("wait", "--for=condition=Established", "crd/workerpools.demo.podscale.dev")
    for args, expected in sessions():
        result = kubectl(*args)
        actual = [line for line in result.output.splitlines() if line.strip()]
        shown = [line for line in expected if line.strip()]
        assert matches(shown, actual), (
            f"kubectl {shlex.join(args)} printed:\n{result.output}\nthe page shows:\n"
            + "\n".join(expected)
        )
