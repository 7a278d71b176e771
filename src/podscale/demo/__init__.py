"""``podscale demo``: a scenario played on the embedded control plane, its live view, timeline,
summary and plot.
"""
