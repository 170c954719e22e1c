"""Hints for the expectation route's scalar claims: ``scalarised_with_hint(sc, expr, (route, params))`` is
``expr`` scalarised together with every expression inside the hint's parameters (at any depth of its lists,
tuples and dicts; Lambdas and Integrals kept), so the scalar claim and its hint name the same moments by the same
symbols. Used for ``pointwise_route`` and ``remainder_route`` (``checks/expectation.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp


def scalarised_with_hint(sc: Any, expr: sp.Expr, hinted: tuple | None) -> tuple[sp.Expr, tuple | None]:
    """``expr`` scalarised, with a hint ``(route, params)`` for its scalar claim (``remainder_route``) whose expressions
    — at any depth of its lists, tuples and dicts, Lambdas and Integrals excepted — are scalarised in the same pass
    (the same symbols for the same moments)."""
    if hinted is None:
        return sc(expr), None
    found: list[sp.Expr] = []

    def collect(obj: Any) -> None:
        if isinstance(obj, sp.Expr) and not isinstance(obj, (sp.Lambda, sp.Integral)):
            found.append(obj)
        elif isinstance(obj, Mapping):
            for v_ in obj.values():
                collect(v_)
        elif isinstance(obj, (list, tuple)):
            for v_ in obj:
                collect(v_)

    name, hp = hinted
    collect(hp)
    body, *vals = sc(sp.Tuple(expr, *found))
    it = iter(vals)

    def put(obj: Any) -> Any:
        if isinstance(obj, sp.Expr) and not isinstance(obj, (sp.Lambda, sp.Integral)):
            return next(it)
        if isinstance(obj, Mapping):
            return {k_: put(v_) for k_, v_ in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(put(v_) for v_ in obj)
        return obj

    return body, (name, put(hp))
