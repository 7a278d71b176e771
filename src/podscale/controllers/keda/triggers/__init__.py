"""KEDA's trigger metadata, one module per trigger type; ``registry.parse_trigger`` reads one."""
