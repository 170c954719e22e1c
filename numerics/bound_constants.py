"""Every bound constant and Theorem-1 component at given parameters, certified: the library behind
``infonce_bounds.constants`` and ``infonce-bounds constants`` (which calls it).

``compute(raw, shown=...)`` validates the parameters against ``numerics.params`` (an error names each one as the
caller shows it: ``tau`` from Python, ``--tau`` from the command line), resolves γ = 'auto', and certifies every
closed form of the catalogue (``derivations.results.closed_forms``). Each value is the upper end of an
outward-rounded interval (``numerics.certify``), rounded up; the float value of the same expression is checked
to lie inside the 53-bit enclosure. Values a float cannot hold (τ = 1e-3 gives e^{2000}) are still certified and
printed in scientific form.

Defaults (realistic, stated): τ = 0.1, k = 256, γ = auto (the toolkit's similarity-space exponent γ that
minimises the ℓ2-Lipschitz constant feeding the DCL complexity bound), n = 50 000, δ = 0.05, L = 1, p = 10⁴,
R = 1, DCL loss.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from infonce_bounds.derivations.symbols import L, R, beta, delta, gamma, k, n, p, tau

from . import params as P
from .certify import Certified, certify, exact, exact_str, format_up, short_str

#: how each loss is named in a table header
LOSS_LABELS = {"dcl": "DCL loss ℓ̃", "infonce": "InfoNCE loss ℓ (14)", "standard": "standard loss ℓ_std = ℓ + log k"}

DEFAULTS: dict[str, str] = {
    "tau": "0.1",
    "k": "256",
    "gamma": "auto",
    "beta": "auto",
    "n": "50000",
    "delta": "0.05",
    "lipschitz": "1",
    "params": "10000",
    "radius": "1",
}

# parameter name → (symbol, human name)
PARAMS = {
    "tau": (tau, "τ"),
    "k": (k, "k"),
    "gamma": (gamma, "γ"),
    "beta": (beta, "β"),
    "n": (n, "n"),
    "delta": (delta, "δ"),
    "lipschitz": (L, "L"),
    "params": (p, "p"),
    "radius": (R, "R"),
}


def python_name(name: str) -> str:
    """How the Python API shows a parameter: by its own name (``tau``)."""
    return name


def validate(raw: Mapping[str, Any], shown: Callable[[str], str] = python_name) -> dict:
    """Exact values of the parameters in ``raw`` (name → number or text; ``k`` may be absent, ``gamma`` and
    ``beta`` 'auto'), each in its range of ``numerics.params``; ``ValueError`` naming it as ``shown(name)``.

    Returns symbol → exact rational; γ = 'auto' is left out (``resolve`` picks it, which needs k).
    """
    out = {}
    for name, (sym, _) in PARAMS.items():
        value = raw.get(name, DEFAULTS[name])
        if value is None:
            continue
        got = P.read(name, value, shown(name))
        if got != "auto":
            out[sym] = got
    if gamma in out and out[gamma] * out[tau] < 1:
        raise ValueError(
            f"{shown('gamma')} = {raw.get('gamma')!r} is out of range; allowed: {P.PARAMETERS['gamma'].allowed()} "
            f"(the continuity family needs γτ ≥ 1; here 1/τ = {format_up(1 / out[tau])})"
        )
    if "digits" in raw:
        P.read("digits", raw["digits"], shown("digits"))
    return out


def resolve(raw: Mapping[str, Any], shown: Callable[[str], str] = python_name) -> tuple[dict, str]:
    """Validated exact parameters with γ resolved; and how γ was chosen."""
    vals = validate(raw, shown)
    if gamma in vals:
        return vals, "given"
    pick = auto_gamma(vals[tau], vals.get(k, sp.Integer(1)))
    vals[gamma] = pick.value
    return vals, pick.how


@dataclass
class GammaPick:
    value: sp.Rational
    how: str


def auto_gamma(tau_: sp.Rational, k_: sp.Integer) -> GammaPick:
    """γ from ``continuity.optimal_gamma`` (mpmath), made exact: r = γτ rounded to 12 digits, r ≥ 1.

    Any γ ≥ 1/τ gives a valid bound, so rounding the optimiser's γ changes only how close to
    optimal it is, never validity.
    """
    from infonce_bounds.derivations import continuity

    choice = continuity.optimal_gamma(str(sp.Float(tau_, 40)), int(k_))
    r_val = exact(mpmath.nstr(choice.gamma * mpmath.mpf(str(sp.Float(tau_, 40))), 12), "gamma")
    if r_val < 1:
        r_val = sp.Integer(1)
    return GammaPick(r_val / tau_, f"auto: γτ = {exact_str(r_val)}, minimising the {choice.criterion}")


# ----------------------------------------------------------------------------- rows


@dataclass
class Quantity:
    """A named expression to certify, with where it comes from."""

    name: str
    symbol: str
    build: Callable[[], sp.Expr]
    provenance: str
    rate: str
    show: str
    group: str
    note: str = ""


def quantities(loss: str = "dcl") -> list[Quantity]:
    """Everything ``constants`` prints: every result module's ``CLOSED_FORMS``, in catalogue order, the
    bound constants first and the Theorem-1 components after them (``derivations.results``)."""
    from infonce_bounds.derivations.loss import canonical_loss
    from infonce_bounds.derivations.results import closed_forms

    loss = canonical_loss(loss)
    return [
        Quantity(cf.name, cf.symbol, cf.build, cf.provenance, cf.rate, cf.show, cf.group, cf.note)
        for cf in closed_forms(loss, label=LOSS_LABELS[loss])
    ]


def certify_quantity(q: Quantity, values: dict, digits: int = 6) -> dict:
    """One row: the certified interval of ``q`` at ``values`` (or why it is unavailable)."""
    row = {
        "name": q.name,
        "symbol": q.symbol,
        "provenance": q.provenance,
        "rate": q.rate,
        "show": q.show,
        "group": q.group,
        "note": q.note,
    }
    try:
        expr = sp.sympify(q.build())
    except (ImportError, AttributeError) as exc:
        row.update(value=None, interval=None, status=f"unavailable: {exc}")
        return row
    sub = {s: v for s, v in values.items() if s in expr.free_symbols}
    if q.name == "holder_exponent" and values[gamma] * values[tau] == 1:
        row.update(value="inf", interval=["inf", "inf"], status="q = ∞ at γ = 1/τ (the max form)")
        return row
    c: Certified = certify(expr, sub, name=q.name)
    row.update(
        value=c.upper_str(digits),
        interval=[c.lower_str(digits), c.upper_str(digits)],
        float=None if c.overflow else c.float_value,
        float_overflows=c.overflow,
        float_underflows=c.underflow,
        float_in_interval=c.float_in_interval,
        float_intermediate_overflow=c.intermediate_overflow,
        status="certified",
    )
    if c.intermediate_overflow:
        row["note"] = (
            row["note"] + "; " if row["note"] else ""
        ) + "float route overflows in an intermediate step (value from the interval path)"
    return row


def active_term(bound: dict, trivial: dict) -> str:
    """Which term attains min(bound, trivial), from the two certified intervals: ``"bound"`` when the
    bound's upper end is at most the cap's lower end, ``"trivial"`` in the opposite case, else ``"tie"``
    (the intervals overlap: the two agree to the digits certified)."""
    from decimal import Decimal
    from types import SimpleNamespace

    from .theorem1 import active_of

    try:
        ends = [tuple(Decimal(x) for x in r["interval"]) for r in (bound, trivial)]
        b_, t_ = (SimpleNamespace(lo=lo, hi=hi) for lo, hi in ends)
    except (TypeError, KeyError, ArithmeticError, ValueError):
        return "unknown"
    return active_of(b_, t_)  # the one rule, on the printed (outward-rounded) ends


def theorem1_summary(rows: list[dict]) -> dict | None:
    """``{"bound", "trivial", "capped", "active"}`` from the rows (issue 13), and ``active`` written into the
    ``capped_bound`` row (its formula then says which term is active); ``None`` if a row is missing."""
    by = {r["name"]: r for r in rows}
    if not all(by.get(x, {}).get("status") == "certified" for x in ("bound", "trivial_bound", "capped_bound")):
        return None
    active = active_term(by["bound"], by["trivial_bound"])
    capped = by["capped_bound"]
    if "active" not in capped:  # the formula names the active term once (payload may ask twice)
        capped["symbol"] = f"{capped['symbol']} = {active}"
    capped["active"] = active
    return {
        "bound": by["bound"]["value"],
        "trivial": by["trivial_bound"]["value"],
        "capped": capped["value"],
        "active": active,
    }


def rows_for(values: dict, loss: str = "dcl", digits: int = 6) -> list[dict]:
    rows = [certify_quantity(q, values, digits) for q in quantities(loss)]
    theorem1_summary(rows)
    return rows


def _param_line(values: dict, how: str) -> str:
    parts = [
        f"{PARAMS[f][1]} = {short_str(values[s])}" for f, (s, _) in PARAMS.items() if s in values and s is not gamma
    ]
    bv = values[gamma]
    shown = short_str(bv)
    parts.insert(2, f"γ = {shown}" + ("" if "/" not in shown else f" ≈ {format_up(bv)}") + f" ({how})")
    return ", ".join(parts)


def _footnotes(values: dict, rows: list[dict] = ()) -> list[str]:
    notes = [
        (
            "Every number is the upper end of an outward-rounded interval (Arb balls, python-flint), rounded up; the float "
            "(lambdified) value of each expression was checked to lie in its 53-bit enclosure."
        ),
        "Run `infonce-bounds show NAME` with the name in the last column for the derivation.",
    ]
    huge = [r["name"] for r in rows if r.get("float_overflows") and not r.get("float_intermediate_overflow")]
    inter = [r["name"] for r in rows if r.get("float_intermediate_overflow")]
    if huge:
        notes.append(f"beyond the float range (certified by the interval path only): {', '.join(huge)}.")
    tiny = [r["name"] for r in rows if r.get("float_underflows")]
    if tiny:
        notes.append(f"below the normal float range (certified by the interval path only): {', '.join(tiny)}.")
    if inter:
        notes.append(
            f"the float form overflows in an intermediate step although the value fits a float "
            f"(value from the interval path; the formula deserves a stable rewrite): {', '.join(inter)}."
        )
    return notes


def compute(
    raw: Mapping[str, Any], loss: str = "dcl", digits: int = 6, shown: Callable[[str], str] = python_name
) -> tuple[dict, dict]:
    """``(data, values)``: ``data`` = ``{"parameters", "gamma_choice", "loss", "rows", "theorem1", "notes"}`` with the
    certified rows (decimal strings, as the tables print them), ``values`` the exact parameters by symbol."""
    from infonce_bounds.derivations.loss import canonical_loss

    digits = int(P.read("digits", digits, shown("digits")))
    values, how = resolve(raw, shown)
    loss = canonical_loss(loss, shown("loss"))
    rows = rows_for(values, loss, digits)
    data = {
        "parameters": {f: exact_str(values[s]) for f, (s, _) in PARAMS.items() if s in values},
        "gamma_choice": how,
        "loss": loss,
        "rows": rows,
        "theorem1": theorem1_summary(rows),
        "notes": _footnotes(values, rows),
    }
    return data, values


def constants(
    tau: float | str = "0.1",
    k: int | str = 256,
    *,
    gamma: float | str = "auto",
    beta: float | str | None = None,
    n: int | str = 50000,
    delta: float | str = 0.05,
    lipschitz: float | str = 1,
    params: int | str = 10000,
    radius: float | str = 1,
    loss: str = "dcl",
    digits: int = 6,
) -> dict[str, Any]:
    """``infonce_bounds.constants``: the rows of ``infonce-bounds constants --json`` (see ``_top.constants``)."""
    from .jsonout import constants_json

    raw = dict(
        tau=tau, k=k, gamma=gamma, beta=beta, n=n, delta=delta, lipschitz=lipschitz, params=params, radius=radius
    )
    data, values = compute(raw, loss, digits)
    return constants_json(data, values)
