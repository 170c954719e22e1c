"""The syntax of a claim file: the TOML text, ranges (``x = [lo, hi]``, ``"integer [1, inf]"``), the ``where``
scope of symbols and vectors, and one expression or relation read from LaTeX (cross-read) or a SymPy string.

Everything malformed raises ``ClaimFileError`` naming the claim and the field (the format: ``userclaims``).
"""

from __future__ import annotations

import decimal
import math
import pathlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..ledger import DerivationError

CLAIM_FIELDS = (
    "name",
    "claim",
    "sympy",
    "where",
    "kind",
    "assume",
    "uses",
    "with",
    "var",
    "point",
    "order",
    "note",
    "expect",
)


EXPECTS = ("proved", "refuted", "holds", "ill-posed")


USER_KINDS = ("identity", "inequality", "limit", "expansion")


_DIRS = ("+", "-", "+-")


class ClaimFileError(DerivationError):
    """A malformed claim file: the message is one line naming the claim and the field."""


def _fail(claim: str | None, field: str | None, message: str) -> ClaimFileError:
    where = f"claim {claim!r}" if claim is not None else "claim file"
    if field:
        where += f": field {field!r}"
    return ClaimFileError(f"{where}: {' '.join(str(message).split())}")


def load(source: Any) -> tuple[str, dict]:
    """``(label, table)`` from a path, a TOML text or an already parsed dict."""
    if isinstance(source, Mapping):
        return "<dict>", dict(source)
    if isinstance(source, pathlib.Path) or (isinstance(source, str) and "\n" not in source and "[[" not in source):
        path = pathlib.Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise _fail(None, None, f"unreadable file {str(path)!r}: {exc.__class__.__name__}: {exc}") from None
        label = path.stem
    elif isinstance(source, str):
        text, label = source, "<text>"
    else:
        raise _fail(None, None, f"expected a path, a TOML text or a dict, got {type(source).__name__}")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the same parser, as a package (the [check] extra)
        import tomli as tomllib
    try:
        return label, tomllib.loads(text, parse_float=decimal.Decimal)  # 0.49999999999999999999 stays that
    except tomllib.TOMLDecodeError as exc:
        raise _fail(None, None, f"bad TOML: {exc}") from None


@dataclass(frozen=True)
class Range:
    lo: sp.Expr
    hi: sp.Expr
    integer: bool

    def assumptions(self) -> dict[str, bool]:
        out = {"real": True}
        if self.integer:
            out["integer"] = True
        if bool(self.lo > 0):
            out["positive"] = True
        elif bool(self.lo >= 0):
            out["nonnegative"] = True
        if bool(self.hi < 0):
            out["negative"] = True
        elif bool(self.hi <= 0):
            out["nonpositive"] = True
        return out


_RANGE_TEXT = re.compile(r"^\s*(integer|real)?\s*\[\s*([^,\[\]]+?)\s*,\s*([^,\[\]]+?)\s*\]\s*$")


_INF = {"inf": sp.oo, "+inf": sp.oo, "infinity": sp.oo, "oo": sp.oo, "∞": sp.oo, "-inf": -sp.oo, "-oo": -sp.oo}


def _endpoint(value: Any, claim: str, sym: str) -> sp.Expr:
    if isinstance(value, bool):
        raise _fail(claim, "where", f"{sym}: range end {value!r} is not a number")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, decimal.Decimal):  # a TOML float, read from its text
        if value.is_nan():
            raise _fail(claim, "where", f"{sym}: range end nan is not a number")
        if value.is_infinite():
            return sp.oo if value > 0 else -sp.oo
        return sp.Rational(str(value))
    if isinstance(value, float):
        if math.isnan(value):
            raise _fail(claim, "where", f"{sym}: range end nan is not a number")
        if math.isinf(value):
            return sp.oo if value > 0 else -sp.oo
        return sp.Rational(repr(value))  # the decimal as written, exactly
    if isinstance(value, str):
        txt = value.strip().lower().replace(" ", "")
        if txt in _INF:
            return _INF[txt]
        try:
            val = sp.sympify(value, rational=True)
        except (sp.SympifyError, SyntaxError, TypeError, ValueError):
            val = None
        if val is not None and val.is_number and (val.is_real or val in (sp.oo, -sp.oo)):
            return val
        raise _fail(claim, "where", f"{sym}: range end {value!r} is not a real number or ±inf")
    raise _fail(claim, "where", f"{sym}: range end {value!r} is not a number")


def parse_range(value: Any, claim: str, sym: str) -> Range:
    """``[lo, hi]``, ``"integer [lo, hi]"`` or ``"real [lo, hi]"`` → a non-empty closed ``Range``."""
    integer = False
    if isinstance(value, str):
        m = _RANGE_TEXT.match(value)
        if not m:
            raise _fail(
                claim, "where", f"{sym}: range {value!r} is not [lo, hi], 'integer [lo, hi]' or 'real [lo, hi]'"
            )
        integer = m.group(1) == "integer"
        ends = [m.group(2), m.group(3)]
    elif isinstance(value, list) and len(value) == 2:
        ends = value
    else:
        raise _fail(claim, "where", f"{sym}: range {value!r} is not [lo, hi], 'integer [lo, hi]' or 'real [lo, hi]'")
    lo, hi = (_endpoint(e, claim, sym) for e in ends)
    if bool(lo > hi) or lo == sp.oo or hi == -sp.oo:
        raise _fail(claim, "where", f"empty range for {sym}: [{lo}, {hi}]")
    if integer and lo.is_finite and hi.is_finite and sp.floor(hi) < sp.ceiling(lo):
        raise _fail(claim, "where", f"empty range for {sym}: no integer in [{lo}, {hi}]")
    return Range(lo, hi, integer)


def _norm(name: str) -> str:
    """``\\tau`` → ``tau``, ``x_{1}`` → ``x_1``, ``z^{+}`` → ``z_plus``: LaTeX spelling and plain spelling name one
    symbol (a superscript ``+``, ``-`` or ``*`` is part of a name, as the LaTeX reader reads it)."""
    marks = {"+": "_plus", "-": "_minus", "*": "_star"}
    name = re.sub(r"\^\s*\{?\s*([+\-*])\s*\}?", lambda m: marks[m.group(1)], str(name))
    return re.sub(r"[\\{}\s]", "", name)


_SCALAR_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


_VECTOR_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9]*)\[([A-Za-z][A-Za-z0-9]*)\]$")


@dataclass
class Scope:
    """The declared symbols of one claim: scalar ``Symbol``s and vector ``IndexedBase``s with ranges."""

    scalars: dict[str, tuple[sp.Symbol, Range]]
    vectors: dict[str, tuple[sp.IndexedBase, Range]]

    def namespace(self) -> dict[str, Any]:
        ns: dict[str, Any] = {"O": sp.Function("O"), "e": sp.E}
        ns.update({n: s for n, (s, _) in self.scalars.items()})
        ns.update({n: b for n, (b, _) in self.vectors.items()})
        return ns


def parse_where(table: Any, claim: str) -> Scope:
    if not isinstance(table, Mapping):
        raise _fail(claim, "where", "must be a table of symbol = range")
    scalars: dict[str, tuple[sp.Symbol, Range]] = {}
    vectors: dict[str, tuple[sp.IndexedBase, Range]] = {}
    for key, value in table.items():
        name = _norm(key)
        rng = parse_range(value, claim, key)
        m = _VECTOR_KEY.match(name)
        if m:
            base = m.group(1)
            vectors[base] = (sp.IndexedBase(base, **rng.assumptions()), rng)
        elif _SCALAR_KEY.match(name):
            scalars[name] = (sp.Symbol(name, **rng.assumptions()), rng)
        else:
            raise _fail(claim, "where", f'{key!r} is not a symbol name (x, tau, x_1) or a vector entry ("s[j]")')
    clash = set(scalars) & set(vectors)
    if clash:
        raise _fail(claim, "where", f"{sorted(clash)[0]!r} is declared both as a scalar and as a vector")
    return Scope(scalars, vectors)


class _Reading:
    """How one LaTeX text was read: by the first reader always, by the second when it applies."""

    def __init__(self) -> None:
        self.second = "not run"
        #: the claim as written (its unevaluated tree in LaTeX) where SymPy's evaluation changed what it
        #: states: a function cancelled or a symbol gone (e^{x} e^{-x} = 1 is checked as 1 = 1); else ""
        self.written = ""


def _as_written(tree: sp.Basic, read: sp.Basic) -> str:
    """The unevaluated ``tree`` in LaTeX where evaluating it to ``read`` lost a symbol or a function
    application (the reader then sees both what was written and what is checked); else ""."""
    try:
        names = [{str(s_) for s_ in e.free_symbols} for e in (tree, read)]
        lost = names[0] != names[1] or len(tree.atoms(sp.Function)) != len(read.atoms(sp.Function))
        return sp.latex(tree) if lost else ""
    except Exception:  # noqa: BLE001 - a tree the printer cannot show: the checked form is shown alone
        return ""


def _parse_latex(text: str, claim: str, field: str, scope: Scope, defines: dict | None, log: _Reading | None):
    """The toolkit's reader (``latex_reader``), cross-checked by the second reader (``crossread``).

    Nothing is evaluated before it is read: the first reading is an unevaluated tree, renamed to the declared
    symbols and evaluated once. A second reading that states something else is a ``ClaimFileError``.
    """
    try:
        import lark  # noqa: F401
    except ImportError:
        raise _fail(
            claim, field, "LaTeX claims need the lark package: pip install 'infonce-bounds[check]' (or use `sympy =`)"
        ) from None
    from .. import crossread
    from ..latex_reader import LatexReadError, compile_defines, evaluate_tree, read_latex

    try:
        tree = read_latex(text, defines if defines is not None else compile_defines(None))
        first = evaluate_tree(_rename(tree, scope))
        if log is not None:
            log.written = _as_written(tree, first)  # not renamed: xreplace would evaluate the tree
    except LatexReadError as exc:
        raise _fail(claim, field, f"LaTeX “{text}”: {exc}") from None
    except Exception as exc:  # SymPy refusing to evaluate what was read (e.g. a power of a relation)
        raise _fail(claim, field, f"LaTeX “{text}”: not understood ({exc.__class__.__name__}: {exc})") from None
    try:
        other = crossread.second_reading(text, defined=tuple(defines or ()))
        if "e" in scope.scalars:  # e ranged: the second reader's Euler number is the variable e
            e_ = sp.Symbol("e")
            other = other.replace(lambda n: isinstance(n, sp.exp), lambda n: sp.Pow(e_, n.args[0], evaluate=False))
            other = other.xreplace({sp.E: e_})
        second = evaluate_tree(_rename(other, scope))
    except Exception as exc:  # NotApplicable, or the second reader failing on its own: the first reading stands
        if log is not None:
            why = str(exc) if isinstance(exc, crossread.NotApplicable) else f"it failed ({exc.__class__.__name__})"
            log.second = f"not applicable: {' '.join(why.split())}"
        return first
    points = crossread.sample_points(
        {s_: (r_.lo, r_.hi, r_.integer) for s_, r_ in scope.scalars.values()},
        {b_: (r_.lo, r_.hi) for b_, r_ in scope.vectors.values()},
    )
    try:
        why = crossread.compare(first, second, points)
    except Exception as exc:  # the comparison itself failed: said in the output, never taken for agreement
        if log is not None:
            log.second = f"not applicable: the two readings could not be compared ({exc.__class__.__name__})"
        return first
    if why is not None:
        raise _fail(claim, field, f"the two LaTeX readers disagree ({why}): first reads {first}, second reads {second}")
    if log is not None:
        log.second = "agrees"
    return first


_REL_OPS = ("<=", ">=", "==", "<", ">", "=")


def _split_relation(text: str) -> tuple[str, str, str] | None:
    """``(lhs, op, rhs)`` at the one top-level relation sign (outside brackets); None if there is not one."""
    depth, cuts = 0, []
    i_ = 0
    while i_ < len(text):
        ch = text[i_]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in "<>=!":
            op = next((o_ for o_ in ("<=", ">=", "==", "!=") if text.startswith(o_, i_)), ch)
            cuts.append((i_, op))
            i_ += len(op)
            continue
        i_ += 1
    if len(cuts) != 1 or cuts[0][1] == "!" or cuts[0][1] == "!=":
        return None
    at, op = cuts[0]
    return text[:at], op, text[at + len(op) :]


_RELATIONS = {"<=": sp.Le, "<": sp.Lt, ">=": sp.Ge, ">": sp.Gt, "=": sp.Eq, "==": sp.Eq}


def _parse_sympy(text: str, scope: Scope, claim: str, field: str) -> sp.Basic:
    ns = scope.namespace()
    if "e" in scope.scalars:
        ns["e"] = scope.scalars["e"][0]
    try:
        parts = _split_relation(text)
        if parts is not None:  # each side evaluated, the relation not: x**2 >= 0 stays a claim to check
            lhs, op, rhs = parts
            return _RELATIONS[op](
                sp.sympify(lhs, locals=ns, rational=True), sp.sympify(rhs, locals=ns, rational=True), evaluate=False
            )
        return sp.sympify(text, locals=ns, rational=True)  # a decimal as written, exactly: 0.1 is 1/10
    except Exception as exc:  # sympify wraps the tokenizer's and the evaluator's errors alike
        exc = getattr(exc, "base_exc", None) or exc
        why = (
            f"{exc.__class__.__name__}: {str(exc).strip().splitlines()[0]}"
            if str(exc).strip()
            else exc.__class__.__name__
        )
        raise _fail(claim, field, f"bad SymPy expression “{text}” ({why})") from None


def _rename(expr: sp.Basic, scope: Scope) -> sp.Basic:
    """Give the parser's plain symbols the declared assumptions; ``s_{j}`` → ``s[j]`` for a declared vector."""
    rep: dict[sp.Basic, sp.Basic] = {}
    for atom in expr.atoms(sp.Symbol):
        raw = str(atom.name)
        if raw in _DIRS:  # the direction argument of a Limit
            continue
        name = _norm(raw)
        if name in scope.vectors and atom == scope.vectors[name][0].label:  # s[j] in SymPy syntax: kept
            continue
        if name in scope.scalars:
            rep[atom] = scope.scalars[name][0]
            continue
        m = re.match(r"^([A-Za-z][A-Za-z0-9]*)_(.+)$", name)
        if m and m.group(1) in scope.vectors and m.group(1) not in scope.scalars:
            idx_txt = m.group(2)
            idx = sp.Integer(int(idx_txt)) if idx_txt.isdigit() else sp.Symbol(idx_txt)
            rep[atom] = scope.vectors[m.group(1)][0][idx]
            continue
        if name == "e":  # Euler's number, unless declared as a variable above
            rep[atom] = sp.E
            continue
        rep[atom] = sp.Symbol(name)  # a bound index or an undeclared name (reported later); lark names are Tokens
    if isinstance(expr, sp.core.relational.Relational):  # sides renamed, the relation left unevaluated
        return type(expr)(expr.lhs.xreplace(rep), expr.rhs.xreplace(rep), evaluate=False)
    return expr.xreplace(rep)


def parse_expression(
    text: Any,
    syntax: str,
    scope: Scope,
    claim: str,
    field: str,
    defines: dict | None = None,
    log: _Reading | None = None,
) -> sp.Basic:
    """One claim (or assumption) text → a SymPy object over the claim's declared symbols."""
    if not isinstance(text, str) or not text.strip():
        raise _fail(claim, field, "must be a non-empty string")
    if syntax == "latex":
        return _parse_latex(text, claim, field, scope, defines, log)
    if log is not None:
        log.second = "not applicable: a SymPy string"
    return _rename(_parse_sympy(text, scope, claim, field), scope)
