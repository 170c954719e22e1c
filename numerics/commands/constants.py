"""``infonce-bounds constants``: every constant and every Theorem-1 component, certified.

Each number printed is the upper end of an outward-rounded interval (``numerics.certify``), rounded
up; the float value of the same expression is checked to lie inside the 53-bit enclosure. Values
a float cannot hold (τ = 1e-3 gives e^{2000}) are still certified and printed in scientific form.

Defaults (realistic, stated): τ = 0.1, k = 256, γ = auto (the toolkit's similarity-space exponent γ
that minimises the ℓ2-Lipschitz constant feeding the DCL complexity bound), n = 50 000, δ = 0.05,
L = 1, p = 10⁴, R = 1, DCL loss.

``--gamma`` is the exponent of the toolkit's own continuity family (γ ≥ 1/τ; power mean exponent
q = γτ/(γτ − 1) on similarity differences). ``--beta`` is the paper's β ≥ 1 (Prop. 4: power mean
exponent on embedding differences); it is validated and passed through to the paper's rows. The map:
q = β ⇔ γ = β/(τ(β − 1)) (``derivations.continuity``, steps "map to the paper's β").
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from infonce_bounds.derivations.symbols import TAU_MAX, TAU_MIN, L, R, beta, delta, gamma, k, n, p, tau

from ..certify import Certified, certify, exact, exact_str, format_up

#: how each loss is named in a table header
LOSS_LABELS = {"dcl": "DCL loss ℓ̃", "infonce": "InfoNCE loss ℓ (14)", "standard": "standard loss ℓ_std = ℓ + log k"}

HELP = "every bound constant and Theorem-1 component at given parameters, certified (interval upper ends)"

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

# flag → (symbol, human name)
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


def add_parameter_arguments(p_, k_default: str | None = DEFAULTS["k"], tau_default: str = DEFAULTS["tau"]) -> None:
    """The shared parameter flags of ``constants`` and ``compare`` (strings; validated later)."""
    p_.add_argument("--tau", default=tau_default, help=f"temperature τ > 0 (default {tau_default})")
    if k_default is not None:
        p_.add_argument("--k", default=k_default, help=f"negatives k ≥ 1, an integer (default {k_default})")
    p_.add_argument(
        "--gamma",
        default=DEFAULTS["gamma"],
        help="the toolkit's similarity-space exponent γ ≥ 1/τ of its continuity family (q = γτ/(γτ − 1)), "
        "or 'auto' (default): the γ minimising the ℓ2-Lipschitz constant that feeds the DCL complexity bound",
    )
    p_.add_argument(
        "--beta",
        default=DEFAULTS["beta"],
        help="the paper's power-mean exponent β ≥ 1 (Proposition 4; on embedding differences), for the "
        "paper's rows (--paper), or 'auto' (default: Lemma 1's choice 1 ∨ 2/τ there). Our γ with the same "
        "power mean exponent is β/(τ(β − 1)); our own family is set by --gamma",
    )
    p_.add_argument("--n", default=DEFAULTS["n"], help=f"training tuples n ≥ 1 (default {DEFAULTS['n']})")
    p_.add_argument("--delta", default=DEFAULTS["delta"], help=f"confidence δ ∈ (0, 1) (default {DEFAULTS['delta']})")
    p_.add_argument(
        "--lipschitz",
        default=DEFAULTS["lipschitz"],
        help=f"Lipschitz constant L ≥ 0 of θ ↦ φ_θ (default {DEFAULTS['lipschitz']})",
    )
    p_.add_argument(
        "--params", default=DEFAULTS["params"], help=f"parameter count p ≥ 1 (default {DEFAULTS['params']})"
    )
    p_.add_argument(
        "--radius",
        default=DEFAULTS["radius"],
        help=f"radius R ≥ 0 of the parameter ball ‖θ‖ ≤ R (default {DEFAULTS['radius']})",
    )
    p_.add_argument(
        "--loss",
        choices=("dcl", "infonce", "standard", "averaged"),
        default="dcl",
        help="loss whose range enters the sample-variability term: 'dcl' (default; the DCL loss of the "
        "paper's §3.4), 'infonce' (the paper's ℓ of (14)), 'standard' (SimCLR cross-entropy = ℓ + log k); "
        "'averaged' is the deprecated name of 'dcl'",
    )
    p_.add_argument("--digits", type=int, default=6, help="significant digits printed (default 6)")


def add_arguments(p_) -> None:
    add_parameter_arguments(p_)
    g = p_.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="print one JSON object")
    g.add_argument("--latex", action="store_true", help="print a LaTeX table")
    # the paper-vs-ours table lives in its own module (paper_constants)
    p_.add_argument("--paper", action="store_true", help="the paper's constants beside ours (paper/ours ratios)")
    p_.add_argument("--prove", action="store_true", help="with --paper: run each 'ours ≤ paper' step now")
    p_.add_argument("--set", action="append", metavar="NAME=VALUE", help="with --paper: a value for another symbol")


# ----------------------------------------------------------------------------- validation


def _number(flag: str, text: Any, allowed: str) -> sp.Rational:
    if len(str(text)) > 400:  # sympy's parser is quadratic in the length; no parameter needs this many digits
        raise ValueError(f"--{flag} = {str(text)[:20]!r}… is {len(str(text))} characters long; allowed: {allowed}")
    try:
        val = exact(text, flag)
    except ValueError:
        raise ValueError(f"--{flag} = {text!r} is not a number; allowed: {allowed}") from None
    if val != 0 and not (TAU_EVAL[0] <= abs(val) <= TAU_EVAL[1]):
        raise ValueError(
            f"--{flag} = {text!r} is out of range; allowed: {allowed}, with magnitude in [1e-300, 1e300] "
            "(the formulas cannot be evaluated beyond)"
        )
    return val


def _integer(flag: str, text: Any, lo: int, allowed: str) -> sp.Integer:
    val = _number(flag, text, allowed)
    if not val.is_Integer or val < lo:
        raise ValueError(f"--{flag} = {text!r} is out of range; allowed: {allowed}")
    return sp.Integer(val)


#: magnitudes of every parameter the formulas can be evaluated at (within seconds): the positive range of a float.
#: The toolkit's stated range of τ, where the inequalities are certified, is the much narrower [TAU_MIN, TAU_MAX];
#: beyond 1e±300 the exponent 2/τ of e^{2/τ} itself has hundreds of digits and the interval evaluation stalls
TAU_EVAL = (sp.Rational(1, 10**300), sp.Integer(10) ** 300)


def validate_tau(text: Any) -> sp.Rational:
    val = _number("tau", text, "τ > 0")
    if val <= 0:
        raise ValueError(f"--tau = {text!r} is out of range; allowed: τ > 0")
    return val


def validate_k(text: Any) -> sp.Integer:
    return _integer("k", text, 1, "an integer k ≥ 1")


def validate_params(args) -> dict:
    """Exact parameter values from the command line; ``ValueError`` naming flag, value and range.

    Returns symbol → exact rational; ``gamma`` is resolved from 'auto' by ``auto_gamma`` (needs k).
    """
    out = {tau: validate_tau(args.tau)}
    if getattr(args, "k", None) is not None:
        out[k] = validate_k(args.k)
    out[n] = _integer("n", args.n, 1, "an integer n ≥ 1")
    d = _number("delta", args.delta, "0 < δ < 1")
    if not (0 < d < 1):
        raise ValueError(f"--delta = {args.delta!r} is out of range; allowed: 0 < δ < 1")
    out[delta] = d
    for flag, sym in (("lipschitz", L), ("radius", R)):
        val = _number(flag, getattr(args, flag), f"{flag} ≥ 0")
        if val < 0:
            raise ValueError(f"--{flag} = {getattr(args, flag)!r} is out of range; allowed: {PARAMS[flag][1]} ≥ 0")
        out[sym] = val
    pv = _number("params", args.params, "an integer p ≥ 1")
    if pv < 0:
        raise ValueError(f"--params = {args.params!r} is out of range; allowed: an integer p ≥ 1 (negative count)")
    out[p] = _integer("params", args.params, 1, "an integer p ≥ 1")
    if getattr(args, "digits", 6) < 1 or getattr(args, "digits", 6) > 40:
        raise ValueError(f"--digits = {args.digits!r} is out of range; allowed: 1 … 40")
    text = str(args.gamma).strip().lower()
    if text != "auto":
        bv = _number("gamma", args.gamma, "γ ≥ 1/τ, or 'auto'")
        if bv * out[tau] < 1:
            raise ValueError(
                f"--gamma = {args.gamma!r} is out of range; allowed: γ ≥ 1/τ = {format_up(1 / out[tau])} "
                "(the continuity family needs γτ ≥ 1), or 'auto'"
            )
        out[gamma] = bv
    if getattr(args, "beta", None) is not None and str(args.beta).strip().lower() != "auto":
        pb = _number("beta", args.beta, "the paper's β ≥ 1")
        if pb < 1:
            raise ValueError(
                f"--beta = {args.beta!r} is out of range; allowed: the paper's β ≥ 1 (Proposition 4's power-mean "
                "exponent); the toolkit's own exponent is --gamma (γ ≥ 1/τ)"
            )
        out[beta] = pb
    return out


def loss_name(args) -> str:
    """``args.loss`` in the paper's names; the deprecated 'averaged' becomes 'dcl' with a note on stderr."""
    if args.loss == "averaged":
        print("note: --loss averaged is the deprecated name of --loss dcl (the paper's DCL loss)", file=sys.stderr)
        return "dcl"
    return args.loss


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


def resolve(args) -> tuple[dict, str]:
    """Validated exact parameters with γ resolved; and how γ was chosen."""
    vals = validate_params(args)
    if gamma in vals:
        return vals, "given"
    pick = auto_gamma(vals[tau], vals.get(k, sp.Integer(1)))
    vals[gamma] = pick.value
    return vals, pick.how


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

    from ..theorem1 import active_of

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
        f"{PARAMS[f][1]} = {exact_str(values[s])}" for f, (s, _) in PARAMS.items() if s in values and s is not gamma
    ]
    bv = values[gamma]
    shown = exact_str(bv)
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
    if inter:
        notes.append(
            f"the float form overflows in an intermediate step although the value fits a float "
            f"(value from the interval path; the formula deserves a stable rewrite): {', '.join(inter)}."
        )
    t = values[tau]
    if not (TAU_MIN <= t <= TAU_MAX):
        notes.append(
            f"note: τ = {t} lies outside the toolkit's stated range [1e-3, 1e2], where the inequalities "
            "were certified; the numbers are evaluations of the formulas, not certified bounds there."
        )
    return notes


def payload(args) -> dict:
    values, how = resolve(args)
    loss = loss_name(args)
    rows = rows_for(values, loss, args.digits)
    return {
        "parameters": {f: exact_str(values[s]) for f, (s, _) in PARAMS.items() if s in values},
        "gamma_choice": how,
        "loss": loss,
        "rows": rows,
        "theorem1": theorem1_summary(rows),
        "notes": _footnotes(values, rows),
        "_values": values,
    }


def run(args) -> int:
    if getattr(args, "paper", False):
        from .paper_constants import run as run_paper

        return run_paper(args)
    from ..report import render_json, render_latex, render_table

    data = payload(args)
    values = data.pop("_values")
    if args.json:
        print(render_json(data))
    elif args.latex:
        print(
            render_latex(
                data["rows"],
                caption="InfoNCE bound constants and Theorem-1 components at "
                + _param_line(values, data["gamma_choice"])
                + " (upper ends of certified intervals)",
            )
        )
    else:
        print(
            render_table(
                data["rows"],
                header="Parameters: " + _param_line(values, data["gamma_choice"]) + f"; {LOSS_LABELS[data['loss']]}\n",
            )
        )
        print()
        for line in data["notes"]:
            print(line)
    missing = [r["name"] for r in data["rows"] if r.get("status", "").startswith("unavailable")]
    if missing:
        print(f"unavailable (module missing): {', '.join(missing)}", file=sys.stderr)
    return 0


def section_constants(out, args) -> str:
    """Report section: the default constants table (Markdown)."""
    import argparse

    from ..report import render_markdown

    ns = argparse.Namespace(**DEFAULTS, loss="dcl", digits=6)
    data = payload(ns)
    values = data.pop("_values")
    return (
        "Parameters: " + _param_line(values, data["gamma_choice"]) + "; DCL loss. "
        "Command: `infonce-bounds constants`.\n\n"
        + render_markdown(data["rows"])
        + "\n\n"
        + "\n".join(f"- {x}" for x in data["notes"])
        + "\n"
    )
