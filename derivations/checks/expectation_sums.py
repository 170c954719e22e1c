"""Finite sums Σ_{v=lo}^{hi} f(v) rewritten exactly, for the route "expectation" and for identities between nested
sums: linearity (``_sum_linear``), α-renaming of bound indices (``canonical_sums``, ``sum_simplifier``). No
evaluation, no numbers: each rewrite is an identity of finite sums (Karr's convention for reversed limits)."""

from __future__ import annotations

from typing import Any

import sympy as sp


def _sum_linear(e: sp.Expr) -> sp.Expr:
    """Linearity of a finite sum, innermost first: Σ_v (a + b) = Σ_v a + Σ_v b, Σ_v c·f = c·Σ_v f and
    Σ_{v=lo}^{hi} c = (hi − lo + 1)·c for c free of v (exact rewrites, no evaluation)."""
    if not isinstance(e, sp.Basic) or e.is_Atom:
        return e
    if not isinstance(e, sp.Sum):
        return e.func(*[_sum_linear(a_) for a_ in e.args]) if e.args else e
    if len(e.limits) != 1:
        return e
    v, lo, hi = e.limits[0]
    out = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(_sum_linear(e.function))):
        dep, free = [], []
        for f_ in sp.Mul.make_args(term):
            (dep if v in f_.free_symbols else free).append(f_)  # a bound v of an inner sum is not v
        out += sp.Mul(*free) * (sp.Sum(sp.Mul(*dep), (v, lo, hi)) if dep else hi - lo + 1)
    return out


def _rename_innermost(e: sp.Expr) -> sp.Expr:
    c = sp.Dummy("j_canon", integer=True)

    def innermost(x: Any) -> bool:
        return isinstance(x, sp.Sum) and len(x.limits) == 1 and not x.function.has(sp.Sum)

    def rename(x: sp.Sum) -> sp.Sum:
        v, lo, hi = x.limits[0]
        return sp.Sum(x.function.xreplace({v: c}), (c, lo, hi))

    return e.replace(innermost, rename)


_CANON = sp.Dummy("j_c", integer=True, positive=True)  # one object: no user symbol can be captured by it


def canonical_sums(e: sp.Expr, head: Any) -> sp.Expr:
    """Every ``head(…)``'s argument (the route's ``Expect``: an integrand) with its finite sums made linear (``_sum_linear``) and every innermost sum's
    index renamed to one canonical symbol (α-renaming): equal statistics written differently become one tree.
    Exact rewrites only."""

    def canon(x: Any) -> Any:
        body = _sum_linear(x.args[0])

        def innermost(y: Any) -> bool:
            return isinstance(y, sp.Sum) and len(y.limits) == 1 and not y.function.has(sp.Sum)

        def rename(y: sp.Sum) -> sp.Sum:
            v, lo, hi = y.limits[0]
            return sp.Sum(y.function.xreplace({v: _CANON}), (_CANON, lo, hi))

        return head(sp.expand(body.replace(innermost, rename)))

    return sp.sympify(e).replace(lambda x: isinstance(x, head), canon)


def sum_simplifier(e: sp.Expr) -> sp.Expr:
    """``e`` reduced by the linearity of finite sums (``_sum_linear``) and α-renaming: every innermost
    Σ_v f(v) gets one canonical fresh index (a bound variable's name does not change the sum), then
    ``simplify``. A step's ``simplifier`` for identities between nested sums (leave-one-out means)."""
    return sp.simplify(_rename_innermost(_sum_linear(sp.sympify(e))))
