"""podscale's kubeconfig reader against the official ``kubernetes`` loader, and the fallback.

Each case writes kubeconfig files (and token, certificate and key files) into a temporary
directory, then resolves them with ``kubeconfig_reader.read_selection`` and with
``kubeconfig_official.official_selection``: server, authorization, TLS material (file
contents or inline data alike) and namespace must agree. Where kubectl and the official
loader differ (the token file against an inline token, which file's ``current-context``
wins, a context without a server), the reader follows kubectl and a test says so.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from podscale.client.connection import Connection, KubeconfigError, Selection
from podscale.client.kubeconfig import load_kubeconfig
from podscale.client.kubeconfig_official import official_selection
from podscale.client.kubeconfig_reader import Unsupported, read_selection

JSON = dict[str, Any]
CA = b"-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n"
CERT = b"-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n"
KEY = b"-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def config(clusters: JSON, users: JSON, contexts: JSON, current: str | None = "main") -> JSON:
    document: JSON = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": n, "cluster": c} for n, c in clusters.items()],
        "users": [{"name": n, "user": u} for n, u in users.items()],
        "contexts": [{"name": n, "context": c} for n, c in contexts.items()],
    }
    if current is not None:
        document["current-context"] = current
    return document


def single(cluster: JSON, user: JSON, namespace: str | None = None) -> JSON:
    context = {"cluster": "c", "user": "u", **({"namespace": namespace} if namespace else {})}
    return config({"c": cluster}, {"u": user}, {"main": context})


HTTPS = "https://10.0.0.1:6443"


@dataclass(frozen=True)
class Case:
    kubeconfigs: dict[str, JSON]  # relative path -> document
    kubeconfig_env: tuple[str, ...] = ()  # the KUBECONFIG list; empty: --kubeconfig
    files: dict[str, bytes] = field(default_factory=dict)  # token, certificate, key files
    context: str | None = None


CASES = {
    "token": Case({"kc": single({"server": HTTPS + "/"}, {"token": "abc"})}),
    "token-file-relative": Case(
        {"conf/kc": single({"server": HTTPS}, {"tokenFile": "secrets/token"})},
        files={"conf/secrets/token": b"from-file"},
    ),
    "cert-files-and-ca": Case(
        {
            "kc": single(
                {"server": HTTPS, "certificate-authority": "{tmp}/pki/ca.crt"},
                {"client-certificate": "{tmp}/pki/c.crt", "client-key": "{tmp}/pki/c.key"},
            )
        },
        files={"pki/ca.crt": CA, "pki/c.crt": CERT, "pki/c.key": KEY},
    ),
    "cert-data-and-ca-data": Case(
        {
            "kc": single(
                {"server": HTTPS, "certificate-authority-data": b64(CA)},
                {"client-certificate-data": b64(CERT), "client-key-data": b64(KEY)},
            )
        }
    ),
    "insecure": Case(
        {"kc": single({"server": HTTPS, "insecure-skip-tls-verify": True}, {"token": "t"})}
    ),
    "basic-auth": Case(
        {"kc": single({"server": HTTPS}, {"username": "admin", "password": "s3cret"})}
    ),
    "tls-server-name": Case(
        {"kc": single({"server": HTTPS, "tls-server-name": "api.internal"}, {"token": "t"})}
    ),
    "namespace": Case({"kc": single({"server": HTTPS}, {"token": "t"}, namespace="team-a")}),
    "context-flag": Case(
        {
            "kc": config(
                {"a": {"server": "https://a:6443"}, "b": {"server": "https://b:6443"}},
                {"ua": {"token": "ta"}, "ub": {"token": "tb"}},
                {
                    "main": {"cluster": "a", "user": "ua"},
                    "other": {"cluster": "b", "user": "ub", "namespace": "nb"},
                },
            )
        },
        context="other",
    ),
    "kubeconfig-list-first-name-wins": Case(
        {
            "one/kc": config(
                {"c": {"server": "https://first:6443", "certificate-authority": "ca.crt"}},
                {},
                {},
                current=None,
            ),
            "two/kc": config(
                {"c": {"server": "https://second:6443"}},
                {"u": {"tokenFile": "token"}},
                {"main": {"cluster": "c", "user": "u", "namespace": "ns2"}},
            ),
        },
        kubeconfig_env=("one/kc", "missing/kc", "two/kc"),
        # Each entry's relative paths start at its own file's directory.
        files={"one/ca.crt": CA, "two/token": b"tok"},
    ),
    "no-user": Case({"kc": config({"c": {"server": HTTPS}}, {}, {"main": {"cluster": "c"}})}),
}


def materialize(tmp_path: Path, case: Case) -> tuple[str | None, dict[str, str]]:
    """Write the case's files; (the --kubeconfig path or None, the environment)."""
    for name, content in case.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    for name, document in case.kubeconfigs.items():
        text = yaml.safe_dump(document).replace("{tmp}", str(tmp_path))
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    if case.kubeconfig_env:
        listed = os.pathsep.join(str(tmp_path / name) for name in case.kubeconfig_env)
        return None, {"KUBECONFIG": listed}
    return str(tmp_path / next(iter(case.kubeconfigs))), {}


def material(selection: Selection) -> JSON:
    """What a connection amounts to, whether the TLS material is in files or inline."""

    def content(path: str | None, data: bytes | None) -> bytes | None:
        return data if data is not None else (Path(path).read_bytes() if path else None)

    c: Connection = selection.connection
    return {
        "server": c.server,
        "authorization": c.authorization,
        "verify": c.verify,
        "ca": content(c.ca_file, c.ca_data),
        "cert": content(c.cert_file, c.cert_data),
        "key": content(c.key_file, c.key_data),
        "tls_server_name": c.tls_server_name,
        "namespace": selection.namespace,
    }


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_reader_agrees_with_the_official_loader(tmp_path: Path, case: Case) -> None:
    explicit, environ = materialize(tmp_path, case)
    ours = read_selection(explicit, case.context, environ, str(tmp_path / "home"))
    files = explicit or environ["KUBECONFIG"]
    theirs = official_selection(files, case.context)
    assert material(ours) == material(theirs)


def test_user_paths_start_at_the_users_file(tmp_path: Path) -> None:
    """kubectl resolves a user's certificate against the user's file; the official loader
    uses the cluster's file's directory, so this case is checked on its own."""
    for name, content in {"a/ca.crt": CA, "b/c.crt": CERT, "b/c.key": KEY}.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(content)
    cluster = {"c": {"server": HTTPS, "certificate-authority": "ca.crt"}}
    (tmp_path / "a" / "kc").write_text(yaml.safe_dump(config(cluster, {}, {}, current=None)))
    user = {"u": {"client-certificate": "c.crt", "client-key": "c.key"}}
    contexts = {"main": {"cluster": "c", "user": "u"}}
    (tmp_path / "b" / "kc").write_text(yaml.safe_dump(config({}, user, contexts)))
    listed = os.pathsep.join(str(tmp_path / d / "kc") for d in "ab")
    found = material(read_selection(None, None, {"KUBECONFIG": listed}, str(tmp_path)))
    assert (found["ca"], found["cert"], found["key"]) == (CA, CERT, KEY)


def test_default_file_is_under_home(tmp_path: Path) -> None:
    (tmp_path / ".kube").mkdir()
    (tmp_path / ".kube" / "config").write_text(
        yaml.safe_dump(single({"server": HTTPS}, {"token": "home"}))
    )
    selection = read_selection(None, None, {}, str(tmp_path))
    assert selection.connection.authorization == "Bearer home"


@pytest.mark.parametrize(
    ("kubeconfigs", "context", "expected"),
    [
        # client-go reads a token file (trimmed) in preference to an inline token.
        (
            {"kc": single({"server": HTTPS}, {"token": "inline", "tokenFile": "t"})},
            None,
            ("https://10.0.0.1:6443", "Bearer from-file"),
        ),
        # kubectl takes current-context from the first file that sets it.
        (
            {
                "kc": config(
                    {"c": {"server": "https://one"}, "d": {"server": "https://two"}},
                    {},
                    {"main": {"cluster": "c"}, "second": {"cluster": "d"}},
                ),
                "kc2": config({}, {}, {}, current="second"),
            },
            None,
            ("https://one", None),
        ),
        # No server (or no context at all): kubectl's default server.
        (
            {"kc": config({"c": {}}, {}, {"main": {"cluster": "c"}})},
            None,
            ("http://localhost:8080", None),
        ),
        ({"kc": {"apiVersion": "v1", "kind": "Config"}}, None, ("http://localhost:8080", None)),
        (
            {"kc": config({"c": {"server": HTTPS}}, {}, {"x": {"cluster": "c"}}, current="")},
            "x",
            (HTTPS, None),
        ),
    ],
    ids=[
        "token-file-beats-token",
        "first-current-context-wins",
        "no-server",
        "empty-config",
        "context-without-current",
    ],
)
def test_kubectl_rules(
    tmp_path: Path, kubeconfigs: dict[str, JSON], context: str | None, expected: tuple
) -> None:  # type: ignore[type-arg]
    (tmp_path / "t").write_text("from-file\n")
    for name, document in kubeconfigs.items():
        (tmp_path / name).write_text(yaml.safe_dump(document))
    listed = os.pathsep.join(str(tmp_path / name) for name in kubeconfigs)
    connection = read_selection(None, context, {"KUBECONFIG": listed}, str(tmp_path)).connection
    assert (connection.server, connection.authorization) == expected


@pytest.mark.parametrize(
    ("text", "context", "message"),
    [
        (None, None, "stat {path}: no such file or directory"),
        (
            yaml.safe_dump(single({"server": HTTPS}, {})),
            "nope",
            "context was not found for specified context: nope",
        ),
        (
            yaml.safe_dump(config({}, {}, {}, current="gone")),
            None,
            "context was not found for specified context: gone",
        ),
        (
            ": : bad\n",
            None,
            "error loading config file \"{path}\": yaml: expected <block end>, but found ':'",
        ),
    ],
    ids=["missing-file", "missing-context", "missing-current-context", "bad-yaml"],
)
def test_errors_in_kubectl_words(
    tmp_path: Path, text: str | None, context: str | None, message: str
) -> None:
    path = tmp_path / "kc"
    if text is not None:
        path.write_text(text)
    with pytest.raises(KubeconfigError) as caught:
        load_kubeconfig(str(path), context, environ={})
    assert str(caught.value) == message.format(path=path)


@pytest.mark.parametrize(
    "user",
    [
        {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "x"}},
        {"auth-provider": {"name": "oidc", "config": {}}},
        {"token": "t", "as": "someone-else"},
        {"client-certificate-data": "not base64!"},
    ],
    ids=["exec", "auth-provider", "impersonation", "bad-base64"],
)
def test_what_the_reader_leaves_to_the_official_loader(tmp_path: Path, user: JSON) -> None:
    path = tmp_path / "kc"
    path.write_text(yaml.safe_dump(single({"server": HTTPS}, user)))
    with pytest.raises(Unsupported):
        read_selection(str(path), None, {}, str(tmp_path))


def test_exec_user_falls_back_and_runs_the_plugin(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin.py"
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "kind": "ExecCredential",
        "status": {"token": "from-plugin"},
    }
    plugin.write_text(f"import json\nprint(json.dumps({credential!r}))\n")
    exec_config = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": sys.executable,
        "args": [str(plugin)],
    }
    path = tmp_path / "kc"
    path.write_text(yaml.safe_dump(single({"server": HTTPS}, {"exec": exec_config}, "ns")))
    selection = load_kubeconfig(str(path), None, environ={})
    assert selection.connection.authorization == "Bearer from-plugin"
    assert (selection.connection.server, selection.namespace) == (HTTPS, "ns")


def test_kubeconfig_env_is_read_when_no_path_is_given(tmp_path: Path) -> None:
    path = tmp_path / "kc"
    path.write_text(yaml.safe_dump(single({"server": HTTPS}, {"token": "env"})))
    selection = load_kubeconfig(None, None, environ={"KUBECONFIG": str(path)})
    assert selection.connection.authorization == "Bearer env"
    assert json.dumps(material(selection), default=str)  # plain values throughout
