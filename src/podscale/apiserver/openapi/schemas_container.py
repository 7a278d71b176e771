"""OpenAPI schemas of core/v1 Container and everything hanging off it.

Env vars, ports, resources and volume mounts: the fields real manifests set, so that strict
field validation (``openapi.fields``) accepts them. Probes, lifecycle hooks and security
contexts are in ``openapi.schemas_probes``; ``openapi.schemas_pod`` builds PodSpec on top of
both. Descriptions are ours.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    array,
    atomic_struct,
    boolean,
    core,
    integer,
    merge_list,
    ref,
    string,
    struct,
)
from podscale.apiserver.openapi.schemas_meta import QUANTITY, quantity_map

__all__ = ["container_schemas"]


def _strings(description: str) -> Schema:
    return array(string(), description, list_type="atomic")


def _container() -> Schema:
    probe = "Probe of the container's {}; see the Probe type."
    return struct(
        "A single application container run inside a pod.",
        {
            "name": string("Name of the container, a DNS label unique within the pod."),
            "image": string("Container image reference, e.g. nginx:1.27."),
            "command": _strings("Entrypoint array; replaces the image's ENTRYPOINT."),
            "args": _strings("Arguments to the entrypoint; replace the image's CMD."),
            "workingDir": string("Working directory inside the container."),
            "ports": merge_list(
                core("ContainerPort"),
                "Ports the container exposes (informational, except for named ports).",
                key="containerPort",
                map_keys=("containerPort", "protocol"),
            ),
            "envFrom": array(
                ref(core("EnvFromSource")),
                "Sources to populate environment variables from.",
                list_type="atomic",
            ),
            "env": merge_list(core("EnvVar"), "Environment variables to set in the container."),
            "resources": ref(
                core("ResourceRequirements"), "Compute resources requested and limited."
            ),
            "resizePolicy": array(
                ref(core("ContainerResizePolicy")),
                "How each resource may be resized in place.",
                list_type="atomic",
            ),
            "restartPolicy": string("Only Always, for sidecar init containers."),
            "restartPolicyRules": array(
                ref(core("ContainerRestartRule")),
                "Rules deciding whether the container restarts on exit.",
                list_type="atomic",
            ),
            "volumeMounts": merge_list(
                core("VolumeMount"), "Pod volumes to mount into the filesystem.", key="mountPath"
            ),
            "volumeDevices": merge_list(
                core("VolumeDevice"), "Block devices the container uses.", key="devicePath"
            ),
            "livenessProbe": ref(core("Probe"), probe.format("liveness; failure restarts it")),
            "readinessProbe": ref(core("Probe"), probe.format("readiness for service traffic")),
            "startupProbe": ref(core("Probe"), probe.format("successful start")),
            "lifecycle": ref(core("Lifecycle"), "Hooks run after start and before stop."),
            "terminationMessagePath": string("File the termination message is read from."),
            "terminationMessagePolicy": string("File or FallbackToLogsOnError."),
            "imagePullPolicy": string("Always, Never or IfNotPresent."),
            "securityContext": ref(core("SecurityContext"), "Container security options."),
            "stdin": boolean("Allocate a buffer for stdin."),
            "stdinOnce": boolean("Close stdin after the first attach disconnects."),
            "tty": boolean("Allocate a TTY."),
        },
        required=("name",),
    )


def _ephemeral_container() -> Schema:
    """A Container plus targetContainerName: debug containers added through the API."""
    schema = _container()
    schema["description"] = "A temporary container added to a running pod, e.g. for debugging."
    schema["properties"]["targetContainerName"] = string(
        "Container whose namespaces (process, IPC) the ephemeral container joins."
    )
    return schema


def _key_selector(what: str) -> Schema:
    return atomic_struct(
        struct(
            f"Selects a key of a {what}.",
            {
                "name": string(f"Name of the {what}."),
                "key": string("The key to select."),
                "optional": boolean(f"Whether the {what} or its key may be missing."),
            },
            required=("key",),
        )
    )


def _env_schemas() -> dict[str, Schema]:
    return {
        core("EnvVar"): struct(
            "An environment variable.",
            {
                "name": string("Variable name."),
                "value": string("Literal value; $(VAR) references are expanded."),
                "valueFrom": ref(core("EnvVarSource"), "Source of the value, if not literal."),
            },
            required=("name",),
        ),
        core("EnvVarSource"): struct(
            "Where an environment variable's value comes from.",
            {
                "fieldRef": ref(core("ObjectFieldSelector"), "A field of the pod."),
                "resourceFieldRef": ref(
                    core("ResourceFieldSelector"), "A resource limit or request of a container."
                ),
                "configMapKeyRef": ref(core("ConfigMapKeySelector"), "A key of a ConfigMap."),
                "secretKeyRef": ref(core("SecretKeySelector"), "A key of a Secret."),
                "fileKeyRef": ref(core("FileKeySelector"), "A key of an env file in a volume."),
            },
        ),
        core("ObjectFieldSelector"): atomic_struct(
            struct(
                "Selects a field of the pod, e.g. metadata.name or status.podIP.",
                {
                    "apiVersion": string("Version the field path is written in (default v1)."),
                    "fieldPath": string("Path of the field."),
                },
                required=("fieldPath",),
            )
        ),
        core("ResourceFieldSelector"): atomic_struct(
            struct(
                "Selects a container resource, e.g. limits.cpu.",
                {
                    "containerName": string("Container name; required for volumes."),
                    "resource": string("The resource to select."),
                    "divisor": ref(QUANTITY, "Unit the value is expressed in (default 1)."),
                },
                required=("resource",),
            )
        ),
        core("ConfigMapKeySelector"): _key_selector("ConfigMap"),
        core("SecretKeySelector"): _key_selector("Secret"),
        core("FileKeySelector"): atomic_struct(
            struct(
                "Selects a key of an env file stored in a volume.",
                {
                    "volumeName": string("Name of the volume holding the file."),
                    "path": string("Path of the file inside the volume."),
                    "key": string("The key to select."),
                    "optional": boolean("Whether the file or key may be missing."),
                },
                required=("volumeName", "path", "key"),
            )
        ),
        core("EnvFromSource"): struct(
            "Imports every key of a ConfigMap or Secret as environment variables.",
            {
                "prefix": string("Prefix prepended to each variable name."),
                "configMapRef": ref(core("ConfigMapEnvSource"), "The ConfigMap to import."),
                "secretRef": ref(core("SecretEnvSource"), "The Secret to import."),
            },
        ),
        core("ConfigMapEnvSource"): struct(
            "A ConfigMap imported as environment variables.",
            {"name": string("Name of the ConfigMap."), "optional": boolean("May be missing.")},
        ),
        core("SecretEnvSource"): struct(
            "A Secret imported as environment variables.",
            {"name": string("Name of the Secret."), "optional": boolean("May be missing.")},
        ),
    }


def container_schemas() -> dict[str, Schema]:
    """Schema name -> schema for Container and its parts."""
    return {
        core("Container"): _container(),
        core("EphemeralContainer"): _ephemeral_container(),
        core("ContainerPort"): struct(
            "A network port of a container.",
            {
                "name": string("IANA_SVC_NAME for the port, referable by services."),
                "hostPort": integer("Port to expose on the host."),
                "containerPort": integer("Port number on the pod's IP."),
                "protocol": string("UDP, TCP or SCTP (default TCP)."),
                "hostIP": string("Host IP to bind the host port to."),
            },
            required=("containerPort",),
        ),
        core("ResourceRequirements"): struct(
            "Compute resources of a container (or pod).",
            {
                "limits": quantity_map("Maximum amount of each resource allowed."),
                "requests": quantity_map("Amount of each resource reserved; the HPA's base."),
                "claims": merge_list(
                    core("ResourceClaim"), "Dynamic resource claims used.", strategy=""
                ),
            },
        ),
        core("ResourceClaim"): struct(
            "A reference to a pod resource claim.",
            {
                "name": string("Name of an entry of the pod's resourceClaims."),
                "request": string("Name of a request within that claim."),
            },
            required=("name",),
        ),
        core("ContainerResizePolicy"): struct(
            "How one resource of a container is resized in place.",
            {
                "resourceName": string("The resource, cpu or memory."),
                "restartPolicy": string("NotRequired or RestartContainer."),
            },
            required=("resourceName", "restartPolicy"),
        ),
        core("ContainerRestartRule"): struct(
            "A rule deciding the restart action for some exit codes.",
            {
                "action": string("Restart."),
                "exitCodes": ref(core("ContainerRestartRuleOnExitCodes"), "Exit codes matched."),
            },
            required=("action",),
        ),
        core("ContainerRestartRuleOnExitCodes"): struct(
            "A set of exit codes.",
            {
                "operator": string("In or NotIn."),
                "values": array(integer(), "The exit codes.", list_type="set"),
            },
            required=("operator",),
        ),
        core("VolumeMount"): struct(
            "Mounts a pod volume into a container.",
            {
                "name": string("Name of the pod volume."),
                "readOnly": boolean("Mount read-only."),
                "recursiveReadOnly": string("Disabled, IfPossible or Enabled."),
                "mountPath": string("Path inside the container."),
                "subPath": string("Sub-path of the volume to mount."),
                "mountPropagation": string("None, HostToContainer or Bidirectional."),
                "subPathExpr": string("subPath with $(VAR) expansion."),
            },
            required=("name", "mountPath"),
        ),
        core("VolumeDevice"): struct(
            "Maps a raw block volume into a container.",
            {
                "name": string("Name of a persistentVolumeClaim volume of the pod."),
                "devicePath": string("Path of the device inside the container."),
            },
            required=("name", "devicePath"),
        ),
        **_env_schemas(),
    }
