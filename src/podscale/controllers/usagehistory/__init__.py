"""The usage-history controller: per-minute series of every autoscaled workload (``controller``)."""
