"""The Kubernetes release podscale's API server speaks as, in one place.

``podscale.apiserver.discovery.version_info`` reports it on ``/version`` (its minor makes the
kubectl dispatcher pick its bundled kubectl of that minor) and the simulated kubelets of
``podscale.runtime.simulated.nodes`` report it as ``status.nodeInfo.kubeletVersion``, so
clients see one version, as on a cluster whose nodes run the control plane's release.
"""

from __future__ import annotations

from typing import Final

__all__ = ["KUBERNETES_VERSION"]

KUBERNETES_VERSION: Final = "v1.32.0"
