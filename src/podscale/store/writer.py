"""A write-storm process for the durability test: ``python -m podscale.store.writer DB [N]``.

Opens ``sqlite.SqliteStore`` on ``DB`` and writes until killed (or ``N`` writes): creates
``configmaps`` ``w-<pid>-<i>`` and updates a shared ``counter`` object, printing one line
per *acknowledged* write, ``<verb> <name> <resourceVersion>``, flushed at once. The test
(``tests/integration/store/test_durability.py``) kills it with SIGKILL and checks that the
reopened database holds every acknowledged write.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from podscale.store.clock import SystemClock
from podscale.store.interface import NotFoundError
from podscale.store.sqlite import SqliteStore

__all__ = ["main"]


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m podscale.store.writer DBPATH [COUNT]", file=sys.stderr)
        return 2
    count = int(argv[1]) if len(argv) > 1 else -1
    store = SqliteStore(Path(argv[0]), SystemClock())
    out = sys.stdout
    pid = os.getpid()
    try:
        counter = store.get("configmaps", "default", "counter")
    except NotFoundError:
        counter = store.create(
            "configmaps", {"metadata": {"name": "counter", "namespace": "default"}, "data": {}}
        )
    index = 0
    while count < 0 or index < count:
        name = f"w-{pid}-{index}"
        obj = {"metadata": {"name": name, "namespace": "default"}, "data": {"i": str(index)}}
        created = store.create("configmaps", obj)
        out.write(f"create {name} {created['metadata']['resourceVersion']}\n")
        out.flush()
        counter["data"] = {"last": name}
        counter = store.update("configmaps", counter)
        out.write(f"update counter {counter['metadata']['resourceVersion']}\n")
        out.flush()
        index += 1
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
