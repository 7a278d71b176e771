"""KEDA's ScaledObject (``keda.sh/v1alpha1``): its kind, types, validation and triggers."""
