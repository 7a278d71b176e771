"""A ReplicaSet's sync reads only the pods its claim can act on: the ones its selector
matches and the ones it controls, in key order, the same the whole namespace would give."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from podscale.api.selectors import parse_selector
from podscale.client.cache import Cache, Lister
from podscale.controllers.replicaset.sync_io import claim_candidates

JSON = dict[str, Any]


def _pod(name: str, namespace: str, labels: dict[str, str], owner: str | None) -> JSON:
    metadata: JSON = {"name": name, "namespace": namespace, "labels": labels}
    if owner is not None:
        metadata["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": owner,
                "uid": owner,
                "controller": True,
            }
        ]
    return {"metadata": metadata}


_PODS = st.lists(
    st.tuples(
        st.sampled_from(["default", "other"]),
        st.dictionaries(
            st.sampled_from(["app", "tier"]), st.sampled_from(["web", "api"]), max_size=2
        ),
        st.sampled_from([None, "rs-web", "rs-api"]),
    ),
    max_size=15,
)


@given(_PODS, st.sampled_from(["app=web", "app=web,tier=api", "app in (web,api)", "tier"]))
def test_candidates_are_the_matching_and_the_controlled_pods(
    pods: list[tuple[str, dict[str, str], str | None]], text: str
) -> None:
    cache = Cache()
    objects = [_pod(f"p{i}", ns, labels, owner) for i, (ns, labels, owner) in enumerate(pods)]
    for obj in objects:
        cache.upsert(obj)
    selector = parse_selector(text)
    found = claim_candidates(Lister(cache), "default", selector, "rs-web")
    expected = sorted(
        (
            obj
            for obj in objects
            if obj["metadata"]["namespace"] == "default"
            and (
                selector.matches(obj["metadata"]["labels"])
                or obj["metadata"].get("ownerReferences", [{}])[0].get("uid") == "rs-web"
            )
        ),
        key=lambda obj: obj["metadata"]["name"],
    )
    assert [p["metadata"]["name"] for p in found] == sorted(
        (p["metadata"]["name"] for p in expected), key=lambda name: f"default/{name}"
    )
