"""The package's import graph has no cycles: no module imports itself through others.

The layer contracts in ``pyproject.toml`` (import-linter) keep packages in order; this test
looks one level finer, at modules, and counts function-level imports too (``grimp``, the
graph library import-linter is built on, sees those). A cycle fails with the modules it
runs through and the lines that import each next one.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

import grimp


def strongly_connected(graph: grimp.ImportGraph, modules: Iterable[str]) -> list[list[str]]:
    """The groups of two or more modules that import each other, directly or through others
    (Tarjan's algorithm, iterative: the graph is deeper than Python's recursion limit)."""
    members = set(modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(members):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start) & members)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    imported = graph.find_modules_directly_imported_by(child) & members
                    work.append((child, iter(sorted(imported))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def describe_cycle(graph: grimp.ImportGraph, group: list[str]) -> str:
    """One cycle through the group's first module, each step with its import lines."""
    first = group[0]
    successor = min(graph.find_modules_directly_imported_by(first) & set(group))
    back = graph.find_shortest_chain(importer=successor, imported=first) or (successor, first)
    chain = [first, *back]
    steps = []
    for importer, imported in pairwise(chain):
        lines = [
            f"l.{detail['line_number']}"
            for detail in graph.get_import_details(importer=importer, imported=imported)
        ]
        steps.append(f"  {importer} -> {imported} ({', '.join(lines) or '?'})")
    return "\n".join(steps)


def test_the_cycle_finder_reports_a_cycle_and_ignores_a_chain() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")]:
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="")
    groups = strongly_connected(graph, graph.modules)
    assert groups == [["a", "b", "c"]]
    assert describe_cycle(graph, groups[0]).splitlines() == [
        "  a -> b (l.1)",
        "  b -> c (l.1)",
        "  c -> a (l.1)",
    ]


def test_no_module_of_podscale_imports_itself_through_others() -> None:
    graph = grimp.build_graph("podscale", cache_dir=None)
    groups = strongly_connected(graph, graph.modules)
    report = "\n\n".join(
        f"{len(group)} modules import each other:\n{describe_cycle(graph, group)}"
        for group in groups
    )
    assert not groups, f"import cycles in podscale:\n{report}"
