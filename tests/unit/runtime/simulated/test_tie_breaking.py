"""Ties between equally scored nodes: a seeded RNG picks among exactly the best nodes (each
of them, reproducibly per seed); without one the smallest name wins."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from podscale.runtime.simulated.node_objects import node
from podscale.runtime.simulated.scheduling import choose_node, score_node

JSON = dict[str, Any]
POD: JSON = {
    "metadata": {"name": "p", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
}
NODES = [node("c"), node("a"), node("big", cpu="64", memory="64Gi"), node("b")]


def test_without_rng_the_smallest_of_the_best_wins() -> None:
    equal = [node("c"), node("a"), node("b")]
    assert choose_node(POD, equal, {}) == "a"
    assert choose_node(POD, NODES, {}) == "big"


def test_seeded_choice_covers_every_tied_node_and_repeats_per_seed() -> None:
    equal = [node("c"), node("a"), node("b")]
    picks = [choose_node(POD, equal, {}, random.Random(seed)) for seed in range(40)]
    assert set(picks) == {"a", "b", "c"}
    assert picks == [choose_node(POD, equal, {}, random.Random(seed)) for seed in range(40)]


@given(st.integers(0, 2**32))
def test_seeded_choice_is_always_a_best_scored_node(seed: int) -> None:
    chosen = choose_node(POD, NODES, {}, random.Random(seed))
    best = max(score_node(POD, n, []) for n in NODES)
    chosen_node = next(n for n in NODES if n["metadata"]["name"] == chosen)
    assert score_node(POD, chosen_node, []) == best
