"""Stability rewrites applied before code generation: log(1 + x) → log1p(x), e^x − 1 → expm1(x),
softplus log(1 + e^c) → c + log1p(e^{−c}) for c > 0 (log1p(e^c) otherwise), and the logistic
e^c/(1 + e^c) → 1/(1 + e^{−c}) for c > 0 (e^c/(1 + e^c) otherwise).

Each rewrite is an exact identity on its stated domain, registered as an identity step of the
derivation ``"rewriting"``; ``stabilise(expr)`` applies them, so the printed kernels evaluate
the *same* function as the derivation, in a form with no overflow (e^c never exceeds 1 in the
softplus and logistic branches) and full relative accuracy where the value is tiny (the
standard loss log(1 + e^c) ≈ e^c ~ 1e-22 when the positive dominates at τ = 0.01).
Reference: Higham, *Accuracy and Stability of Numerical Algorithms* (2002), §1.14 (log1p, expm1);
Mächler, "Accurately computing log(1 − exp(−|a|))", Rmpfr vignette (2012) for the softplus split.
"""

from __future__ import annotations

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from .ledger import Derivation, Domain, Step
from .symbols import c, x

__all__ = ["softplus_stable", "logistic_stable", "stabilise", "derivations", "log1p", "expm1"]

_REF = "Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed. (2002), §1.14"


def softplus_stable(c_):
    """log(1 + e^c) as c + log1p(e^{−c}) for c > 0 and log1p(e^c) for c ≤ 0 (both exponents ≤ 0)."""
    return sp.Piecewise((c_ + log1p(sp.exp(-c_)), c_ > 0), (log1p(sp.exp(c_)), True))


def logistic_stable(c_):
    """e^c/(1 + e^c) as 1/(1 + e^{−c}) for c > 0 and e^c/(1 + e^c) for c ≤ 0 (exponents ≤ 0)."""
    return sp.Piecewise((1 / (1 + sp.exp(-c_)), c_ > 0), (sp.exp(c_) / (1 + sp.exp(c_)), True))


def _is_logistic(e) -> sp.Expr | None:
    """The argument c if ``e`` is e^c/(1 + e^c) or 1/(1 + e^{−c}) (as SymPy orders them), else None."""
    if not isinstance(e, sp.Mul):
        return None
    num, den = sp.fraction(sp.together(e))
    if isinstance(num, sp.exp) and sp.simplify(den - 1 - num) == 0:
        return num.args[0]
    if num == 1 and isinstance(den, sp.Add) and len(den.args) == 2 and 1 in den.args:
        other = [t for t in den.args if t != 1][0]
        if isinstance(other, sp.exp):
            return -other.args[0]
    return None


def stabilise(expr):
    """Apply the registered rewrites bottom-up: logistic, softplus, then log1p and expm1."""
    expr = sp.sympify(expr)

    def logistic(e):
        arg = _is_logistic(e)
        return logistic_stable(arg) if arg is not None else e

    def softplus_or_log1p(e):
        (arg,) = e.args
        if isinstance(arg, sp.Add) and 1 in arg.args:
            rest = arg - 1
            if isinstance(rest, sp.exp):
                return softplus_stable(rest.args[0])
            return log1p(rest)
        return e

    def expm1_rw(e):
        if 1 in e.args or -1 in e.args:
            rest = [t for t in e.args if t not in (-1,)]
            exps = [t for t in rest if isinstance(t, sp.exp)]
            if -1 in e.args and len(exps) == 1 and len(rest) == len(e.args) - 1:
                others = [t for t in rest if t is not exps[0]]
                return sp.Add(expm1(exps[0].args[0]), *others)
        return e

    expr = expr.replace(lambda e: isinstance(e, sp.Mul) and _is_logistic(e) is not None, logistic)
    expr = expr.replace(lambda e: isinstance(e, sp.log), softplus_or_log1p)
    expr = expr.replace(lambda e: isinstance(e, sp.Add), expm1_rw)
    return expr


def _unfold(e):
    """Replace log1p/expm1 by their definitions, then simplify: the symbolic check of each rewrite."""
    e = e.replace(log1p, lambda a: sp.log(1 + a)).replace(expm1, lambda a: sp.exp(a) - 1)
    return sp.simplify(sp.expand_log(sp.piecewise_fold(e)))


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 20


def derivations() -> list[Derivation]:
    pos = Domain({c: (0, sp.oo)}, name="c > 0")
    neg = Domain({c: (-sp.oo, 0)}, name="c ≤ 0")
    real = Domain({c: (-sp.oo, sp.oo)}, name="c ∈ ℝ")
    xdom = Domain({x: (-sp.Rational(1, 2), sp.oo)}, name="x > −1")
    kw = dict(provenance="classical", reference=_REF, simplifier=_unfold)
    steps = [
        Step(
            "log1p: log(1 + x) = log1p(x)",
            sp.log(1 + x),
            log1p(x),
            domain=xdom,
            note="log1p keeps full relative accuracy for |x| ≪ 1, where 1 + x rounds away x",
            **kw,
        ),
        Step("expm1: e^x − 1 = expm1(x)", sp.exp(x) - 1, expm1(x), domain=Domain({x: (-50, 50)}), **kw),
        Step(
            "softplus, c > 0 branch: log(1 + e^c) = c + log1p(e^{−c})",
            sp.log(1 + sp.exp(c)),
            c + log1p(sp.exp(-c)),
            domain=pos,
            note="e^{−c} < 1: no overflow at c = 2/τ = 2000",
            **kw,
        ),
        Step(
            "softplus, c ≤ 0 branch: log(1 + e^c) = log1p(e^c)",
            sp.log(1 + sp.exp(c)),
            log1p(sp.exp(c)),
            domain=neg,
            note="relative accuracy kept when e^c ~ 1e-22 (the positive dominates)",
            **kw,
        ),
        Step("softplus stable form (both branches)", sp.log(1 + sp.exp(c)), softplus_stable(c), domain=real, **kw),
        Step("logistic stable form: e^c/(1 + e^c)", sp.exp(c) / (1 + sp.exp(c)), logistic_stable(c), domain=real, **kw),
        Step(
            "stabilise() of the softplus is the softplus",
            sp.log(1 + sp.exp(c)),
            stabilise(sp.log(1 + sp.exp(c))),
            domain=real,
            **kw,
        ),
    ]
    return [
        Derivation(
            "rewriting",
            "Stability rewrites applied before code generation (log1p, expm1, softplus, logistic)",
            steps,
            result="softplus stable form (both branches)",
            source="classical",
            depends_on=("loss",),
            summary="Each rewrite used by numerics.codegen is an exact identity on its domain with exponents ≤ 0.",
            objects={"softplus_stable": softplus_stable(c), "logistic_stable": logistic_stable(c)},
        )
    ]
