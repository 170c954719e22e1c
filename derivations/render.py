"""Render a derivation as it would appear in a proof: Unicode (SymPy pretty) or LaTeX.

The LaTeX output compiles with pdflatex: a fragment (``render(der, "latex")``) needs only
``\\usepackage{amsmath}``; ``latex_document`` wraps any body in a complete article (used by
``show --latex --standalone``, ``errata --latex --standalone`` and ``report --pdf``). Symbols print in
the paper's notation (``tau`` → τ, ``s_plus`` → s⁺, ``ell_k`` → ℓ_k) through the ``symbol_names`` of
SymPy's ``LatexPrinter``; prose (step names, notes, evidence) is escaped by ``tex_text``, which turns
the Unicode mathematics of the step names (τ, ≤, e^{2/τ}) into math mode.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter, accepted_latex_functions

from .ledger import Derivation, Domain, Shown, Step, StepResult

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


# ----------------------------------------------------------------------------- prose

#: Unicode in the toolkit's prose → LaTeX valid in text and in math mode (amsmath only)
_UNI: dict[str, str] = {
    "§": r"\S{}", "±": r"\ensuremath{\pm}", "·": r"\ensuremath{\cdot}", "×": r"\ensuremath{\times}",
    "–": "--", "—": "---", "…": r"\ldots{}", "‖": r"\ensuremath{\|}", "⟨": r"\ensuremath{\langle}",
    "⟩": r"\ensuremath{\rangle}", "ℓ": r"\ensuremath{\ell}", "ℝ": r"\ensuremath{\mathbf{R}}",
    "ℤ": r"\ensuremath{\mathbf{Z}}", "𝔊": r"\ensuremath{\mathcal{G}}", "←": r"\ensuremath{\leftarrow}",
    "↑": r"\ensuremath{\uparrow}", "→": r"\ensuremath{\to}", "↦": r"\ensuremath{\mapsto}", "⇒": r"\ensuremath{\Rightarrow}",
    "∂": r"\ensuremath{\partial}", "∅": r"\ensuremath{\emptyset}", "∇": r"\ensuremath{\nabla}", "∈": r"\ensuremath{\in}",
    "∉": r"\ensuremath{\notin}", "−": r"\ensuremath{-}", "∘": r"\ensuremath{\circ}", "√": r"\ensuremath{\surd}",
    "∝": r"\ensuremath{\propto}", "∞": r"\ensuremath{\infty}", "∧": r"\ensuremath{\wedge}", "∨": r"\ensuremath{\vee}",
    "∩": r"\ensuremath{\cap}", "∪": r"\ensuremath{\cup}", "∫": r"\ensuremath{\int}", "∑": r"\ensuremath{\sum}",
    "≃": r"\ensuremath{\simeq}", "≈": r"\ensuremath{\approx}", "≠": r"\ensuremath{\neq}", "≤": r"\ensuremath{\le}",
    "≥": r"\ensuremath{\ge}", "≪": r"\ensuremath{\ll}", "≫": r"\ensuremath{\gg}", "≡": r"\ensuremath{\equiv}",
    "≲": r"\ensuremath{\stackrel{<}{\sim}}", "≳": r"\ensuremath{\stackrel{>}{\sim}}", "⊂": r"\ensuremath{\subset}",
    "⊆": r"\ensuremath{\subseteq}", "∀": r"\ensuremath{\forall}", "∃": r"\ensuremath{\exists}", "∼": r"\ensuremath{\sim}",
    "′": r"\ensuremath{'}", "“": "``", "”": "''", "‘": "`", "’": "'", "✓": "[ok]", "✗": "[x]", "°": r"\ensuremath{^\circ}",
    "ˣ": r"\ensuremath{^{x}}", "ⁿ": r"\ensuremath{^{n}}", "⁺": r"\ensuremath{^{+}}", "⁻": r"\ensuremath{^{-}}",
    "ᵢ": r"\ensuremath{_{i}}", "ⱼ": r"\ensuremath{_{j}}", "ₖ": r"\ensuremath{_{k}}", "ₙ": r"\ensuremath{_{n}}",
    "â": r"\^a", "ä": r'\"a', "é": r"\'e", "è": r"\`e", "ó": r"\'o", "ö": r'\"o', "ü": r'\"u', "ā": r"\=a",
    "ç": r"\c{c}", "ß": r"\ss{}", "½": r"\ensuremath{\tfrac{1}{2}}", "₊": r"\ensuremath{_{+}}",
    "∓": r"\ensuremath{\mp}", "⊗": r"\ensuremath{\otimes}", "⌈": r"\ensuremath{\lceil}", "⌉": r"\ensuremath{\rceil}",
    "⌊": r"\ensuremath{\lfloor}", "⌋": r"\ensuremath{\rfloor}", "⟂": r"\ensuremath{\perp}", "⊥": r"\ensuremath{\perp}",
    "⟺": r"\ensuremath{\Longleftrightarrow}", "⇔": r"\ensuremath{\Leftrightarrow}", "⟹": r"\ensuremath{\Longrightarrow}", "⟸": r"\ensuremath{\Longleftarrow}", "ĝ": r"\^g",
    "↔": r"\ensuremath{\leftrightarrow}", "⋅": r"\ensuremath{\cdot}", "∖": r"\ensuremath{\setminus}",
    "∥": r"\ensuremath{\parallel}", "≔": r"\ensuremath{:=}", "ℕ": r"\ensuremath{\mathbf{N}}", "ℚ": r"\ensuremath{\mathbf{Q}}",
    "ℰ": r"\ensuremath{\mathcal{E}}", "ℒ": r"\ensuremath{\mathcal{L}}", "ℱ": r"\ensuremath{\mathcal{F}}",
    "𝔼": r"\ensuremath{\mathbf{E}}", "ℙ": r"\ensuremath{\mathbf{P}}", "⁄": "/", "‑": "-", "\u00a0": "~",
}  # fmt: skip
for _n, _c in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹"):
    _UNI[_c] = rf"\ensuremath{{^{{{_n}}}}}"
for _n, _c in enumerate("₀₁₂₃₄₅₆₇₈₉"):
    _UNI[_c] = rf"\ensuremath{{_{{{_n}}}}}"
_GREEK_UNI = {
    unicodedata.lookup(f"{case} LETTER {name.upper()}"): "\\" + (name if case == "GREEK SMALL" else name.capitalize())
    for name in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lamda", "mu",
                 "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega")
    for case in ("GREEK SMALL", "GREEK CAPITAL")
}  # fmt: skip
_GREEK_UNI = {c: cmd.replace("amda", "ambda") for c, cmd in _GREEK_UNI.items()}
# capitals that are Latin letters in LaTeX; ε printed as \varepsilon as in the paper
_GREEK_UNI.update({"Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N"})
_GREEK_UNI.update({"Ο": "O", "Ρ": "P", "Τ": "T", "Χ": "X", "ο": "o", "ε": r"\varepsilon", "ς": r"\varsigma"})
_GREEK_UNI["ϕ"] = r"\phi"
_UNI.update({c: rf"\ensuremath{{{cmd}}}" if cmd.startswith("\\") else cmd for c, cmd in _GREEK_UNI.items()})
_COMBINING = {"\u0302": r"\hat", "\u0304": r"\bar", "\u0303": r"\tilde", "\u0307": r"\dot"}
_ASCII = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\ensuremath{<}", ">": r"\ensuremath{>}",
    "|": r"\ensuremath{|}",
}  # fmt: skip
#: a superscript or subscript in prose: ``e^{2/τ}``, ``n^-1/2``, ``F_{τ/ρ}``, ``c_i``; or a code identifier
#: (``finite_k_bias``, ``complexity_direct``: two underscores, or a word after one), printed as it is
_TOKEN = re.compile(
    r"(?P<ident>\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+){2,}\b|\b[A-Za-z][A-Za-z0-9]*_[A-Za-z]{3,}\b)"
    r"|(?P<base>(?:[^\W_]|[)\]⁺\u0302\u0304])+)(?P<op>[\^_])(?P<arg>\{[^{}]*\}|[-−]?[^\W_]+(?:[./+][^\W_]+)*)"
)


def _char_tex(ch: str) -> str:
    if ch in _ASCII:
        return _ASCII[ch]
    if ord(ch) < 128:
        return ch
    if ch in _UNI:
        return _UNI[ch]
    # superscript/subscript/font variants (ᵃ, ₘ, 𝒳): their base character, raised, lowered or plain
    tag, _, code = unicodedata.decomposition(ch).partition(" ")
    if tag in ("<super>", "<sub>", "<font>") and code and " " not in code:
        base = _char_tex(chr(int(code, 16)))
        if not base.startswith(r"\textbf{[U+"):
            inner = base.removeprefix(r"\ensuremath{").removesuffix("}") if base.startswith(r"\ensuremath") else base
            return {"<super>": rf"\ensuremath{{^{{{inner}}}}}", "<sub>": rf"\ensuremath{{_{{{inner}}}}}"}.get(tag, base)
    return rf"\textbf{{[U+{ord(ch):04X}]}}"  # visible, compiles; test_render fails on it for the catalogue


def _math_tex(s: str) -> str:
    """Unicode/ASCII text taken as mathematics, for inside ``\\ensuremath``."""
    out: list[str] = []
    for ch in s:
        if ch in _COMBINING and out:
            out[-1] = f"{_COMBINING[ch]}{{{out[-1]}}}"
        elif ch in "{}":
            out.append(ch)
        elif ch in _ASCII and ch not in "<>|":
            out.append({"\\": r"\backslash ", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#"}.get(ch, ch))
        else:
            out.append(_char_tex(ch))
    return "".join(out)


def tex_text(s: str) -> str:
    """Prose (step names, notes, evidence) as LaTeX text: specials escaped, Unicode mathematics in math mode.

    ``"e^{2/τ} ≤ C_ρ & more"`` → ``\\ensuremath{e^{2/\\ensuremath{\\tau}}} \\ensuremath{\\le} …``; a character
    with no rendering is shown as ``[U+XXXX]`` (and ``unrenderable`` finds it).
    """
    s = unicodedata.normalize("NFC", str(s))
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(s):
        out.append(_plain(s[pos : m.start()]))
        if m["ident"]:
            out.append(_plain(m["ident"]))
            pos = m.end()
            continue
        arg = m["arg"][1:-1] if m["arg"].startswith("{") else m["arg"]
        out.append(rf"\ensuremath{{{_math_tex(m['base'])}{m['op']}{{{_math_tex(arg)}}}}}")
        pos = m.end()
    out.append(_plain(s[pos:]))
    return "".join(out)


def _plain(s: str) -> str:
    out: list[str] = []
    for ch in s:
        if ch in _COMBINING and out:
            out[-1] = rf"\ensuremath{{{_COMBINING[ch]}{{{out[-1]}}}}}"
        else:
            out.append(_char_tex(ch))
    return "".join(out)


def tex_code(s: str) -> str:
    """An identifier (result or column name) for ``\\texttt``: specials escaped, nothing turned into math."""
    return "".join(_ASCII.get(ch, ch) if ord(ch) < 128 else _char_tex(ch) for ch in str(s))


def unrenderable(tex: str) -> list[str]:
    """The ``[U+XXXX]`` placeholders ``tex_text`` had to emit (characters it has no LaTeX for)."""
    return re.findall(r"\[U\+[0-9A-F]{4,5}\]", tex)


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


# ----------------------------------------------------------------------------- long displays

#: the width a display may take before it is broken, in points as ``_width`` estimates them (TeX's width is
#: at most 0.97 of the estimate: ``_WIDTH_CALIBRATION``), so a line is at most ~310 pt, and a continued line
#: with its \qquad fits the 320 pt of an enumerate item in the 345 pt column of an article with amsmath and
#: no geometry (what a fragment gets; tests/test_render.py compiles every result and counts overfull boxes)
DISPLAY_WIDTH_PT = 320.0

_TOKEN_RE = re.compile(r"\\[A-Za-z]+\*?|\\.|[{}^_&]|\s+|[^\\{}^_&\s]")
_RELATIONS = {"=", "<", ">", r"\le", r"\ge", r"\leq", r"\geq", r"\ne", r"\neq", r"\approx", r"\sim", r"\simeq"}
_BINARY = {"+", "-", r"\pm", r"\mp"}
#: commands whose following brace groups are arguments (how many), not free groups
_ARGS = {r"\frac": 2, r"\dfrac": 2, r"\tfrac": 2, r"\binom": 2, r"\sqrt": 1, r"\mathrm": 1, r"\mathbf": 1,
         r"\mathcal": 1, r"\operatorname": 1, r"\text": 1, r"\textrm": 1, r"\hat": 1, r"\bar": 1, r"\tilde": 1,
         r"\dot": 1, r"\ddot": 1, r"\overline": 1, r"\underline": 1, r"\mathit": 1, r"\boldsymbol": 1,
         r"\widehat": 1, r"\widetilde": 1, r"\check": 1, r"\vec": 1, r"\mathbb": 1, r"\mathsf": 1,
         r"\mathtt": 1, r"\begin": 1, r"\end": 1}  # fmt: skip
_TEXTUAL = {r"\mathrm", r"\operatorname", r"\text", r"\textrm", r"\mathtt", r"\mathsf", r"\mathit"}
_SPACES = {r"\,": 1.7, r"\:": 2.2, r"\;": 2.8, r"\ ": 3.3, r"\quad": 10.0, r"\qquad": 20.0, r"\!": -1.7}


class _G(list):
    """A brace group ``{…}`` of the token tree."""


def _tree(tex: str) -> list:
    """``tex`` as a token list with brace groups as nested ``_G`` lists (unbalanced input raises ValueError)."""
    stack: list[list] = [[]]
    for tok in _TOKEN_RE.findall(tex):
        if tok == "{":
            stack.append(_G())
        elif tok == "}":
            if len(stack) == 1:
                raise ValueError("unbalanced braces")
            g = stack.pop()
            stack[-1].append(g)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise ValueError("unbalanced braces")
    return stack[0]


def _src(items: Iterable) -> str:
    out = []
    for it in items:
        out.append("{" + _src(it) + "}" if isinstance(it, _G) else it)
    return "".join(out)


def _chars(items: Iterable) -> int:
    return sum(_chars(it) if isinstance(it, _G) else (0 if it.isspace() else len(it)) for it in items)


#: TeX's width of the catalogue's displays over ``_raw_width``'s estimate is at most 1.10 (measured with
#: ``\settowidth`` on 267 pieces of six of the widest derivations): ``_width`` multiplies by this
_WIDTH_CALIBRATION = 1.15


def _width(items: list, scale: float = 1.0) -> float:
    """Estimated width in points of a display at 10 pt, calibrated to over- rather than under-estimate."""
    return _WIDTH_CALIBRATION * _raw_width(items, scale)


def _raw_width(items: list, scale: float = 1.0) -> float:
    """Letters 5.5 pt, a binary operator or relation with its spaces 13.5 pt, scripts at 0.8 of the size (the
    small fonts are relatively wide) and never below 0.65, a fraction as its wider part (its parts at 0.85
    once inside a script)."""
    scale = max(scale, 0.65)  # scriptscript size: sub-subscripts shrink no further (and 5 pt letters are wide)
    w = 0.0
    i = 0
    n = len(items)
    while i < n:
        it = items[i]
        if isinstance(it, _G):
            w += _raw_width(it, scale)
        elif it.isspace() or it in ("&",):
            pass
        elif it in (r"\left", r"\right", r"\middle"):
            i += 1  # the delimiter that follows
            w += 4.5 * scale
        elif it in ("^", "_"):
            nxt = items[i + 1] if i + 1 < n else ""
            w += _raw_width(nxt if isinstance(nxt, _G) else [nxt], scale * 0.8)
            i += 1
        elif it in _SPACES:
            w += _SPACES[it] * scale
        elif it in (r"\frac", r"\dfrac", r"\tfrac", r"\binom"):
            a = items[i + 1] if i + 1 < n else _G()
            b = items[i + 2] if i + 2 < n else _G()
            inner = scale if scale >= 1 else scale * 0.85
            w += max(
                _raw_width(a if isinstance(a, _G) else [a], inner), _raw_width(b if isinstance(b, _G) else [b], inner)
            )
            w += 2.0 * scale
            i += 2
        elif it == r"\sqrt":
            a = items[i + 1] if i + 1 < n else _G()
            w += _raw_width(a if isinstance(a, _G) else [a], scale) + 9.0 * scale
            i += 1
        elif it in _TEXTUAL:
            a = items[i + 1] if i + 1 < n else _G()
            w += 5.5 * scale * (_chars(a) if isinstance(a, _G) else 1)
            i += 1
        elif it in _RELATIONS or it in _BINARY or it in (r"\cdot", r"\times", r"\to", r"\in"):
            w += 13.5 * scale
        elif it.startswith("\\") and it[1:].isalpha() and it not in _ARGS:
            # \tau, \log, \sum, \infty: an operator name takes its letters, a symbol about one letter
            name = it[1:]
            if name in ("log", "exp", "sin", "cos", "max", "min", "sup", "inf", "lim"):
                w += 5.5 * len(name) * scale
            else:
                w += (14.0 if name in ("sum", "prod", "int") else 8.0) * scale
        elif it.startswith("\\") and it not in _ARGS:
            w += 5.5 * scale
        elif it not in _ARGS:
            w += 5.5 * scale
        i += 1
    return w


def _is_group(x) -> bool:
    return isinstance(x, _G)


def _has_top_sum(items: list) -> bool:
    prev = None
    for it in items:
        if not _is_group(it) and it in _BINARY and prev is not None:
            return True
        if not (not _is_group(it) and it.isspace()):
            prev = it
    return False


def _paren(items: list) -> list:
    return [r"\left", "(", *items, r"\right", ")"] if _has_top_sum(items) else list(items)


def _open(items: list, limit: float) -> list:
    r"""Rewrite the parts of ``items`` a line cannot break inside into forms it can break: a fraction wider
    than ``limit`` into (numerator) / (denominator), ``e^{…}`` and ``\sqrt{…}`` wider than ``limit / 2`` into
    ``\exp\left(…\right)`` and ``\left(…\right)^{1/2}``, and a free brace group wider than ``limit``
    (``\log{\left(…\right)}``) into its contents; recursively, so a wide numerator is opened too. The
    mathematics is the same; only its notation changes."""
    out: list = []
    i = 0
    n = len(items)
    while i < n:
        it = items[i]
        nxt = items[i + 1] if i + 1 < n else None
        if not _is_group(it) and it in (r"\frac", r"\dfrac", r"\tfrac") and i + 2 < n:
            a, b = items[i + 1], items[i + 2]
            a = list(a) if _is_group(a) else [a]
            b = list(b) if _is_group(b) else [b]
            if _width([it, _G(a), _G(b)]) > limit:
                out += (
                    _paren(_open(a, limit))
                    + [" ", "/", " "]
                    + ([r"\left", "(", *_open(b, limit), r"\right", ")"] if len(b) > 1 else b)
                )
            else:
                out += [it, _G(a), _G(b)]
            i += 3
            continue
        if not _is_group(it) and it == r"\sqrt" and _is_group(nxt) and _width([it, nxt]) > limit / 2:
            out += [r"\left", "(", *_open(list(nxt), limit), r"\right", ")", "^", _G(["1", "/", "2"])]
            i += 2
            continue
        if (
            not _is_group(it)
            and it == "e"
            and nxt == "^"
            and i + 2 < n
            and _is_group(items[i + 2])
            and _width(list(items[i + 2])) * 0.8 > limit / 2
        ):
            out += [r"\exp", r"\left", "(", *_open(list(items[i + 2]), limit), r"\right", ")"]
            i += 3
            continue
        if _is_group(it):
            prev = next((x for x in reversed(out) if _is_group(x) or not x.isspace()), None)
            bound = prev in ("^", "_") or (not _is_group(prev) and prev is not None and prev in _ARGS)
            if not bound and _width(list(it)) > limit and nxt not in ("^", "_"):
                out += _open(list(it), limit)  # a free group: TeX sees the same mathematics
                i += 1
                continue
            if not bound:
                out.append(_G(_open(list(it), limit)) if _width(list(it)) > limit else it)
                i += 1
                continue
        out.append(it)
        i += 1
    return out


#: what may start a factor of a product, after a closing delimiter or a group: a line may end before it
_FACTOR_STARTS = (r"\left", r"\frac", r"\sqrt", r"\max", r"\min", r"\log", r"\exp", r"\lim", r"\sum", "e")
_OPENERS = ("(", "[", r"\{", "|", r"\|", r"\left", r"\right", "^", "_", ",", "&")


def _segments(items: list) -> list[tuple[list, int, str]]:
    r"""Split ``items`` where a line may end: before every relation and every binary + or − (not a sign),
    kind "op", and between two factors of a product — a closing delimiter or a group followed by
    ``\left`` or a fraction — kind "times". Each segment comes with the depth of ``\left`` … ``\right``
    open at its start."""
    segs: list[tuple[list, int, str]] = []
    cur: list = []
    depth = 0
    start_depth = 0
    kind = "op"
    prev = None
    i = 0
    while i < len(items):
        it = items[i]
        atom = not _is_group(it)
        if cur and atom and (it in _RELATIONS or it in _BINARY or it == "/") and prev is not None:
            if prev not in _OPENERS and prev not in _RELATIONS and prev not in _BINARY:
                segs.append((cur, start_depth, kind))
                cur, start_depth, kind = [], depth, "op"
        elif cur and ((not atom and prev == ")") or (atom and it in _FACTOR_STARTS and prev in (")", "x"))):
            segs.append((cur, start_depth, kind))
            cur, start_depth, kind = [], depth, "times"
        if atom and it in _ARGS:  # a command and its arguments stay on one line
            take = _ARGS[it]
            cur.append(it)
            i += 1
            while take and i < len(items):
                cur.append(items[i])
                take -= _is_group(items[i])
                i += 1
            prev = "x"
            continue
        if atom and it == r"\left":
            depth += 1
            cur += [it, items[i + 1]]
            prev = items[i + 1]
            i += 2
            continue
        if atom and it == r"\right":
            depth -= 1
            cur += [it, items[i + 1]]
            prev = ")"  # a closing delimiter: an operator after it is binary, a factor after it multiplies
            i += 2
            continue
        cur.append(it)
        if not atom:
            prev = "x"
        elif not it.isspace():
            prev = it
        i += 1
        if atom and it == "," and depth > 0:  # between the arguments of max(…, …): the next line goes on
            segs.append((cur, start_depth, kind))
            cur, start_depth, kind = [], depth, "comma"
    if cur:
        segs.append((cur, start_depth, kind))
    return segs


def _depth_after(items: list) -> int:
    d = 0
    for it in items:
        if not _is_group(it):
            d += (it == r"\left") - (it == r"\right")
    return d


def break_lines(tex: str, width: float = DISPLAY_WIDTH_PT) -> list[str]:
    r"""The display ``tex`` (a math-mode body) as lines of at most ``width`` points (estimated), one line when
    it fits. Lines end before a relation or a binary + / − (the next line starts with it), or between two
    factors of a product (the next line starts with ×) — at the top level or inside ``\left(`` …
    ``\right)``, which a line then closes with ``\right.`` and the next reopens with ``\left.``. Parts a
    line cannot break inside are first opened when too wide (``_open``: a fraction as (a) / (b))."""
    try:
        items = _tree(tex)
    except ValueError:
        return [tex]
    if _width(items) <= width:
        return [tex]
    items = _open(items, width * 0.8)
    segs = [
        (seg, d0, kind, _width(seg) + (_width([r"\times"]) if kind == "times" else 0.0))
        for seg, d0, kind in _segments(items)
    ]
    groups: list[list] = []  # the segments of each line
    cur: list = []
    for sg in segs:
        if cur and sum(x[3] for x in cur) + sg[3] > width:
            # end the line at its last + / − / relation / comma when that keeps it at least half full: a
            # product is split only when no sum is at hand
            cut = len(cur)
            if sg[2] == "times":
                soft = [j for j in range(1, len(cur)) if cur[j][2] != "times"]
                if soft and sum(x[3] for x in cur[: soft[-1]]) >= width / 2:
                    cut = soft[-1]
            groups.append(cur[:cut])
            cur = cur[cut:]
            if cur and sum(x[3] for x in cur) + sg[3] > width:
                groups.append(cur)
                cur = []
        cur.append(sg)
    if cur:
        groups.append(cur)
    lines = [([t for x in g for t in x[0]], g[0][1], g[0][2]) for g in groups]
    out = []
    for n_, (line, d0, kind) in enumerate(lines):
        body = _src(line).strip()
        if n_:
            # "{}" keeps a leading + or = binary (its spacing); a product continues with ×
            body = {"times": "{} \\times ", "comma": ""}.get(kind, "{} ") + body
        still_open = d0 + _depth_after(line)
        out.append((r"\left. " * d0) + body + (r" \right." * still_open))
    return out


def break_display(tex: str, width: float = DISPLAY_WIDTH_PT) -> str:
    r"""``tex`` unchanged when it fits in ``width`` points, else its lines (``break_lines``) in an
    ``aligned`` block (amsmath), continued lines indented by ``\qquad``."""
    lines = break_lines(tex, width)
    if len(lines) == 1:
        return lines[0]
    return (
        "\\begin{aligned}\n"
        + " \\\\\n".join(("& " if n_ == 0 else r"& \qquad ") + ln for n_, ln in enumerate(lines))
        + "\n\\end{aligned}"
    )


def display(tex: str, width: float = DISPLAY_WIDTH_PT) -> str:
    r"""A displayed claim: ``\[ tex \]`` when it fits in ``width`` points, else an ``align*`` (amsmath) of
    its lines (``break_lines``), continued lines indented by ``\qquad``, a page break allowed between
    lines (a long display may be taller than a page)."""
    lines = break_lines(tex, width)
    if len(lines) == 1:
        return rf"\[ {lines[0]} \]"
    body = " \\displaybreak[0] \\\\\n".join(("& " if n_ == 0 else r"& \qquad ") + ln for n_, ln in enumerate(lines))
    return "\\begin{align*}\n" + body + "\n\\end{align*}"


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
