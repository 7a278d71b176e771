"""Workload controllers (issue 4): ReplicaSet, Deployment and their shared runtime.

Each controller keeps its pure decisions (what to create, delete, adopt, report) in
plain functions over JSON dicts, apart from the reconcile loop that performs them.
"""
