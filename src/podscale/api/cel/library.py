"""Kubernetes' CEL extension functions that CRD rules commonly call, for ``engine``.

kube-apiserver adds libraries of its own on top of the CEL standard and the strings
extension (which ``podscale.api.cel.engine`` loads from the runtime): lists (``isSorted``,
``sum``, ``min``, ``max``, ``indexOf``, ``lastIndexOf``), regex (``find``, ``findAll``) and
sets (``sets.contains``, ``sets.equivalent``, ``sets.intersects``). They are declared over
``dyn`` element types, so a wrong element type is a runtime ``no such overload`` rather than
a compile error. Regular expressions run on Python's ``re`` (upstream uses RE2; the two agree
on the syntax rules use in practice). Not provided: ``url``/``isURL``, ``quantity``,
``ip``/``cidr``, ``format.*`` and ``semver``. Pure.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from cel_expr_python import cel

__all__ = ["kubernetes_extension"]


class _Mismatch(Exception):
    """A call whose arguments the function has no overload for (cel-go's ``no such overload``)."""


def _number_list(values: list[Any]) -> list[Any]:
    if any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
        raise _Mismatch("no such overload")
    return values


def _is_sorted(values: list[Any]) -> bool:
    try:
        return all(values[i] <= values[i + 1] for i in range(len(values) - 1))
    except TypeError:
        raise _Mismatch("no such overload") from None


def _sum(values: list[Any]) -> Any:
    numbers = _number_list(values)
    if any(isinstance(v, float) for v in numbers):
        return float(sum(numbers))
    return sum(numbers)


def _extreme(name: str, pick: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    def run(values: list[Any]) -> Any:
        if not values:
            raise _Mismatch(f"{name} called on empty list")
        try:
            return pick(values)
        except TypeError:
            raise _Mismatch("no such overload") from None

    return run


def _index_of(values: list[Any], item: Any) -> int:
    for i, value in enumerate(values):
        if value == item and type(value) is type(item):
            return i
    return -1


def _last_index_of(values: list[Any], item: Any) -> int:
    for i in range(len(values) - 1, -1, -1):
        if values[i] == item and type(values[i]) is type(item):
            return i
    return -1


def _find(text: str, pattern: str) -> str:
    match = re.search(pattern, text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    found = [m.group(0) for m in re.finditer(pattern, text)]
    return found if limit < 0 else found[:limit]


def _sets_contains(first: list[Any], second: list[Any]) -> bool:
    return all(item in first for item in second)


def _sets_equivalent(first: list[Any], second: list[Any]) -> bool:
    return _sets_contains(first, second) and _sets_contains(second, first)


def _sets_intersects(first: list[Any], second: list[Any]) -> bool:
    return any(item in first for item in second)


def _member(name: str, oid: str, result: Any, params: list[Any], impl: Any) -> Any:
    return cel.FunctionDecl(name, [cel.Overload(oid, result, params, is_member=True, impl=impl)])


@functools.cache
def kubernetes_extension() -> Any:
    """The extension object registering the functions above with the CEL environment."""
    dyn, string, integer = cel.Type.DYN, cel.Type.STRING, cel.Type.INT
    any_list = cel.Type.List(dyn)
    string_list = cel.Type.List(string)
    boolean = cel.Type.BOOL
    functions = [
        _member("isSorted", "k8s_list_is_sorted", boolean, [any_list], _is_sorted),
        _member("sum", "k8s_list_sum", dyn, [any_list], _sum),
        _member("min", "k8s_list_min", dyn, [any_list], _extreme("min", min)),
        _member("max", "k8s_list_max", dyn, [any_list], _extreme("max", max)),
        _member("indexOf", "k8s_list_index_of", integer, [any_list, dyn], _index_of),
        _member("lastIndexOf", "k8s_list_last_index_of", integer, [any_list, dyn], _last_index_of),
        _member("find", "k8s_string_find", string, [string, string], _find),
        cel.FunctionDecl(
            "findAll",
            [
                cel.Overload(
                    "k8s_string_find_all",
                    string_list,
                    [string, string],
                    is_member=True,
                    impl=_find_all,
                ),
                cel.Overload(
                    "k8s_string_find_all_n",
                    string_list,
                    [string, string, integer],
                    is_member=True,
                    impl=_find_all,
                ),
            ],
        ),
    ]
    for name, impl in (
        ("sets.contains", _sets_contains),
        ("sets.equivalent", _sets_equivalent),
        ("sets.intersects", _sets_intersects),
    ):
        oid = "k8s_" + name.replace(".", "_")
        overload = cel.Overload(oid, boolean, [any_list, any_list], impl=impl)
        functions.append(cel.FunctionDecl(name, [overload]))
    return cel.CelExtension("kubernetes", functions)
