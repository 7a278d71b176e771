"""The CEL engine behind ``x-kubernetes-validations``: a typed shell over ``cel_expr_python``.

Library: cel-expr-python (the official CEL C++ runtime) was chosen over cel-python (celpy) and
common-expression-language (Rust) for fidelity: it type-checks at compile time (``1 + 2u`` and
``1 == 1.0`` are compile errors, as in cel-go), counts string sizes in code points, rejects
duplicate map keys, ships the strings/optional extensions, and words its compile errors as
cel-go does (``ERROR: <input>:1:5: ...`` plus the caret snippet). Measured on one rule
(``self.replicas <= self.maxReplicas && self.items.all(...)``, 3 items): compile 84 us, eval
5.9 us (celpy: 357 us / 664 us; Rust bindings: 34 us / 16 us, but no type check).

``compile_expression`` caches compiled programs (rules repeat for every object); whether a
rule uses ``oldSelf`` (a transition rule) is learnt by compiling it first in an environment
without ``oldSelf``: only an expression that references that variable fails there. Runtime
errors are reworded into cel-go's texts (``no such key: x``) since kube-apiserver prints those.
Neighbours: ``podscale.api.cel.library`` (Kubernetes' extension functions),
``podscale.api.cel.compile`` and ``podscale.api.cel.validation`` (the users). Pure.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Final

from cel_expr_python import cel
from cel_expr_python.ext import ext_optional, ext_strings

from podscale.api.cel.library import kubernetes_extension

__all__ = [
    "CelCompileError",
    "CelEvalError",
    "Compiled",
    "compile_expression",
    "evaluate",
]

SELF: Final = "self"
OLD_SELF: Final = "oldSelf"


class CelCompileError(Exception):
    """An expression that does not compile; ``str`` is cel-go's issue text (``ERROR: ...``)."""


class CelEvalError(Exception):
    """An evaluation error in cel-go's wording (``no such key: x``, ``division by zero``)."""


@dataclass(frozen=True, slots=True)
class Compiled:
    """One compiled expression: the program, its static result type, whether it reads oldSelf."""

    program: Any
    result_type: str
    uses_old_self: bool


@functools.cache
def _environment(with_old_self: bool) -> Any:
    variables = {SELF: cel.Type.DYN}
    if with_old_self:
        variables[OLD_SELF] = cel.Type.DYN
    return cel.NewEnv(
        variables=variables,
        extensions=[
            ext_strings.ExtStrings(),
            ext_optional.ExtOptional(),
            kubernetes_extension(),
        ],
    )


# cel-cpp wraps each issue list as ``INVALID_ARGUMENT: <issues> [INVALID_ARGUMENT]``.
_STATUS_PREFIX: Final = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX: Final = re.compile(r" \[[A-Z_]+\]$")
# ``oldSelf`` alone or qualified (``oldSelf.spec`` is first resolved as one dotted name).
_UNDECLARED_OLD_SELF: Final = re.compile(rf"undeclared reference to '{OLD_SELF}[.']")


def _issues(error: Exception) -> str:
    text = _STATUS_SUFFIX.sub("", str(error))
    return _STATUS_PREFIX.sub("", text, count=1)


@functools.lru_cache(maxsize=4096)
def compile_expression(source: str) -> Compiled:
    """Compile one expression over ``self`` (and ``oldSelf``); raise ``CelCompileError``."""
    try:
        program = _environment(False).compile(source)
        uses_old_self = False
    except RuntimeError as without_old:
        if not _UNDECLARED_OLD_SELF.search(str(without_old)):
            raise CelCompileError(_issues(without_old)) from None
        try:
            program = _environment(True).compile(source)
        except RuntimeError as with_old:
            raise CelCompileError(_issues(with_old)) from None
        uses_old_self = True
    return Compiled(program, program.return_type().name(), uses_old_self)


# cel-cpp's runtime error texts -> cel-go's, which kube-apiserver puts in its messages.
_EVAL_REWORDS: Final = (
    (re.compile(r'^Key not found in map : "?(.*?)"?$'), r"no such key: \1"),
    (re.compile(r"^No matching overloads found : (.*)$"), r"no such overload: \1"),
    (re.compile(r"^divide by zero$"), "division by zero"),
    (re.compile(r"^modulus by zero$"), "modulus by zero"),
    (
        re.compile(r"^Index error: index=(-?\d+) size=(\d+)$"),
        r"index '\1' out of range in list size '\2'",
    ),
)


def _reword(text: str) -> str:
    text = _STATUS_PREFIX.sub("", text, count=1)
    for pattern, replacement in _EVAL_REWORDS:
        if pattern.match(text):
            return pattern.sub(replacement, text)
    return text


def evaluate(compiled: Compiled, activation: dict[str, Any]) -> Any:
    """Run a program; return its plain value or raise ``CelEvalError``."""
    try:
        result = compiled.program.eval(data=activation)
    except RuntimeError as error:  # bindings the runtime cannot take
        raise CelEvalError(_reword(str(error))) from None
    if result.type() == cel.Type.ERROR:
        raise CelEvalError(_reword(str(result.value())))
    return result.plain_value()
