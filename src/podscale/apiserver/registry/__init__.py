"""Storage rules per kind, as upstream's registry: REST strategies, the write (admission) pipeline,
namespace lifecycle, Service IP and port allocation, and the objects a cluster always has.
"""
