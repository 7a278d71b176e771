"""Kapacity's IntelligentHorizontalPodAutoscaler and ReplicaProfile
(``autoscaling.kapacitystack.io/v1alpha1``): the kinds and their CRDs, types and checks, the
pure decisions (portraits, gray steps, stability checkers, one IHPA reconcile, pod state
transfers) and the two controller shells, ``controller.IhpaController`` and
``rp_controller.ReplicaProfileController`` (registered in ``controllers.registry``)."""
