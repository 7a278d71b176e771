"""Kubernetes API types for podscale: the bottom layer, pure and I/O-free.

- ``kinds``: the registry of served kinds (group, version, plural, short names, ...).
- ``quantity``: ``resource.Quantity`` parsing, arithmetic and canonical formatting.
- ``selectors``: label selectors (string form and ``LabelSelector``), parsing, matching.
- ``defaults``: upstream defaulting; ``validation``: upstream validation (``validate``).
- ``conversion``: lossless HPA autoscaling/v1 <-> autoscaling/v2 conversion.
- ``field_errors``: ``FieldError`` and the 422 ``Status`` built from them.

Objects are Kubernetes JSON (``dict``); nothing here changes an object it is given.

The names below resolve on first use (``__getattr__``): importing one submodule, such as
``podscale.api.kinds`` for the command line, does not import validation, defaulting and
conversion with it.
"""

from typing import TYPE_CHECKING

from podscale.api.lazy import lazy_exports

if TYPE_CHECKING:
    from podscale.api.conversion import convert_hpa, hpa_v1_to_v2, hpa_v2_to_v1
    from podscale.api.defaults import apply_defaults
    from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, parse_feature_gates
    from podscale.api.field_errors import FieldError, invalid_status
    from podscale.api.kind_discovery import find_resource
    from podscale.api.kinds import KindInfo, all_kinds, kind_for, resource_for
    from podscale.api.quantity import Quantity, QuantityError, format_milli, parse_quantity
    from podscale.api.selectors import (
        Selector,
        SelectorError,
        label_selector_to_string,
        parse_selector,
        selector_from_label_selector,
    )
    from podscale.api.validation import validate

_EXPORTS: dict[str, str] = {
    "DEFAULT_FEATURE_GATES": "podscale.api.feature_gates",
    "FieldError": "podscale.api.field_errors",
    "KindInfo": "podscale.api.kinds",
    "Quantity": "podscale.api.quantity",
    "QuantityError": "podscale.api.quantity",
    "Selector": "podscale.api.selectors",
    "SelectorError": "podscale.api.selectors",
    "all_kinds": "podscale.api.kinds",
    "apply_defaults": "podscale.api.defaults",
    "convert_hpa": "podscale.api.conversion",
    "find_resource": "podscale.api.kind_discovery",
    "format_milli": "podscale.api.quantity",
    "hpa_v1_to_v2": "podscale.api.conversion",
    "hpa_v2_to_v1": "podscale.api.conversion",
    "invalid_status": "podscale.api.field_errors",
    "kind_for": "podscale.api.kinds",
    "label_selector_to_string": "podscale.api.selectors",
    "parse_feature_gates": "podscale.api.feature_gates",
    "parse_quantity": "podscale.api.quantity",
    "parse_selector": "podscale.api.selectors",
    "resource_for": "podscale.api.kinds",
    "selector_from_label_selector": "podscale.api.selectors",
    "validate": "podscale.api.validation",
}


__getattr__ = lazy_exports(globals(), _EXPORTS)


__all__ = [
    "DEFAULT_FEATURE_GATES",
    "FieldError",
    "KindInfo",
    "Quantity",
    "QuantityError",
    "Selector",
    "SelectorError",
    "all_kinds",
    "apply_defaults",
    "convert_hpa",
    "find_resource",
    "format_milli",
    "hpa_v1_to_v2",
    "hpa_v2_to_v1",
    "invalid_status",
    "kind_for",
    "label_selector_to_string",
    "parse_feature_gates",
    "parse_quantity",
    "parse_selector",
    "resource_for",
    "selector_from_label_selector",
    "validate",
]
