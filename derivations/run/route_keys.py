"""Cache keys of hinted steps: the route's name, its parameters by value and the engine version, never code.

A step that names a proof route (``Step.route = (name, params)``, a route of ``checks.routes.HINTED``) and
brings no ``check=`` closure is decided by that route's code, which lives in ``checks/`` and is therefore part
of the engine version (``cache.engine_version``). Nothing of the step is code, so its key is built from data
alone::

    SHA-256( engine version · upstream · options · "route-v1" · route name · parameters · the claim )

(the run layer's ``_fingerprint`` joins them: ``route_fields`` gives the last four, printed by the canonical
printer of the step keys, which it passes in, so that this module imports nothing of the run layer).

* *parameters*: by value (SymPy trees by the runner's printer, numbers and strings by ``repr``, mappings
  sorted by key, sets sorted), except those the route declares as code (``HintedRoute.code``: the
  expectation route's law ``attack``, a numeric search over finite laws, never the proof), keyed by their
  bytecode as a ``check=`` closure is; any other parameter that is not data (a function, a lambda, an object of ours) is a
  ``DerivationError`` naming the step, the route and the parameter: a hint is data, and a closure belongs in
  ``check=``, whose key follows its bytecode (``runner._function``); a hint nested in a parameter (a part's
  own ``route``, in a conjunction or a mean value composition) is keyed by the same rule, its route's code
  parameters by their code;
* *the claim*: every other field of the step but its prose (``note``, ``reference``), by value: both sides,
  kind, relation, domain, ``var``/``point``/``order``, certificate, adversarial points, expected. The one
  field that may hold code is ``simplifier`` (the mean-value route runs it): keyed by its code when given,
  as a ``check=`` closure is. No hinted step of the catalogue has one.

So two steps that differ only in a parameter differ in key, an edit elsewhere in the result module that
states the step (a helper, a comment) leaves it alone, and the key is the same in every process. A step
with both a route and a ``check=`` is checked by its closure (``check_step``) and keyed as one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Step

#: the version of this key's layout (bump when what it holds changes)
LAYOUT = "route-v1"
#: step fields keyed on their own here (the runner's prose fields, given as ``prose``, are left out as well)
_OWN = frozenset({"route", "check"})


def is_hinted(step: Step) -> bool:
    """The step is decided by the route its hint names: a route and no ``check=`` closure."""
    return step.route is not None and step.check is None


def _param(obj: Any, where: str, step: Step, canon: Callable[[Any], str]) -> str:
    """The canonical text of one hint parameter (data only); ``canon`` prints SymPy trees and numpy data."""
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        return repr(obj)
    if isinstance(obj, sp.Basic):
        return canon(obj)
    if isinstance(obj, type) and issubclass(obj, sp.Basic):  # a function class: sp.exp, Function('f')
        return "class:" + sp.srepr(obj)
    if isinstance(obj, Mapping):
        items = [(_param(k, where, step, canon), _param(v, f"{where}[{k!r}]", step, canon)) for k, v in obj.items()]
        return "{" + ",".join(f"{k}:{v}" for k, v in sorted(items)) + "}"
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], Mapping):
        from ..checks.routes import HINTED

        if obj[0] in HINTED:  # a nested hint (a part's own route): its code parameters by their code, as at the top
            code = HINTED[obj[0]].code
            items = sorted(obj[1].items(), key=lambda kv: repr(kv[0]))
            text = [
                f"{k!r}:" + (f"code:{canon(v)}" if k in code else _param(v, f"{where}[1][{k!r}]", step, canon))
                for k, v in items
            ]
            return f"route[{obj[0]!r},{{" + ",".join(text) + "}]"
    if isinstance(obj, (list, tuple)):
        parts = [_param(v, f"{where}[{i}]", step, canon) for i, v in enumerate(obj)]
        return type(obj).__name__ + "[" + ",".join(parts) + "]"
    if isinstance(obj, (set, frozenset)):
        return type(obj).__name__ + "[" + ",".join(sorted(_param(v, where, step, canon) for v in obj)) + "]"
    if type(obj).__module__.split(".", 1)[0] == "numpy" and not callable(obj):  # arrays by bytes, scalars by value
        return canon(obj)
    raise DerivationError(
        f"step {step.name!r}: route {step.route[0]!r} parameter {where} is a {type(obj).__name__}, not data "
        "(SymPy expressions, numbers, strings, and lists or mappings of them): a hint is keyed by value, never "
        "by code; a closure belongs in check="
    )


def params_text(step: Step, canon: Callable[[Any], str]) -> str:
    """The route's name and its parameters, by value (``DerivationError`` for a parameter that is code)."""
    from ..checks.routes import HINTED

    name, params = step.route
    code = HINTED[name].code if name in HINTED else ()
    items = sorted(params.items(), key=lambda kv: repr(kv[0]))
    text = [f"{k!r}:" + (f"code:{canon(v)}" if k in code else _param(v, repr(k), step, canon)) for k, v in items]
    return f"route={name!r}\x1fparams={{" + ",".join(text) + "}"


def route_fields(step: Step, canon: Callable[[Any], str], prose: frozenset[str]) -> list[str]:
    """What a hinted step's key holds besides the engine version, upstream and options (module docstring): the
    layout, the route's name and parameters, and every claim field but ``prose`` (the runner's), printed by
    ``canon`` (the runner's canonical printer: given, not imported, so the run layer's imports stay acyclic)."""
    fields = [LAYOUT, params_text(step, canon)]
    for f in dataclasses.fields(step):  # every claim field, so one added to Step is keyed without an edit here
        if f.name not in _OWN and f.name not in prose:
            fields.append(f"{f.name}={canon(getattr(step, f.name))}")
    return fields


__all__ = ["LAYOUT", "is_hinted", "params_text", "route_fields"]
