"""Certified evaluation: every interval encloses the 50-digit value; the float lies inside; no understatement."""

from __future__ import annotations

import importlib
import math
import sys

import mpmath
import pytest
import sympy as sp

from infonce_bounds.derivations import prior, theorem
from infonce_bounds.derivations.symbols import L, R, delta, gamma, k, n, p, tau
from infonce_bounds.numerics import certify as C

TAUS = ["0.001", "0.01", "0.1", "1", "10", "100"]
KS = [1, 2, 64, 4096]
DEFAULTS = {n: 50000, delta: "0.05", L: 1, p: 10000, R: 1}


def _has(mod: str, attr: str) -> bool:
    try:
        return hasattr(importlib.import_module(f"infonce_bounds.derivations.{mod}"), attr)
    except ImportError:
        return False


def _grid_exprs() -> dict[str, sp.Expr]:
    """Every expression the CLI prints that exists now (ours always; others' when their modules do)."""
    out = {
        "sample_variability_dcl": theorem.sample_variability("dcl"),
        "sample_variability_standard": theorem.sample_variability("standard"),
        "loss_range_standard": theorem.loss_range("standard"),
        **prior.prior_terms(),
    }
    if _has("bias", "bias_bound"):
        out["finite_k_bias"] = theorem.bias_term()
    if _has("rademacher", "complexity_avg"):
        out["complexity"] = theorem.complexity_term()
        out["complexity_max"] = theorem.complexity_max_term()
    if _has("bias", "bias_bound") and _has("rademacher", "complexity_avg"):
        out["bound"] = theorem.theorem_expr()
    if _has("continuity", "continuity_factor"):
        from infonce_bounds.derivations import continuity

        out["continuity_factor"] = continuity.continuity_factor(gamma, tau, k)
    return out


OURS = {
    "sample_variability_dcl",
    "sample_variability_standard",
    "loss_range_standard",
    "large_k_deviation",
    "complexity_klinear",
    "complexity_logk",
}


def _mp50(expr: sp.Expr, vals: dict) -> mpmath.mpf:
    """Independent route: SymPy substitution of the exact rationals and evalf at 60 digits."""
    sub = {s: C.exact(v) for s, v in vals.items()}
    val = sp.sympify(expr).subs(sub).evalf(60)
    return mpmath.mpf(str(val))


@pytest.mark.parametrize("tau_s", TAUS)
def test_float_in_interval_over_grid(tau_s):
    """Done-when: float ∈ interval over (τ, γ, k), τ from 1e-3 to 100; overflow still certified."""
    exprs = _grid_exprs()
    t = C.exact(tau_s)
    checked = overflowed = 0
    for kv in KS:
        for r in ("1", "2", "7"):  # γτ = 1 (the max form), 2, 7
            vals = {**DEFAULTS, tau: tau_s, k: kv, gamma: C.exact(r) / t}
            for name, expr in exprs.items():
                sub = {s: v for s, v in vals.items() if s in expr.free_symbols}
                c = C.certify(expr, sub, name=name)  # raises if a finite float lies outside
                assert c.lo <= c.hi
                assert mpmath.isfinite(c.hi), (name, vals)
                up = c.upper_str()
                assert "inf" not in up and "nan" not in up
                if c.overflow:
                    overflowed += 1
                    if name in OURS:  # our own expressions are written float-stably
                        assert not c.intermediate_overflow, (name, vals)
                        assert c.hi > sys.float_info.max
                else:
                    assert c.float_lo <= c.float_value <= c.float_hi, (name, vals)
                    checked += 1
    assert checked > 0
    if tau_s == "0.001":
        assert overflowed > 0  # e^{2000}: the float route overflows, the interval does not


@pytest.mark.parametrize("tau_s,kv", [("0.001", 1), ("0.1", 256), ("1", 64), ("100", 4096)])
def test_interval_encloses_50_digit_value(tau_s, kv):
    vals = {**DEFAULTS, tau: tau_s, k: kv, gamma: C.exact(2) / C.exact(tau_s)}
    for name, expr in _grid_exprs().items():
        sub = {s: v for s, v in vals.items() if s in expr.free_symbols}
        c = C.certify(expr, sub, name=name)
        with mpmath.workdps(60):
            ref = _mp50(expr, sub)
            assert c.lo <= ref <= c.hi, (name, c.lo, ref, c.hi)
            # the printed upper end is ≥ the true value (60-digit reference, relative slack 1e-50)
            assert C.exact(c.upper_str()) >= C.exact(ref) * (1 - sp.Rational(1, 10**50)), (name, c.upper_str(), ref)


def test_printed_upper_end_is_never_below_the_value(rng):
    with mpmath.workdps(40):
        for _ in range(300):
            x = mpmath.mpf(rng.standard_normal()) * mpmath.mpf(10) ** int(rng.integers(-400, 400))
            for digits in (1, 3, 6, 12):
                up, down = C.format_up(x, digits), C.format_down(x, digits)
                xr = C.exact(x)
                assert C.exact(up) >= xr, (x, up)
                assert C.exact(down) <= xr, (x, down)
                # and tight: within one unit of the last printed digit
                assert abs(C.exact(up) - C.exact(down)) <= abs(xr) * sp.Rational(10) ** (1 - digits) * 11 / 10


def test_scientific_form_for_huge_values():
    c = C.certify(sp.exp(2 / tau) / 4, {tau: "0.001"})
    assert c.overflow and not c.intermediate_overflow and c.float_in_interval
    s = c.upper_str()
    assert "e+" in s and int(s.split("e+")[1]) == math.floor(2000 / math.log(10) - math.log10(4))


def test_exact_conversion():
    assert C.exact("0.1") == sp.Rational(1, 10)
    assert C.exact(0.1) == sp.Rational(1, 10)
    assert C.exact("1e-3") == sp.Rational(1, 1000)
    assert C.exact("3/11") == sp.Rational(3, 11)
    assert C.exact(256) == 256
    for bad in ("abc", "nan", "inf", "-inf", "", float("nan"), float("inf"), True):
        with pytest.raises(ValueError, match="tau"):
            C.exact(bad, "tau")
    assert C.exact_str(sp.Rational(1, 20)) == "0.05"
    assert C.exact_str(sp.Rational(1, 3)) == "1/3"
    assert C.exact_str(sp.Integer(50000)) == "50000"


def test_check_can_fail_on_a_planted_float_mismatch(monkeypatch):
    """A float route that disagrees with the symbolic one (a transcription bug) is caught."""
    expr = theorem.sample_variability("dcl")
    vals = {tau: "0.1", n: 50000, delta: "0.05"}
    C.certify(expr, vals)  # the true route passes
    real = C.float_value
    monkeypatch.setattr(C, "float_value", lambda e, pv: real(e, pv) * (1 + 1e-9))
    with pytest.raises(C.CertificationError, match="outside its certified interval"):
        C.certify(expr, vals)


def test_planted_wrong_interval_rule_is_caught(monkeypatch):
    """If the enclosure were wrong (upper end halved), the float cross-check would refute it."""
    real = C.enclose

    def bad(expr, params, bits=C.TIGHT_BITS):
        lo, hi = real(expr, params, bits)
        return lo / 2, hi / 2

    monkeypatch.setattr(C, "enclose", bad)
    with pytest.raises(C.CertificationError):
        C.certify(prior.large_k_deviation(), {tau: "0.5", k: 16})


def test_missing_parameter_and_unenclosable():
    with pytest.raises(ValueError, match="no value given"):
        C.certify(sp.exp(1 / tau) / k, {tau: "0.1"})
    from infonce_bounds.derivations.intervals import NotEnclosable

    with pytest.raises(NotEnclosable):
        C.certify(sp.gamma(tau), {tau: "0.5"})


@pytest.mark.skipif(
    not (_has("bias", "bias_bound") and _has("rademacher", "complexity_avg")),
    reason="derivations.bias.bias_bound or derivations.rademacher.complexity_avg missing",
)
def test_certify_theorem_api():
    vals = {tau: "0.5", gamma: 4, k: 256, n: 50000, delta: "0.05", L: 1, p: 10000, R: 1}
    out = C.certify_theorem(vals)
    assert set(out) == {"sample_variability", "complexity", "finite_k_bias", "bound"}
    names = ("sample_variability", "complexity", "finite_k_bias")
    hi_sum = sum(C.exact(out[x].hi) for x in names)  # exact rational sums: no rounding in the test itself
    lo_sum = sum(C.exact(out[x].lo) for x in names)
    assert C.exact(out["bound"].lo) <= hi_sum and C.exact(out["bound"].hi) >= lo_sum
    assert out["complexity"].meta["show"] == "rademacher_avg"
    with pytest.raises(ValueError, match="gamma"):
        C.certify_theorem({**vals, gamma: 1})
