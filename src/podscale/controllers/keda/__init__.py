"""KEDA's ScaledObject (``keda.sh/v1alpha1``): the kind, its CRD, types, admission rules,
triggers and scaling-modifier formulas."""
