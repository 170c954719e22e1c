"""A user's own claims, read from a TOML file and checked by the ledger: ``infonce-bounds check FILE``.

Each ``[[claim]]`` table becomes one ``Step`` of a ``Derivation`` named after the file and is checked
by ``checks.check_step``, exactly as the toolkit's own steps are. The format::

    [where]                      # optional: ranges shared by every claim (a claim's own win)
    tau = [0.001, 100]

    [[claim]]
    name = "log(1 + x) <= x"     # required, unique
    claim = '\\log(1 + x) \\le x'  # LaTeX (latex_reader, cross-checked by crossread) …
    # sympy = "log(1 + x) <= x"  # … or a SymPy string: exactly one of the two
    where = { x = [0, 10] }      # the closed range of every free symbol
    kind = "inequality"          # optional: identity | inequality | limit | expansion (else inferred)
    assume = ['x \\le 5']        # optional: extra inequalities cutting the box (same syntax as the claim)
    uses = ["an earlier claim"]  # optional: earlier claims (or catalogue steps "derivation / step") it is an
                                 # instance of: proved from them when the substitution maps into their domain
    with = { x = "2*t" }         # optional: the substitution (cited symbol = expression, the claim's syntax);
                                 # with several uses: with = { "cited name" = { x = "2*t" } }
    note = "…"                   # optional, carried into the output
    expect = "proved"            # optional: proved | refuted | holds | ill-posed (exit 1 when unmet)

    [define]                     # optional: functions expanded where they are called
    "\\sigma(x)" = "\\frac{1}{1 + e^{-x}}"

Ranges: ``x = [lo, hi]`` (real; ends are numbers or strings such as ``"inf"``, ``"-inf"``, ``"1/1000"``),
``k = "integer [1, inf]"``, ``y = "real [0, 1]"``; a vector is declared by an entry with an index,
``"s[j]" = [-1, 1]``, and appears as ``s_j`` / ``s_{j}`` (LaTeX) or ``s[j]`` (SymPy), its length being
the integer upper limit of the sum over it (``\\sum_{j=1}^{k}``, ``Sum(s[j], (j, 1, k))``), which needs an
integer range. ``e`` is Euler's number and ``\\pi`` is π unless ``where`` gives them a range. The relation decides the
kind: ``=`` an identity, ``\\le``/``<``/``\\ge``/``>`` an inequality, ``\\lim_{x \\to a} f = L`` a limit
(``a^{+}``/``a^{-}`` one-sided; two-sided limits at a finite point are checked from both sides) and
``f = g + O(k^{-m})`` an expansion about ``k = ∞`` to order ``m − 1``. A limit or expansion written
without the ``\\lim``/``O`` may give ``kind`` with ``var`` and ``point`` (limits) or ``var`` and ``order``.

LaTeX is read by ``latex_reader`` (an unevaluated tree, evaluated once; rules stated there and in the README)
and read again by ``crossread`` (latex2sympy2_extended): two readings that differ are a ``ClaimFileError``.
Decimals are exact everywhere: ``sympy =`` bodies are read with ``rational=True``, TOML floats from their text.

Anything malformed or ambiguous raises ``ClaimFileError``: one line naming the claim and the field.
"""

from __future__ import annotations

import decimal
import math
import pathlib
import re
import time
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from .ledger import Derivation, DerivationError, Domain, Step, StepResult, Verdict, free_names

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


# ----------------------------------------------------------------------------- reading


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


# ----------------------------------------------------------------------------- ranges


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


# ----------------------------------------------------------------------------- expressions


class _Reading:
    """How one LaTeX text was read: by the first reader always, by the second when it applies."""

    def __init__(self) -> None:
        self.second = "not run"


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
    from . import crossread
    from .latex_reader import LatexReadError, compile_defines, evaluate_tree, read_latex

    try:
        tree = read_latex(text, defines if defines is not None else compile_defines(None))
        first = evaluate_tree(_rename(tree, scope))
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


# ----------------------------------------------------------------------------- claims


@dataclass
class UserClaim:
    """One parsed claim: its step, the text it came from and the earlier claims it uses."""

    name: str
    step: Step
    syntax: str
    text: str
    uses: tuple[str, ...]
    note: str = ""
    expect: str | None = None
    read_latex: str = ""  #: the claim as read, re-rendered by sympy.latex
    read_sympy: str = ""  #: the claim as read, as SymPy prints it
    second_reader: str = ""  #: "agrees", or "not applicable: …"
    substitution: dict = field(default_factory=dict)  #: ``with``: {cited name: {cited symbol name: expression}}


def _order_term(rhs: sp.Expr, claim: str) -> tuple[sp.Expr, sp.Symbol | None, int | None]:
    """``g + O(k^{-m})`` → ``(g, k, m − 1)``; ``(rhs, None, None)`` without an O term."""
    terms = sp.Add.make_args(rhs)
    o_terms = [t_ for t_ in terms if any(f.func.__name__ == "O" for f in t_.atoms(AppliedUndef))]
    if not o_terms:
        return rhs, None, None
    if len(o_terms) > 1 or not (isinstance(o_terms[0], AppliedUndef) and o_terms[0].func.__name__ == "O"):
        raise _fail(claim, "claim", "an expansion takes one error term O(var^{-m}) added to the right-hand side")
    arg = o_terms[0].args[0] if len(o_terms[0].args) == 1 else None
    syms = list(arg.free_symbols) if arg is not None else []
    if len(syms) != 1:
        raise _fail(claim, "claim", f"error term {o_terms[0]} is not O(var^{{-m}}) in one variable")
    var = syms[0]
    base, power = arg.as_base_exp()
    if not (base == var and power.is_integer and power < 0):
        raise _fail(
            claim, "claim", f"error term {o_terms[0]}: expansions are about {var} = ∞, write O({var}^{{-m}}), m ≥ 1"
        )
    return sp.Add(*[t_ for t_ in terms if t_ is not o_terms[0]]), var, int(-power) - 1


def _symbol_field(value: Any, scope: Scope, claim: str, field: str) -> sp.Symbol:
    if not isinstance(value, str) or not _SCALAR_KEY.match(_norm(value)):
        raise _fail(claim, field, f"{value!r} is not a symbol name")
    name = _norm(value)
    return scope.scalars[name][0] if name in scope.scalars else sp.Symbol(name)


def _point_value(value: Any, claim: str) -> sp.Expr:
    try:
        return _endpoint(value, claim, "point")
    except ClaimFileError:
        raise _fail(claim, "point", f"{value!r} is not a number or ±inf") from None


def build_claim(
    entry: Any,
    position: int,
    earlier: Container[str],
    shared: Mapping[str, Any],
    later: Container[str] = (),
    defines: dict | None = None,
) -> UserClaim:
    """Validate one ``[[claim]]`` table and build its ``Step``."""
    if not isinstance(entry, Mapping):
        raise _fail(f"#{position}", None, "each [[claim]] must be a table")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(f"#{position}", "name", "missing or not a non-empty string")
    for key in entry:
        if key not in CLAIM_FIELDS:
            raise _fail(name, key, f"unknown field; allowed: {', '.join(CLAIM_FIELDS)}")
    if name in earlier:
        raise _fail(name, "name", "a claim of this name comes earlier in the file")
    has_latex, has_sympy = "claim" in entry, "sympy" in entry
    if has_latex == has_sympy:
        raise _fail(name, "claim", "give exactly one of `claim` (LaTeX) and `sympy` (a SymPy string)")
    syntax, field = ("latex", "claim") if has_latex else ("sympy", "sympy")
    text = entry[field]

    uses = entry.get("uses", [])
    if isinstance(uses, str):
        uses = [uses]
    if not isinstance(uses, list) or not all(isinstance(u_, str) for u_ in uses):
        raise _fail(name, "uses", "must be a list of claim names")
    for u_ in uses:
        if u_ == name:
            raise _fail(name, "uses", "a claim cannot use itself")
        if u_ in later:
            raise _fail(name, "uses", f"{u_!r} comes later in the file: a claim may use only earlier claims")
        if u_ not in earlier and catalogue_step(u_) is None:
            raise _fail(
                name, "uses", f"no claim named {u_!r} earlier in this file, nor a catalogue step 'derivation / step'"
            )

    where = {**dict(shared), **dict(entry.get("where", {}))} if isinstance(entry.get("where", {}), Mapping) else None
    if where is None:
        raise _fail(name, "where", "must be a table of symbol = range")
    scope = parse_where(where, name)
    substitution = _with(entry.get("with"), uses, name, syntax, scope, defines)
    expect = entry.get("expect")
    if expect is not None and expect not in EXPECTS:
        raise _fail(name, "expect", f"{expect!r} is not one of {', '.join(EXPECTS)}")
    log = _Reading()
    rel = parse_expression(text, syntax, scope, name, field, defines, log)
    if rel in (sp.true, sp.false) or isinstance(rel, sp.logic.boolalg.BooleanAtom):
        raise _fail(name, field, f"SymPy evaluates the claim to {rel} before any check: state it with free symbols")
    if isinstance(rel, sp.Ne):
        raise _fail(name, field, "≠ is not a claim the checkers decide; use =, ≤, <, ≥ or >")
    if not isinstance(rel, sp.core.relational.Relational):
        raise _fail(name, field, "not a relation: write lhs = rhs, lhs \\le rhs, …")
    lhs, rhs = rel.lhs, rel.rhs

    kind = entry.get("kind")
    if kind is not None and kind not in USER_KINDS:
        raise _fail(name, "kind", f"unknown kind {kind!r}; allowed: {', '.join(USER_KINDS)}")
    inferred: str
    relation = None
    var = point = order = None
    direction = None
    if isinstance(rel, sp.Eq):
        if isinstance(rhs, sp.Limit) and not isinstance(lhs, sp.Limit):
            lhs, rhs = rhs, lhs
        if isinstance(lhs, sp.Limit):
            inferred = "limit"
            inner, var, point, direction = lhs.args
            lhs = inner
            direction = str(direction)
        else:
            rhs, o_var, o_order = _order_term(rhs, name)
            if any(f.func.__name__ == "O" for f in lhs.atoms(AppliedUndef)):
                raise _fail(name, field, "the error term O(·) belongs on the right-hand side")
            inferred = "expansion" if o_var is not None else "identity"
            var, order = o_var, o_order
    else:
        inferred = "inequality"
        relation = rel.rel_op
    if kind is None or kind == inferred:
        kind = inferred
    elif inferred == "identity" and kind in ("limit", "expansion"):  # f = L with var (and point / order) fields
        if "var" not in entry:
            raise _fail(name, "var", f"kind = {kind!r} without a \\lim or O(·) in the claim needs `var`")
        var = _symbol_field(entry["var"], scope, name, "var")
        if kind == "limit":
            point = _point_value(entry.get("point", "inf"), name)
            direction = "+" if point.is_finite else "-"
        else:
            order = entry.get("order")
            if not isinstance(order, int) or isinstance(order, bool) or order < 0:
                raise _fail(
                    name, "order", f"kind = 'expansion' without an O(·) term needs an integer order ≥ 0, got {order!r}"
                )
    else:
        raise _fail(name, "kind", f"kind = {kind!r} does not match the claim, which reads as {inferred!r}")
    # explicit var / point / order fields must agree with what the claim itself says
    allowed = {"limit": ("var", "point"), "expansion": ("var", "point", "order")}.get(kind, ())
    for key in ("var", "point", "order"):
        if key not in entry:
            continue
        if key not in allowed:
            raise _fail(name, key, f"a claim of kind {kind!r} takes no `{key}`")
        if key == "var" and _symbol_field(entry[key], scope, name, "var") != var:
            raise _fail(name, "var", f"{entry[key]!r} disagrees with the claim's variable {var}")
        if key == "point":
            want = _point_value(entry[key], name)
            if kind == "expansion" and want != sp.oo:
                raise _fail(name, "point", "expansions are checked about ∞ only")
            if kind == "limit" and want != point:
                raise _fail(name, "point", f"{entry[key]!r} disagrees with the claim's point {point}")
        if key == "order" and entry[key] != order:
            raise _fail(name, "order", f"{entry[key]!r} disagrees with the error term (order {order})")

    undefined = sorted({str(f.func) for e in (lhs, rhs) for f in e.atoms(AppliedUndef)})
    if undefined:
        raise _fail(name, field, f"unknown function {undefined[0]}(…): the checkers need functions SymPy knows")

    constraints = []
    assume = entry.get("assume", [])
    if isinstance(assume, str):
        assume = [assume]
    if not isinstance(assume, list):
        raise _fail(name, "assume", "must be a list of inequalities")
    for a_ in assume:
        c_ = parse_expression(a_, syntax, scope, name, "assume", defines)
        if not isinstance(c_, (sp.Le, sp.Lt, sp.Ge, sp.Gt)):
            raise _fail(name, "assume", f"{a_!r} is not an inequality (≤, <, ≥, >)")
        constraints.append(c_)

    # every free symbol has a range; every vector length is an integer symbol
    used = set()
    for e in (lhs, rhs, *constraints):
        used |= free_names(e)
    if var is not None:
        used.discard(var)
    declared = {s_ for s_, _ in scope.scalars.values()} | {b_.label for b_, _ in scope.vectors.values()}
    missing = sorted(str(s_) for s_ in used - declared)
    if missing:
        hint = ' (a vector entry? declare it as "s[j]" = [lo, hi])' if "_" in missing[0] else ""
        raise _fail(name, "where", f"free symbol {missing[0]} has no range{hint}")
    for node in sp.preorder_traversal(sp.Tuple(lhs, rhs)):
        if isinstance(node, (sp.Sum, sp.Product)):
            for lim in node.limits:
                for end in lim[1:]:
                    for s_ in sp.sympify(end).free_symbols:
                        if isinstance(s_, sp.Symbol) and not s_.is_integer and s_ != var:
                            raise _fail(
                                name, "where", f"{s_} bounds a sum (a vector length): declare it 'integer [lo, hi]'"
                            )
    ranges: dict[Any, tuple[sp.Expr, sp.Expr]] = {}
    for s_, rng in scope.scalars.values():
        if s_ in used or (var is not None and s_ == var and kind == "limit"):
            ranges[s_] = (rng.lo, rng.hi)
    for b_, rng in scope.vectors.values():
        if b_.label in used:
            ranges[b_] = (rng.lo, rng.hi)
    if var is not None:
        ranges.pop(var, None)
    try:
        domain = Domain(ranges, tuple(constraints), name=f"where of {name!r}")
        step = _make_step(name, lhs, rhs, kind, domain, relation, var, point, order, direction)
    except ClaimFileError:
        raise
    except DerivationError as exc:
        raise _fail(name, "where", str(exc)) from None
    return UserClaim(
        name,
        step,
        syntax,
        text,
        tuple(uses),
        str(entry.get("note", "")),
        expect,
        sp.latex(rel),
        str(rel),
        log.second,
        substitution,
    )


def catalogue_step(name: str) -> Step | None:
    """The catalogue's step ``"derivation / step"`` (None when there is none: not that form, or not found)."""
    der_name, sep, step_name = name.partition(" / ")
    if not sep:
        return None
    from . import catalogue

    try:
        return catalogue.get(der_name).step(step_name)
    except (DerivationError, KeyError):
        return None


def _with(table: Any, uses: list[str], name: str, syntax: str, scope: Scope, defines) -> dict[str, dict]:
    """``with``: ``{cited symbol: expression}`` (one citation, or all), or ``{cited name: {symbol: expression}}``
    → ``{cited name: {symbol name: SymPy expression over the claim's symbols}}``."""
    if table is None:
        return {}
    if not uses:
        raise _fail(name, "with", "a substitution needs `uses`: the claims it is substituted into")
    if not isinstance(table, Mapping) or not table:
        raise _fail(name, "with", 'must be a table: { x = "2*t" } or { "cited name" = { x = "2*t" } }')
    per_use = all(isinstance(v, Mapping) for v in table.values())
    if per_use:
        unknown = sorted(set(table) - set(uses))
        if unknown:
            raise _fail(name, "with", f"{unknown[0]!r} is not among this claim's uses")
        tables = dict(table)
    elif any(isinstance(v, Mapping) for v in table.values()):
        raise _fail(name, "with", "mixes symbol = expression and cited name = { … } entries")
    else:
        tables = {u_: table for u_ in uses}
    out: dict[str, dict] = {}
    for u_, sub in tables.items():
        out[u_] = {}
        for key, text in sub.items():
            if not _SCALAR_KEY.match(_norm(key)):
                raise _fail(name, "with", f"{key!r} is not a symbol name")
            out[u_][_norm(key)] = parse_expression(
                text if isinstance(text, str) else str(text), syntax, scope, name, "with", defines
            )
    return out


def _make_step(name, lhs, rhs, kind, domain, relation, var, point, order, direction) -> Step:
    common = dict(kind=kind, domain=domain, provenance="ours", note="a user claim")
    if kind == "inequality":
        return Step(name, lhs, rhs, relation=relation, **common)
    if kind == "expansion":
        return Step(name, lhs, rhs, var=var, point=sp.oo, order=order, **common)
    if kind == "limit":
        if point in (sp.oo, -sp.oo):
            if point == -sp.oo:  # the checker's limits run to +∞ or from above: x → −∞ is u = −x → ∞
                lhs = lhs.subs(var, -var)
            return Step(name, lhs, rhs, var=var, point=sp.oo, **common)
        if direction == "+":
            return Step(name, lhs, rhs, var=var, point=point, **common)
        from_below = lhs.subs(var, 2 * point - var)  # lim_{x→a⁻} f(x) = lim_{x→a⁺} f(2a − x)
        if direction == "-":
            return Step(name, from_below, rhs, var=var, point=point, **common)
        above = Step(f"{name} (x → a⁺)", lhs, rhs, var=var, point=point, **common)
        below = Step(f"{name} (x → a⁻)", from_below, rhs, var=var, point=point, **common)
        return Step(name, lhs, rhs, var=var, point=point, check=_TwoSided(above, below), **common)
    return Step(name, lhs, rhs, **common)


@dataclass(frozen=True, eq=False)
class _TwoSided:
    """A two-sided limit at a finite point holds when both one-sided limits equal the claim.

    A class, not a closure: a claim read by a worker process comes back pickled (``parse(workers=…)``)."""

    above: Step
    below: Step

    def __call__(self, step: Step, opts: Mapping[str, Any]) -> StepResult:
        from .checks import check_step
        from .checks.sampling import intersect
        from .checks.verdicts import by_verdict

        above, below = self.above, self.below
        parts = [check_step(above, **opts), check_step(below, **opts)]
        verdicts = [p_.verdict for p_ in parts]
        if Verdict.REFUTED in verdicts:
            bad = parts[verdicts.index(Verdict.REFUTED)]
            verdict, cx = Verdict.REFUTED, {"side": "from below" if bad is parts[1] else "from above"}
            cx.update(bad.counterexample or {})
        else:
            cx = None
            verdict = (
                Verdict.PROVED
                if all(v_ == Verdict.PROVED for v_ in verdicts)
                else Verdict.UNDECIDED
                if Verdict.UNDECIDED in verdicts
                else Verdict.VERIFIED
            )
        # the two sides hold together where both do: the intersection of their covers and attacked ranges
        cover = intersect(parts[0].covered, parts[1].covered) if verdict == Verdict.PROVED else None
        attacked = None
        if verdict == Verdict.VERIFIED:
            attacked = intersect(parts[0].attacked or parts[0].covered, parts[1].attacked or parts[1].covered)
        return by_verdict(
            verdict,
            step,
            method="two one-sided limits: "
            + "; ".join(f"{side}: {p_.method}" for side, p_ in zip(("above", "below"), parts)),
            evidence="; ".join(f"{side}: {p_.evidence}" for side, p_ in zip(("above", "below"), parts)),
            counterexample=cx,
            symbolic=all(p_.symbolic for p_ in parts),
            cover=cover,
            attacked=attacked,
        )


def _defines(table: Any) -> dict:
    r"""``[define]``: ``"\\sigma(x)" = "\\frac{1}{1+e^{-x}}"`` → the reader's compiled definitions."""
    from .latex_reader import LatexReadError, compile_defines

    if not isinstance(table, Mapping):
        raise _fail(None, "define", 'must be a table of "\\f(x)" = "LaTeX body"')
    for key, body in table.items():
        if not isinstance(body, str):
            raise _fail(None, "define", f"{key!r}: the body must be a LaTeX string")
    try:
        return compile_defines(dict(table))
    except LatexReadError as exc:
        raise _fail(None, "define", str(exc)) from None


class _Names:
    """The names of the claims before (``before=True``) or after claim ``n`` (1-based), for ``in`` tests in O(1)."""

    def __init__(self, first: Mapping[Any, int], last: Mapping[Any, int], n: int, before: bool) -> None:
        self.first, self.last, self.n, self.before = first, last, n, before

    def __contains__(self, name: object) -> bool:
        if self.before:
            return self.first.get(name, self.n) < self.n - 1
        return self.last.get(name, -1) >= self.n


#: claim files at least this long are read by worker processes (``workers`` > 1): reading is ~25 ms a claim
PARALLEL_READ = 24


def parse(source: Any, workers: int = 1, on_read: Any = None) -> tuple[Derivation, list[UserClaim]]:
    """Read and validate a claim file (path, TOML text or dict) into a ``Derivation`` of its claims.

    With ``workers`` > 1 and a long file, the claims are read by that many forked processes (the first
    claim here, so that every reader's grammar is built once), and come back in order; the first
    malformed claim in the file's order is raised, as a serial read would. ``on_read(done, total)`` is
    called as claims are read (the CLI's progress bar: a long file takes a while to read).
    """
    label, data = load(source)
    for key in data:
        if key not in ("claim", "where", "title", "define"):
            raise _fail(
                None,
                key,
                "unknown top-level key; a claim file holds [[claim]] tables, an optional [where] and [define]",
            )
    entries = data.get("claim")
    if not isinstance(entries, list) or not entries:
        raise _fail(None, "claim", "no [[claim]] tables: the file states nothing to check")
    shared = data.get("where", {})
    if not isinstance(shared, Mapping):
        raise _fail(None, "where", "the top-level [where] must be a table of symbol = range")
    defines = _defines(data.get("define", {}))
    names = tuple(e_.get("name") if isinstance(e_, Mapping) else None for e_ in entries)
    first: dict[Any, int] = {}
    last: dict[Any, int] = {}
    for i_, nm in enumerate(names):
        if isinstance(nm, str):
            first.setdefault(nm, i_)
            last[nm] = i_

    def build(n_: int) -> UserClaim:
        earlier, later = _Names(first, last, n_, True), _Names(first, last, n_, False)
        return build_claim(entries[n_ - 1], n_, earlier, shared, later=later, defines=defines)

    done = [0]

    def tick(k: int) -> None:
        done[0] += k
        if on_read is not None:
            on_read(done[0], len(entries))

    def build_here(n_: int) -> UserClaim:
        claim = build(n_)
        tick(1)
        return claim

    claims = [build_here(1)]
    rest = list(range(2, len(entries) + 1))
    read = None
    if workers > 1 and len(rest) >= PARALLEL_READ:
        from .run.pool import map_in_order

        read = map_in_order(build, rest, workers, on_chunk=tick)  # None: a reader died; read here
        if read is None:
            done[0] = 1
    claims += read if read is not None else [build_here(n_) for n_ in rest]
    step_of = {c_.name: c_.step for c_ in claims}
    for c_ in claims:  # `with` substitutes for the cited claim's own symbols
        for u_, sub in c_.substitution.items():
            cited = step_of.get(u_) or catalogue_step(u_)
            have = {str(s_) for s_ in free_names(cited.lhs) | free_names(cited.rhs)}
            for key in sub:
                if key not in have:
                    raise _fail(
                        c_.name, "with", f"{key!r} is not a symbol of the cited {u_!r} (its symbols: {sorted(have)})"
                    )
    der = Derivation(
        name=label,
        title=str(data.get("title", f"claims of {label}")),
        steps=[c_.step for c_ in claims],
        result=claims[-1].name,
        source="ours",
    )
    return der, claims


# ----------------------------------------------------------------------------- checking


def _sampled_box(step: Step, opts: Mapping[str, Any], identity: bool) -> str:
    """The box the numeric attack actually drew from: unbounded ends capped, vector lengths capped."""
    cap = float(opts["real_cap"])
    k_cap = min(int(opts["k_cap"]), 6) if identity else int(opts["k_cap"])
    lengths = set()
    for node in sp.preorder_traversal(sp.Tuple(step.lhs, step.rhs)):
        if isinstance(node, (sp.Sum, sp.Product)):
            for lim in node.limits:
                for end in lim[1:]:
                    lengths |= {s_ for s_ in sp.sympify(end).free_symbols if isinstance(s_, sp.Symbol)}
    parts = []
    for sym, (lo, hi) in step.domain.ranges.items():
        lo_f = float(lo) if lo.is_finite else None
        hi_f = float(hi) if hi.is_finite else None
        if lo_f is None and hi_f is None:
            lo_f, hi_f = -cap, cap
        elif lo_f is None:
            lo_f = hi_f - cap
        elif hi_f is None:
            hi_f = max(lo_f * cap, lo_f + cap) if lo_f > 0 else lo_f + cap
        if sym in lengths:
            hi_f = min(hi_f, max(lo_f, k_cap))
        label = (
            f"{sym}_j" if any(a_.base.label == sym for a_ in sp.Tuple(step.lhs, step.rhs).atoms(sp.Indexed)) else sym
        )
        parts.append(f"{label} ∈ [{lo_f:.6g}, {hi_f:.6g}]{'∩ℤ' if sym.is_integer else ''}")
    return ", ".join(parts) if parts else "(no free symbols)"


def coverage(step: Step, res: StepResult, opts: Mapping[str, Any]) -> tuple[str, bool]:
    """What part of the stated domain the verdict covers, in words, and whether it is all of it."""
    stated = step.domain.describe()
    if res.verdict == Verdict.PROVED:
        if res.symbolic and step.kind in ("limit", "expansion"):
            how = f"symbolic in {step.var} → {step.point}, for every value of the other symbols"
        elif res.symbolic:
            how = "symbolic: the whole stated domain"
        elif (m := re.search(r"\b(\w+) route: ", res.method or "")) is not None:
            how = f"the {m.group(1)} route's reduction: the whole stated domain"
        else:
            how = "interval arithmetic: boxes covering the whole stated domain"
        if step.kind == "inequality" and res.trials:
            how += f"; falsifier attacked {_sampled_box(step, opts, False)}"
        return how, True
    if res.verdict == Verdict.UNDECIDED:
        return f"nothing established on {stated}", False
    if res.verdict == Verdict.REFUTED:
        found = (
            f" (after {res.trials} points of {_sampled_box(step, opts, step.kind != 'inequality')})"
            if res.trials
            else ""
        )
        return f"refuted: the counterexample lies in the stated domain {stated}{found}", False
    if step.kind == "identity":
        return f"{res.trials} random points of {_sampled_box(step, opts, True)} (50 digits)", False
    if step.kind == "inequality":
        return f"{res.trials} falsifier points of {_sampled_box(step, opts, False)}", False
    return f"the coefficients/limit value spot-checked on {_sampled_box(step, opts, True)}", False


def check(
    source: Any,
    trials: int | None = None,
    seed: int = 0,
    budget: Any = None,
    on_result: Any = None,
    workers: int = 2,
    use_cache: bool = True,
    on_read: Any = None,
) -> dict[str, Any]:
    """Check every claim of a claim file with the ledger's checkers.

    The claim file is TOML: ``[[claim]]`` tables with ``name``, ``claim`` (LaTeX) or ``sympy`` (a SymPy
    string), ``where`` (the closed range of every free symbol; ``"integer [1, inf]"``; vector entries
    ``"s[j]" = [-1, 1]``) and optional ``kind``, ``assume``, ``uses``, ``var``/``point``/``order``,
    ``note``; see the README section "Checking your own claims" and ``derivations/userclaims.py``.

    Parameters
    ----------
    source : str, pathlib.Path or dict
        A path to the file, the TOML text itself, or the table it parses to.
    trials : int, optional
        Falsifier trials per inequality (default: the engine's, 10⁵).
    seed : int
        Seed of the falsifier and of the identity spot-checks.
    budget : checks.budget.Budget, optional
        The budget of each claim (default ``budget.CHECK``: 10 s of wall time, each symbolic call under a
        deadline and a memory cap; the verdict names the stage that ran out).
    on_result : callable, optional
        Called as ``on_result(done, total, name, verdict)`` after each claim, in the order they finish (the
        CLI's progress bar).
    workers : int
        Worker processes checking claims in parallel (default 2, as ``verify``; 1 = serial, in this process).
        The verdicts, and their order in the output (the file's), do not depend on it.
    on_read : callable, optional
        Called as ``on_read(done, total)`` while the file is read (``parse``).
    use_cache : bool
        Answer an unchanged claim from the run cache (``verify``'s; ``$XDG_CACHE_HOME/infonce-bounds``), keyed
        on its parsed content, the options, the budget and the engine version (``derivations.run.claims``);
        a claim so answered has ``cached`` true. False: check every claim.

    Returns
    -------
    dict
        ``file`` (label), ``claims`` (one dict per claim, in file order: ``name``, the text (``latex`` or
        ``sympy``), ``read_as_latex`` and ``read_as_sympy`` (the claim as read), ``second_reader``
        ("agrees" or "not applicable: …"), ``statement``, ``kind``, ``verdict`` — proved / verified
        numerically / refuted / undecided / ill-posed / error (an internal error, its message in ``method``) —, ``method``,
        ``worst_ratio``, ``counterexample``, ``domain`` (as stated), ``covered`` (what the verdict
        covers), ``whole_domain``, ``uses``, ``uses_not_proved``, ``evidence``, ``trials``, ``seconds`` (of the check, also when
        cached), ``cached``, ``expect``, ``as_expected``), ``counts`` by verdict, ``refuted``, ``unexpected`` (names),
        ``second_reader_not_applicable``, ``cache`` (``cached``, ``checked``, ``workers``), ``exit_status`` (0 as expected, 1 refuted or an ``expect`` unmet,
        2 an unexpected ill-posed claim, 3 an internal error) and ``seconds``; the same object as
        ``infonce-bounds check --json``.

    Raises
    ------
    ClaimFileError
        (a ``ValueError``) for a malformed file: one line naming the claim and the field.
    """
    from .checks import DEFAULTS

    trials = DEFAULTS["trials"] if trials is None else trials
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials = {trials!r} is out of range; allowed: an integer ≥ 1")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed = {seed!r} is not an integer")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers = {workers!r} is out of range; allowed: an integer ≥ 1")
    t0 = time.perf_counter()
    der, claims = parse(source, workers=workers, on_read=on_read)
    opts = {**DEFAULTS, "trials": trials, "seed": seed}
    from .checks.budget import CHECK
    from .run.claims import run_claims

    done_count = [0]

    def tick(_der: str, outcome: dict, _cached: bool) -> None:
        done_count[0] += 1
        if on_result is not None:
            on_result(done_count[0], len(claims), outcome["name"], outcome["verdict"])

    # every claim under the check budget (10 s, symbolic calls capped), from Python as from the CLI; the
    # runner of `verify`: the same worker slots and run cache, results in file order
    outcomes, stats = run_claims(
        der,
        claims,
        opts,
        CHECK if budget is None else budget,
        workers=workers,
        use_cache=use_cache,
        on_result=tick,
    )
    verdict_of = {}
    rows = []
    for claim, outcome in zip(claims, outcomes):
        verdict_of[claim.name] = outcome["verdict"]
        rows.append(
            {
                "name": claim.name,
                claim.syntax if claim.syntax == "sympy" else "latex": claim.text,
                "read_as_latex": claim.read_latex,
                "read_as_sympy": claim.read_sympy,
                "second_reader": claim.second_reader,
                "statement": claim.step.statement,
                "kind": claim.step.kind,
                **{k_: outcome[k_] for k_ in ("verdict", "method", "worst_ratio", "counterexample")},
                "domain": claim.step.domain.describe(),
                "covered": outcome["covered"],
                "whole_domain": outcome["whole_domain"],
                "unproved": (outcome.get("result") or {}).get("unproved", ""),
                "uses": list(claim.uses),
                "uses_not_proved": [
                    u_ for u_ in claim.uses if outcome.get("uses_verdicts", {}).get(u_) != str(Verdict.PROVED)
                ],
                **{k_: outcome[k_] for k_ in ("evidence", "trials", "symbolic", "certified", "seconds")},
                "cached": outcome["cached"],
                "note": claim.note,
                "expect": claim.expect,
                "as_expected": meets(outcome["verdict"], claim.expect),
            }
        )
    counts: dict[str, int] = {}
    for r_ in rows:
        counts[r_["verdict"]] = counts.get(r_["verdict"], 0) + 1
    return {
        "file": der.name,
        "claims": rows,
        "counts": counts,
        "refuted": counts.get(str(Verdict.REFUTED), 0),
        "unexpected": [r_["name"] for r_ in rows if not r_["as_expected"]],
        "second_reader_not_applicable": sum(r_["second_reader"].startswith("not applicable") for r_ in rows),
        "exit_status": exit_status(rows),
        "trials": trials,
        "seed": seed,
        "cache": {k_: stats[k_] for k_ in ("cached", "checked", "workers")},
        "seconds": round(time.perf_counter() - t0, 4),
    }


def check_claim(
    claim: UserClaim, cited: Mapping[str, StepResult], step_of: Mapping[str, Step], opts: Mapping[str, Any]
) -> tuple[StepResult, dict[str, str]]:
    """``check_step`` of the claim, or for a claim with ``uses`` the citation route first
    (``checks.citation.check_citing``); with the verdict of each claim it uses (name → verdict string).

    ``cited``: the results of the file's earlier claims it uses (the runner's dependency waves; one that met an
    internal error is absent); a catalogue step it uses is checked here (its verify cache, else a check)."""
    from .checks import DEFAULTS, check_step

    run_opts = {k_: v_ for k_, v_ in opts.items() if k_ != "cited"}
    if not claim.uses:
        return check_step(claim.step, **run_opts), {}
    from .checks.chain import _cited_result
    from .checks.citation import check_citing

    full = {**DEFAULTS, **run_opts}
    parts = []
    for u_ in claim.uses:
        if u_ in step_of:
            parts.append((u_, step_of[u_], cited.get(u_)))
        else:
            step = catalogue_step(u_)
            parts.append((u_, step, _cited_result(u_.partition(" / ")[0], step, full)))
    res = check_citing(claim.step, parts, full, lambda: check_step(claim.step, **run_opts), claim.substitution)
    return res, {u_: (str(r_.verdict) if r_ is not None else ERROR) for u_, _, r_ in parts}


ERROR = "error"
ILL_POSED = "ill-posed"  #: ledger.Verdict.ILL_POSED's string, compared as a string (another helper adds it)


def meets(verdict: str, expect: str | None) -> bool:
    """Whether a verdict meets a claim's ``expect``; with no ``expect``, anything but refuted, ill-posed, error.

    ``"holds"`` is met by proved or verified numerically; the others by the verdict of the same name.
    """
    if verdict == ERROR:
        return False
    if expect is None:
        return verdict not in (str(Verdict.REFUTED), ILL_POSED)
    if expect == "holds":
        return verdict in (str(Verdict.PROVED), str(Verdict.VERIFIED))
    return verdict == expect


def exit_status(rows: list[dict]) -> int:
    """3 if a claim met an internal error; else 2 if one is ill-posed unexpectedly; else 1 if one is refuted
    or misses its ``expect``; else 0 (a malformed file is 2 before any check)."""
    if any(r_["verdict"] == ERROR for r_ in rows):
        return 3
    if any(r_["verdict"] == ILL_POSED and not r_["as_expected"] for r_ in rows):
        return 2
    return 1 if any(not r_["as_expected"] for r_ in rows) else 0
