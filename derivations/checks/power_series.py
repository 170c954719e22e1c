"""Route "power series": ``small ≤ big`` for ``var > 0`` from ``(big − small)·F = G``, F a positive and G a
nonnegative series of terms in ``var``.

Claim shape: an inequality ``small ≤ big`` (``<=``, ``>=``, or strict ``<``, ``>``), ``gap = big − small``, on a
domain where ``var``'s range starts above 0 (the series argument is for ``var > 0``); the other symbols range
over anything. Typical use: a gap whose closed form cancels as ``var → 0`` (``y/(1 − e^{−y}) − 1``), which
interval arithmetic cannot sign near 0 but whose series ``Σ c_n yⁿ`` has coefficients of one sign.

Hint: ``Step(..., route=("power series", {"series": G, "factor": F, "var": y}))`` with ``G`` a SymPy ``Sum``
over one index (``Sum(term, (n, lo, hi))``, ``hi`` finite or ∞) and ``F`` (optional, default 1) a ``Sum`` of
the same form or an expression. The route proves, and proves only when all hold:

1. ``F`` and ``G`` have closed forms: exactly for ``Σ p(n) varⁿ/n!`` with ``p`` a polynomial
   (``exponential_closed``), else SymPy's ``doit``, which must leave no ``Sum`` and no ``Piecewise`` (a series
   whose closed form holds only inside a radius of convergence comes back as a ``Piecewise``: not used);
2. ``gap·F − G`` reduces to 0 symbolically (the cheap exact rewrites, then ``simplify``, with ``var`` positive,
   under the claim's clock);
3. every term of ``F`` is ``> 0`` and every term of ``G`` is ``≥ 0`` (``> 0`` for a strict claim) for every
   integer index of the range and every ``var > 0``: SymPy's structural deduction on the term with its index
   written ``lo − 1 + m``, ``m`` a positive integer (``signs.certain_nonnegative``; constants signed by Arb).
   ``F`` given as an expression must be ``> 0`` for ``var > 0`` the same way. Then ``F > 0`` and
   ``gap = G/F ≥ 0`` (``> 0``) wherever the gap is defined;
4. the gap is defined on the domain (``wellposed.check_wellposed``).

Cover: ``var`` over ``(0, ∞)`` when the gap is defined there (else ``var``'s stated range), the other symbols
over their assumption ranges (``custom.proof_cover``); a proof whose cover does not contain the stated domain
is not claimed. The box falsifier runs for the record: a counterexample it confirms through the refutation
gate refutes the claim; without a proof the verdict is at most "verified numerically". A wrong series (2 or 3
fails) withholds the proof, never refutes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp
from sympy.functions.combinatorial.numbers import stirling

from ..ledger import DerivationError, Domain, Step, StepResult, covers
from .budget import run_symbolic
from .custom import proof_cover, proof_result, with_range
from .falsifier import falsify
from .identity import cheap_zero
from .sampling import _sides
from .signs import certain_nonnegative
from .wellposed import check_wellposed


def _params(step: Step, params: Mapping[str, Any]) -> tuple[sp.Expr, sp.Expr, sp.Symbol]:
    var = params["var"]
    if not isinstance(var, sp.Symbol):
        raise DerivationError(
            f"step {step.name!r}: route 'power series' parameter var must be a SymPy symbol, got {var!r}"
        )
    series, factor = sp.sympify(params["series"]), sp.sympify(params.get("factor", 1))
    for name, s_ in (("series", series), ("factor", factor)):
        if isinstance(s_, sp.Sum) and len(s_.limits) != 1:
            raise DerivationError(
                f"step {step.name!r}: route 'power series' parameter {name} must be a Sum over one index, got {s_}"
            )
    if not isinstance(series, sp.Sum):
        raise DerivationError(f"step {step.name!r}: route 'power series' parameter series must be a Sum, got {series}")
    return series, factor, var


def terms_signed(series: sp.Expr, var: sp.Symbol, strict: bool) -> bool:
    """Every term of ``series`` (a one-index ``Sum``) is ``≥ 0`` (``> 0`` if ``strict``) for every index of its
    range and every ``var > 0``; for an expression that is not a ``Sum``, the expression itself. By SymPy's
    structural deduction with the index ``lo − 1 + m`` (``m`` a positive integer) and ``var`` positive."""
    v = sp.Dummy("v", positive=True)
    if not isinstance(series, sp.Sum):
        return certain_nonnegative(series.subs(var, v), strict=strict)
    term, (idx, lo, hi) = series.function, series.limits[0]
    if not (sp.sympify(lo).is_integer and (hi is sp.oo or sp.sympify(hi).is_integer)):
        return False
    if hi is not sp.oo and sp.sympify(hi - lo).is_negative:  # an empty sum is 0: no term makes it positive
        return False
    m = sp.Dummy("m", integer=True, positive=True)
    # a finite range: terms beyond it do not exist, yet those within are signed by the same deduction
    return certain_nonnegative(term.subs(idx, lo - 1 + m).subs(var, v), strict=strict)


def exponential_closed(series: sp.Sum, var: sp.Symbol) -> sp.Expr | None:
    """``Σ_{n=lo}^{∞} p(n) varⁿ/n! = e^{var} Σ_j a_j var^j − Σ_{n<lo} p(n) varⁿ/n!`` for a polynomial ``p`` (free of
    ``var``) written in falling factorials ``p(n) = Σ_j a_j n(n − 1)…(n − j + 1)`` (``a_j = Σ_i c_i S(i, j)``,
    Stirling numbers of the second kind, from ``p(n) = Σ_i c_i nⁱ``), since ``Σ_{n≥0} n(n−1)…(n−j+1) varⁿ/n! =
    var^j e^{var}``. Exact, and milliseconds where SymPy's ``summation`` of the same series takes seconds.
    None when the series is not of that shape (``lo`` a nonnegative integer, upper end ∞)."""
    term, (idx, lo, hi) = series.function, series.limits[0]
    if hi is not sp.oo or not (sp.sympify(lo).is_integer and sp.sympify(lo).is_nonnegative):
        return None
    poly_part = sp.simplify(term * sp.factorial(idx) / var**idx)
    if poly_part.has(var) or not poly_part.is_polynomial(idx):
        return None
    coeffs = sp.Poly(sp.expand(poly_part), idx).all_coeffs()[::-1]  # c_0, c_1, …
    a = [sum(c * stirling(i, j) for i, c in enumerate(coeffs)) for j in range(len(coeffs))]
    whole = sp.exp(var) * sum(a_j * var**j for j, a_j in enumerate(a))
    return whole - sum(term.subs(idx, m) for m in range(int(lo)))


def _closed(series: sp.Expr, var: sp.Symbol, deadline: float) -> sp.Expr | None:
    """The closed form of ``series`` (``exponential_closed``, else SymPy's; None: not one, or not within
    ``deadline``)."""
    if not isinstance(series, sp.Sum):
        return series
    fast = exponential_closed(series, var)
    if fast is not None:
        return fast
    out = run_symbolic(lambda s_: s_.doit(), series, deadline=deadline, stage="power series: closed form")
    if not out or isinstance(out, bool) or out.has(sp.Sum, sp.Piecewise):
        return None
    return out


def _reduces_to_zero(expr: sp.Expr, var: sp.Symbol, deadline: float) -> bool:
    e = expr.subs(var, sp.Dummy("v", positive=True))
    if cheap_zero(e):
        return True
    return run_symbolic(sp.simplify, e, deadline=deadline, stage="power series: gap·F = G") == 0


def prove_power_series(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (module docstring)."""
    series, factor, var = _params(step, params)
    small, big, strict = _sides(step)
    gap = sp.sympify(big) - sp.sympify(small)
    parts: list[str] = []
    why_not = None
    if step.kind != "inequality":
        why_not = "not an inequality"
    elif var not in step.domain.ranges or not sp.sympify(step.domain.ranges[var][0]).is_positive:
        why_not = f"{var}'s stated range does not lie in (0, ∞)"
    same = signed = defined = False
    if why_not is None:
        deadline = 10.0 if opts.get("clock") is None else opts["clock"].deadline(0.5)
        f_closed, g_closed = _closed(factor, var, deadline), _closed(series, var, deadline)
        if f_closed is None or g_closed is None:
            parts.append("no closed form of the series (SymPy's sum is unevaluated or conditional)")
        else:
            same = _reduces_to_zero(sp.expand(gap * f_closed) - g_closed, var, deadline)
            parts.append(f"(big − small)·F = G: {same}")
        if same:
            f_ok, g_ok = terms_signed(factor, var, True), terms_signed(series, var, strict)
            signed = f_ok and g_ok
            parts.append(f"F's terms > 0: {f_ok}; G's terms {'>' if strict else '≥'} 0: {g_ok}")
        if signed:
            wp = check_wellposed([gap], step.domain, f"power series:{step.name}", opts.get("clock"))
            defined = wp.status == "defined"
            parts.append(f"gap defined on the domain: {defined}" + ("" if defined else f" ({wp.reason})"))
    else:
        parts.append(f"not of the route's shape: {why_not}")
    fz = falsify(step, opts)
    proved, cover = same and signed and defined, None
    if proved:
        lo, hi = step.domain.ranges[var]
        wide = Domain({**step.domain.ranges, var: (0, sp.oo)}, step.domain.constraints)
        if check_wellposed([gap], wide, f"power series:{step.name}", opts.get("clock")).status == "defined":
            lo, hi = sp.Integer(0), sp.oo  # G/F ≥ 0 for every var > 0; 0 itself is where the series argument stops
        cover = proof_cover(step, None, with_range(var, lo, hi))
        if not covers(cover, step.domain):
            parts.append("the cover does not contain the stated domain")
            proved, cover = False, None
    method = f"route power series in {var} ({'; '.join(parts)})"
    return proof_result(step, fz, proved, method, covered=cover, symbolic=True)
