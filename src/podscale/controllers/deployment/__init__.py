"""The Deployment controller: pure rollout arithmetic and status decisions, and its shell.

Pure modules, one concept each (no I/O, ``now`` always a parameter): ``fenceposts``
(maxSurge/maxUnavailable), ``replicasets`` (the ReplicaSet view and orderings), ``rollout``
(rolling and Recreate steps), ``proportional`` (scaling events), ``hashing``
(pod-template-hash), ``revisions`` (revision annotations, history cleanup), ``conditions``
and ``status`` (Deployment status). The shell that reads objects and writes the results:
``controller`` (``DeploymentController``: informers, handlers, ``reconcile``), ``claim``
(adoption/release of ReplicaSets), ``sync`` (one sync's writes and status),
``new_replica_set`` (find or create the new ReplicaSet), ``strategies`` (the claim, then
the step order).
"""
