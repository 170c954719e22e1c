"""Render certified constants and bound terms as a text table, JSON or LaTeX.

A *row* is a dict with keys ``name``, ``symbol`` (how the quantity is written), ``value`` (the
printed bound: the upper end of a certified interval, rounded up), ``interval`` ([lo, hi] as
strings, outward rounded), ``provenance``, ``rate``, ``show`` (the result name to pass to
``infonce-bounds show``) and ``note``; ``group`` splits constants from Theorem-1 components.
Missing keys print as "—". Numbers are already strings (``numerics.certify.format_up``), so no
renderer ever rounds a bound down.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Sequence

COLUMNS = ("name", "symbol", "value", "interval", "provenance", "rate", "show")
_HEAD = {
    "name": "quantity",
    "symbol": "formula",
    "value": "bound (upper end)",
    "interval": "certified interval",
    "provenance": "source",
    "rate": "rate",
    "show": "show",
}


def _cell(row: dict, col: str) -> str:
    val = row.get(col)
    if val is None or val == "":
        return "—"
    if col == "interval" and isinstance(val, (list, tuple)):
        return f"[{val[0]}, {val[1]}]"
    return str(val)


def _width(s: str) -> int:
    """Columns ``s`` occupies: combining marks (the tilde of ℓ̃, R̃) take none."""
    return sum(1 for ch in s if not unicodedata.combining(ch))


def _clip(s: str, w: int) -> str:
    if _width(s) <= w:
        return s
    out, used = [], 0
    for ch in s:
        if not unicodedata.combining(ch):
            if used == w - 1:
                break
            used += 1
        out.append(ch)
    return "".join(out) + "…"


def _pad(s: str, w: int) -> str:
    return s + " " * (w - _width(s))


def render_table(
    rows: Sequence[dict], columns: Sequence[str] = COLUMNS, caps: dict | None = None, header: str = ""
) -> str:
    """A plain-text aligned table; rows with a different ``group`` are separated by a blank line."""
    caps = {"symbol": 34, "interval": 40, "rate": 36, "name": 30, **(caps or {})}
    cells = [[_cell(r, c) for c in columns] for r in rows]
    head = [_HEAD.get(c, c) for c in columns]
    widths = [min(max(_width(x[i]) for x in [head, *cells]), caps.get(c, 60)) for i, c in enumerate(columns)]

    def fmt(vals: Iterable[str]) -> str:
        return "  ".join(_pad(_clip(v, w), w) for v, w in zip(vals, widths)).rstrip()

    out = [header] if header else []
    out += [fmt(head), "  ".join("-" * w for w in widths)]
    group = None
    for r, c in zip(rows, cells):
        if group is not None and r.get("group") != group:
            out.append("")
        group = r.get("group")
        out.append(fmt(c))
    return "\n".join(out)


def render_markdown(rows: Sequence[dict], columns: Sequence[str] = COLUMNS) -> str:
    """A Markdown table (for ``infonce-bounds report``)."""
    lines = ["| " + " | ".join(_HEAD.get(c, c) for c in columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        vals = []
        for c in columns:
            v = _cell(r, c).replace("|", "\\|")
            vals.append(f"`{v}`" if c in ("show",) and v != "—" else v)
        lines.append("| " + " | ".join(vals) + " |")
    return "\n".join(lines)


def render_json(payload: dict) -> str:
    """One JSON object; bounds stay decimal strings (rounded up), floats only where exact enough."""
    return json.dumps(payload, indent=1, ensure_ascii=False)


_LATEX_ESC = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def latex_escape(s: str) -> str:
    return "".join(_LATEX_ESC.get(ch, ch) for ch in s)


def latex_number(s: str) -> str:
    """``"3.79022e+865"`` → ``3.79022\\times 10^{865}`` (math mode body); plain decimals unchanged."""
    if "e" in s and s not in ("inf", "-inf"):
        mant, ex = s.split("e")
        return f"{mant}\\times 10^{{{int(ex)}}}"
    return s


def render_latex(rows: Sequence[dict], caption: str = "", label: str = "tab:infonce-constants") -> str:
    """A LaTeX ``table`` with a ``tabular``: quantity, formula (as text), bound, source, show name."""
    out = [
        r"\begin{table}[ht]",
        r"\centering",
        r"\begin{tabular}{llrll}",
        r"\hline",
        r"quantity & formula & bound (upper end) & source & \texttt{show} \\",
        r"\hline",
    ]
    group = None
    for r in rows:
        if group is not None and r.get("group") != group:
            out.append(r"\hline")
        group = r.get("group")
        val = _cell(r, "value")
        num = f"${latex_number(val)}$" if val != "—" else "—"
        out.append(
            f"{latex_escape(_cell(r, 'name'))} & {latex_escape(_cell(r, 'symbol'))} & {num} & "
            f"{latex_escape(_cell(r, 'provenance'))} & \\texttt{{{latex_escape(_cell(r, 'show'))}}} \\\\"
        )
    out += [r"\hline", r"\end{tabular}"]
    if caption:
        out.append(f"\\caption{{{latex_escape(caption)}}}")
    out += [f"\\label{{{label}}}", r"\end{table}"]
    return "\n".join(out)
