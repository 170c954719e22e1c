r"""A second, independent reading of a LaTeX claim (latex2sympy2_extended, an ANTLR grammar) and the comparison.

``second_reading(text, defined)`` → the second reader's SymPy expression with the toolkit's conventions
(plain symbols, not yet renamed); ``NotApplicable`` when the claim uses what that reader lacks. The
conventions normalised, each stated in the README:

* ``\log`` (no base) is passed to it as ``\ln``: it reads ``\log`` as base 10; ``log(x, E)`` becomes ``log(x)``
  and ``\log_{b} x`` becomes ``log x / log b``.
* symbols keep their case (``lowercase_symbols=False``; its default lower-cases ``X`` to ``x``);
* ``2 \frac{1}{2}`` is a product, 1 (it reads an integer before a fraction as a mixed number, 5/2, whatever
  its ``interpret_as_mixed_fractions`` says; the converter is subclassed to multiply);
* a decimal ``0.1`` is passed as ``\frac{1}{10}`` (it makes binary floats of decimals);
* ``I`` is a symbol (it reads the imaginary unit), and ``d`` is passed as a capital letter the text does not use
  (it reads ``d x`` as one name ``dx``);
* ``z^{+}``, ``z_{j}^{-}``, ``x^{*}`` are passed as ``z_{plus}``, ``z_{j_minus}``, ``x_{star}`` (the first reader's names);
* a limit at ±∞ has no side; ``\lim_{x \to a}`` at a finite ``a`` with no ``^{+}``/``^{-}`` is two-sided (it reads
  it as the limit from above).

Spelling (``\left``, ``\big``, spacing, ``\leq``, a final full stop) is normalised as for the first reader.
Not applicable (reported, never a failure): functions the file defines or ``\operatorname{…}``, ``\|…\|``,
and whatever it cannot parse or returns as a set (``\min\{a, b\}``, ``\{x\}``).

``compare(first, second, points)`` → ``None`` when the two readings agree: the same relation, and each side
structurally equal (as read, after ``expand``, after ``together``, or after both), or else equal to 10⁻⁵⁰
relative at each exact rational point of ``points`` (60 digits, a difference confirmed at 200; at least two
points where both are finite);
otherwise a one-line description of where they part.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

__all__ = ["NotApplicable", "second_reading", "compare", "sample_points", "available"]


class NotApplicable(Exception):
    """The second reader cannot read this claim (the message says why); the first reading stands alone."""


def available() -> bool:
    try:
        import latex2sympy2_extended  # noqa: F401
    except ImportError:
        return False
    return True


def _converter():
    import latex2sympy2_extended.latex2sympy2 as l2s

    class NoMixedFractions(l2s._Latex2Sympy):
        """Juxtaposition is a product: ``2 \\frac{1}{2}`` is 1 and ``2 10^{-12}`` is 2·10⁻¹², never 2 + …."""

        def convert_postfix_list(self, arr, i=0):
            if i < len(arr) - 1:
                res = self.convert_postfix(arr[i])
                if isinstance(res, sp.Expr) and getattr(res, "is_Integer", False):
                    rh = self.convert_postfix_list(arr, i + 1)
                    if isinstance(rh, sp.Expr):
                        return self.mul_flat(res, rh)
            return super().convert_postfix_list(arr, i)

    config = l2s.ConversionConfig(
        interpret_as_mixed_fractions=False,
        interpret_simple_eq_as_assignment=False,
        interpret_contains_as_eq=False,
        lowercase_symbols=False,
    )
    return l2s, NoMixedFractions(None, None, False, config=config)


_MARKED = re.compile(r"(\\[A-Za-z]+|[A-Za-z])\s*(?:_\s*(\{[^{}]*\}|[A-Za-z0-9]))?\s*\^\s*\{\s*([+\-*])\s*\}")


def _mark_names(text: str) -> str:
    """``z^{+}`` → ``z_{plus}``, ``z_{j}^{-}`` → ``z_{j_minus}``: the first reader's names, spelled as subscripts
    (not after ``\\to``, where ``0^{+}`` is the side of a limit)."""

    def rep(m: re.Match) -> str:
        if re.search(r"\\to\s*$", text[: m.start()]) or m.group(1) in ("\\infty",):
            return m.group(0)
        sub = (m.group(2) or "").strip("{}")
        mark = {"+": "plus", "-": "minus", "*": "star"}[m.group(3)]
        return f"{m.group(1)}_{{{sub + '_' if sub else ''}{mark}}}"

    return _MARKED.sub(rep, text)


def _decimal_as_fraction(m: re.Match) -> str:
    whole, frac = m.group(1), m.group(2)
    return rf"\frac{{{int(whole + frac)}}}{{{10 ** len(frac)}}}"


def second_reading(text: str, defined: Iterable[str] = ()) -> sp.Basic:
    """The second reader's expression for ``text`` with the conventions above; ``NotApplicable`` if it can't."""
    if not available():
        raise NotApplicable("latex2sympy2_extended is not installed (pip install 'infonce-bounds[check]')")
    used = [d for d in defined if re.search(re.escape(d) + r"(?![A-Za-z])", text)]
    if used:
        raise NotApplicable(f"uses {used[0]}, a function the file defines")
    from .latex_reader import normalise as spelling

    text = _mark_names(spelling(text, tex_digits=False))  # sizes, spacing, aliases: spelling, not meaning
    if "\\operatorname" in text:
        raise NotApplicable("uses \\operatorname{…}")
    if re.search(r"\\(\||[lr]?Vert)", text):
        raise NotApplicable("uses \\|…\\| (the second reader takes it for a matrix norm)")
    if re.search(r"\^\s*\{\s*[+\-*]\s*\}", re.sub(r"\\to\s*[^{}]*?\^\s*\{\s*[+-]\s*\}", "", text)):
        raise NotApplicable("uses a superscript + - or * it cannot read")
    # it reads a letter d before another letter or a command as one symbol ("d x" → dx, "d \\ln" → dln):
    # d is passed as a letter the text does not use, and renamed back
    plain = re.sub(r"\\[A-Za-z]+", " ", text)
    spare = next((c for c in "ZYXWVUTRQPMLKJHGFCBA" if c not in plain), None)
    if spare is None and re.search(r"(?<![\\A-Za-z])d|(?<=[^\\A-Za-z])d", plain):
        raise NotApplicable("the letter d beside every capital letter")
    src = re.sub(r"\\[A-Za-z]+|d", lambda m: m.group(0) if len(m.group(0)) > 1 else spare, text) if spare else text
    src = re.sub(r"\\log(?![A-Za-z_])", r"\\ln", src)
    src = re.sub(r"(?<![\d.])(\d+)\.(\d+)", _decimal_as_fraction, src)
    parts = _split_relation(src)
    if parts is None:
        out = _read_one(src)
    else:
        lhs, rel, rhs = parts  # each side read alone: the converter evaluates a relation of numbers to True/False
        out = rel(_read_one(lhs), _read_one(rhs), evaluate=False)
    # it reads \\lim_{x \\to a} at a finite a as the limit from above; the toolkit's reader, as two-sided
    sides = [
        bool(re.search(r"\^\s*\{?\s*[+-]", m_))
        for m_ in re.findall(r"\\lim\s*_\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", src)
    ]
    if sides and not any(sides):
        out = out.replace(
            lambda n: isinstance(n, sp.Limit) and n.args[2].is_finite,
            lambda n: sp.Limit(n.args[0], n.args[1], n.args[2], "+-"),
        )
    elif sides and not all(sides):
        raise NotApplicable("limits with and without a side")
    # it reads the letter I as the imaginary unit; the toolkit's reader, as a symbol
    rep = {sp.I: sp.Symbol("I")}
    for s_ in out.atoms(sp.Symbol):  # d_{\\Theta} → d_Theta, the first reader's spelling of names
        name = re.sub(r"[\\{}\s]", "", s_.name)
        name = name.replace(spare, "d") if spare else name
        if name != s_.name:
            rep[s_] = sp.Symbol(name)
    return out.xreplace(rep)


_REL = re.compile(r"\\(leqslant|geqslant|leq|geq|le|ge|lt|gt|neq|ne)(?![A-Za-z])|[<>=]")
_RELS = {"le": sp.Le, "leq": sp.Le, "leqslant": sp.Le, "lt": sp.Lt, "<": sp.Lt, "ge": sp.Ge, "geq": sp.Ge}
_RELS.update({"geqslant": sp.Ge, "gt": sp.Gt, ">": sp.Gt, "=": sp.Eq})


def _split_relation(src: str):
    """``(lhs, relation, rhs)`` at the one relation outside every bracket; None if there is none."""
    depth, found = 0, []
    i = 0
    while i < len(src):
        ch = src[i]
        if ch == "\\" and src[i + 1 : i + 2] in "{}":
            i += 2
            continue
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif depth == 0:
            m = _REL.match(src, i)
            if m:
                found.append(m)
                i = m.end()
                continue
        i += 1
    if not found:
        return None
    if len(found) > 1:
        raise NotApplicable("more than one relation")
    m = found[0]
    key = m.group(1) or m.group(0)
    if key not in _RELS:
        raise NotApplicable("≠")
    return src[: m.start()], _RELS[key], src[m.end() :]


def _read_one(src: str) -> sp.Basic:
    l2s, conv = _converter()
    try:
        src = l2s.normalize_latex(src, l2s.NormalizationConfig())
        out = conv.parse(src)
    except Exception as exc:  # ANTLR and the converter raise plain Exceptions, several lines long
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        raise NotApplicable(f"it cannot parse this ({first})") from None
    if not isinstance(out, sp.Expr):  # True/False, a set ({x}), a list
        raise NotApplicable(f"it returns {out!r}")
    return normalise(out)


def normalise(e: sp.Basic) -> sp.Basic:
    """``log(x, E)`` → ``log(x)``, ``log(x, b)`` → ``log(x)/log(b)``; a limit at ±∞ with SymPy's default side."""

    def fix_log(*args):
        if len(args) == 1 or args[1] == sp.E:
            return sp.log(args[0])
        return sp.log(args[0]) / sp.log(args[1])

    e = e.replace(lambda n: isinstance(n, sp.log) and len(n.args) == 2, lambda n: fix_log(*n.args))
    e = e.replace(
        lambda n: isinstance(n, sp.Float), lambda n: sp.Rational(str(n))
    )  # not expected after the decimal rewrite
    return e.replace(
        lambda n: isinstance(n, sp.Limit) and n.args[2] in (sp.oo, -sp.oo),
        lambda n: sp.Limit(n.args[0], n.args[1], n.args[2], "-" if n.args[2] == sp.oo else "+"),
    )


# ----------------------------------------------------------------------------- comparison

_FRACTIONS = [sp.Rational(p, q) for p, q in ((1, 3), (5, 7), (2, 9), (7, 11), (4, 13), (9, 17), (11, 19), (3, 23))]


def sample_points(
    scalars: Mapping[sp.Symbol, tuple[Any, Any, bool]], vectors: Mapping[Any, tuple[Any, Any]], n: int = 6
) -> list[dict]:
    """``n`` exact rational points inside the ranges: ``{symbol: value}``, vectors as ``{(base, i): value}``.

    Integer symbols take small values from their lower end (they are vector lengths or counts); an
    unbounded end is replaced by a point within 10 of the other end.
    """
    pts = []
    for m in range(n):
        pt: dict = {}
        for s_i, (sym, (lo, hi, integer)) in enumerate(scalars.items()):
            t = _FRACTIONS[(m + 3 * s_i) % len(_FRACTIONS)]
            if integer:
                start = sp.ceiling(lo) if lo.is_finite else (sp.floor(hi) - 4 if hi.is_finite else 1)
                top = sp.floor(hi) if hi.is_finite else start + 4
                pt[sym] = min(start + (m % 5), top)
                continue
            if lo.is_finite and hi.is_finite:
                pt[sym] = lo + t * (hi - lo)
            elif lo.is_finite:
                pt[sym] = lo + 10 * t
            elif hi.is_finite:
                pt[sym] = hi - 10 * t
            else:
                pt[sym] = 20 * t - 10
        for v_i, (base, (lo, hi)) in enumerate(vectors.items()):
            for i in range(1, 12):
                t = _FRACTIONS[(m + 5 * v_i + 2 * i) % len(_FRACTIONS)]
                lo_, hi_ = (lo if lo.is_finite else -10), (hi if hi.is_finite else 10)
                if not lo.is_finite and hi.is_finite:
                    lo_ = hi - 10
                if lo.is_finite and not hi.is_finite:
                    hi_ = lo + 10
                pt[(base, i)] = lo_ + t * (hi_ - lo_)
        pts.append(pt)
    return pts


def _orient(rel: sp.Basic) -> sp.Basic:
    if isinstance(rel, (sp.Ge, sp.Gt)):
        return (sp.Le if isinstance(rel, sp.Ge) else sp.Lt)(rel.rhs, rel.lhs, evaluate=False)
    return rel


def _same(x: sp.Basic, y: sp.Basic) -> bool:
    if x == y:
        return True
    for norm in (sp.expand, sp.together, lambda z: sp.expand(sp.together(z))):
        try:
            if norm(x) == norm(y):
                return True
        except Exception:  # a normal form SymPy cannot build says nothing either way
            continue
    return False


def _markers(e: sp.Basic) -> list[tuple]:
    """What numbers cannot see: the variable, point and side of every limit; the order terms' arguments."""
    out = [("limit", str(n.args[1]), str(n.args[2]), str(n.args[3])) for n in e.atoms(sp.Limit)]
    return sorted(out)


def _strip(e: sp.Basic) -> sp.Basic:
    e = e.replace(lambda n: isinstance(n, sp.Limit), lambda n: n.args[0])
    return e.replace(lambda n: isinstance(n, AppliedUndef) and n.func.__name__ == "O", lambda n: n.args[0])


def _value(e: sp.Basic, pt: dict, digits: int = 60) -> sp.Basic | None:
    scal = {k: v for k, v in pt.items() if isinstance(k, sp.Symbol)}
    labels = {ix.base.label for ix in e.atoms(sp.Indexed)}  # a vector's name is not a free scalar
    free = [s for s in e.free_symbols if isinstance(s, sp.Symbol) and s not in scal and s not in labels]
    extra = {s: 1 + _FRACTIONS[i % len(_FRACTIONS)] for i, s in enumerate(sorted(free, key=str))}
    v = e.xreplace({**scal, **extra})
    v = v.doit() if v.has(sp.Sum, sp.Product) else v
    vec = {}
    for ix in v.atoms(sp.Indexed):
        key = (ix.base, int(ix.indices[0])) if ix.indices[0].is_Integer else None
        if key is None or key not in pt:
            return None
        vec[ix] = pt[key]
    v = v.xreplace(vec)
    try:
        num = sp.N(v, digits)
    except Exception:  # a point where the expression cannot be evaluated is not used
        return None
    if not num.is_number or num.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not num.is_extended_real:
        return None
    return num


def compare(first: sp.Basic, second: sp.Basic, points: list[dict]) -> str | None:
    """``None`` if the two readings state the same thing (see the module docstring); else where they part."""
    a, b = _orient(first), _orient(second)
    rel = sp.core.relational.Relational
    if (isinstance(a, rel) or isinstance(b, rel)) and type(a) is not type(b):
        return f"different relations ({type(a).__name__} vs {type(b).__name__})"
    if _markers(a) != _markers(b):
        return f"different limits ({_markers(a)} vs {_markers(b)})"
    pairs = (
        [(a.lhs, b.lhs, "left side"), (a.rhs, b.rhs, "right side")]
        if isinstance(a, sp.core.relational.Relational)
        else [(a, b, "expression")]
    )
    for x, y, side in pairs:
        if _same(x, y):
            continue
        xs, ys = _strip(x), _strip(y)
        used = 0
        for pt in points:
            vx, vy = _value(xs, pt), _value(ys, pt)
            if vx is None and vy is None:
                continue
            shown = ", ".join(f"{k}={v}" for k, v in pt.items() if isinstance(k, sp.Symbol))
            if (vx is None) != (vy is None):
                return f"the {side} is defined in one reading only at {shown}"
            if abs(vx - vy) > sp.Float("1e-50", 60) * max(1, abs(vx), abs(vy)):
                # confirmed at 200 digits, so that cancellation inside one form is not taken for a difference
                wx, wy = _value(xs, pt, 200), _value(ys, pt, 200)
                if wx is None or wy is None or abs(wx - wy) > sp.Float("1e-50", 200) * max(1, abs(wx), abs(wy)):
                    return f"the {side} differs at {shown}: {sp.N(vx, 12)} vs {sp.N(vy, 12)}"
            used += 1
        if used < 2:
            return f"the {side} differs in form and could not be compared at two points of the stated domain"
    return None
