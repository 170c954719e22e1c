"""A claim file's tables built into steps: ``build_claim`` (one ``[[claim]]`` → a ``UserClaim`` holding its
``Step``), ``parse`` (the whole file → a ``Derivation`` and its claims, read by workers when long), the
``uses``/``with`` citations (``catalogue_step``, ``_with``) and the ``[define]`` functions.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from ..ledger import Derivation, DerivationError, Domain, Step, StepResult, Verdict, free_names
from .syntax import (
    _SCALAR_KEY,
    CLAIM_FIELDS,
    EXPECTS,
    USER_KINDS,
    ClaimFileError,
    Scope,
    _endpoint,
    _fail,
    _norm,
    _Reading,
    load,
    parse_expression,
    parse_where,
)


def _relation_only(rel: Any, name: str, field: str) -> None:
    """A claim must state one relation the checkers decide (=, ≤, <, ≥, >): else a ``ClaimFileError``."""
    if rel in (sp.true, sp.false) or isinstance(rel, sp.logic.boolalg.BooleanAtom):
        raise _fail(name, field, f"SymPy evaluates the claim to {rel} before any check: state it with free symbols")
    if isinstance(rel, sp.Ne):
        raise _fail(name, field, "≠ is not a claim the checkers decide; use =, ≤, <, ≥ or >")
    if not isinstance(rel, sp.core.relational.Relational):
        raise _fail(name, field, "not a relation: write lhs = rhs, lhs \\le rhs, …")


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
    #: the claim as written, unevaluated, where SymPy's evaluation cancelled a function or a symbol ("" else)
    read_written: str = ""

    def reading(self) -> dict[str, str]:
        """How the claim was read, as ``check``'s rows carry it."""
        out = {"read_as_latex": self.read_latex, "read_as_sympy": self.read_sympy, "second_reader": self.second_reader}
        return {**out, "read_as_written": self.read_written} if self.read_written else out


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
    """Validate one ``[[claim]]`` table and build its ``Step`` (the fields read in this order, so a table
    with several faults names the first: name, fields, text, uses, where, with, expect, the relation, kind
    and its var / point / order, functions, assume, the ranges of the free symbols)."""
    name, syntax, field, text = _name_and_text(entry, position, earlier)
    uses = _uses(entry, name, earlier, later)
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
    _relation_only(rel, name, field)
    kind, lhs, rhs, relation, var, point, order, direction = _kind_of(entry, rel, scope, name, field)
    _kind_fields_agree(entry, kind, var, point, order, scope, name)

    undefined = sorted({str(f.func) for e in (lhs, rhs) for f in e.atoms(AppliedUndef)})
    if undefined:
        raise _fail(name, field, f"unknown function {undefined[0]}(…): the checkers need functions SymPy knows")
    constraints = _assumptions(entry, syntax, scope, name, defines)
    ranges = _ranges(lhs, rhs, constraints, var, kind, scope, name)
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
        getattr(log, "written", ""),
    )


def _name_and_text(entry: Any, position: int, earlier: Container[str]) -> tuple[str, str, str, Any]:
    """(name, syntax, field, text) of a ``[[claim]]`` table: a table, a new non-empty name, known fields only,
    and exactly one of ``claim`` (LaTeX) and ``sympy``."""
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
    return name, syntax, field, entry[field]


def _uses(entry: Mapping, name: str, earlier: Container[str], later: Container[str]) -> list[str]:
    """The claim's ``uses``: names of earlier claims of the file or catalogue steps ``"derivation / step"``."""
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
    return uses


def _kind_of(entry: Mapping, rel: Any, scope: Any, name: str, field: str) -> tuple:
    """(kind, lhs, rhs, relation, var, point, order, direction): the kind the relation reads as (a limit, an
    expansion with its O(·) term, an identity, an inequality with its operator), reconciled with the
    ``kind`` field (an identity stated as a limit or an expansion takes ``var`` and ``point``/``order``)."""
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
    return kind, lhs, rhs, relation, var, point, order, direction


def _kind_fields_agree(entry: Mapping, kind: str, var: Any, point: Any, order: Any, scope: Any, name: str) -> None:
    """Explicit ``var`` / ``point`` / ``order`` fields must be ones the kind takes and agree with what the
    claim itself says."""
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


def _assumptions(entry: Mapping, syntax: str, scope: Any, name: str, defines: dict | None) -> list:
    """The ``assume`` field: a list of strict or weak inequalities (one string is a list of one)."""
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
    return constraints


def _ranges(lhs: Any, rhs: Any, constraints: list, var: Any, kind: str, scope: Any, name: str) -> dict:
    """The domain's ranges: every free symbol of the claim and its assumptions has one (a limit's variable
    is not a range; the variable of a limit claim keeps its own), and every sum's bound is an integer symbol."""
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
    return ranges


def catalogue_step(name: str) -> Step | None:
    """The catalogue's step ``"derivation / step"`` (None when there is none: not that form, or not found)."""
    der_name, sep, step_name = name.partition(" / ")
    if not sep:
        return None
    from .. import catalogue

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
        from ..checks import check_step
        from ..checks.sampling import intersect
        from ..checks.verdicts import by_verdict

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
    from ..latex_reader import LatexReadError, compile_defines

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
        from ..run.pool import map_in_order

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
