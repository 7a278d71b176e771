"""KEDA's scalers: each trigger's metric value and activity, read at one poll."""
