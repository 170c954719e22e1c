"""``infonce-bounds constants --paper``: the paper's constants beside ours, certified, one row per ``PaperConstant``.

Each row: ``paper`` and ``ours`` are the upper ends (rounded up) of outward-rounded intervals of the two
expressions of ``derivations.paper.constants()`` at the exact τ, β, k given; ``ratio`` = paper/ours is the
*lower* end of the interval quotient (rounded down), so a gain is never overstated. ``ours ≤ paper`` is a
step of the named derivation (``proof_step``); ``--prove`` runs it now and reports its verdict.

β here is the paper's inverse temperature (Prop. 4, β ≥ 1); ``auto`` takes Lemma 1's β = 1 ∨ 2/τ.

``theorem1``: Theorem 1's right side minus R̂_n, the paper's version and ours (``derivations.paper.theorem1``), at
``--n``, ``--delta``, d_Θ = ``--params`` and ``--set a_cov=A --set E_w2=S``; each is capped by the trivial bound on
CE − R̂_n for ℓ (14) and says which term is active (issue 13). Without the two ``--set`` it says what it needs.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from infonce_bounds.derivations import catalogue, paper
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.symbols import beta, k, tau

from ..certify import certify, exact, exact_str, format_down, format_up
from .constants import validate_k, validate_tau

PARAM_SYMBOLS = {"tau": tau, "beta": beta, "k": k}


def validate_beta(text: object, tau_: sp.Rational) -> tuple[sp.Rational, str]:
    """The paper's β ≥ 1 from the command line ('auto' → 1 ∨ 2/τ); ValueError naming flag and range."""
    from .. import params as P

    val = P.read("beta", "auto" if text is None else text, "--beta")
    if val == "auto":
        return sp.Max(1, 2 / tau_), "auto: β = 1 ∨ 2/τ (Lemma 1's choice)"
    return val, "given"


def set_names() -> tuple[str, ...]:
    """The names ``--set`` accepts: the symbols of the paper's constants other than τ, β, k, and Theorem 1's
    ``a_cov``, ``E_w2`` and ``d_Theta`` (``numerics.params.SET_NAMES``)."""
    from .. import params as P

    names = set(P.SET_NAMES)
    for c in paper.constants():
        for e in c.build():
            names |= {str(s_) for s_ in sp.sympify(e).free_symbols} - {str(s_) for s_ in PARAM_SYMBOLS.values()}
    return tuple(sorted(names))


def parse_sets(items: list[str] | None) -> dict:
    """``--set NAME=VALUE`` (repeatable): values of symbols other than τ, β, k, read exactly; a NAME that no row
    uses (a misspelling) is refused with the valid names."""
    out = {}
    valid = set_names() if items else ()
    for item in items or []:
        name, sep, val = str(item).partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--set {item!r} is malformed; allowed: NAME=VALUE, e.g. --set E_w2=2")
        if name.strip() not in valid:
            raise ValueError(f"--set {name.strip()!r} is not a symbol of the paper's rows; valid: {', '.join(valid)}")
        try:
            out[name.strip()] = exact(val, name.strip())
        except ValueError:
            raise ValueError(f"--set {item!r}: {val!r} is not a number") from None
    return out


def values_from(args) -> tuple[dict, str]:
    from .. import params as P

    t_ = validate_tau(args.tau)
    k_ = validate_k(args.k)
    P.read("digits", getattr(args, "digits", 6), "--digits")
    b_, how = validate_beta(getattr(args, "beta", "auto"), t_)
    return {tau: t_, k: k_, beta: b_}, how


def row_for(
    c: paper.PaperConstant,
    values: dict,
    digits: int = 6,
    prove: bool = False,
    trials: int = 2000,
    extras: dict | None = None,
) -> dict:
    paper_expr, ours_expr = (sp.sympify(x) for x in c.build())
    row = {
        "name": c.name,
        "label": c.label,
        "source": c.result,
        "proof_step": c.proof_step,
        "attained": c.attained,
        "note": c.note,
        "params": list(c.params),
    }
    free = (paper_expr.free_symbols | ours_expr.free_symbols) - set(values)
    extra = {s_: extras[str(s_)] for s_ in free if str(s_) in (extras or {})}
    missing = sorted(str(s_) for s_ in free - set(extra))
    if missing:  # a constant in a quantity other than τ, β, k (e.g. Lemma 3's E_π[w²]): say what it needs
        row.update(paper=None, ours=None, ratio=None, status="needs " + ", ".join(f"--set {m}=VALUE" for m in missing))
        return row
    values = {**values, **extra}
    cp = certify(paper_expr, {s: v for s, v in values.items() if s in paper_expr.free_symbols}, name=c.name + ":paper")
    co = certify(ours_expr, {s: v for s, v in values.items() if s in ours_expr.free_symbols}, name=c.name + ":ours")
    # the quotient of the two enclosures: its lower end is a certified lower bound on paper/ours
    with mpmath.workprec(140):
        q = mpmath.iv.mpf([cp.lo, cp.hi]) / mpmath.iv.mpf([co.lo, co.hi])
        ratio_lo, ratio_hi = mpmath.mpf(q.a), mpmath.mpf(q.b)
    ratio_txt = format_down(ratio_lo, digits)
    if mpmath.mpf(ratio_txt) < 1 <= ratio_hi:  # a ratio of 1 − 1e-30 would print as 0.999999: give more digits
        ratio_txt = format_down(ratio_lo, max(digits, 16))
    row.update(
        paper=cp.upper_str(digits),
        ours=co.upper_str(digits),
        ratio=ratio_txt,
        paper_interval=[cp.lower_str(digits), cp.upper_str(digits)],
        ours_interval=[co.lower_str(digits), co.upper_str(digits)],
        float_overflows=cp.overflow or co.overflow,
        status="certified",
    )
    if prove and c.proof_step:
        res = check_step(catalogue.get(c.result).step(c.proof_step), trials=trials)
        row["proof_verdict"] = str(res.verdict)
        row["proof_method"] = res.method
    return row


#: what Theorem 1's rows need beyond τ, k, n, δ and d_Θ (= --params), as ``--set`` names
THEOREM1_NEEDS = {"a_cov": "A = eRB_τ(Z_1, …, Z_n)C_Φ > 0", "E_w2": "E|dM(Z, ·)/dπ(Z')|² ≥ 1"}


def _theorem1_values(args, values: dict, extras: dict) -> tuple[dict, list[str]]:
    """τ, k, n, δ, d_Θ (``--params``, or ``--set d_Theta=``), A and E_w2 (``--set``) for Theorem 1's rows, validated
    (ValueError naming the flag and range); and the ``--set`` names still missing."""
    from infonce_bounds.derivations.symbols import Ew2, a_cov, d_Theta, delta, n

    from .. import params as P
    from .constants import DEFAULTS

    out = dict(values)
    out[n] = P.read("n", getattr(args, "n", DEFAULTS["n"]), "--n")
    out[delta] = P.read("delta", getattr(args, "delta", DEFAULTS["delta"]), "--delta")
    if "d_Theta" in extras:
        out[d_Theta] = P.read("d_Theta", extras["d_Theta"], "--set d_Theta")
    else:
        out[d_Theta] = P.read("params", getattr(args, "params", DEFAULTS["params"]), "--params")
    if "a_cov" in extras:
        out[a_cov] = P.read("a_cov", extras["a_cov"], "--set a_cov")
    if "E_w2" in extras:
        out[Ew2] = P.read("E_w2", extras["E_w2"], "--set E_w2")
    return out, [name for name in THEOREM1_NEEDS if name not in extras]


def theorem1_rows(args, values: dict, extras: dict, digits: int = 6) -> dict:
    """Theorem 1's right side minus R̂_n, the paper's version (192, 12, 4E w²) and ours (``derivations.paper.theorem1``,
    dev = √(log(2/δ)/(2n)) substituted), each capped by the trivial bound on CE − R̂_n for ℓ (14),
    2/τ − log(1/k + e^{−2/τ}) (``derivations.theorem.trivial_bound``), with the term attaining the minimum
    (``theorem1.active_of`` on the certified intervals). Needs ``--set a_cov=`` and ``--set E_w2=``."""
    from infonce_bounds.derivations import theorem
    from infonce_bounds.derivations.paper import prop3, theorem1
    from infonce_bounds.derivations.symbols import dev

    from ..theorem1 import active_of

    vals, missing = _theorem1_values(args, values, extras)
    out: dict = {
        "quantity": "CE − R̂_n: Theorem 1's right side minus R̂_n (the paper's InfoNCE ℓ (14)), capped by the trivial bound",
        "parameters": {str(s): exact_str(v) for s, v in vals.items() if s not in (beta,)},
    }
    if missing:
        out["status"] = "needs " + ", ".join(f"--set {m}=VALUE ({THEOREM1_NEEDS[m]})" for m in missing)
        out["versions"] = []
        return out

    def cert(expr, name):
        expr = sp.sympify(expr).subs(dev, prop3.deviation())
        c = certify(expr, {s: v for s, v in vals.items() if s in expr.free_symbols}, name=name)
        return {"value": c.upper_str(digits), "interval": [c.lower_str(digits), c.upper_str(digits)], "_c": c}

    trivial = cert(theorem.trivial_bound("infonce"), "trivial")
    versions = []
    for v in theorem1.VERSIONS:
        terms = {
            t: cert(f(v), f"theorem1_{v}_{t}")
            for t, f in (
                ("complexity", theorem1.complexity),
                ("variability", theorem1.variability),
                ("bias", theorem1.bias),
            )
        }
        bound = cert(theorem1.complexity(v) + theorem1.variability(v) + theorem1.bias(v), f"theorem1_{v}")
        active = active_of(bound["_c"], trivial["_c"])
        capped = min(bound["_c"].hi, trivial["_c"].hi)
        versions.append(
            {
                "name": v,
                **{t: r["value"] for t, r in terms.items()},
                "bound": bound["value"],
                "interval": bound["interval"],
                "trivial": trivial["value"],
                "capped": format_up(capped, digits),
                "active": active,
            }
        )
    out.update(status="certified", trivial=trivial["value"], trivial_interval=trivial["interval"], versions=versions)
    return out


def payload(args) -> dict:
    values, how = values_from(args)
    from .. import params as P

    digits = int(P.read("digits", getattr(args, "digits", 6), "--digits"))
    prove = getattr(args, "prove", False)
    extras = parse_sets(getattr(args, "set", None))
    # first: it validates --set a_cov and --set E_w2 (E_w2 < 1 would reach Lemma 3's √(E_w2(E_w2 − 1)) below)
    theorem1_part = theorem1_rows(args, values, extras, digits)
    rows = [row_for(c, values, digits, prove, extras=extras) for c in paper.constants()]
    return {
        "parameters": {"tau": exact_str(values[tau]), "k": exact_str(values[k]), "beta": exact_str(values[beta])},
        "beta_choice": how,
        "rows": rows,
        "theorem1": theorem1_part,
        "notes": [
            "paper and ours: upper ends of outward-rounded intervals (Arb balls, python-flint), rounded up; "
            "ratio = paper/ours: lower end of the interval quotient (a division with directed rounding), rounded "
            "down (never overstated).",
            "ours ≤ paper is the step named in proof_step of the derivation in source (run `infonce-bounds verify "
            "SOURCE`, or add --prove).",
        ],
    }


def format_text(data: dict) -> str:
    cols = ("name", "paper", "ours", "ratio", "source")
    rows = data["rows"]
    widths = [max(len(c_), *(len(str(r[c_] if r[c_] is not None else "—")) for r in rows)) for c_ in cols]
    line = lambda vals: "  ".join(str(v).ljust(w) for v, w in zip(vals, widths)).rstrip()  # noqa: E731
    p_ = data["parameters"]
    out = [f"Paper vs ours at τ = {p_['tau']}, k = {p_['k']}, β = {p_['beta']} ({data['beta_choice']})", ""]
    out += [line(cols), line("-" * w for w in widths)]
    out += [line(r[c_] if r[c_] is not None else "—" for c_ in cols) for r in rows]
    out += [f"{r['name']}: {r['status']}" for r in rows if r.get("status", "").startswith("needs")]
    if any("proof_verdict" in r for r in rows):
        out += ["", "ours ≤ paper, checked now:"] + [f"  {r['name']}: {r.get('proof_verdict', '—')}" for r in rows]
    out += [""] + [f"{r['name']}: {r['note']}" for r in rows if r["note"]]
    t1 = data.get("theorem1")
    if t1:
        pv = t1["parameters"]
        out += ["", f"Theorem 1, {t1['quantity']}:"]
        if t1["status"] != "certified":
            out += [f"  {t1['status']}"]
        else:
            out += [
                f"  at n = {pv['n']}, δ = {pv['delta']}, d_Θ = {pv['d_Theta']}, A = {pv['a_cov']}, "
                f"E_w2 = {pv['E_w2']}; trivial bound {t1['trivial']}"
            ]
            out += [
                f"  {v['name']:<6} {v['complexity']} + {v['variability']} + {v['bias']} = {v['bound']}; "
                f"min(bound, trivial) = {v['capped']} (active: {v['active']})"
                for v in t1["versions"]
            ]
    out += [""] + data["notes"]
    return "\n".join(out)


def run(args) -> int:
    from ..jsonout import paper_json
    from ..report import render_json

    data = payload(args)
    print(render_json(paper_json(data)) if getattr(args, "json", False) else format_text(data))
    return 0
