"""Render a derivation as it would appear in a proof: Unicode (SymPy pretty) or LaTeX."""

from __future__ import annotations

import sympy as sp

from .ledger import Derivation, Step

_REL_LATEX = {"<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}
_REL_UNI = {"<=": "≤", "<": "<", ">=": "≥", ">": ">"}


def step_latex(st: Step) -> str:
    lhs, rhs = sp.latex(st.lhs), sp.latex(st.rhs)
    if st.kind == "definition":
        body = f"{lhs} := {rhs}"
    elif st.kind == "identity":
        body = f"{lhs} = {rhs}"
    elif st.kind == "inequality":
        body = f"{lhs} {_REL_LATEX[st.relation]} {rhs}"
    elif st.kind == "expansion":
        body = f"{lhs} = {rhs} + O\\left({sp.latex(st.var)}^{{-{st.order + 1}}}\\right)"
    else:
        body = f"\\lim_{{{sp.latex(st.var)} \\to {sp.latex(st.point)}}} {lhs} = {rhs}"
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


def render(der: Derivation, fmt: str = "unicode") -> str:
    """The whole derivation, one numbered step after another, with kind, domain and provenance."""
    lines = []
    if fmt == "latex":
        lines.append(f"% {der.name}: {der.title} (source: {der.source})")
        if der.paper_claim:
            lines.append(f"% paper's statement: {der.paper_claim}")
        lines.append(r"\begin{enumerate}")
        for st in der.steps:
            ref = f" [{st.reference}]" if st.reference else ""
            lines.append(
                f"  \\item \\textbf{{{_tex_escape(st.name)}}} ({st.kind}; {st.provenance}{_tex_escape(ref)}; "
                f"on ${_tex_escape(st.domain.describe())}$)"
            )
            lines.append(f"  \\[ {step_latex(st)} \\]")
        lines.append(r"\end{enumerate}")
        return "\n".join(lines)
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
        if st.note:
            lines.append(f"    note: {st.note}")
    return "\n".join(lines)


def _tex_escape(s: str) -> str:
    return s.replace("_", r"\_").replace("∈", r"\in").replace("∞", r"\infty").replace("−", "-")
