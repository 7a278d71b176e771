"""client-go's leader election on a ``coordination.k8s.io/v1`` Lease.

``record`` maps the election record to and from a Lease, ``decide`` is the pure logic of one
acquire-or-renew round, ``elector`` the asyncio shell that runs it (``LeaderElector.run``).
A controller manager runs its controllers inside ``LeaderElector.run`` so only one replica
acts at a time.
"""

from podscale.client.leaderelection.elector import (
    LeaderElectionConfig,
    LeaderElector,
    LeaseApi,
)
from podscale.client.leaderelection.record import LeaderElectionRecord

__all__ = ["LeaderElectionConfig", "LeaderElectionRecord", "LeaderElector", "LeaseApi"]
