"""OpenAPI schemas of core/v1 probes, lifecycle hooks and security contexts.

The parts of a Container (``openapi.schemas_container``) that describe how the kubelet checks
and stops it and under which identity it runs; PodSecurityContext (``openapi.schemas_pod``)
reuses the SELinux, seccomp and AppArmor types defined here.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    array,
    boolean,
    core,
    integer,
    ref,
    string,
    struct,
)
from podscale.apiserver.openapi.schemas_meta import INT_OR_STRING

__all__ = ["probe_schemas"]


def _strings(description: str) -> Schema:
    return array(string(), description, list_type="atomic")


def _probe_handlers() -> dict[str, Schema]:
    return {
        "exec": ref(core("ExecAction"), "Run a command inside the container."),
        "httpGet": ref(core("HTTPGetAction"), "Perform an HTTP GET."),
        "tcpSocket": ref(core("TCPSocketAction"), "Open a TCP connection."),
    }


def _probe() -> Schema:
    return struct(
        "A health check the kubelet performs against the container.",
        {
            **_probe_handlers(),
            "grpc": ref(core("GRPCAction"), "Call the gRPC health checking protocol."),
            "initialDelaySeconds": integer("Seconds after start before probes begin."),
            "timeoutSeconds": integer("Seconds after which a probe times out (default 1)."),
            "periodSeconds": integer("Seconds between probes (default 10)."),
            "successThreshold": integer("Consecutive successes to count as healthy."),
            "failureThreshold": integer("Consecutive failures to count as unhealthy."),
            "terminationGracePeriodSeconds": integer(
                "Grace period when a failed probe kills the container.", fmt="int64"
            ),
        },
    )


def _security_context() -> Schema:
    return struct(
        "Security options of one container; they override the pod's.",
        {
            "capabilities": ref(core("Capabilities"), "Linux capabilities to add or drop."),
            "privileged": boolean("Run as privileged (root on the host)."),
            "seLinuxOptions": ref(core("SELinuxOptions"), "SELinux context to apply."),
            "windowsOptions": ref(
                core("WindowsSecurityContextOptions"), "Windows-specific options."
            ),
            "runAsUser": integer("UID to run the entrypoint as.", fmt="int64"),
            "runAsGroup": integer("GID to run the entrypoint as.", fmt="int64"),
            "runAsNonRoot": boolean("Refuse to start if the image runs as root."),
            "readOnlyRootFilesystem": boolean("Mount the root filesystem read-only."),
            "allowPrivilegeEscalation": boolean("Allow gaining more privileges than the parent."),
            "procMount": string("Default or Unmasked."),
            "seccompProfile": ref(core("SeccompProfile"), "Seccomp profile to apply."),
            "appArmorProfile": ref(core("AppArmorProfile"), "AppArmor profile to apply."),
        },
    )


def _action_schemas() -> dict[str, Schema]:
    port = "Port number or name to contact."
    return {
        core("ExecAction"): struct(
            "A command run inside the container; exit status 0 is success.",
            {"command": _strings("The command line, not run in a shell.")},
        ),
        core("HTTPGetAction"): struct(
            "An HTTP GET; a 2xx or 3xx answer is success.",
            {
                "path": string("Path to request."),
                "port": ref(INT_OR_STRING, port),
                "host": string("Host to connect to (default: the pod IP)."),
                "scheme": string("HTTP or HTTPS."),
                "httpHeaders": array(
                    ref(core("HTTPHeader")), "Extra request headers.", list_type="atomic"
                ),
            },
            required=("port",),
        ),
        core("HTTPHeader"): struct(
            "One HTTP header.",
            {"name": string("Header name."), "value": string("Header value.")},
            required=("name", "value"),
        ),
        core("TCPSocketAction"): struct(
            "A TCP connection attempt.",
            {"port": ref(INT_OR_STRING, port), "host": string("Host (default: the pod IP).")},
            required=("port",),
        ),
        core("GRPCAction"): struct(
            "A gRPC health check.",
            {
                "port": integer("Port of the gRPC service."),
                "service": string("Service name placed in the health check request."),
            },
            required=("port",),
        ),
        core("SleepAction"): struct(
            "A pause before the container continues stopping.",
            {"seconds": integer("Seconds to sleep.", fmt="int64")},
            required=("seconds",),
        ),
        core("Lifecycle"): struct(
            "Actions the kubelet runs on container lifecycle events.",
            {
                "postStart": ref(
                    core("LifecycleHandler"), "Runs right after the container starts."
                ),
                "preStop": ref(core("LifecycleHandler"), "Runs before the container is stopped."),
                "stopSignal": string("Signal used to stop the container."),
            },
        ),
        core("LifecycleHandler"): struct(
            "One lifecycle action; exactly one handler is set.",
            {
                **_probe_handlers(),
                "sleep": ref(core("SleepAction"), "Sleep for a while."),
            },
        ),
        core("Probe"): _probe(),
    }


def _security_schemas() -> dict[str, Schema]:
    return {
        core("SecurityContext"): _security_context(),
        core("Capabilities"): struct(
            "Linux capabilities to add and drop.",
            {
                "add": _strings("Capabilities to add."),
                "drop": _strings("Capabilities to drop."),
            },
        ),
        core("SELinuxOptions"): struct(
            "SELinux labels.",
            {
                "user": string("SELinux user label."),
                "role": string("SELinux role label."),
                "type": string("SELinux type label."),
                "level": string("SELinux level label."),
            },
        ),
        core("WindowsSecurityContextOptions"): struct(
            "Windows-specific security options.",
            {
                "gmsaCredentialSpecName": string("Name of the GMSA credential spec."),
                "gmsaCredentialSpec": string("Contents of the GMSA credential spec."),
                "runAsUserName": string("User name to run the entrypoint as."),
                "hostProcess": boolean("Run as a Windows HostProcess container."),
            },
        ),
        core("SeccompProfile"): struct(
            "A seccomp profile.",
            {
                "type": string("Localhost, RuntimeDefault or Unconfined."),
                "localhostProfile": string("Path of a profile on the node, for Localhost."),
            },
            required=("type",),
        ),
        core("AppArmorProfile"): struct(
            "An AppArmor profile.",
            {
                "type": string("Localhost, RuntimeDefault or Unconfined."),
                "localhostProfile": string("Name of a profile loaded on the node."),
            },
            required=("type",),
        ),
    }


def probe_schemas() -> dict[str, Schema]:
    """Schema name -> schema for probes, lifecycle handlers and security contexts."""
    return {**_action_schemas(), **_security_schemas()}
