"""Kapacity's IntelligentHorizontalPodAutoscaler (``autoscaling.kapacitystack.io/v1alpha1``)."""
