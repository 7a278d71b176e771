"""The controllers kube-controller-manager runs, and the runtime they share.

One folder per controller (``replicaset``, ``deployment``, ``statefulset``, ``hpa``,
``garbagecollector``, ``namespace``, ``podgc``); each keeps its pure decisions (what to
create, delete, adopt, report) in plain functions over JSON dicts, apart from the reconcile
shell (``controller.py``) that performs them. ``manager`` runs them on shared informers
with work queues, ``registry`` names them for ``--controllers``, and the ``runtime_*``
modules are what several shells share (API writes, events, owners, pods).
"""
