"""Real kubectl over a custom kind's Table and OpenAPI documents: ``get -o wide`` and ``explain``.

A minimal HTTP server stands in for the API server: legacy discovery naming one custom kind,
``/version`` with the minor that picks the bundled kubectl, the custom Table
(``customresources.columns``) for ``get``, and ``customresources.openapi``'s documents for
``explain`` (kubectl >= 1.29 reads the v3 documents, 1.28 the v2 one, as protobuf). The serving
app's own wiring of these documents is tested with the custom resource routes.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest

from podscale.apiserver.customresources.columns import column_definitions, print_row
from podscale.apiserver.customresources.openapi import (
    openapi_v2_body,
    openapi_v3_document_bytes,
    openapi_v3_root,
)
from podscale.apiserver.openapi.v2_http import serve_openapi_v2
from podscale.apiserver.printing.tables import partial_object_metadata

JSON = dict[str, Any]
GROUP = "ceramics.podscale.test"

_SCHEMA: JSON = {
    "type": "object",
    "description": "Kiln is a kiln and its firing schedule.",
    "properties": {
        "spec": {
            "type": "object",
            "description": "What the kiln should do.",
            "required": ["cone"],
            "properties": {
                "cone": {"type": "integer", "description": "Pyrometric cone to fire to."},
                "glaze": {"type": "string", "nullable": True, "description": "Glaze name."},
                "ramp": {"x-kubernetes-int-or-string": True, "description": "Degrees per hour."},
            },
        },
        "status": {
            "type": "object",
            "properties": {"celsius": {"type": "number"}, "lit": {"type": "boolean"}},
        },
    },
}
_VERSION: JSON = {
    "name": "v1",
    "served": True,
    "storage": True,
    "schema": {"openAPIV3Schema": _SCHEMA},
    "additionalPrinterColumns": [
        {"name": "Cone", "type": "integer", "jsonPath": ".spec.cone"},
        {"name": "Lit", "type": "boolean", "jsonPath": ".status.lit"},
        {"name": "Celsius", "type": "number", "jsonPath": ".status.celsius", "priority": 1},
        {"name": "Glaze", "type": "string", "jsonPath": ".spec.glaze", "priority": 1},
    ],
}
CRD: JSON = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"kilns.{GROUP}"},
    "spec": {
        "group": GROUP,
        "names": {"plural": "kilns", "singular": "kiln", "kind": "Kiln", "listKind": "KilnList"},
        "scope": "Namespaced",
        "versions": [_VERSION],
    },
    "status": {"conditions": [{"type": "Established", "status": "True"}]},
}
NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
KILNS: list[JSON] = [
    {
        "apiVersion": f"{GROUP}/v1",
        "kind": "Kiln",
        "metadata": {"name": "big-blue", "namespace": "default", "resourceVersion": "5"},
        "spec": {"cone": 6, "glaze": "celadon"},
        "status": {"celsius": 1222.5, "lit": True},
    },
    {
        "apiVersion": f"{GROUP}/v1",
        "kind": "Kiln",
        "metadata": {"name": "test-kiln", "namespace": "default", "resourceVersion": "6"},
        "spec": {"cone": 4},
    },
]


def _routes(minor: int) -> dict[str, tuple[str, bytes]]:
    def js(value: Any) -> tuple[str, bytes]:
        return "application/json", json.dumps(value).encode()

    resource = {
        "name": "kilns",
        "singularName": "kiln",
        "namespaced": True,
        "kind": "Kiln",
        "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
    }
    table = {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": "6"},
        "columnDefinitions": column_definitions(_VERSION),
        "rows": [
            {**print_row(_VERSION, kiln, NOW), "object": partial_object_metadata(kiln)}
            for kiln in KILNS
        ],
    }
    v3 = openapi_v3_document_bytes([CRD], GROUP, "v1")
    assert v3 is not None
    return {
        "/version": js({"major": "1", "minor": str(minor), "gitVersion": f"v1.{minor}.0"}),
        "/api": js({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}),
        "/api/v1": js({"kind": "APIResourceList", "groupVersion": "v1", "resources": []}),
        "/apis": js(
            {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [
                    {
                        "name": GROUP,
                        "versions": [{"groupVersion": f"{GROUP}/v1", "version": "v1"}],
                        "preferredVersion": {"groupVersion": f"{GROUP}/v1", "version": "v1"},
                    }
                ],
            }
        ),
        f"/apis/{GROUP}/v1": js(
            {"kind": "APIResourceList", "groupVersion": f"{GROUP}/v1", "resources": [resource]}
        ),
        f"/apis/{GROUP}/v1/namespaces/default/kilns": js(table),
        "/openapi/v3": js(openapi_v3_root([CRD])),
        f"/openapi/v3/apis/{GROUP}/v1": ("application/json", v3),
    }


class _Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[str, bytes]]] = {}

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == "/openapi/v2":
            # Through the app's handler, with the merged document as its body.
            response = serve_openapi_v2(
                self.headers.get("accept"), None, lambda media: openapi_v2_body([CRD], media)
            )
            reply: tuple[str, bytes] | None = (response.media_type or "", bytes(response.body))
        else:
            reply = self.routes.get(path)
        if reply is None:
            self.send_response(404)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}')
            return
        media, body = reply
        self.send_response(200)
        self.send_header("content-type", media)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(params=[28, 30, 33], ids=lambda minor: f"kubectl-1.{minor}")
def kubectl(
    request: pytest.FixtureRequest, kubectl_binary: str, private_home: Path, tmp_path: Path
) -> Iterator[list[str]]:
    handler = type("Handler", (_Handler,), {"routes": _routes(request.param)})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {"name": "c", "cluster": {"server": f"http://127.0.0.1:{server.server_port}"}}
                ],
                "users": [{"name": "u", "user": {}}],
                "contexts": [
                    {"name": "x", "context": {"cluster": "c", "user": "u", "namespace": "default"}}
                ],
                "current-context": "x",
            }
        )
    )
    try:
        yield [kubectl_binary, "--kubeconfig", str(kubeconfig)]
    finally:
        server.shutdown()
        server.server_close()


def _run(argv: list[str], home: Path, *args: str) -> str:
    done = subprocess.run(
        [*argv, *args],
        capture_output=True,
        text=True,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_get_prints_the_printer_columns(kubectl: list[str], private_home: Path) -> None:
    lines = _run(kubectl, private_home, "get", "kilns").splitlines()
    assert lines[0].split() == ["NAME", "CONE", "LIT"]
    assert lines[1].split() == ["big-blue", "6", "true"]
    # kubectl prints a null cell as nothing.
    assert lines[2].split() == ["test-kiln", "4"]
    wide = _run(kubectl, private_home, "get", "kilns", "-o", "wide").splitlines()
    assert wide[0].split() == ["NAME", "CONE", "LIT", "CELSIUS", "GLAZE"]
    assert wide[1].split() == ["big-blue", "6", "true", "1222.5", "celadon"]
    assert wide[2].split() == ["test-kiln", "4"]


def test_explain_reads_the_custom_schema(kubectl: list[str], private_home: Path) -> None:
    out = _run(kubectl, private_home, "explain", "kilns.spec")
    assert "KIND:       Kiln" in out
    assert "FIELD: spec <Object>" in out
    assert "What the kiln should do." in out
    assert "cone\t<integer> -required-" in out
    assert "Pyrometric cone to fire to." in out
    assert "glaze\t<string>" in out
    assert "ramp\t" in out
    top = _run(kubectl, private_home, "explain", "kilns")
    assert "Kiln is a kiln and its firing schedule." in top
    assert "metadata\t<ObjectMeta>" in top
    assert "apiVersion\t<string>" in top
