"""Render a derivation as it would appear in a proof: Unicode (SymPy pretty) or LaTeX.

The LaTeX output compiles with pdflatex: a fragment (``render(der, "latex")``) needs only
``\\usepackage{amsmath}``; ``latex_document`` wraps any body in a complete article (used by
``show --latex --standalone``, ``errata --latex --standalone`` and ``report --pdf``). Symbols print in
the paper's notation (``tau`` → τ, ``s_plus`` → s⁺, ``ell_k`` → ℓ_k) through the ``symbol_names`` of
SymPy's ``LatexPrinter``; prose (step names, notes, evidence) is escaped by ``tex_text``, which turns
the Unicode mathematics of the step names (τ, ≤, e^{2/τ}) into math mode (``render_prose``); a display too
wide for the page is broken into lines by ``render_breaks``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter, accepted_latex_functions

from .ledger import Derivation, Domain, Shown, Step, StepResult
from .render_breaks import (  # noqa: F401 - re-exported: render's former names
    DISPLAY_WIDTH_PT,
    _tree,
    _width,
    break_display,
    break_lines,
    display,
)
from .render_prose import tex_code, tex_text, unrenderable  # noqa: F401 - unrenderable re-exported

_REL_LATEX = {"<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}
_REL_UNI = {"<=": "≤", "<": "<", ">=": "≥", ">": ">"}

# ----------------------------------------------------------------------------- symbols

_GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
    "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
    "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega",
}  # fmt: skip
_ACCENTS = {"hat": r"\hat", "bar": r"\bar", "tilde": r"\tilde"}

#: names whose reading the generic rule below would get wrong; the rest follow it
SYMBOL_LATEX: dict[str, str] = {
    "ell": r"\ell",
    "ell_std": r"\ell_{\mathrm{std}}",
    "epsilon": r"\varepsilon",
    "lam_beta": r"\Lambda(\beta; z)",
    "lam_tau": r"\Lambda(1/\tau; z)",
    "m_level": "m",
    "F_mu": r"F(\mu)",
    "F_path": r"F(v + t h)",
    "CE_minus_R": r"\mathrm{CE} - R",
    "E_log_Z_k": r"\mathbf{E} \log Z_k",
    "E_abs_log_dev": r"\mathbf{E} |\log Z_k - \log Z|",
    "E_offset": r"\mathbf{E}\,\mathrm{offset}",
    "Var_W": r"\operatorname{Var} W",
    "abs_dev": r"\mathbf{E} |Z_k - Z|",
    "varepsilon": r"\varepsilon",
    # the paper's letters for our disambiguated symbols (no step uses both of a pair)
    "ell_lo": "a",  # the ends a, b of the loss range in the proof of Prop. 3
    "ell_hi": "b",
    "a_cov": "a",  # Prop. 5's a := eRB_τC_Φ
    "L_rho": "L",  # (53)
    "U_dud": "U",  # the upper limit of Dudley's integral in the proof of Prop. 5
    "c_dud": "c",
    "mu_s": r"\mu",
    "t_line": "t",
    "t_line2": "t'",
    "z_norm": r"\|z\|",
}


def _word(w: str) -> str:
    if w in _GREEK:
        return "\\" + ("varepsilon" if w == "epsilon" else w)
    if w == "ell":
        return r"\ell"
    for acc, cmd in _ACCENTS.items():
        if w.endswith(acc) and len(w) > len(acc):
            return f"{cmd}{{{_word(w[: -len(acc)])}}}"
    if len(w) <= 1 or w.isdigit():
        return w
    return rf"\mathrm{{{w}}}"


def symbol_latex(name: str) -> str:
    """LaTeX for a symbol (or undefined function) name: ``s_plus`` → ``s^{+}``, ``Rhat_n`` → ``\\hat{R}_{n}``."""
    if name in SYMBOL_LATEX:
        return SYMBOL_LATEX[name]
    head, *subs = [x for x in name.lstrip("_").split("_") if x] or [name]
    accents = [x for x in subs if x in _ACCENTS]  # ell_tilde → \tilde{\ell}, R_hat_n → \hat{R}_{n}
    subs = [x for x in subs if x not in _ACCENTS]
    sups = [{"plus": "+", "minus": "-"}[x] for x in subs if x in ("plus", "minus")]
    subs = [_word(x) for x in subs if x not in ("plus", "minus")]
    out = _word(head)
    for acc in accents:
        out = f"{_ACCENTS[acc]}{{{out}}}"
    if subs:
        out += "_{" + ", ".join(subs) + "}"
    if sups:
        out += "^{" + "".join(sups) + "}"
    return out


class _Printer(LatexPrinter):
    """SymPy's LaTeX printer with the toolkit's names for undefined functions (``SV`` → ``\\mathrm{SV}``)."""

    def _hprint_Function(self, func: str) -> str:
        if func in accepted_latex_functions:
            return super()._hprint_Function(func)
        return symbol_latex(func)


def latex(expr: Any) -> str:
    """``expr`` in LaTeX (amsmath only), every symbol in the paper's notation."""
    expr = sp.sympify(expr)
    syms = expr.atoms(sp.Symbol) | {x.label for x in expr.atoms(sp.IndexedBase)}
    names = {x: symbol_latex(x.name) for x in syms}
    try:
        return _Printer({"symbol_names": names}).doprint(expr)
    except ValueError:  # the printer rebuilds subterms; a Max(1, 2/τ) rebuilt at τ → 0 fails: print it apart
        minmax = {m: sp.Dummy("m") for m in expr.atoms(sp.Max, sp.Min)}
        for m, dummy in minmax.items():
            names[dummy] = _Printer({"symbol_names": names}).doprint(m)
        return _Printer({"symbol_names": names}).doprint(expr.xreplace(minmax))


# ----------------------------------------------------------------------------- printed forms


class Printed(Shown):
    """A side of a step as the proof prints it, checked as its value: ``Printed(form, value=v)``.

    ``form`` is a SymPy expression built so that it does not evaluate (``evaluate=False``, ``Subs``,
    ``Derivative``, ``UnevaluatedExpr``): ``Subs(e^{2/(βτ)}, β, 2/τ)`` prints as the paper's
    substitution where the evaluated side would print ``e``. ``value`` (default ``form.doit()``) is what
    the checkers see: ``unwrap`` replaces the node by it, as for every ``Shown``, so a step keeps the
    claim it always checked. Unlike a ``Shown`` with a LaTeX string, the form is mathematics: it prints
    in all three printers with the paper's symbol names, and ``test_render`` checks that it evaluates to
    the value, so the printed form cannot drift from the checked claim.
    """

    def __new__(cls, form: Any, latex: Any = "", text: Any = "", value: Any = None) -> Printed:
        from sympy.core.symbol import Str

        form = sp.sympify(form)
        value = form.doit() if value is None else sp.sympify(value)
        as_str = lambda v: v if isinstance(v, Str) else Str(v)  # noqa: E731 - unpickling passes Str back in
        # the form is args[0]: SymPy's printers parenthesise an UnevaluatedExpr by its first argument
        return sp.Expr.__new__(cls, form, as_str(latex), as_str(text), value)

    @property
    def form(self) -> sp.Expr:
        return self.args[0]

    @property
    def value(self) -> sp.Expr:
        return self.args[3]

    @property
    def precedence(self) -> int:
        from sympy.printing.precedence import precedence

        return precedence(self.form)

    def _as_printed(self, printer: Any) -> Any:
        # an unevaluated sum keeps the proof's order of terms (log(bμ) − f(bμ) + f(bμ) − E f(bμ̂));
        # the terms themselves print in the printer's usual order
        if isinstance(self.form, sp.Add):
            return printer._print_Add(self.form, order="none")
        return printer._print(self.form)

    _latex = _sympystr = _pretty = _as_printed


def printed(form: Any, value: Any = None) -> Printed:
    """``form`` printed as the proof prints it, checked as ``value`` (default: ``form.doit()``)."""
    return Printed(form, value=value)


def printed_forms(expr: Any) -> list[Printed]:
    """Every ``Printed`` node in ``expr`` (for the test that each form evaluates to its value)."""
    return list(expr.atoms(Printed)) if isinstance(expr, sp.Basic) else []


# ----------------------------------------------------------------------------- steps


def domain_latex(dom: Domain) -> str:
    """The domain in math mode: ``\\tau \\in [10^{-3}, 100],\\ k \\in \\{1, 2, \\dots\\}``."""
    parts = domain_parts(dom)
    return ",\\ ".join(parts) if parts else r"\text{no free symbols}"


def domain_text(dom: Domain) -> str:
    """The domain in running text: each range and constraint its own ``$…$``, so a line may break between
    them (one long inline formula cannot break after its commas and runs into the margin)."""
    parts = domain_parts(dom)
    return ", ".join(f"${x}$" for x in parts) if parts else "no free symbols"


def domain_parts(dom: Domain) -> list[str]:
    """The ranges (``\\tau \\in [10^{-3}, 100]``) and constraints of ``dom``, each in math mode."""
    parts = []
    for sym, (lo, hi) in dom.ranges.items():
        name = symbol_latex(sym.name)
        if sym.is_integer and lo.is_finite and hi == sp.oo:
            lo_i = int(sp.ceiling(lo))
            parts.append(rf"{name} \in \{{{lo_i}, {lo_i + 1}, \dots\}}")
            continue
        left = "(-\\infty" if lo == -sp.oo else f"[{_number_latex(lo)}"
        right = "\\infty)" if hi == sp.oo else f"{_number_latex(hi)}]"
        if lo == -sp.oo and hi == sp.oo:
            parts.append(rf"{name} \in \mathbf{{R}}" if not sym.is_integer else rf"{name} \in \mathbf{{Z}}")
        else:
            parts.append(rf"{name} \in {left}, {right}" + (r" \cap \mathbf{Z}" if sym.is_integer else ""))
    parts += [latex(c) for c in dom.constraints]
    return parts


def _number_latex(x: sp.Expr) -> str:
    """``1/1000`` → ``10^{-3}`` (the stated ranges are decades); other numbers as SymPy prints them."""
    x = sp.sympify(x)
    if x.is_Rational and x > 0:
        for num, e in ((x.p, 0), (x.q, 1)):
            other = x.q if e == 0 else x.p
            m = len(str(num)) - 1
            if other == 1 and num == 10**m and m >= 3:
                return f"10^{{{'-' if e else ''}{m}}}"
    return latex(x)


def step_latex(st: Step) -> str:
    lhs, rhs = latex(st.lhs), latex(st.rhs)
    if st.kind == "definition":
        body = f"{lhs} := {rhs}"
    elif st.kind == "identity":
        body = f"{lhs} = {rhs}"
    elif st.kind in ("inequality", "chain"):  # a chain shows its claim; its links are listed by `show`
        body = f"{lhs} {_REL_LATEX[st.relation]} {rhs}"
    elif st.kind == "expansion":
        body = f"{lhs} = {rhs} + O\\left({latex(st.var)}^{{-{st.order + 1}}}\\right)"
    else:
        body = f"\\lim_{{{latex(st.var)} \\to {latex(st.point)}}} {lhs} = {rhs}"
    return body


def step_unicode(st: Step) -> str:
    lhs = sp.pretty(st.lhs, use_unicode=True, wrap_line=False)
    rhs = sp.pretty(st.rhs, use_unicode=True, wrap_line=False)
    op = {"definition": ":=", "identity": "=", "expansion": "=", "limit": "="}.get(st.kind) or _REL_UNI[st.relation]
    tail = f"  + O({st.var}^-{st.order + 1})" if st.kind == "expansion" else ""
    head = f"lim {st.var}→{st.point}: " if st.kind == "limit" else ""
    return _side_by_side(head + lhs if head and "\n" not in lhs else lhs, f" {op} ", rhs + tail)


def _side_by_side(a: str, op: str, b: str) -> str:
    la, lb = a.split("\n"), b.split("\n")
    h = max(len(la), len(lb))
    wa = max(len(x) for x in la)
    pad_a = [""] * ((h - len(la)) // 2) + la + [""] * (h - len(la) - (h - len(la)) // 2)
    pad_b = [""] * ((h - len(lb)) // 2) + lb + [""] * (h - len(lb) - (h - len(lb)) // 2)
    mid = h // 2
    return "\n".join(
        f"{x.ljust(wa)}{op if r == mid else ' ' * len(op)}{y}".rstrip() for r, (x, y) in enumerate(zip(pad_a, pad_b))
    )


def _verdict_latex(res: StepResult | None) -> str:
    if res is None:
        return r"\emph{not checked in this rendering}"
    out = rf"\textbf{{{tex_text(str(res.verdict))}}}"
    if res.expected == "refuted":
        out += " (a printed step false as printed: refuted as expected)" if res.as_expected else " (UNEXPECTED)"
    out += f" --- {tex_text(res.method)}"
    if res.worst_ratio is not None:
        out += f"; worst ratio {res.worst_ratio:.6g}"
    if res.counterexample:
        out += "; counterexample " + tex_text(", ".join(f"{k} = {v}" for k, v in res.counterexample.items()))
    return out


def render_latex(der: Derivation, results: Sequence[StepResult] | None = None, heading: bool = True) -> str:
    """The derivation as a LaTeX fragment (needs ``amsmath`` only): statement, then one item per step
    with its kind, provenance, domain and (when ``results`` are given) verdict, and its claim displayed."""
    by_name = {r.step: r for r in results} if results is not None else {}
    # \sloppy inside a group: the prose (step names, references, notes) has long words and formulas that a
    # 345 pt column cannot always break at the default tolerance; the group keeps it out of the host document
    lines = [f"% {der.name}: {der.title} (source: {der.source})", r"\begingroup\sloppy"]
    if heading:
        lines.append(rf"\section*{{{tex_text(der.title)}}}")
    lines.append(
        rf"\noindent\textbf{{Result}} \texttt{{{tex_code(der.name)}}} (source: {tex_text(der.source)}"
        + (", depends on " + ", ".join(rf"\texttt{{{tex_code(d)}}}" for d in der.depends_on) if der.depends_on else "")
        + ")."
    )
    res = der.result_step
    lines.append(rf"\paragraph{{Statement.}} {tex_text(res.name)}, on {domain_text(res.domain)}:")
    lines.append(display(step_latex(res)))
    if der.paper_claim:
        lines.append(rf"\paragraph{{The paper's statement.}} {tex_text(der.paper_claim)}")
    if der.summary:
        lines.append(rf"\paragraph{{Summary.}} {tex_text(der.summary)}")
    lines.append(r"\paragraph{Derivation.}")
    lines.append(r"\begin{enumerate}")
    for st in der.steps:
        ref = f" [{st.reference}]" if st.reference else ""
        mark = r" \emph{(the result)}" if st.name == der.result else ""
        lines.append(rf"  \item \textbf{{{tex_text(st.name)}}}{mark}\\")
        lines.append(rf"  {tex_text(st.kind)}; {tex_text(st.provenance + ref)}; on {domain_text(st.domain)}.")
        lines.append("  " + display(step_latex(st)))
        if st.note:
            lines.append(rf"  \emph{{Note:}} {tex_text(st.note)}\\")
        if results is not None:
            lines.append(rf"  Verdict: {_verdict_latex(by_name.get(st.name))}")
    lines.append(r"\end{enumerate}")
    lines.append(r"\endgroup")
    return "\n".join(lines)


#: preamble of ``latex_document``: packages from texlive-latex-base/-recommended only
PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[utf8]{inputenc}
\usepackage{amsmath,amssymb}
\usepackage[margin=2cm]{geometry}
\usepackage{longtable,booktabs,graphicx}
\usepackage[hidelinks]{hyperref}
\allowdisplaybreaks
\setlength{\emergencystretch}{3em}
"""


def latex_document(title: str, body: str | Iterable[str], subtitle: str = "") -> str:
    """A complete LaTeX article around ``body`` (a LaTeX fragment, or several): what pdflatex compiles.

    Reusable by every command with a ``--latex --standalone`` form; ``title`` and ``subtitle`` are prose
    (escaped here), ``body`` is LaTeX already.
    """
    parts = [body] if isinstance(body, str) else list(body)
    sub = rf"\\ \large {tex_text(subtitle)}" if subtitle else ""
    return (
        PREAMBLE
        + rf"\title{{{tex_text(title)}{sub}}}"
        + "\n"
        + r"\author{infonce-bounds}"
        + "\n"
        + r"\date{\today}"
        + "\n"
        + r"\begin{document}"
        + "\n"
        + r"\maketitle"
        + "\n\n"
        + "\n\n".join(parts)
        + "\n\n"
        + r"\end{document}"
        + "\n"
    )


def render_document(der: Derivation, results: Sequence[StepResult] | None = None) -> str:
    """``show NAME --latex --standalone``: the derivation as a complete article."""
    return latex_document(der.title, render_latex(der, results, heading=False), subtitle=f"result {der.name}")


def render(der: Derivation, fmt: str = "unicode") -> str:
    """The whole derivation, one numbered step after another, with kind, domain and provenance."""
    if fmt == "latex":
        return render_latex(der)
    lines = []
    lines.append(f"{der.name}: {der.title}")
    lines.append(f"source: {der.source}" + (f" — paper's statement: {der.paper_claim}" if der.paper_claim else ""))
    if der.summary:
        lines.append(der.summary)
    for n, st in enumerate(der.steps, 1):
        ref = f" [{st.reference}]" if st.reference else ""
        mark = "  ← result" if st.name == der.result else ""
        lines.append("")
        lines.append(f"({n}) {st.name} — {st.kind}, {st.provenance}{ref}{mark}")
        lines.append(f"    on {st.domain.describe()}")
        body = step_unicode(st)
        lines.extend("    " + x for x in body.split("\n"))
        for i, link in enumerate(st.links, 1):  # a chain: each link with the step it cites
            how = f"cites {link.cite}" if link.cite else "algebra, checked in place"
            extra = "".join(
                [
                    f"; ×{link.factor}" if link.factor != 1 else "",
                    f"; at {', '.join(f'{a} = {b}' for a, b in link.subs.items())}" if link.subs else "",
                ]
            )
            lines.append(f"    link {i}: {link.statement}  [{how}{extra}]")
        if st.note:
            lines.append(f"    note: {st.note}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- errata


def _errata_step(label: str, row: dict | None, result: str) -> list[str]:
    if not row:
        return []
    from . import catalogue

    out = [rf"\item[{tex_text(label)}] {tex_text(row['name'])}"]
    try:
        st = catalogue.get(result).step(row["name"])
        out.append(display(step_latex(st)))
        out.append(rf"on {domain_text(st.domain)}.\\")
    except (KeyError, ValueError):
        pass
    out.append(rf"Checked now: \textbf{{{tex_text(row['verdict'])}}} --- {tex_text(row.get('method', ''))}")
    if row.get("counterexample"):
        out.append(r"; counterexample " + tex_text(", ".join(f"{k} = {v}" for k, v in row["counterexample"].items())))
    return out


def errata_latex(data: dict) -> str:
    """The errata report (``infonce-bounds errata``'s collected rows) as a LaTeX fragment (amsmath only).

    ``data`` is ``{"errata": [row, …], "count", "ok", "trials", "seed"}`` with each row as
    ``numerics.commands.errata.check_erratum`` returns it; the printed and corrected steps are displayed
    from the catalogue, the verdicts and counterexamples are those of the run.
    """
    lines = [
        rf"\noindent {data['count']} errata, each re-found by running its printed and corrected steps now "
        rf"(falsifier trials {data['trials']}, seed {data['seed']}).",
    ]
    for n, r in enumerate(data["errata"], 1):
        lines.append(rf"\subsection*{{{n}. {tex_text(r['location'])}}}")
        lines.append(rf"\textbf{{Kind:}} {tex_text(r['kind'])}; result \texttt{{{tex_code(r['result'])}}}.\\")
        lines.append(rf"\textbf{{As printed:}} {tex_text(r['as_printed'])}")
        lines.append(r"\begin{description}")
        lines += _errata_step("Printed step", r.get("printed_step"), r["result"])
        lines += _errata_step("Corrected step", r.get("corrected_step"), r["result"])
        for key, label in (("evidence", "Evidence"), ("correction", "Correction"), ("consequence", "Consequence")):
            if r.get(key):
                lines.append(rf"\item[{label}] {tex_text(r[key])}")
        if r.get("problems"):
            lines.append(rf"\item[PROBLEM] {tex_text('; '.join(r['problems']))}")
        lines.append(r"\end{description}")
    return "\n".join(lines)


def errata_document(data: dict) -> str:
    """``errata --latex --standalone``: the errata report as a complete article."""
    return latex_document(
        "Errata of the paper, checked",
        errata_latex(data),
        subtitle="N. Whiteley, Similarity search generalisation in contrastive learning with InfoNCE loss",
    )
