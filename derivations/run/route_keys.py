"""Cache keys of hinted steps: the route's name, its parameters by value and the engine version, never code.

A step that names a proof route (``Step.route = (name, params)``, a route of ``checks.routes.HINTED``) and
brings no ``check=`` closure is decided by that route's code, which lives in ``checks/`` and is therefore part
of the engine version (``cache.engine_version``). Nothing of the step is code, so its key is built from data
alone::

    SHA-256( "route-v1" · engine version · upstream · options · route name · parameters · the claim )

* *parameters*: by value (SymPy trees through ``runner._tree``, numbers and strings by ``repr``, mappings
  sorted by key, sets sorted); a parameter that is not data (a function, a lambda, an object of ours) is a
  ``DerivationError`` naming the step, the route and the parameter: a hint is data, and a closure belongs in
  ``check=``, whose key follows its bytecode (``runner._function``);
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
from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Step
from .cache import canonical_options, engine_version

#: the version of this key's layout (bump when what it holds changes)
LAYOUT = "route-v1"
#: step fields keyed on their own here (the runner's prose fields, ``runner._PROSE``, are left out as well)
_OWN = frozenset({"route", "check"})


def is_hinted(step: Step) -> bool:
    """The step is decided by the route its hint names: a route and no ``check=`` closure."""
    return step.route is not None and step.check is None


def _param(obj: Any, where: str, step: Step) -> str:
    """The canonical text of one hint parameter (data only)."""
    from . import runner

    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        return repr(obj)
    if isinstance(obj, sp.Basic):
        return runner._tree(obj)
    if isinstance(obj, type) and issubclass(obj, sp.Basic):  # a function class: sp.exp, Function('f')
        return "class:" + sp.srepr(obj)
    if isinstance(obj, Mapping):
        items = sorted((_param(k, where, step), _param(v, f"{where}[{k!r}]", step)) for k, v in obj.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if isinstance(obj, (list, tuple)):
        return type(obj).__name__ + "[" + ",".join(_param(v, f"{where}[{i}]", step) for i, v in enumerate(obj)) + "]"
    if isinstance(obj, (set, frozenset)):
        return type(obj).__name__ + "[" + ",".join(sorted(_param(v, where, step) for v in obj)) + "]"
    if type(obj).__module__.split(".", 1)[0] == "numpy" and not callable(obj):  # arrays by bytes, scalars by value
        return runner._canon(obj)
    raise DerivationError(
        f"step {step.name!r}: route {step.route[0]!r} parameter {where} is a {type(obj).__name__}, not data "
        "(SymPy expressions, numbers, strings, and lists or mappings of them): a hint is keyed by value, never "
        "by code; a closure belongs in check="
    )


def params_text(step: Step) -> str:
    """The route's name and its parameters, by value (``DerivationError`` for a parameter that is code)."""
    name, params = step.route
    return (
        f"route={name!r}\x1fparams="
        + "{"
        + ",".join(f"{k!r}:{_param(v, repr(k), step)}" for k, v in sorted(params.items(), key=lambda kv: repr(kv[0])))
        + "}"
    )


def route_fingerprint(step: Step, options: Mapping[str, Any], upstream: str) -> str:
    """The text a hinted step's key hashes (see the module docstring); the caller clears ``runner``'s memos."""
    from . import runner

    fields = [LAYOUT, engine_version(), upstream, canonical_options(options), params_text(step)]
    for f in dataclasses.fields(step):  # every claim field, so one added to Step is keyed without an edit here
        if f.name not in _OWN and f.name not in runner._PROSE:
            fields.append(f"{f.name}={runner._canon(getattr(step, f.name))}")
    return runner._renumber_dummies("\x1f".join(fields))


__all__ = ["LAYOUT", "is_hinted", "params_text", "route_fingerprint"]
