"""CEL validation rules of CustomResourceDefinitions (``x-kubernetes-validations``).

``check_rules`` (``compile``) reports a CRD's rules that do not compile, as kube-apiserver's
CRD validation; ``validate`` / ``evaluate`` (``validation``) run them against a custom
resource on create and update. ``engine`` wraps the CEL runtime (cel-expr-python, the CEL
C++ runtime; compile ~84 us, eval ~6 us per rule) with a compiled-program cache,
``library`` adds Kubernetes' extension functions, ``values`` builds ``self``/``oldSelf`` from
a value and its schema, ``rules`` parses one rule entry. Pure: the API server's custom
resource admission calls it.
"""

from podscale.api.cel.compile import check_rules
from podscale.api.cel.validation import ROOT_PATH, Outcome, evaluate, validate

__all__ = ["ROOT_PATH", "Outcome", "check_rules", "evaluate", "validate"]
