"""Loading prometheus-adapter rule files: YAML in, compiled and validated ``Rule`` objects out.

The format is prometheus-adapter's (``docs/config.md``): ``rules`` for custom.metrics.k8s.io
and ``externalRules`` for external.metrics.k8s.io, each with ``seriesQuery``,
``seriesFilters`` (``is``/``isNot``), ``resources`` (``overrides``, ``template`` and, for
external rules, ``namespaced``), ``name`` (``matches``/``as``), ``metricsQuery`` and
``labelValueReplacements``. ``resourceRules`` is accepted and ignored: resource metrics come
from podscale's own metrics server.

Every regex and template is compiled here, so a broken rule fails at load with all its
problems listed, each naming its place like an API field error
(``rules[1].name.matches: Invalid value: "(": ...``); unknown keys are refused, because a
misspelt key would otherwise silently change what a rule selects.
Neighbours: ``naming``, ``resources`` and ``template`` provide the compiled parts; ``registry``
and ``queries`` consume ``Rule``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

from podscale.api.field_errors import OMIT_VALUE, FieldError, FieldPath, invalid, required
from podscale.metrics.prometheus.errors import ConfigError
from podscale.metrics.prometheus.naming import NameRule, SeriesFilter, default_name_as
from podscale.metrics.prometheus.promql import is_label_name
from podscale.metrics.prometheus.resources import (
    GroupResource,
    ResourceConverter,
    normalize_group_resource,
)
from podscale.metrics.prometheus.template import GoTemplate, TemplateError, parse_template

__all__ = ["QUERY_FIELDS", "AdapterConfig", "Rule", "load_config", "load_config_file"]

QUERY_FIELDS: Final = frozenset(
    {"Series", "LabelMatchers", "LabelValuesByName", "GroupBy", "GroupBySlice"}
)
_RESOURCE_FIELDS: Final = frozenset({"Group", "Resource"})
_RULE_KEYS: Final = frozenset(
    {"seriesQuery", "seriesFilters", "resources", "name", "metricsQuery", "labelValueReplacements"}
)
_TOP_KEYS: Final = frozenset({"rules", "externalRules", "resourceRules"})


@dataclass(frozen=True)
class Rule:
    """One compiled discovery rule. ``series_filters`` include the implicit ``name.matches``."""

    path: str
    external: bool
    series_query: str
    series_filters: tuple[SeriesFilter, ...]
    resources: ResourceConverter
    name: NameRule
    metrics_query: GoTemplate
    namespaced: bool = True
    label_value_replacements: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class AdapterConfig:
    rules: tuple[Rule, ...] = ()
    external_rules: tuple[Rule, ...] = ()
    source: str = field(default="", compare=False)


def load_config_file(path: str | Path) -> AdapterConfig:
    """Read and load a rule file; errors name the file."""
    return load_config(Path(path).read_text(encoding="utf-8"), source=str(path))


def load_config(text: str, source: str = "") -> AdapterConfig:
    """Parse YAML ``text``; raises ``ConfigError`` listing every problem found."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ConfigError(
            [invalid(FieldPath("<root>"), OMIT_VALUE, f"not valid YAML: {err}")], source
        ) from err
    errors: list[FieldError] = []
    if document is None:
        document = {}
    if not isinstance(document, Mapping):
        raise ConfigError([invalid(FieldPath("<root>"), OMIT_VALUE, "must be a mapping")], source)
    for key in document:
        if key not in _TOP_KEYS:
            errors.append(invalid(FieldPath(str(key)), OMIT_VALUE, "unknown field"))
    rules = _load_rules(document.get("rules"), FieldPath("rules"), False, errors)
    external = _load_rules(document.get("externalRules"), FieldPath("externalRules"), True, errors)
    if errors:
        raise ConfigError(errors, source)
    return AdapterConfig(rules, external, source)


def _load_rules(
    raw: Any, path: FieldPath, external: bool, errors: list[FieldError]
) -> tuple[Rule, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        errors.append(invalid(path, OMIT_VALUE, "must be a list of rules"))
        return ()
    rules = []
    for index, item in enumerate(raw):
        rule = _load_rule(item, path.index(index), external, errors)
        if rule is not None:
            rules.append(rule)
    return tuple(rules)


def _load_rule(raw: Any, path: FieldPath, external: bool, errors: list[FieldError]) -> Rule | None:
    if not isinstance(raw, Mapping):
        errors.append(invalid(path, OMIT_VALUE, "must be a mapping"))
        return None
    before = len(errors)
    for key in raw:
        if key not in _RULE_KEYS:
            errors.append(invalid(path.child(str(key)), OMIT_VALUE, "unknown field"))
    series_query = _string(raw, "seriesQuery", path, errors, needed=True)
    filters = _load_filters(raw.get("seriesFilters"), path.child("seriesFilters"), errors)
    resources, namespaced = _load_resources(
        raw.get("resources"), path.child("resources"), external, errors
    )
    name = _load_name(raw.get("name"), path.child("name"), errors)
    query_text = _string(raw, "metricsQuery", path, errors, needed=True)
    metrics_query = _template(query_text, QUERY_FIELDS, path.child("metricsQuery"), errors)
    replacements = _load_replacements(raw.get("labelValueReplacements"), path, errors)
    if len(errors) > before or name is None or metrics_query is None or resources is None:
        return None
    if raw.get("name", {}) and (raw["name"].get("matches") or ""):
        filters = (*filters, SeriesFilter(name.matches, True))
    return Rule(
        path=str(path),
        external=external,
        series_query=series_query,
        series_filters=filters,
        resources=resources,
        name=name,
        metrics_query=metrics_query,
        namespaced=namespaced,
        label_value_replacements=replacements,
    )


def _string(
    raw: Mapping[str, Any],
    key: str,
    path: FieldPath,
    errors: list[FieldError],
    needed: bool = False,
) -> str:
    value = raw.get(key)
    if value is None or value == "":
        if needed:
            errors.append(required(path.child(key)))
        return ""
    if not isinstance(value, str):
        errors.append(invalid(path.child(key), value, "must be a string"))
        return ""
    return value


def _regex(text: str, path: FieldPath, errors: list[FieldError]) -> re.Pattern[str] | None:
    try:
        return re.compile(text)
    except re.error as err:
        errors.append(invalid(path, text, f"not a valid regular expression: {err}"))
        return None


def _template(
    text: str, fields: frozenset[str], path: FieldPath, errors: list[FieldError]
) -> GoTemplate | None:
    if not text:
        return None
    try:
        return parse_template(text, fields)
    except TemplateError as err:
        errors.append(invalid(path, text, str(err)))
        return None


def _load_filters(raw: Any, path: FieldPath, errors: list[FieldError]) -> tuple[SeriesFilter, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        errors.append(invalid(path, OMIT_VALUE, "must be a list of {is: regex} or {isNot: regex}"))
        return ()
    filters = []
    for index, item in enumerate(raw):
        item_path = path.index(index)
        if not isinstance(item, Mapping) or set(item) - {"is", "isNot"}:
            errors.append(invalid(item_path, OMIT_VALUE, "must be {is: regex} or {isNot: regex}"))
            continue
        is_ = _string(item, "is", item_path, errors)
        is_not = _string(item, "isNot", item_path, errors)
        if bool(is_) == bool(is_not):
            errors.append(
                invalid(item_path, OMIT_VALUE, "must have exactly one of `is` and `isNot`")
            )
            continue
        key = "is" if is_ else "isNot"
        pattern = _regex(is_ or is_not, item_path.child(key), errors)
        if pattern is not None:
            filters.append(SeriesFilter(pattern, positive=bool(is_)))
    return tuple(filters)


def _load_resources(
    raw: Any, path: FieldPath, external: bool, errors: list[FieldError]
) -> tuple[ResourceConverter | None, bool]:
    if raw is None:
        return ResourceConverter(), True
    if not isinstance(raw, Mapping):
        errors.append(invalid(path, OMIT_VALUE, "must be a mapping"))
        return None, True
    allowed = {"template", "overrides", "namespaced"} if external else {"template", "overrides"}
    for key in raw:
        if key not in allowed:
            errors.append(invalid(path.child(str(key)), OMIT_VALUE, "unknown field"))
    template_text = _string(raw, "template", path, errors)
    template = _template(template_text, _RESOURCE_FIELDS, path.child("template"), errors)
    overrides: dict[str, GroupResource] = {}
    raw_overrides = raw.get("overrides") or {}
    if not isinstance(raw_overrides, Mapping):
        errors.append(
            invalid(
                path.child("overrides"), OMIT_VALUE, "must map label names to {group, resource}"
            )
        )
        raw_overrides = {}
    for label, target in raw_overrides.items():
        label_path = path.child("overrides").key(str(label))
        if not is_label_name(str(label)):
            errors.append(invalid(label_path, str(label), "not a valid Prometheus label name"))
            continue
        if not isinstance(target, Mapping) or set(target) - {"group", "resource"}:
            errors.append(invalid(label_path, OMIT_VALUE, "must be {group: ..., resource: ...}"))
            continue
        resource = _string(target, "resource", label_path, errors, needed=True)
        group = _string(target, "group", label_path, errors)
        if resource:
            overrides[str(label)] = normalize_group_resource(group, resource)
    namespaced = raw.get("namespaced", True)
    if not isinstance(namespaced, bool):
        errors.append(invalid(path.child("namespaced"), namespaced, "must be true or false"))
        namespaced = True
    return ResourceConverter(overrides, template), namespaced


def _load_name(raw: Any, path: FieldPath, errors: list[FieldError]) -> NameRule | None:
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping) or set(raw) - {"matches", "as"}:
        errors.append(invalid(path, OMIT_VALUE, "must be {matches: regex, as: name}"))
        return None
    matches_text = _string(raw, "matches", path, errors) or ".*"
    matches = _regex(matches_text, path.child("matches"), errors)
    if matches is None:
        return None
    as_ = _string(raw, "as", path, errors) or default_name_as(matches)
    if as_ is None:
        errors.append(
            required(
                path.child("as"), f"must specify an 'as' value for name matcher {matches_text!r}"
            )
        )
        return None
    return NameRule(matches, as_)


def _load_replacements(
    raw: Any, path: FieldPath, errors: list[FieldError]
) -> tuple[tuple[str, str], ...]:
    if raw is None:
        return ()
    list_path = path.child("labelValueReplacements")
    if not isinstance(raw, list):
        errors.append(invalid(list_path, OMIT_VALUE, "must be a list of {find, replace}"))
        return ()
    out = []
    for index, item in enumerate(raw):
        item_path = list_path.index(index)
        if not isinstance(item, Mapping) or set(item) - {"find", "replace"}:
            errors.append(invalid(item_path, OMIT_VALUE, "must be {find: ..., replace: ...}"))
            continue
        find = _string(item, "find", item_path, errors, needed=True)
        replace = _string(item, "replace", item_path, errors)
        if find:
            out.append((find, replace))
    return tuple(out)
