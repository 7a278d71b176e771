"""Crane's EffectiveHorizontalPodAutoscaler: its kinds, decisions and controller."""
