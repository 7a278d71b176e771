"""``podscale replay``: how well autoscalers serve a workload, measured on the same load."""
