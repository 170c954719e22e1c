"""Route "expectation": claims about expectations over k i.i.d. draws, proved by classical rules whose instance
is checked.

Claim shape: ``lhs (rel) rhs`` where, once the printed placeholders are replaced by their meaning (``defs``,
printed symbol → expression in ``Expect``), both sides are built from ``Expect(g)`` — the expectation over
i.i.d. draws ``D_1, D_2, …`` — and deterministic parameters. A draw is a tuple of coordinates written as
indexed objects (``s[j]``, ``w[j]``: ``f(ξ_j)``, ``w(ξ_j)``) whose range is the step domain's range of the
base (``s ∈ [−1, 1]``); inside ``Expect`` they appear either as a sum ``Σ_{j=1}^n h(D_j)`` over the sample
(``n`` the sample size symbol, n ≥ 1) or as the single draw ``D_1`` (a *moment* ``Expect(h(D_1))``). The
rules (``rule`` parameter):

* ``"moments"`` (linearity and i.i.d. moment identities): every ``Expect`` is reduced symbolically —
  expansion, linearity (deterministic factors out), and for a product of sums over the sample
  E[Π_r Σ_j g_r(D_j)] = Σ_{set partitions P of the factors} n(n − 1)…(n − |P| + 1) Π_{B ∈ P} E[Π_{r∈B} g_r(D_1)]
  (independence and identical distribution); what is not a polynomial in such sums stays an atom E[·].
  ``facts`` (moment atom → value, e.g. E w = 1 for a density w = dν/dπ, E[w f] = E_ν f) are substituted
  and named in the reduction. The claim is proved when ``big − small`` reduces to 0 (an identity, or an
  inequality that holds with equality), or the reduced ``big − small`` is a deterministic expression in
  the moments proved ≥ 0 with each moment over its range (the ``bounds`` of its integrand).
* ``"pointwise"`` (monotonicity of expectation; ``pointwise_route``: a hint ``(route, params)`` for the scalar
  pointwise claim, its expressions scalarised with T): ``big − small = E[T] + R`` with ``E[T] − (big − small) + R``
  reduced to 0 by the moment rule, or by linearity to one expectation whose integrand SymPy reduces to 0 draw
  by draw (T given as ``integrand``, or read off the statement by linearity when the gap is linear in its
  expectations; R, a function of the moments, computed or given as ``remainder`` and then matched),
  ``T ≥ 0`` for every draw in range and ``R ≥ 0`` for every moment in range, each proved by the engine (``check_step`` on a scalar Step: symbolic, interval, sums or
  touching routes; ``then``: the remainder R ≥ 0 by that nested rule instead, e.g. Popoviciu's integrand; ``scalar_route="taylor"`` sends the pointwise claim to that hinted route first, for a Taylor
  integrand whose |·| or max the symbolic stage would spend its time on). In T a sum ``Σ_{j=1}^n h(D_j)`` is replaced by ``n·u`` with ``u`` over the range of h
  (a mean of values in [lo, hi] lies in [lo, hi]), a moment E h by a symbol over the same range, a single
  draw's coordinates by symbols over their ranges: a superset of the values T sees, so the scalar claim
  implies the pointwise one.
* ``"jensen"`` (Jensen's inequality): ``big − small`` reduces to ``φ(E U) − E φ(U)`` (``shape="concave"``)
  or ``E φ(U) − φ(E U)`` (``"convex"``), plus possibly a deterministic remainder R in the moments (computed,
  or given as ``remainder`` and matched), proved ≥ 0 with each moment over its range as in ``"pointwise"``,
  with ``φ = Lambda(v, …)`` and the random variable ``U`` given (``phi``, ``inner``); ``U`` is a sample mean n⁻¹Σ_j h(D_j) or a single-draw h(D_1), its range that of h;
  φ'' ≤ 0 (concave; ≥ 0 convex) on that range is proved by the engine and φ is defined there
  (``wellposed``), so φ is concave (convex) on an interval holding U and E U.

* ``"cauchy_schwarz"``, ``"lyapunov"``, ``"lipschitz"``, ``"ratio"``, ``"abs"``, ``"leave_one_out"``: rules applied
  where the claim is an exact instance, each handing its bound to a further rule (``then``); see
  ``checks/expectation_rules.py``. A printed function may be given a meaning at every argument as
  ``defs={F: Lambda((x, y), …)}``.

``bounds`` (per-draw function h(D_1) → (lo, hi)): every range the rules use, each proved pointwise
(``lo ≤ h ≤ hi`` over the draw ranges, by the engine); an end that depends on parameters enters the scalar
claim as lo + (hi − lo)·θ, θ ∈ [0, 1] (a domain's ranges are numbers). A strict inequality is not proved (the
rules give ≤); an identity only by ``"moments"``. A sum over the sample must have the j-th draw as its
summand's only draw. Every substitution is symbolic; every sign is decided
by the engine's proved verdicts (SymPy's reduction or Arb), never a float.

Hint: ``Step(..., route=("expectation", {"rule": …, "defs": {…}, …, "attack": law_check(...)}))``. The
optional ``attack`` is an independent numeric attack on the same statement (a ``laws.law_check`` closure
over exact finite laws): it runs first, and a counterexample it confirms refutes the step whatever the
proof says (a proof and a confirmed counterexample cannot both stand: that is an engine fault, and the
refutation wins). Without a proof the verdict is the attack's (at most "verified numerically").

The claim proved is the printed one: the defs are substituted into the step's own sides, and every given
form (integrand, φ, U) is matched against them by the symbolic reduction; a form that does not match is
"not proved" (``tests/test_route_expectation.py`` plants such mismatches).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp
from sympy.utilities.iterables import multiset_partitions

from ..ledger import DerivationError, Domain, Step, StepResult, Verdict, covers, free_names
from .expectation_hints import scalarised_with_hint
from .expectation_sums import canonical_sums
from .verdicts import proved, undecided


class Expect(sp.Function):
    """``Expect(g)``: the expectation of g over the i.i.d. draws (unevaluated; printed E[g])."""

    nargs = 1

    def _latex(self, printer: Any) -> str:
        return r"\mathbb{E}\left[" + printer._print(self.args[0]) + r"\right]"

    def _sympystr(self, printer: Any) -> str:
        return "E[" + printer._print(self.args[0]) + "]"


RULES = ("moments", "pointwise", "jensen", "cauchy_schwarz", "lyapunov", "lipschitz", "ratio", "abs", "leave_one_out")


class NotProved(Exception):
    """The rule's instance does not hold as stated (a mismatch, an unproved side condition)."""


# ----------------------------------------------------------------------------- the symbolic reduction


def _draw_bases(exprs: Sequence[Any]) -> set:
    bases = set()
    for e in exprs:
        for ex in sp.sympify(e).atoms(Expect):
            bases |= {ix.base for ix in ex.args[0].atoms(sp.Indexed)}
    return bases


class Reducer:
    """Linearity and the i.i.d. moment formula over the draws with coordinates ``bases``."""

    def __init__(self, bases: set, facts: Mapping[Any, Any]):
        self.bases = set(bases)
        self.facts = {sp.sympify(k_): sp.sympify(v_) for k_, v_ in dict(facts or {}).items()}
        self.n: sp.Expr | None = None  # the sample size of the sums met

    # -- classification
    def _is_draw(self, e: sp.Expr) -> bool:
        """True when e depends on a draw outside every ``Expect`` (e is random)."""
        hidden = e.xreplace({ex: sp.Dummy() for ex in e.atoms(Expect)})
        if any(ix.base in self.bases for ix in hidden.atoms(sp.Indexed)):
            return True
        return any(self._sample_sum(sm) for sm in hidden.atoms(sp.Sum))

    def _sample_sum(self, sm: sp.Sum) -> bool:
        return any(ix.base in self.bases for ix in sm.function.atoms(sp.Indexed))

    def moment(self, h: sp.Expr) -> sp.Expr:
        """E h(D_1) by linearity: deterministic factors out, each random product an atom (then ``facts``)."""
        h = sp.expand(h)
        out = sp.Integer(0)
        for term in sp.Add.make_args(h):
            det, rnd = [], []
            for f_ in sp.Mul.make_args(term):
                (rnd if self._is_draw(f_) else det).append(f_)
            atom = sp.Mul(*rnd)
            if atom == 1:
                out += sp.Mul(*det)
                continue
            for ix in atom.atoms(sp.Indexed):
                if ix.base in self.bases and ix.indices != (1,):
                    raise NotProved(f"a single-draw moment must be written in the draw D_1, got {ix}")
            ex = Expect(atom)
            out += sp.Mul(*det) * self.facts.get(ex, ex)
        return out

    def _pure_sum(self, sm: sp.Sum) -> bool:
        """Σ_{j=1}^n g(D_j) with g a function of the j-th draw only (else a statistic: an atom of linearity)."""
        if len(sm.limits) != 1 or sm.limits[0][1] != 1:
            return False
        jv = sm.limits[0][0]
        return all(ix.indices == (jv,) for ix in sm.function.atoms(sp.Indexed) if ix.base in self.bases)

    def _sum_factor(self, sm: sp.Sum) -> sp.Expr:
        """Σ_{j=1}^n g(D_j) → g(D_1), recording n."""
        if len(sm.limits) != 1:
            raise NotProved(f"a sum over the sample has one index, got {sm}")
        jv, lo, hi = sm.limits[0]
        if lo != 1:
            raise NotProved(f"a sum over the sample starts at 1, got {sm}")
        if self.n is not None and sp.simplify(hi - self.n) != 0:
            raise NotProved(f"two sample sizes in one claim: {self.n} and {hi}")
        self.n = hi
        # the summand is a function of the j-th draw only (Σ_j s_1 = n·s_1 is not a sum over the sample)
        if any(ix.base in self.bases and ix.indices != (jv,) for ix in sm.function.atoms(sp.Indexed)):
            raise NotProved(f"the summand of {sm} must be a function of the {jv}-th draw only")
        g = sm.function.xreplace({jv: sp.Integer(1)})
        return g

    def expect(self, arg: sp.Expr) -> sp.Expr:
        """E[arg], reduced: products of sample sums by the partition formula, the rest by linearity."""
        arg = self.reduce(arg)  # inner expectations first: they are constants here
        inner = {ex: sp.Dummy("m") for ex in arg.atoms(Expect)}
        back = {v_: k_ for k_, v_ in inner.items()}
        body = sp.expand(arg.xreplace(inner))
        out = sp.Integer(0)
        for term in sp.Add.make_args(body):
            det, sums, single, other, sum_f = [], [], [], [], []
            for f_ in sp.Mul.make_args(term):
                base, ex_ = f_.as_base_exp()
                if (
                    isinstance(base, sp.Sum)
                    and self._sample_sum(base)
                    and ex_.is_Integer
                    and ex_ > 0
                    and self._pure_sum(base)
                ):
                    sums += [self._sum_factor(base)] * int(ex_)
                    sum_f.append(f_)
                elif not self._is_draw(f_):
                    det.append(f_)
                elif not any(self._sample_sum(s_) for s_ in f_.atoms(sp.Sum)):
                    single.append(f_)
                else:
                    other.append(f_)
            coef = sp.Mul(*det).xreplace(back)
            if other:  # not polynomial in the sample sums: an atom E[·] (linearity only)
                if single:
                    raise NotProved(f"a single draw beside a sample statistic in {term}")
                # a sample sum times a non-polynomial statistic (Σ_j s_j w_j/Σ_j w_j): one atom, linearity only
                atom = sp.Mul(*other, *sum_f).xreplace(back)
                out += coef * Expect(atom)
                continue
            if sums and single:
                raise NotProved(f"a single draw beside sums over the sample in {term}")
            if not sums:
                out += coef * self.moment(sp.Mul(*single).xreplace(back))
                continue
            n = self.n
            total = sp.Integer(0)
            for part in multiset_partitions(list(range(len(sums)))):
                fall = sp.Mul(*[n - i for i in range(len(part))])
                prod = sp.Integer(1)
                for block in part:
                    prod *= self.moment(sp.Mul(*[sums[r] for r in block]).xreplace(back))
                total += fall * prod
            out += coef * total
        return out

    def reduce(self, expr: Any) -> sp.Expr:
        """expr with every ``Expect`` reduced (innermost first)."""
        expr = sp.sympify(expr)
        if not expr.has(Expect):
            return expr
        if isinstance(expr, Expect):
            return self.expect(expr.args[0])
        return expr.func(*[self.reduce(a) for a in expr.args]) if expr.args else expr


#: ``_zero``'s answers by expression: a rule asks about the same remainder up to three times, and a remainder that
#: is not 0 runs every simplifier each time (the costliest answer); the answer is a function of the expression
_ZERO_MEMO: dict[sp.Expr, bool] = {}


def _zero(e: sp.Expr) -> bool:
    """True when SymPy reduces e to 0 (a symbolic identity; never a numeric test)."""
    e = sp.sympify(e)
    if e == 0:
        return True
    if e not in _ZERO_MEMO:
        if len(_ZERO_MEMO) > 2000:  # a bound on memory across a long run
            _ZERO_MEMO.clear()
        _ZERO_MEMO[e] = _reduces_to_zero(e)
    return _ZERO_MEMO[e]


def _reduces_to_zero(e: sp.Expr) -> bool:
    """``_zero`` of a nonzero-looking ``e``: expand, simplify, logs expanded then simplified, logs combined."""
    # an expectation of a positive variable is positive: a positive symbol lets log(b·E[h]) expand (SymPy's
    # assumptions, not a numeric test)
    e = e.xreplace({ex: sp.Dummy("Epos", positive=True) for ex in e.atoms(Expect) if ex.args[0].is_positive})
    for f_ in (sp.expand, sp.simplify, lambda z: sp.simplify(sp.expand(sp.expand_log(z, force=False))), _log_ratio):
        try:
            if f_(e) == 0:
                return True
        except Exception:  # noqa: BLE001,S112 - a simplifier that fails proves nothing; the next one may
            continue
    return False


def _log_ratio(e: sp.Expr) -> sp.Expr:
    """e combined into one log(r) where SymPy's assumptions allow it (``logcombine``, not forced), then r − 1
    simplified: log(a) + log(b) − log(c) − log(d) = 0 when ab/(cd) reduces to 1."""
    lc = sp.logcombine(e, force=False)
    if isinstance(lc, sp.log):
        return sp.simplify(lc.args[0] - 1)
    return lc


# ----------------------------------------------------------------------------- scalar obligations


def _opts(opts: Mapping[str, Any]) -> dict:
    return {k_: v_ for k_, v_ in opts.items() if k_ not in ("clock",)}


def _prove_scalar(
    name: str,
    small: sp.Expr,
    big: sp.Expr,
    domain: Domain,
    opts: Mapping[str, Any],
    route: tuple | str | None = None,
) -> str:
    """Prove ``small ≤ big`` on ``domain`` with the engine (with ``route``: the scalar claim names that hinted route
    of ``checks.routes.HINTED``, as a step does: ``(name, params)``, or a name with no parameters, e.g.
    ``"taylor"``); the method text, or ``NotProved``."""
    from .reentry import check_step

    names = free_names(small) | free_names(big)
    ranges = {s_: r_ for s_, r_ in domain.ranges.items() if s_ in names}
    missing = names - set(ranges)
    if missing:
        raise NotProved(f"{name}: no range for {sorted(map(str, missing))}")
    cons = tuple(c_ for c_ in domain.constraints if free_names(c_) <= set(ranges))
    sub_dom = Domain(ranges, cons, name=domain.name)
    if not names:
        d = sp.nsimplify(big - small)
        if d.is_nonnegative:
            return "exact"
        raise NotProved(f"{name}: {small} ≤ {big} not decided exactly")
    hint = (route, {}) if isinstance(route, str) else route
    sub = Step(name, small, big, kind="inequality", relation="<=", domain=sub_dom, route=hint)
    sub_opts = _opts(opts)
    clock = opts.get("clock")
    left = clock.left() if clock is not None else None
    if left is not None:  # the step's own clock: each obligation gets what is left of it, none when it is spent
        if left <= 0.05:
            raise NotProved(f"{name}: the claim's time ran out before this obligation")
        sub_opts["budget"] = clock.budget.but(claim_seconds=left)
    res: StepResult = check_step(sub, **sub_opts)
    if res.verdict != Verdict.PROVED:
        raise NotProved(f"{name}: {small} ≤ {big} {res.verdict} ({str(res.method)[:160]})")
    if not covers(res.covered, sub_dom):
        raise NotProved(f"{name}: the proof covers {res.covered}, not the domain {sub_dom.describe()}")
    return str(res.method)


#: proved per-draw ranges: (function, lo, hi, domain) → the text of their proof (only proved ranges enter)
_BOUND_MEMO: dict[tuple, str] = {}


class Scalarise:
    """The pointwise claim as a scalar one: sums → n·u, moments and single draws → symbols over their ranges."""

    def __init__(self, red: Reducer, step: Step, bounds: Mapping[Any, tuple[Any, Any]], opts: Mapping[str, Any]):
        self.red, self.step, self.opts = red, step, opts
        self.bounds = {sp.sympify(k_): (sp.sympify(v_[0]), sp.sympify(v_[1])) for k_, v_ in dict(bounds).items()}
        # a bound (lo, hi, Lambda(t, φ)): the moment E h written as φ(t), t ∈ [0, 1] (``mapped``)
        self.maps = {sp.sympify(k_): v_[2] for k_, v_ in dict(bounds).items() if len(v_) == 3}
        self.ranges: dict[sp.Symbol, tuple[sp.Expr, sp.Expr]] = {}
        self.proved_bounds: dict[sp.Expr, str] = {}
        self.counter = 0
        self.shown: dict[sp.Symbol, str] = {}

    def draw_domain(self) -> dict:
        """Each draw coordinate b[1] → a symbol over the domain's range of b."""
        rng = {}
        for base in self.red.bases:
            if base.label not in self.step.domain.ranges:
                raise NotProved(f"the draw coordinate {base} has no range in the step's domain")
            rng[base[1]] = (sp.Symbol(f"{base.label}_1", real=True), self.step.domain.ranges[base.label])
        return rng

    def plain(self, h: sp.Expr) -> tuple[sp.Expr, dict]:
        dd = self.draw_domain()
        return h.xreplace({ix: v_[0] for ix, v_ in dd.items()}), {v_[0]: v_[1] for v_ in dd.values()}

    def range_of(self, h: sp.Expr, moment: bool = False) -> tuple[sp.Expr, sp.Expr]:
        """The proved range [lo, hi] of the per-draw function h(D_1) (from ``bounds``); with ``moment``, of E h,
        where the ends may be per-draw functions themselves (then [E lo, E hi], each a known value)."""
        h = sp.sympify(h)
        # the same tree first: _zero of two different functions runs every simplifier before it says no
        match = [h] if h in self.bounds else [k_ for k_ in self.bounds if _zero(k_ - h)]
        if not match:
            raise NotProved(f"no bound given for {h} (bounds: {list(self.bounds)})")
        lo, hi = self.bounds[match[0]]
        if h not in self.proved_bounds:
            body, dr = self.plain(h)
            plo, phi_ = self.plain(sp.sympify(lo))[0], self.plain(sp.sympify(hi))[0]  # ends may be per-draw too
            dom = Domain({**self.step.domain.ranges, **dr}, self.step.domain.constraints)
            # a bound proved once in this process for the same function, ends and domain is not proved again
            # (nested rules of one step each scalarise; the proof depends on nothing else)
            key = (
                sp.srepr(body),
                sp.srepr(plo),
                sp.srepr(phi_),
                repr(sorted(map(str, dom.ranges.items()))),
                repr(dom.constraints),
            )
            if key not in _BOUND_MEMO:
                m1 = _prove_scalar(f"{self.step.name}: {lo} ≤ {h}", plo, body, dom, self.opts)
                m2 = _prove_scalar(f"{self.step.name}: {h} ≤ {hi}", body, phi_, dom, self.opts)
                _BOUND_MEMO[key] = f"{lo} ≤ {h} ≤ {hi} ({_short(m1)}; {_short(m2)})"
            self.proved_bounds[h] = _BOUND_MEMO[key]
        if not moment and (self._per_draw(lo) or self._per_draw(hi)):
            raise NotProved(f"the bound [{lo}, {hi}] of {h} depends on the draw: a range only for its moment E[{h}]")
        if moment and (self._per_draw(lo) or self._per_draw(hi)):
            # lo(D) ≤ h(D) ≤ hi(D) for every draw gives E lo ≤ E h ≤ E hi (monotonicity of expectation)
            elo, ehi = self.red.moment(sp.sympify(lo)), self.red.moment(sp.sympify(hi))
            if elo.has(Expect) or ehi.has(Expect):
                raise NotProved(f"E[{lo}] or E[{hi}] is not a known value (facts): no range for E[{h}]")
            self.proved_bounds[h] += f", so E[{lo}] = {elo} ≤ E[{h}] ≤ E[{hi}] = {ehi}"
            return elo, ehi
        return lo, hi

    def mapped(self, h: sp.Expr, lo: sp.Expr, hi: sp.Expr) -> sp.Expr | None:
        """E h as φ(t) with t ∈ [0, 1] a new coordinate (the bound's third entry ``Lambda(t, φ)``), when φ(0) = lo and
        φ(1) = hi reduce exactly and φ is built from analytic heads and defined on the box: then t ↦ φ(t) is
        continuous and, by the intermediate value theorem, reaches every value of [lo, hi] (each parameter fixed), so
        a claim proved for every t holds for every value of E h. t keeps its name (the hint's symbols may use it)."""
        lam = next((v_ for k_, v_ in self.maps.items() if k_ == h or _zero(k_ - h)), None)
        if lam is None:
            return None
        from .monotone import smooth
        from .wellposed import check_wellposed

        if not isinstance(lam, sp.Lambda) or len(lam.variables) != 1:
            raise DerivationError(f"bounds: the map of {h} must be Lambda(t, φ), got {lam!r}")
        (v,) = lam.variables
        if self.shown.get(v, "").startswith(f"E[{h}] = "):  # this moment met again (T, then the remainder): same t
            return lam.expr
        if v in self.step.domain.ranges or v in self.ranges:
            raise NotProved(f"the map's variable {v} is already a coordinate of the claim")
        if not (_zero(lam.expr.xreplace({v: 0}) - lo) and _zero(lam.expr.xreplace({v: 1}) - hi)):
            raise NotProved(f"the map {lam} does not run from {lo} at 0 to {hi} at 1 (exactly)")
        if smooth(lam.expr) is not None:
            raise NotProved(f"the map {lam} is not built from analytic heads: not shown continuous")
        names = free_names(lam.expr) - {v}
        dom = Domain({**{s_: r_ for s_, r_ in self.step.domain.ranges.items() if s_ in names}, v: (0, 1)})
        wp = check_wellposed([lam.expr], dom, f"{self.step.name}: map of {h}", self.opts.get("clock"))
        if wp.status != "defined":
            raise NotProved(f"the map {lam} is not shown defined for {v} ∈ [0, 1] ({wp.status})")
        self.ranges[v] = (sp.Integer(0), sp.Integer(1))
        self.shown[v] = f"E[{h}] = {lam.expr}, {v} ∈ [0, 1] (onto [{lo}, {hi}]: continuous, exact ends)"
        return lam.expr

    def _per_draw(self, e: Any) -> bool:
        return any(ix.base in self.red.bases for ix in sp.sympify(e).atoms(sp.Indexed))

    def fresh(self, stem: str, lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
        """A value ranging over [lo, hi]: a symbol with that range when the ends are numbers, else
        lo + (hi − lo)·θ with θ ∈ [0, 1] (the ends depend on parameters; lo ≤ hi by the proved bounds)."""
        self.counter += 1
        lo, hi = sp.sympify(lo), sp.sympify(hi)
        if lo.is_number and hi.is_number:
            sym = sp.Symbol(f"{stem}{self.counter}", real=True)
            self.ranges[sym] = (lo, hi)
            return sym
        theta = sp.Symbol(f"theta_{stem}{self.counter}", real=True)
        self.ranges[theta] = (sp.Integer(0), sp.Integer(1))
        self.shown[theta] = f"{stem}{self.counter} = {lo} + ({hi} − {lo})·{theta}"
        return lo + (hi - lo) * theta

    def __call__(self, expr: sp.Expr) -> sp.Expr:
        expr = sp.sympify(expr)
        rep: dict = {}
        for ex in expr.atoms(Expect):  # moments: E h ∈ [lo, hi] when h ∈ [lo, hi]
            arg = ex.args[0]
            if any(self.red._sample_sum(s_) for s_ in arg.atoms(sp.Sum)):
                raise NotProved(f"{ex} is not a moment of one draw: it cannot be a constant of the pointwise claim")
            lo, hi = self.range_of(arg, moment=True)
            mapped = self.mapped(arg, lo, hi)
            rep[ex] = self.fresh("m", lo, hi) if mapped is None else mapped
        expr = expr.xreplace(rep)
        # weighted means Σ_j g_j h_j/Σ_j g_j first: one value in the hull of the h_j (checks/expectation_means.py),
        # before their sums are scalarised one by one (which would forget that the ratio is a mean)
        expr = _means("weighted_means")(self, expr)
        rep = {}
        for sm in expr.atoms(sp.Sum):
            if not self.red._sample_sum(sm):
                continue
            g = self.red._sum_factor(sm)
            lo, hi = self.range_of(g)
            rep[sm] = self.red.n * self.fresh("u", lo, hi)
        expr = expr.xreplace(rep)
        rep = {}
        for h in self.bounds:  # a bounded per-draw function of D_1: a value over its proved range
            if any(self._per_draw(e_) for e_ in self.bounds[h]):  # a range relative to the draw: moments only
                continue
            if h.has(*[b_[1] for b_ in self.red.bases]) and expr.has(h):
                lo, hi = self.range_of(h)
                rep[h] = self.fresh("y", lo, hi)
        expr = expr.xreplace(rep)
        dd = self.draw_domain()
        for ix, (sym, rng) in dd.items():
            if expr.has(ix):
                self.ranges[sym] = rng
        expr = expr.xreplace({ix: v_[0] for ix, v_ in dd.items()})
        left = [ix for ix in expr.atoms(sp.Indexed) if ix.base in self.red.bases]
        if left:
            raise NotProved(f"draws {left} remain outside a sum over the sample or the draw D_1")
        return expr

    def domain(self) -> Domain:
        return Domain({**self.step.domain.ranges, **self.ranges}, self.step.domain.constraints)


def _short(method: str) -> str:
    return method if len(method) <= 90 else method[:87] + "…"


# ----------------------------------------------------------------------------- the rules


def _statement(step: Step, defs: Mapping[Any, Any]) -> tuple[sp.Expr, sp.Expr, str]:
    """(small, big) of the step with the printed placeholders replaced by their meaning, and the relation."""
    from .sampling import _sides

    small, big, strict = _sides(step)
    rep = {sp.sympify(k_): sp.sympify(v_) for k_, v_ in dict(defs or {}).items()}
    # a printed function F given as Lambda((args), meaning) is read at every argument (F(τ, k − 1) too)
    heads = {k_: v_ for k_, v_ in rep.items() if isinstance(k_, sp.core.function.UndefinedFunction)}
    rep = {k_: v_ for k_, v_ in rep.items() if k_ not in heads}
    small, big = sp.sympify(small).xreplace(rep), sp.sympify(big).xreplace(rep)
    for head, lam in heads.items():
        if not isinstance(lam, sp.Lambda):
            raise DerivationError(f"defs: the printed function {head} needs a Lambda meaning, got {lam}")
        small, big = small.replace(head, lam), big.replace(head, lam)
    undefined = {
        f_ for e in (small, big) for f_ in e.atoms(sp.core.function.AppliedUndef) if not isinstance(f_, Expect)
    }
    if undefined:
        raise NotProved(f"printed symbols without a meaning in defs: {sorted(map(str, undefined))}")
    return small, big, ("<" if strict else "<=")


def _rule_moments(step, params, opts, red, small, big) -> str:
    gap = red.reduce(big) - red.reduce(small)
    if _zero(gap):
        # the same expression on both sides is not enough where it holds a ratio whose denominator can vanish on a
        # possible event: then neither side is defined there, and "equal" would rest on that event
        why, _guarded = _means("positive_denominators")(step, params, opts, red, (small, big))
        return "linearity and i.i.d. moments: both sides reduce to the same polynomial in the moments" + (
            f" (every ratio defined on every sample: {why})" if why else ""
        )
    if any(
        ex.args[0].has(sp.Sum) for ex in gap.atoms(Expect)
    ):  # statistics not polynomial in the sums: their integrands in one canonical form, again
        gap2 = red.reduce(canonical_sums(big, Expect)) - red.reduce(canonical_sums(small, Expect))
        if _zero(gap2):
            # SymPy cancels x/x = 1 for a ratio of sample sums: sound only where its denominator cannot vanish on
            # a possible event (Σ_j r_j = 0 under r ≥ 0: 0/0); every such denominator shown > 0 on every sample,
            # else NotProved naming the event; a mean with its convention on {Σ g = 0} goes by cases below
            why, guarded = _means("positive_denominators")(step, params, opts, red, (small, big))
            if not guarded:
                return (
                    "linearity of E and of the finite sums in its integrands (Σ_j c·g_j = c·Σ_j g_j, indices "
                    "renamed), then i.i.d. moments: both sides reduce to the same expression, x/x = 1 cancelled only "
                    f"where every denominator is > 0 on every sample ({why or 'no ratio of sample sums'})"
                )
    # integrands holding weighted means with a convention on {Σ g = 0}: by cases (checks/expectation_means.py)
    cases = _means("identity_by_cases")(step, params, opts, red, small, big) if step.kind == "identity" else None
    if cases is not None:
        return cases
    if step.kind == "identity":
        raise NotProved(f"the two sides differ by {sp.simplify(gap)} after the moment reduction")
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    body = sc(sp.simplify(gap))
    m = _prove_scalar(f"{step.name} [moments]", sp.Integer(0), body, sc.domain(), opts)
    return (
        f"linearity and i.i.d. moments: big − small = {sp.simplify(gap)} ≥ 0 with each moment over its range "
        f"({'; '.join(sc.proved_bounds.values())}), proved by {_short(m)}"
    )


def _linear_integrand(gap: sp.Expr) -> sp.Expr:
    """T with E T = gap by linearity: gap = Σ c_i E[a_i] + d, the c_i and d free of expectations over the sample
    (moments are constants); otherwise ``NotProved``."""
    atoms = [ex for ex in gap.atoms(Expect) if ex.args[0].has(sp.Sum)]
    if not atoms:
        return gap
    g = sp.expand(gap, deep=False)
    probe = {ex: sp.Dummy("e") for ex in atoms}
    gd = g.xreplace(probe)
    for d_ in probe.values():
        if not sp.diff(gd, d_).free_symbols.isdisjoint(probe.values()):
            raise NotProved("the gap is not linear in its expectations over the sample")
    return g.xreplace({ex: ex.args[0] for ex in atoms})


def _match(diff: sp.Expr) -> sp.Expr:
    """``diff`` = (big − small) − E[T] after the reduction, simplified; 0 also when the expectations over the sample
    left in it combine (linearity) into one whose integrand is 0 for every draw (a pointwise identity, SymPy's
    reduction with each positive sample sum a positive symbol)."""
    rest = sp.simplify(diff)
    if _zero(rest) or not any(ex.args[0].has(sp.Sum) for ex in rest.atoms(Expect)):
        return rest
    g = sp.expand(rest, deep=False)
    atoms = list(g.atoms(Expect))
    probe = {ex: sp.Dummy("e") for ex in atoms}
    gd = g.xreplace(probe)
    # the expectations g is affine in (every coefficient free of expectations) become their integrands
    linear = {ex: ex.args[0] for ex, d_ in probe.items() if sp.diff(gd, d_).free_symbols.isdisjoint(probe.values())}
    integ = g.xreplace(linear)
    if any(ex.args[0].has(sp.Sum) for ex in integ.atoms(Expect)):
        return rest
    pos = {sm: sp.Dummy("S", positive=True) for sm in integ.atoms(sp.Sum) if sm.is_positive}
    body = integ.xreplace(pos)
    return sp.Integer(0) if _zero(sp.expand_log(body)) else rest


def _rule_pointwise(step, params, opts, red, small, big) -> str:
    gap = red.reduce(big) - red.reduce(small)
    if "integrand" in params:
        t = sp.sympify(params["integrand"])
    else:
        t = _linear_integrand(gap)
    diff = gap - red.reduce(Expect(t))
    rest = None
    if "remainder" in params:  # the given remainder matched by expansion alone: no simplify needed (fast path)
        given = red.reduce(sp.sympify(params["remainder"]))
        if sp.expand((diff - given).rewrite(sp.exp)) == 0:
            rest = given
    if rest is None:
        rest = _match(diff)
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    hinted = params.get("pointwise_route")
    if hinted is None:  # a hinted route by name alone (e.g. "taylor"), or the engine's own choice
        body, route = sc(t), params.get("scalar_route")
    else:  # the pointwise claim's own hinted route: its expressions scalarised with T, in one pass (same symbols)
        body, route = scalarised_with_hint(sc, t, hinted)
    m1 = _prove_scalar(f"{step.name} [pointwise]", sp.Integer(0), body, sc.domain(), opts, route)
    text = (
        f"monotonicity of expectation: big − small = E[{t}]"
        + ("" if _zero(rest) else f" + {rest}")
        + f" (linearity, i.i.d. moments); pointwise 0 ≤ {body} over {_ranges_text(sc)} proved by {_short(m1)}"
    )
    if not _zero(rest):
        if rest.has(Expect) and any(ex.args[0].has(sp.Sum) for ex in rest.atoms(Expect)):
            raise NotProved(f"the remainder {rest} of big − small − E[T] is not a function of the moments")
        if "remainder" in params:  # a factored form of the remainder, matched symbolically
            given = sp.sympify(params["remainder"])
            if not _zero(sp.expand((rest - red.reduce(given)).rewrite(sp.exp))) and not _zero(rest - red.reduce(given)):
                raise NotProved(f"the given remainder {given} is not big − small − E[T] = {rest}")
            rest = red.reduce(given)
        if params.get("then"):  # the remainder is an expectation claim of its own (Popoviciu beside a Taylor integrand)
            m2 = _remainder_by_rule(step, params, opts, red, rest)
            text += f"; remainder {rest} ≥ 0 by {_short(m2)}"
        else:
            body2, route2 = scalarised_with_hint(sc, rest, params.get("remainder_route"))
            m2 = _prove_scalar(f"{step.name} [remainder]", sp.Integer(0), body2, sc.domain(), opts, route2)
            text += f"; remainder {rest} ≥ 0 with the moments over their ranges, proved by {_short(m2)}"
    if sc.proved_bounds:
        text += f"; ranges: {'; '.join(sc.proved_bounds.values())}"
    return text


def _remainder_by_rule(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any], red: Reducer, rest) -> str:
    """``0 ≤ rest`` (the pointwise rule's remainder, a function of the moments) by the rule ``params["then"]``
    (e.g. ``"pointwise"`` with Popoviciu's integrand (M − W)(W − m): a moment inequality the moments' ranges
    alone do not give); ``bounds`` inherited where the nested rule gives none."""
    then = dict(params["then"])
    rule = then.get("rule")
    table = rule_table()
    if rule not in table or rule == "leave_one_out":
        raise DerivationError(f"step {step.name!r}: the remainder's rule ('then') must be one of {sorted(table)}")
    then.setdefault("bounds", params.get("bounds", {}))
    sub = Step(f"{step.name} [remainder]", sp.Integer(0), rest, kind="inequality", relation="<=", domain=step.domain)
    return f"{rule}: " + table[rule](sub, then, opts, red, sp.Integer(0), rest)


def _ranges_text(sc: Scalarise) -> str:
    parts = [
        f"{s_} ∈ [{lo}, {hi}]" + (f" ({sc.shown[s_]})" if s_ in sc.shown else "") for s_, (lo, hi) in sc.ranges.items()
    ]
    return ", ".join(parts) or "the stated domain"


def _rule_jensen(step, params, opts, red, small, big) -> str:
    phi, inner = params.get("phi"), params.get("inner")
    shape = params.get("shape", "concave")
    if not isinstance(phi, sp.Lambda) or len(phi.variables) != 1:
        raise DerivationError(f"step {step.name!r}: route 'expectation' rule 'jensen' needs phi = Lambda(v, body)")
    if shape not in ("concave", "convex"):
        raise DerivationError(f"step {step.name!r}: shape must be 'concave' or 'convex', got {shape!r}")
    inner = sp.sympify(inner)
    gap = red.reduce(big) - red.reduce(small)
    mean = red.reduce(Expect(inner))
    jensen_gap = phi(mean) - red.reduce(Expect(phi(inner)))
    if shape == "convex":
        jensen_gap = -jensen_gap
    rest = _match(gap - jensen_gap)
    if not _zero(rest) and any(ex.args[0].has(sp.Sum) for ex in rest.atoms(Expect)):
        raise NotProved(
            f"big − small is not the Jensen gap of φ = {phi} at U = {inner} ({shape}) plus a function of the "
            f"moments: they differ by {rest}"
        )
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    sums = [s_ for s_ in inner.atoms(sp.Sum) if red._sample_sum(s_)]
    if sums:  # U = n⁻¹Σ_j h(D_j): valued in the range of h
        h = red._sum_factor(sums[0])
        if len(sums) != 1 or not _zero(inner - sums[0] / red.n):
            raise NotProved(f"U = {inner} is not a sample mean n⁻¹Σ_j h(D_j)")
    else:
        h = inner
    lo, hi = sc.range_of(h)
    (v,) = phi.variables
    val = sc.fresh("v", lo, hi)
    body = phi.expr.xreplace({v: val})
    d2 = sp.diff(phi.expr, v, 2).xreplace({v: val})
    dom = sc.domain()
    from .wellposed import check_wellposed

    wp = check_wellposed(
        [body],
        Domain({s_: r_ for s_, r_ in dom.ranges.items() if s_ in free_names(body)}),
        step.name,
        opts.get("clock"),
    )
    if wp.status != "defined":
        raise NotProved(f"φ = {phi} not established defined on [{lo}, {hi}] ({wp.status})")
    if shape == "concave":
        m = _prove_scalar(f"{step.name} [φ'' ≤ 0]", d2, sp.Integer(0), dom, opts)
    else:
        m = _prove_scalar(f"{step.name} [φ'' ≥ 0]", sp.Integer(0), d2, dom, opts)
    text = ""
    if not _zero(rest) and "remainder" in params:  # a form of the remainder, matched symbolically
        given = red.reduce(sp.sympify(params["remainder"]))
        if not _zero(sp.expand((rest - given).rewrite(sp.exp))) and not _zero(rest - given):
            raise NotProved(f"the given remainder {given} is not big − small − (Jensen gap) = {rest}")
        rest = given
    if not _zero(rest):  # big − small = Jensen gap + rest, rest a function of the moments: rest ≥ 0 over their ranges
        body2 = sc(rest)
        m2 = _prove_scalar(f"{step.name} [remainder]", sp.Integer(0), body2, sc.domain(), opts)
        text = f"; big − small = Jensen gap + {rest}, the remainder ≥ 0 with the moments over their ranges, proved by {_short(m2)}"
    return (
        f"Jensen (classical): φ(v) = {phi.expr} {shape} on [{lo}, {hi}] (φ'' = {sp.simplify(d2)} "
        f"{'≤' if shape == 'concave' else '≥'} 0 with {_ranges_text(sc)} proved by {_short(m)}), U = {inner} valued there "
        f"({'; '.join(sc.proved_bounds.values())}), E U = {mean} (linearity)" + text
    )


_RULES = {"moments": _rule_moments, "pointwise": _rule_pointwise, "jensen": _rule_jensen}


#: the weighted-mean rules of ``checks/expectation_means.py`` (weighted_means, positive_denominators,
#: identity_by_cases), registered when it is imported (``routes`` and ``expectation_rules`` import it); it builds on
#: this module, so this one does not import it (no import cycle, counting imports inside functions)
MEANS: dict = {}


def _means(name: str) -> Any:
    if name not in MEANS:  # pragma: no cover - routes imports the module before the route runs
        raise DerivationError(
            f"the expectation route's rule {name!r} is registered by checks.expectation_means: import it"
        )
    return MEANS[name]


#: the classical rules, registered by ``checks/expectation_rules.py`` when it is imported (``routes`` imports it
#: before running the route; it builds on this module, so this one does not import it)
EXTRA_RULES: dict = {}


def rule_table() -> dict:
    """Every rule by name: the three above and the registered classical ones."""
    return {**_RULES, **EXTRA_RULES}


def prove_expectation(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The step's verdict by the rule ``params["rule"]`` (module docstring), with the law attack beside it."""
    rule = params.get("rule")
    if rule not in RULES:
        raise DerivationError(
            f"step {step.name!r}: route 'expectation' parameter rule must be one of {RULES}, got {rule!r}"
        )
    if step.kind not in ("identity", "inequality"):
        raise DerivationError(
            f"step {step.name!r}: route 'expectation' proves identities and inequalities, not {step.kind}"
        )
    if step.kind == "identity" and rule != "moments":
        raise DerivationError(
            f"step {step.name!r}: route 'expectation' rule {rule!r} proves inequalities; an identity needs rule 'moments'"
        )
    attack = params.get("attack")
    if attack is not None and not callable(attack):
        raise DerivationError(f"step {step.name!r}: route 'expectation' parameter attack must be a law checker")
    numeric = attack(step, dict(opts)) if attack is not None else None
    if numeric is not None and numeric.verdict in (Verdict.REFUTED, Verdict.ILL_POSED):
        return numeric  # a confirmed counterexample stands whatever a proof says
    try:
        small, big, rel = _statement(step, params.get("defs", {}))
        if rel == "<":
            raise NotProved("a strict inequality: the rules prove ≤ only")
        red = Reducer(_draw_bases([small, big]) | set(params.get("draws", ())), params.get("facts", {}))
        table = rule_table()
        if rule not in table:
            raise DerivationError(
                f"step {step.name!r}: rule {rule!r} is registered by checks.expectation_rules: import it"
            )
        reason = table[rule](step, params, opts, red, small, big)
    except NotProved as exc:
        why = f"expectation route ({rule}): not proved: {exc}"
        if numeric is None:
            return undecided(step, method=why)
        numeric.method = f"{numeric.method}; {why[:300]}"
        return numeric
    facts = params.get("facts") or {}
    if facts:
        reason += "; facts of the setting: " + ", ".join(f"{k_} = {v_}" for k_, v_ in facts.items())
    cover = {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in step.domain.ranges.items()}
    statement = f"{small} ≤ {big}" if step.kind == "inequality" else f"{small} = {big}"
    defs = params.get("defs") or {}
    if defs:  # the printed placeholders and the expectations they stand for: what the statement means
        statement += " (reading " + "; ".join(f"{k_} := {v_}" for k_, v_ in defs.items()) + ")"
    return proved(
        step,
        method=f"expectation route, {reason}",
        cover=cover,
        evidence=(f"statement proved: {statement}" + (f"; law attack: {numeric.evidence}" if numeric else ""))[:2000],
        symbolic=True,
        certified=True,
        trials=numeric.trials if numeric is not None else 0,
        worst_ratio=numeric.worst_ratio if numeric is not None else None,
        attacked=numeric.attacked if numeric is not None else None,
    )
