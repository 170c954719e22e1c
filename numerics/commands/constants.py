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
from typing import Any

import sympy as sp

from .. import params as P
from ..bound_constants import (  # noqa: F401 - the library's names, as this module always exported them
    DEFAULTS,
    LOSS_LABELS,
    PARAMS,
    GammaPick,
    Quantity,
    _footnotes,
    _param_line,
    active_term,
    auto_gamma,
    certify_quantity,
    compute,
    quantities,
    resolve,
    rows_for,
    theorem1_summary,
    validate,
)

HELP = "every bound constant and Theorem-1 component at given parameters, certified (interval upper ends)"


def add_parameter_arguments(p_, k_default: str | None = DEFAULTS["k"], tau_default: str = DEFAULTS["tau"]) -> None:
    """The shared parameter flags of ``constants`` and ``compare`` (strings; validated later)."""
    T = P.PARAMETERS
    p_.add_argument("--tau", default=tau_default, help=f"temperature: {T['tau'].allowed()} (default {tau_default})")
    if k_default is not None:
        p_.add_argument("--k", default=k_default, help=f"negatives: {T['k'].allowed()} (default {k_default})")
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
    p_.add_argument("--n", default=DEFAULTS["n"], help=f"training tuples: {T['n'].allowed()} (default {DEFAULTS['n']})")
    p_.add_argument(
        "--delta", default=DEFAULTS["delta"], help=f"confidence: {T['delta'].allowed()} (default {DEFAULTS['delta']})"
    )
    p_.add_argument(
        "--lipschitz",
        default=DEFAULTS["lipschitz"],
        help=f"Lipschitz constant of θ ↦ φ_θ: {T['lipschitz'].allowed()} (default {DEFAULTS['lipschitz']})",
    )
    p_.add_argument(
        "--params",
        default=DEFAULTS["params"],
        help=f"parameter count: {T['params'].allowed()} (default {DEFAULTS['params']})",
    )
    p_.add_argument(
        "--radius",
        default=DEFAULTS["radius"],
        help=f"radius of the parameter ball ‖θ‖ ≤ R: {T['radius'].allowed()} (default {DEFAULTS['radius']})",
    )
    p_.add_argument(
        "--loss",
        choices=("dcl", "infonce", "standard", "averaged"),
        default="dcl",
        help="loss whose range enters the sample-variability term: 'dcl' (default; the DCL loss of the "
        "paper's §3.4), 'infonce' (the paper's ℓ of (14)), 'standard' (SimCLR cross-entropy = ℓ + log k); "
        "'averaged' is the deprecated name of 'dcl'",
    )
    p_.add_argument("--digits", default=6, help=f"significant digits printed: {T['digits'].allowed()} (default 6)")


def add_arguments(p_) -> None:
    add_parameter_arguments(p_)
    g = p_.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="print one JSON object")
    g.add_argument("--latex", action="store_true", help="print a LaTeX table")
    # the paper-vs-ours table lives in its own module (paper_constants)
    p_.add_argument("--paper", action="store_true", help="the paper's constants beside ours (paper/ours ratios)")
    p_.add_argument("--prove", action="store_true", help="with --paper: run each 'ours ≤ paper' step now")
    p_.add_argument("--set", action="append", metavar="NAME=VALUE", help="with --paper: a value for another symbol")


# ----------------------------------------------------------------------------- the library, called


def cli_name(name: str) -> str:
    """How the command line shows a parameter: by its flag (``--tau``)."""
    return P.flag(name)


def _raw(args) -> dict:
    return {name: getattr(args, name, None) for name in PARAMS} | {"digits": getattr(args, "digits", 6)}


def validate_params(args) -> dict:
    """Exact parameter values from the command line (``bound_constants.validate``, errors naming the flags)."""
    return validate(_raw(args), cli_name)


def validate_tau(text: Any) -> sp.Rational:
    return P.read("tau", text, "--tau")


def validate_k(text: Any) -> sp.Integer:
    return P.read("k", text, "--k")


def loss_name(args) -> str:
    """``args.loss`` in the paper's names; the deprecated 'averaged' becomes 'dcl' with a note on stderr."""
    if args.loss == "averaged":
        print("note: --loss averaged is the deprecated name of --loss dcl (the paper's DCL loss)", file=sys.stderr)
        return "dcl"
    return args.loss


def _refuse_paper_only(args) -> None:
    """``--set`` and ``--prove`` act on the paper's rows only: given without ``--paper`` they are refused, not ignored."""
    for flag_, given in (("--set", getattr(args, "set", None)), ("--prove", getattr(args, "prove", False))):
        if given:
            raise ValueError(f"{flag_} applies to the paper's rows only: add --paper (or drop {flag_})")


def payload(args) -> dict:
    data, values = compute(_raw(args), loss_name(args), getattr(args, "digits", 6), cli_name)
    return {**data, "_values": values}


def run(args) -> int:
    if getattr(args, "paper", False):
        from .paper_constants import run as run_paper

        return run_paper(args)
    _refuse_paper_only(args)
    from ..jsonout import constants_json
    from ..report import render_json, render_latex, render_table

    data = payload(args)
    values = data.pop("_values")
    if args.json:
        print(render_json(constants_json(data, values)))
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
