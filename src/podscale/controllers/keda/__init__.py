"""KEDA's ScaledObject (``keda.sh/v1alpha1``): its kind, triggers and scaling-modifier formulas."""
