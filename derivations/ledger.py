"""The step ledger: ``Domain``, ``Step``, ``Derivation`` and the verdicts a check returns.

A derivation is an ordered list of named steps. Each step states one claim (a definition, an
identity, an inequality, an expansion in ``1/k`` or a limit), the domain on which it is claimed,
and where it comes from (*paper*: printed in the paper, its number in ``reference``; *ours*; or
*classical* with a reference). ``Derivation.verify()`` runs the checker of every step (``derivations.checks``) and
returns what was proved, how, and with what evidence.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sympy as sp

PROVENANCES = ("paper", "ours", "classical")
KINDS = ("definition", "identity", "inequality", "expansion", "limit", "chain")
RELATIONS = ("<=", "<", ">=", ">")


class Shown(sp.UnevaluatedExpr):
    """An expression printed in the proof's notation but checked as its value: ``Shown(e, latex, text)``.

    SymPy evaluates on construction (``√k · e^{1/τ}/√k`` becomes ``e^{1/τ}``), so a step written as the
    proof prints it could show "X = X". Wrapping a side keeps its printed form: ``latex`` and ``text``
    (optional; the wrapped expression's own form, in parentheses where needed, when empty). The checkers
    never see the wrapper: ``check_step`` unwraps every ``Shown`` first (``unwrap``).
    """

    def __new__(cls, arg: Any, latex: str = "", text: str = "") -> Shown:
        from sympy.core.symbol import Str

        return sp.Expr.__new__(cls, sp.sympify(arg), Str(latex), Str(text))

    @property
    def value(self) -> sp.Expr:
        return self.args[0]

    @property
    def precedence(self) -> int:
        from sympy.printing.precedence import PRECEDENCE, precedence

        return PRECEDENCE["Atom"] if self.args[1].name else precedence(self.value)

    def doit(self, **hints: Any) -> sp.Expr:
        return self.value.doit(**hints) if hints.get("deep", True) else self.value

    def _latex(self, printer: Any) -> str:
        if self.args[1].name:
            return self.args[1].name
        inner = printer._print(self.value)
        return rf"\left({inner}\right)" if isinstance(self.value, sp.Add) else inner

    def _sympystr(self, printer: Any) -> str:
        if self.args[2].name:
            return self.args[2].name
        inner = printer._print(self.value)
        return f"({inner})" if isinstance(self.value, sp.Add) else inner

    def _pretty(self, printer: Any) -> Any:
        from sympy.printing.pretty.stringpict import prettyForm

        return prettyForm(self.args[2].name) if self.args[2].name else printer._print(self.value)


def unwrap(expr: Any) -> Any:
    """``expr`` with every ``Shown`` replaced by its value (and the parents re-evaluated)."""
    if isinstance(expr, sp.Basic) and expr.has(Shown):
        return expr.replace(lambda e: isinstance(e, Shown), lambda e: e.value)
    return expr


class DerivationError(ValueError):
    """A malformed step or derivation: empty domain, uncovered free symbol, unknown kind, …"""


#: relations a link of a chain may carry ("=" for an identity link)
LINK_RELATIONS = ("=", "<=", "<", ">=", ">")


@dataclass(frozen=True)
class Link:
    """One link ``lhs (relation) rhs`` of a chain, with the step it comes from.

    ``cite`` is ``"derivation / step name"``: the link must be an instance of that catalogue step,
    ``gap(link) = factor · gap(cited)|_{subs}``, where the gap of ``A ≤ B`` is ``B − A`` (of ``A ≥ B``,
    ``A − B``; of ``A = B``, ``A − B`` up to sign). So a link may substitute into the cited claim
    (``subs``: cited symbol or function application → expression of the chain), scale it by a
    nonnegative ``factor`` and add the same term to both sides. Every substituted value must lie in
    the cited step's domain wherever the chain uses it, and the cited step must be proved or verified
    numerically (a *classical* definition — a theorem of the literature taken as premise, e.g. Mohri
    et al. Thm 3.3 — is accepted when ``reads`` says which relation the premise states).
    ``cite=""`` only for pure algebra: the link is then checked on its own (identity or inequality).
    """

    lhs: Any
    rhs: Any
    relation: str = "<="
    cite: str = ""
    subs: Mapping[Any, Any] = field(default_factory=dict)
    factor: Any = 1
    reads: str | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.relation not in LINK_RELATIONS:
            raise DerivationError(f"link {self.lhs} ? {self.rhs}: relation must be one of {LINK_RELATIONS}")
        if self.reads not in (None, *LINK_RELATIONS):
            raise DerivationError(f"link citing {self.cite!r}: reads must be None or one of {LINK_RELATIONS}")
        if self.cite and " / " not in self.cite:
            raise DerivationError(f"link citation {self.cite!r} must read 'derivation / step name'")
        object.__setattr__(self, "lhs", sp.sympify(self.lhs))
        object.__setattr__(self, "rhs", sp.sympify(self.rhs))
        object.__setattr__(self, "factor", sp.sympify(self.factor))
        object.__setattr__(self, "subs", {sp.sympify(a): sp.sympify(b) for a, b in dict(self.subs).items()})

    @property
    def cited(self) -> tuple[str, str]:
        """``(derivation, step name)`` of the citation (empty strings for an algebra link)."""
        if not self.cite:
            return "", ""
        der, _, name = self.cite.partition(" / ")
        return der, name

    @property
    def statement(self) -> str:
        op = {"=": "=", "<=": "≤", "<": "<", ">=": "≥", ">": ">"}[self.relation]
        return f"{self.lhs} {op} {self.rhs}"


class Verdict(str, enum.Enum):
    """What a check established about a step."""

    DEFINED = "defined"  #: a definition: well-formed, nothing to prove
    PROVED = "proved"  #: rigorous: symbolic reduction or certified interval arithmetic
    VERIFIED = "verified numerically"  #: no rigorous proof; every numeric attack failed to refute
    REFUTED = "refuted"  #: a counterexample (or a wrong coefficient) was found and confirmed
    UNDECIDED = "undecided"  #: neither proved nor refuted, nor meaningfully attacked
    #: the claim is undefined at a point of its stated domain (``counterexample`` holds the point): it is
    #: not a statement there, so it is neither proved nor verified (``checks.wellposed``)
    ILL_POSED = "ill-posed"

    def __str__(self) -> str:
        return self.value


def _as_number(value: Any) -> sp.Expr:
    if value in (float("inf"), sp.oo):
        return sp.oo
    if value in (float("-inf"), -sp.oo):
        return -sp.oo
    return sp.nsimplify(value) if isinstance(value, float) else sp.sympify(value)


def _label(key: Any) -> sp.Symbol:
    if isinstance(key, sp.IndexedBase):
        return key.label
    if isinstance(key, sp.Symbol):
        return key
    raise DerivationError(f"domain keys must be SymPy symbols or IndexedBase, got {key!r}")


def free_names(expr: Any) -> set[sp.Symbol]:
    """Free symbols of ``expr``, with indexed objects reported by their base label.

    ``Sum(s[j], (j, 1, k))`` has free names ``{s, k}``: the bound index ``j`` is not free.
    """
    expr = sp.sympify(expr)
    names: set[sp.Symbol] = set()
    for sym in expr.free_symbols:
        if isinstance(sym, sp.Indexed):
            names.add(sym.base.label)
            for idx in sym.indices:
                names |= {x for x in sp.sympify(idx).free_symbols if isinstance(x, sp.Symbol)}
        elif isinstance(sym, sp.Symbol):
            names.add(sym)
    bound: set[sp.Symbol] = set()
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Sum, sp.Product, sp.Integral)):
            bound |= {lim[0] for lim in node.limits}
        elif isinstance(node, sp.Lambda):
            bound |= set(node.variables)
    indexed_labels = {x.base.label for x in expr.atoms(sp.Indexed)}
    return {x for x in names if x not in bound or x in indexed_labels}


@dataclass(frozen=True)
class Domain:
    """A box of parameter ranges, optionally cut by constraints, on which a claim is made.

    ``ranges`` maps a symbol (or an ``IndexedBase``, whose entries then all share the range) to
    a closed interval ``(lo, hi)``; ``±oo`` endpoints are allowed. ``constraints`` are SymPy
    relations that must also hold (e.g. ``gamma*tau >= 1``).
    """

    ranges: Mapping[Any, tuple[Any, Any]]
    constraints: tuple = ()
    name: str = ""

    def __post_init__(self) -> None:
        normal: dict[sp.Symbol, tuple[sp.Expr, sp.Expr]] = {}
        for key, (lo, hi) in dict(self.ranges).items():
            sym = _label(key)
            lo_, hi_ = _as_number(lo), _as_number(hi)
            if not (lo_.is_number and hi_.is_number):
                raise DerivationError(f"range of {sym} must be numeric, got ({lo}, {hi})")
            if bool(lo_ > hi_):
                raise DerivationError(f"empty domain: {sym} ∈ [{lo_}, {hi_}] has lower end above upper end")
            if sym.is_positive and bool(hi_ <= 0):
                raise DerivationError(f"inconsistent domain: {sym} is declared positive but ranges over [{lo_}, {hi_}]")
            if sym.is_nonnegative and bool(hi_ < 0):
                raise DerivationError(
                    f"inconsistent domain: {sym} is declared nonnegative but ranges over [{lo_}, {hi_}]"
                )
            if sym.is_integer and lo_.is_finite and hi_.is_finite and sp.floor(hi_) < sp.ceiling(lo_):
                raise DerivationError(f"empty domain: integer {sym} ∈ [{lo_}, {hi_}] contains no integer")
            normal[sym] = (lo_, hi_)
        object.__setattr__(self, "ranges", normal)
        object.__setattr__(self, "constraints", tuple(sp.sympify(c) for c in self.constraints))
        for c in self.constraints:
            if c is sp.false:
                raise DerivationError(f"inconsistent domain {self.name or ''}: a constraint is identically false")
            missing = free_names(c) - set(normal)
            if missing:
                raise DerivationError(f"constraint {c} uses {sorted(map(str, missing))}, which have no range")

    def __or__(self, other: Domain) -> Domain:
        """Intersection of two domains (the ranges of shared symbols intersected)."""
        ranges = dict(self.ranges)
        for sym, (lo, hi) in other.ranges.items():
            if sym in ranges:
                lo0, hi0 = ranges[sym]
                ranges[sym] = (sp.Max(lo0, lo), sp.Min(hi0, hi))
            else:
                ranges[sym] = (lo, hi)
        name = " ∧ ".join(x for x in (self.name, other.name) if x)
        return Domain(ranges, self.constraints + other.constraints, name=name)

    def range_of(self, sym: sp.Symbol) -> tuple[sp.Expr, sp.Expr]:
        return self.ranges[_label(sym)]

    def describe(self) -> str:
        parts = []
        for sym, (lo, hi) in self.ranges.items():
            kind = "ℤ" if sym.is_integer else "ℝ"
            lo_s = "−∞" if lo == -sp.oo else str(lo)
            hi_s = "∞" if hi == sp.oo else str(hi)
            parts.append(f"{sym} ∈ [{lo_s}, {hi_s}]{'∩' + kind if kind == 'ℤ' else ''}")
        parts += [str(c) for c in self.constraints]
        return ", ".join(parts) if parts else "(no free symbols)"


EMPTY = Domain({}, name="∅-free")


@dataclass
class Step:
    """One claim of a derivation: ``lhs (kind/relation) rhs`` on ``domain``.

    Parameters
    ----------
    name : str
        What the step is, in the proof's vocabulary ("shift invariance of Λ").
    lhs, rhs : SymPy expressions
        The two sides. For a definition, ``lhs`` is the defined symbol and ``rhs`` its value.
    kind : {"definition", "identity", "inequality", "expansion", "limit"}
    domain : Domain
        Where the claim is made; every free symbol of the claim must have a range here.
    provenance : {"paper", "ours", "classical"}
        *paper*: printed in the paper's text (``reference`` gives its number); *ours*: this toolkit's own
        derivation; *classical*: textbook (``reference`` required).
    relation : {"<=", "<", ">=", ">"}, for inequalities.
    var, point, order : for expansions (``lhs = rhs + O(var^-(order+1))`` as ``var → point``,
        ``point`` ∞) and limits (``lim_{var→point} lhs = rhs``).
    certificate : optional SymPy expression, for inequalities: a claimed form of
        ``rhs − lhs`` (for ``<=``) that SymPy can see is nonnegative; the checker verifies both.
    check : optional callable ``(step, options) -> StepResult`` replacing the standard checker
        for claims that SymPy cannot state (expectations over laws, say); it must be able to fail.
    route : optional hint ``(name, parameters)`` naming a proof route of ``checks.routes.HINTED``
        (``"mean value"``, ``"monotone"``) and its parameters as data (SymPy expressions, numbers,
        strings): the step is checked by that route instead of the standard checker. Data, not code, so
        the verify cache keys it by value; each route's module states the claim shape it proves. A ``check``
        given as well takes precedence (a test may swap in a planted checker).
    adversarial : extra points (dicts symbol → value) the falsifier tries first.
    simplifier : optional callable used instead of ``sp.simplify`` for identities.
    links : for a chain (kind ``"chain"``): the ``Link`` s whose composition proves ``lhs (relation) rhs``
        (``derivations.checks.chain``): link i's right side is link i+1's left side, the first left side
        is ``lhs``, the last right side ``rhs``, and every link's relation is ``=`` or goes the chain's way.
    expected : ``None`` or ``"refuted"``. ``"refuted"`` marks a step printed in the paper that is
        false as printed (an erratum): its check must refute it, and ``verify`` then counts it as an
        *expected* refutation (exit status 0); if the check does not refute it, that is the failure.
        Only a ``provenance="paper"`` step can be expected to be refuted.
    """

    name: str
    lhs: Any
    rhs: Any
    kind: str = "identity"
    domain: Domain = EMPTY
    provenance: str = "ours"
    reference: str = ""
    relation: str | None = None
    var: sp.Symbol | None = None
    point: Any = sp.oo
    order: int | None = None
    certificate: Any = None
    check: Callable[..., StepResult] | None = None
    adversarial: Sequence[Mapping[Any, Any]] = ()
    simplifier: Callable[[sp.Expr], sp.Expr] | None = None
    note: str = ""
    expected: str | None = None
    links: Sequence[Link] = ()
    route: tuple[str, Mapping[str, Any]] | None = None
    #: why no proof route proves this step, where its author knows (a claim over every law of the draws,
    #: over every embedding configuration, …); shown beside a "verified numerically" verdict, which
    #: otherwise states the reason the checks give (``checks.unproved_reason``)
    unproved: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise DerivationError(f"step {self.name!r}: unknown kind {self.kind!r}; allowed {KINDS}")
        if self.provenance not in PROVENANCES:
            raise DerivationError(f"step {self.name!r}: provenance must be one of {PROVENANCES}")
        if self.provenance == "classical" and not self.reference:
            raise DerivationError(f"step {self.name!r}: a classical step needs a reference")
        if self.kind in ("inequality", "chain") and self.relation not in RELATIONS:
            raise DerivationError(f"step {self.name!r}: {self.kind} needs relation in {RELATIONS}")
        if self.kind == "chain":
            if not self.links or not all(isinstance(x, Link) for x in self.links):
                raise DerivationError(f"step {self.name!r}: a chain needs a nonempty list of Link")
            self.links = tuple(self.links)
        elif self.links:
            raise DerivationError(f"step {self.name!r}: only a chain has links")
        if self.route is not None:
            if not (
                isinstance(self.route, tuple)
                and len(self.route) == 2
                and isinstance(self.route[0], str)
                and isinstance(self.route[1], Mapping)
            ):
                raise DerivationError(f"step {self.name!r}: route must be a pair (name, parameters mapping)")
        if self.expected not in (None, "refuted"):
            raise DerivationError(f"step {self.name!r}: expected must be None or 'refuted'")
        if self.expected == "refuted" and self.provenance != "paper":
            raise DerivationError(f"step {self.name!r}: only a printed (paper) step can be expected to be refuted")
        if self.kind in ("expansion", "limit") and self.var is None:
            raise DerivationError(f"step {self.name!r}: {self.kind} needs var")
        if self.kind == "expansion" and self.order is None:
            raise DerivationError(f"step {self.name!r}: expansion needs order")
        self.lhs = sp.sympify(self.lhs)
        self.rhs = sp.sympify(self.rhs)
        if not isinstance(self.domain, Domain):
            raise DerivationError(f"step {self.name!r}: domain must be a Domain")
        missing = self.uncovered()
        if missing:
            raise DerivationError(
                f"step {self.name!r}: free symbols {sorted(map(str, missing))} are not covered by its domain"
                f" ({self.domain.describe()})"
            )

    def unwrapped(self) -> Step:
        """This step with its printed forms (``Shown``) replaced by their values: what the checkers see."""
        if not any(isinstance(e, sp.Basic) and e.has(Shown) for e in (self.lhs, self.rhs)):
            return self
        return replace(self, lhs=unwrap(self.lhs), rhs=unwrap(self.rhs))

    def uncovered(self) -> set[sp.Symbol]:
        names = free_names(self.lhs) | free_names(self.rhs)
        if self.kind in ("expansion", "limit") and self.var is not None:
            names.discard(self.var)
        return names - set(self.domain.ranges)

    @property
    def statement(self) -> str:
        op = {"definition": ":=", "identity": "=", "expansion": "≃", "limit": "="}.get(self.kind)
        if self.kind in ("inequality", "chain"):
            op = {"<=": "≤", "<": "<", ">=": "≥", ">": ">"}[self.relation]
        if self.kind == "limit":
            return f"lim_{{{self.var}→{self.point}}} {self.lhs} = {self.rhs}"
        tail = f" + O({self.var}^-{self.order + 1})" if self.kind == "expansion" else ""
        return f"{self.lhs} {op} {self.rhs}{tail}"


@dataclass
class StepResult:
    """A verdict with its evidence: how the step was checked and what was found."""

    step: str
    kind: str
    verdict: Verdict
    method: str
    evidence: str = ""
    worst_ratio: float | None = None
    trials: int = 0
    counterexample: dict[str, str] | None = None
    seconds: float = 0.0
    provenance: str = "ours"
    certified: bool = False  #: True when an interval-arithmetic certificate covers the domain
    symbolic: bool = False  #: True when SymPy reduced the claim
    expected: str | None = None  #: "refuted" for a printed step known to be false (an erratum)
    #: for a PROVED verdict: the region the proof covers, symbol → (lo, hi) as exact SymPy strings
    #: (a symbolic proof covers what the symbols' assumptions allow; an interval proof, its box)
    covered: dict[str, tuple[str, str]] | None = None
    #: the ranges the numeric attack sampled (symbol → (lo, hi)); e.g. the k range of a vector claim
    attacked: dict[str, tuple[str, str]] | None = None
    #: for a VERIFIED verdict: why no route proved the step (the step's own ``unproved``, or what the checks
    #: report: the routes tried and why each stopped)
    unproved: str = ""

    @property
    def as_expected(self) -> bool:
        """False exactly when the run contradicts the step's expectation (a refutation nobody expected,
        an ill-posed step, or an erratum that the check no longer refutes)."""
        if self.expected == "refuted":
            return self.verdict == Verdict.REFUTED
        return self.verdict not in (Verdict.REFUTED, Verdict.ILL_POSED)

    def as_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "kind": self.kind,
            "verdict": str(self.verdict),
            "method": self.method,
            "evidence": self.evidence,
            "worst_ratio": self.worst_ratio,
            "trials": self.trials,
            "counterexample": self.counterexample,
            "seconds": round(self.seconds, 4),
            "provenance": self.provenance,
            "symbolic": self.symbolic,
            "certified": self.certified,
            "expected": self.expected,
            "as_expected": self.as_expected,
            "covered": self.covered,
            "attacked": self.attacked,
            "unproved": self.unproved,
        }


def region(ranges: Mapping[Any, tuple[Any, Any]]) -> dict[str, tuple[str, str]]:
    """``{symbol: (lo, hi)}`` as the exact strings ``StepResult.covered`` records."""
    return {str(_label(k) if not isinstance(k, str) else k): (str(lo), str(hi)) for k, (lo, hi) in ranges.items()}


def assumption_range(sym: sp.Symbol) -> tuple[sp.Expr, sp.Expr]:
    """The widest closed range SymPy's assumptions on ``sym`` allow (what a symbolic proof covers)."""
    if sym.is_integer and sym.is_positive:
        return sp.Integer(1), sp.oo
    if sym.is_integer and sym.is_nonnegative:
        return sp.Integer(0), sp.oo
    if sym.is_positive or sym.is_nonnegative:
        return sp.Integer(0), sp.oo
    if sym.is_negative or sym.is_nonpositive:
        return -sp.oo, sp.Integer(0)
    return -sp.oo, sp.oo


def covers(covered: Mapping[str, tuple[Any, Any]] | None, domain: Domain, symbols: set | None = None) -> bool:
    """True when the region ``covered`` contains ``domain``'s box on ``symbols`` (default: all of them).

    A symbol of the domain that ``covered`` does not mention is not covered.
    """
    if covered is None:
        return False
    for sym, (lo, hi) in domain.ranges.items():
        if symbols is not None and sym not in symbols:
            continue
        if str(sym) not in covered:
            return False
        clo, chi = (sp.sympify(v) for v in covered[str(sym)])
        if bool(clo > lo) or bool(chi < hi):
            return False
    return True


@dataclass
class Derivation:
    """An ordered list of steps establishing ``result`` (the name of one of its steps).

    ``source`` says whose result it is: ``"paper"`` (a numbered statement of the paper as printed,
    checked here), ``"ours"`` (the toolkit's own constant or bound) or ``"classical"``.
    ``paper_claim`` quotes what the paper states about it, when it states anything.
    """

    name: str
    title: str
    steps: list[Step]
    result: str
    source: str = "ours"
    depends_on: tuple[str, ...] = ()
    paper_claim: str = ""
    summary: str = ""
    objects: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.source not in PROVENANCES:
            raise DerivationError(f"derivation {self.name!r}: source must be one of {PROVENANCES}")
        names = [s.name for s in self.steps]
        if len(set(names)) != len(names):
            raise DerivationError(f"derivation {self.name!r}: duplicate step names")
        if self.result not in names:
            raise DerivationError(f"derivation {self.name!r}: result {self.result!r} is not one of its steps")
        for st in self.steps:  # a chain's verdict depends on the cited derivations: the cache must know
            for link in st.links:
                der = link.cited[0]
                if der and der != self.name and der not in self.depends_on:
                    raise DerivationError(
                        f"derivation {self.name!r}: step {st.name!r} cites {der!r}, which is not in depends_on"
                    )

    def step(self, name: str) -> Step:
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(f"derivation {self.name!r} has no step {name!r}")

    @property
    def result_step(self) -> Step:
        return self.step(self.result)

    def verify(self, **options: Any) -> list[StepResult]:
        """Run every step's checker in order; see ``derivations.checks.check_step``."""
        from .checks import check_step

        out = []
        for st in self.steps:
            t0 = time.perf_counter()
            res = check_step(st, **options)
            res.seconds = time.perf_counter() - t0
            out.append(res)
        return out
