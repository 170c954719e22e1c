"""Prose (step names, notes, evidence) made LaTeX: ``tex_text`` escapes text and turns the Unicode mathematics
of the toolkit's prose (τ, ≤, e^{2/τ}, ℓ_k) into math mode, valid in text and in math (amsmath only);
``tex_code`` sets an identifier in monospace; ``unrenderable`` lists the characters it had no LaTeX for.
"""

from __future__ import annotations

import re
import unicodedata

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
