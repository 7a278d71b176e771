"""Kapacity's IntelligentHorizontalPodAutoscaler and ReplicaProfile
(``autoscaling.kapacitystack.io/v1alpha1``): the kinds, their CRDs, types and checks, and the
pure decisions (portraits, gray steps, stability checkers); no controller runs them yet."""
