"""Custom resource values against a CRD's structural OpenAPI v3 schema.

The pure core of apiextensions-apiserver's schema handling, over plain JSON dicts:
``pruning`` (unknown fields), ``defaulting`` (defaults and nulls), ``validation``
(kube-openapi's checks with kube-apiserver's texts, embedded resources, list types) and
``pipeline``, which runs them in upstream's order for the API server
(``podscale.apiserver.customresources``). Formats, Go-style printing and value
comparison sit in ``formats``, ``gofmt`` and ``values``. A schema handed to these functions
must not be changed afterwards (a stored CRD's never is): ``facts`` remembers, per schema
node, what lies below it, so that the walkers skip what holds nothing for them.
"""

from podscale.api.schema.defaulting import apply_defaults
from podscale.api.schema.pipeline import SchemaOutcome, admit_custom_object, apply_read_defaults
from podscale.api.schema.pruning import prune
from podscale.api.schema.validation import validate

__all__ = [
    "SchemaOutcome",
    "admit_custom_object",
    "apply_defaults",
    "apply_read_defaults",
    "prune",
    "validate",
]
