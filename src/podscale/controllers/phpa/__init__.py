"""The PredictiveHorizontalPodAutoscaler (``autoscaling.podscale.dev/v1alpha1``)."""
