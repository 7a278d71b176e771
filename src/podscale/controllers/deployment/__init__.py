"""Deployment controller building blocks: pure rollout arithmetic and status decisions.

Modules, one concept each (all pure: no I/O, ``now`` always a parameter):
``fenceposts`` (maxSurge/maxUnavailable), ``replicasets`` (the ReplicaSet view and
orderings), ``rollout`` (rolling and Recreate steps), ``proportional`` (scaling events),
``hashing`` (pod-template-hash), ``revisions`` (revision annotations, history cleanup),
``conditions`` and ``status`` (Deployment status). The controller loop that reads objects
and writes the results lives elsewhere in ``podscale.controllers``.
"""
