"""Weighted means over the sample in route "expectation"'s pointwise scalarisation (``expectation.Scalarise``).

Contract. For draws ``D_1, …, D_n`` with coordinates over the step domain's ranges, a *weighted mean* is

    M   = Σ_j g(D_j) h(D_j) / Σ_j g(D_j)                               (bare), or
    M_c = Piecewise((Σ_j g(D_j) h(D_j) / Σ_j g(D_j), Σ_j g(D_j) > 0), (c, True))   (with a convention c on
          the event {Σ_j g(D_j) = 0}; the condition may also be written Σ_j g(D_j) ≠ 0),

with ``g ≥ 0`` for every draw (proved by the engine over the draw ranges) and the numerator's summand ``f`` equal
to ``g·h`` identically (``h = f/g`` reduced by SymPy, then ``f − g·h ≡ 0`` checked and ``h`` shown defined on the
whole draw box, so ``f = g·h`` holds at ``g = 0`` as well: ``Σ_j s_j / Σ_j w_j`` is *not* a weighted mean of
``s/w``). ``weighted_means(sc, expr)`` replaces each by a value ranging over a superset of the values it takes:

* bare: ``h(y)``, ``y`` fresh coordinates over the draw ranges. Classical: a weighted mean with nonnegative weights
  of positive sum lies in the convex hull of its values (Hardy, Littlewood & Pólya, *Inequalities*, 2nd ed. 1952,
  §2.2: a mean lies between the least and the greatest of the values); the values ``h(D_j)`` lie in the image of
  ``h`` over the box, an interval because ``h`` is continuous (built from analytic heads and defined on the box)
  and the box connected, so the hull is that image. Needs ``Σ_j g(D_j) > 0`` for *every* sample: ``g > 0`` for
  every draw, shown either by an Arb enclosure of ``g`` over the draw box with a positive lower end, or ``g`` a
  positive constant times powers of draw coordinates each of which the domain states ``> 0`` (a constraint
  ``b > 0`` on the coordinate's base, a hypothesis such as ν ~ π: dν/dπ > 0). A closed range ``w ∈ [0, ∞)``
  admits ``Σ_j w_j = 0``: then the bare ratio is undefined on a possible event and the rule does not apply.
* with a convention: ``(1 − θ)·h(y) + θ·c``, ``θ ∈ [0, 1]``: on ``{Σ g > 0}`` the mean is in the image of ``h``,
  on ``{Σ g = 0}`` it is ``c``; both lie in the hull of the image and ``c`` (``c`` must be free of the draws).

Identities whose reduction cancels a ratio of sample sums (x/x = 1, rule "moments"): ``positive_denominators``
requires every denominator holding a sample sum to be > 0 on every sample (sums of weights shown > 0 on every draw,
n ≥ 1), else ``NotProved`` naming the event {denominator = 0}; a ratio written with its convention goes by cases
(``identity_by_cases``).

Proved in every sample size n (the rule reads no n: the hull argument holds for each n, termwise). A ratio of
sample sums that is not shown a weighted mean is left for the sums' own scalarisation (as without this rule); a
weighted mean whose weights can all vanish (g ≥ 0 reaching 0, no hypothesis) raises ``NotProved`` naming the
event. Nothing here reads a float: signs are the engine's proved
verdicts, and the Arb enclosure is a rigorous bound.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .. import intervals
from ..ledger import Domain, free_names

HLP = "Hardy, Littlewood & Pólya, Inequalities, 2nd ed. (1952), §2.2"


def _sample_ratio(red: Any, e: sp.Expr) -> tuple[sp.Sum, sp.Sum, sp.Expr] | None:
    """``(N, D, rest)`` when ``e = rest·N/D`` for two pure sample sums N, D with the same limits (``rest`` the
    product of the other factors; None when there is not exactly one such pair)."""
    if not isinstance(e, sp.Mul):
        return None
    num, den, rest = [], [], []
    for f_ in e.args:
        b_, x_ = f_.as_base_exp()
        if isinstance(b_, sp.Sum) and red._sample_sum(b_) and x_ == -1:
            den.append(f_)
        elif isinstance(f_, sp.Sum) and red._sample_sum(f_):
            num.append(f_)
        else:
            rest.append(f_)
    if len(den) != 1 or len(num) != 1:
        return None
    n_, d_ = num[0], den[0].as_base_exp()[0]
    if len(n_.limits) != 1 or len(d_.limits) != 1 or n_.limits[0][1:] != d_.limits[0][1:]:
        return None
    return n_, d_, sp.Mul(*rest)


def _draw_first(red: Any, sm: sp.Sum) -> sp.Expr:
    """The summand of a pure sample sum at the first draw (its j-th draw written D_1)."""
    jv = sm.limits[0][0]
    return sm.function.xreplace({jv: sp.Integer(1)})


def _strictly_positive(sc: Any, g: sp.Expr) -> str | None:
    """Why ``g(D_1) > 0`` for every draw (None: not shown)."""
    plain, box = sc.plain(g)
    try:
        with intervals.iv_prec(128):
            enc = intervals.interval_eval(plain, {s_: box[s_] for s_ in free_names(plain) if s_ in box})
        if bool(enc.lo > 0):
            return f"{g} ≥ {float(enc.lo):.6g} > 0 on the draw box (Arb enclosure)"
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, ArithmeticError, KeyError):
        pass
    # c·Π b_i[1]^{e_i} with c > 0 and each base stated > 0 by a domain constraint
    coeff, factors = sp.sympify(g).as_coeff_mul()
    if not (coeff.is_number and coeff > 0):
        return None
    stated = []
    for f_ in factors:
        b_, _x = f_.as_base_exp()
        if not (isinstance(b_, sp.Indexed) and b_.base in sc.red.bases):
            return None
        label = b_.base.label
        ok = [
            c_
            for c_ in sc.step.domain.constraints
            if isinstance(c_, sp.StrictGreaterThan) and c_.lhs == label and c_.rhs.is_number and c_.rhs >= 0
        ]
        if not ok:
            return None
        stated.append(f"{label} > 0 (stated: {ok[0]})")
    return f"{g} > 0 on every draw: " + ", ".join(stated)


def _positive_bound(sc: Any, g: sp.Expr) -> str | None:
    """Why ``g(D_1) > 0``: a proved range from the route's ``bounds`` with a positive lower end (None: none)."""
    from .expectation import NotProved

    if g not in sc.bounds:
        return None
    try:
        lo, _hi = sc.range_of(g)
    except NotProved:
        return None
    lo = sp.sympify(lo)
    return f"{g} ≥ {lo} > 0 (proved bound)" if lo.is_number and lo > 0 else None


def _can_vanish(sc: Any, g: sp.Expr) -> bool:
    """True when the draw box holds a point where ``g = 0`` is not excluded: an Arb enclosure of g over the box
    whose lower end is ≤ 0 (g ≥ 0 having been proved, the weights can all be 0 or arbitrarily near it)."""
    plain, box = sc.plain(g)
    try:
        with intervals.iv_prec(128):
            enc = intervals.interval_eval(plain, {s_: box[s_] for s_ in free_names(plain) if s_ in box})
        return bool(enc.lo <= 0)
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, ArithmeticError, KeyError):
        return False


def _convention(red: Any, e: sp.Expr) -> tuple[sp.Sum, sp.Sum, sp.Expr] | None:
    """``(N, D, c)`` for ``Piecewise((N/D, D > 0 or D ≠ 0), (c, True))``."""
    if not isinstance(e, sp.Piecewise) or len(e.args) != 2 or e.args[1].cond is not sp.true:
        return None
    (val, cond), (c, _t) = e.args
    nd = _sample_ratio(red, val)
    if nd is None or nd[2] != 1:
        return None
    d_ = nd[1]
    holds = (isinstance(cond, sp.StrictGreaterThan) and cond.lhs == d_ and cond.rhs == 0) or (
        isinstance(cond, sp.Unequality) and {cond.lhs, cond.rhs} == {d_, sp.Integer(0)}
    )
    if not holds:
        from .expectation import NotProved

        raise NotProved(f"the convention of {e} is not on the event {{{d_} = 0}} (its condition: {cond})")
    return nd[0], d_, c


def _mean_value(sc: Any, n_: sp.Sum, d_: sp.Sum, what: str) -> tuple[sp.Expr, str]:
    """``h(y)`` for the weighted mean ``N/D`` and why it holds every value of the mean (``NotProved`` else)."""
    from .expectation import NotProved, _prove_scalar, _zero
    from .monotone import smooth
    from .wellposed import check_wellposed

    red = sc.red
    if n_.limits[0][0] != d_.limits[0][0]:  # α-rename the numerator's index to the denominator's
        n_ = sp.Sum(n_.function.xreplace({n_.limits[0][0]: d_.limits[0][0]}), d_.limits[0])
    red._sum_factor(d_)  # one index, from 1, the j-th draw only (else NotProved)
    red._sum_factor(n_)
    g, f = _draw_first(red, d_), _draw_first(red, n_)
    h = sp.cancel(sp.together(f / g))
    if not _zero(sp.expand(f - g * h)):
        raise NotProved(f"{what}: the numerator's summand {f} is not g·h with g = {g}")
    gp, box = sc.plain(g)
    dom = Domain({**sc.step.domain.ranges, **box, **sc.ranges}, sc.step.domain.constraints)
    m_g = _prove_scalar(f"{sc.step.name}: weight {g} ≥ 0", sp.Integer(0), gp, dom, sc.opts)
    hp, _ = sc.plain(h)
    head = smooth(hp)
    if head is not None:
        raise NotProved(f"{what}: the value h = {h} has the head {head}: its continuity is not established")
    wp = check_wellposed([hp], Domain({s_: r_ for s_, r_ in dom.ranges.items() if s_ in free_names(hp)}), sc.step.name)
    if wp.status != "defined":
        raise NotProved(
            f"{what}: h = {h} not established defined on the draw box ({wp.status}), so f = g·h at g = 0 fails"
        )
    # fresh draw coordinates y over the draw ranges: h(y) ranges over the image of h (an interval)
    rep = {}
    for ix in sorted(h.atoms(sp.Indexed), key=str):
        if ix.base in red.bases:
            lo, hi = sc.step.domain.ranges[ix.base.label]
            rep[ix] = sc.fresh(f"y_{ix.base.label}_", lo, hi)
    value = h.xreplace(rep)
    why = f"weights {g} ≥ 0 ({m_g[:60]}), values h = {h} continuous on the draw box"
    return value, why


def weighted_means(sc: Any, expr: sp.Expr) -> sp.Expr:
    """``expr`` with every weighted mean over the sample replaced (module docstring); ``sc`` is the route's
    ``Scalarise`` (its ranges receive the fresh symbols). Raises ``NotProved`` for a ratio of sample sums that
    is not shown to be a weighted mean."""
    from .expectation import NotProved

    expr = sp.sympify(expr)
    rep: dict = {}
    for pw in expr.atoms(sp.Piecewise):
        conv = _convention(sc.red, pw)
        if conv is None:
            continue
        n_, d_, c = conv
        if any(ix.base in sc.red.bases for ix in sp.sympify(c).atoms(sp.Indexed)) or any(
            sc.red._sample_sum(s_) for s_ in sp.sympify(c).atoms(sp.Sum)
        ):
            raise NotProved(f"the convention value {c} of {pw} depends on the draws")
        value, why = _mean_value(sc, n_, d_, str(pw))
        theta = sc.fresh("theta_c", 0, 1)
        rep[pw] = (1 - theta) * value + theta * c
        sc.proved_bounds[pw] = (
            f"{pw} ∈ hull(image of h, {c}) ({HLP}: a weighted mean lies in the hull of its values; {why}; "
            f"{c} on {{{d_} = 0}} by the convention)"
        )
    expr = expr.xreplace(rep)
    rep = {}
    for node in sp.preorder_traversal(expr):
        nd = _sample_ratio(sc.red, node) if isinstance(node, sp.Mul) else None
        if nd is None:
            continue
        n_, d_, rest = nd
        g = _draw_first(sc.red, d_)
        try:
            value, why = _mean_value(sc, n_, d_, str(node))
        except NotProved:
            continue  # not shown a weighted mean: the sums' own scalarisation decides, as without this rule
        pos = _strictly_positive(sc, g) or _positive_bound(sc, g)
        if pos is None:
            if _can_vanish(sc, g):  # g ≥ 0 reaching 0: Σ_j g_j = 0 is possible, the ratio undefined there
                raise NotProved(
                    f"{node}: Σ_j {g} > 0 is not established for every sample (the draw ranges admit a zero "
                    f"weight on every draw, so the ratio is undefined on a possible event): state the weights > 0 "
                    f"as a hypothesis of the domain or write the ratio with its convention on {{{d_} = 0}}"
                )
            continue
        rep[node] = rest * value
        sc.proved_bounds[node] = f"{node} in the image of h ({HLP}; {why}; {pos})"
    return expr.xreplace(rep)


__all__ = ["HLP", "positive_denominators", "weighted_means"]


# ----------------------------------------------------------------------------- ratios of sample sums: defined?


def _nonempty(sc: Any, sm: sp.Sum) -> str | None:
    """Why the sample sum ``sm`` = Σ_{j=1}^{n} has n ≥ 1 terms (None: not shown): n a number ≥ 1, or a symbol whose
    range in the step's domain starts at ≥ 1."""
    _jv, lo, hi = sm.limits[0]
    if lo != 1:
        return None
    if hi.is_Integer:
        return f"{hi} ≥ 1 draws" if hi >= 1 else None
    rng = sc.step.domain.ranges.get(hi)
    if rng is None:
        rng = next((r_ for s_, r_ in sc.step.domain.ranges.items() if str(s_) == str(hi)), None)
    if rng is not None and sp.sympify(rng[0]).is_number and sp.sympify(rng[0]) >= 1:
        return f"{hi} ≥ {rng[0]} draws"
    return None


def _den_positive(sc: Any, b: sp.Expr) -> str | None:
    """Why ``b > 0`` for every sample (None: not shown). ``b`` is built by +, ·, powers and exp from positive numbers,
    parameters the domain states > 0, and sample sums Σ_{j=1}^{n} g(D_j) with n ≥ 1 and g(D_1) > 0 for every draw
    (``_strictly_positive``: an Arb enclosure or a stated hypothesis; or a proved bound): signs by construction
    only, never an evaluation at a point."""
    b = sp.sympify(b)
    if b.is_Number:
        return f"{b} > 0" if b > 0 else None
    if isinstance(b, sp.Sum) and sc.red._sample_sum(b):
        if len(b.limits) != 1:
            return None
        n_ok = _nonempty(sc, b)
        g = _draw_first(sc.red, b)
        why = _strictly_positive(sc, g) or _positive_bound(sc, g)
        return f"{b} > 0 ({why}; {n_ok})" if (n_ok and why) else None
    if isinstance(b, (sp.Add, sp.Mul)):
        parts = [_den_positive(sc, a_) for a_ in b.args]
        return "; ".join(parts) if all(parts) else None
    if isinstance(b, sp.Pow):
        return _den_positive(sc, b.base) if b.exp.is_extended_real else None
    if isinstance(b, sp.exp):
        return f"{b} > 0 (exp of a real)" if b.args[0].is_extended_real else None
    if isinstance(b, sp.Symbol):
        if b.is_positive:
            return f"{b} > 0 (declared)"
        rng = sc.step.domain.ranges.get(b)
        if rng is not None and sp.sympify(rng[0]).is_number and sp.sympify(rng[0]) > 0:
            return f"{b} ≥ {rng[0]} > 0 (domain)"
        return None
    if not b.has(sp.Sum) and not any(ix.base in sc.red.bases for ix in b.atoms(sp.Indexed)):
        return None  # a parameter expression: not shown here
    # a per-draw function of D_1 alone (no sum): the draw box's enclosure or a stated hypothesis
    if not b.has(sp.Sum):
        return _strictly_positive(sc, b) or _positive_bound(sc, b)
    return None


def _bare_denominators(red: Any, integrand: sp.Expr) -> tuple[list, bool]:
    """``([(ratio, denominator), …], guarded)``: every power with a negative exponent whose base holds a sample sum,
    outside the weighted means written with their convention (``_convention``; ``guarded`` says whether there are
    any: their denominators are the convention's event, decided by cases in ``identity_by_cases``)."""
    integrand = sp.sympify(integrand)
    conv = {pw: sp.Dummy("conv") for pw in integrand.atoms(sp.Piecewise) if _convention(red, pw) is not None}
    bare = integrand.xreplace(conv)
    out = []
    for node in sp.preorder_traversal(bare):
        if not isinstance(node, sp.Pow) or not (node.exp.is_negative or node.exp.is_extended_negative):
            continue
        if any(isinstance(s_, sp.Sum) and red._sample_sum(s_) for s_ in node.base.atoms(sp.Sum)):
            out.append((node, node.base))
    return out, bool(conv)


def positive_denominators(step: Any, params: Any, opts: Any, red: Any, sides: tuple) -> tuple[str, bool]:
    """``(why, guarded)``: why every ratio in the integrands of ``sides`` whose denominator holds a sample sum is
    defined on every sample (its denominator > 0, ``_den_positive``), and whether some integrand also holds a
    weighted mean with its convention on {Σ g = 0} (left to ``identity_by_cases``). ``NotProved`` naming the event
    when a denominator is not shown > 0: a cancellation x/x = 1 there would rest on a possible event where the
    ratio is 0/0 (with weights r_j ∈ [0, ∞), {Σ_j r_j = 0} is such an event)."""
    from .expectation import Expect, NotProved, Scalarise

    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    whys: dict = {}
    guarded = False
    for side in sides:
        for ex in sorted(sp.sympify(side).atoms(Expect), key=str):
            dens, g_ = _bare_denominators(red, ex.args[0])
            guarded = guarded or g_
            for node, den in dens:
                if den in whys:
                    continue
                why = _den_positive(sc, den)
                if why is None:
                    sums = sorted({str(s_) for s_ in den.atoms(sp.Sum) if red._sample_sum(s_)})
                    raise NotProved(
                        f"{den} > 0 is not established for every sample: the ratio {node} is 0/0 or undefined on "
                        f"{{{den} = 0}}, which the draw ranges admit (sums {', '.join(sums)}); cancelling it (x/x = 1) "
                        f"would rest on that event: state the weights > 0 as a hypothesis of the domain or write the "
                        f"ratio with its convention on {{{den} = 0}}"
                    )
                whys[den] = why
    return "; ".join(whys.values()), guarded


# ----------------------------------------------------------------------------- identities through a convention


def _integrand(gap: sp.Expr, atoms: list) -> sp.Expr:
    """T with E T = ``gap`` (= big − small): ``gap`` must be linear in its expectations over the sample ``atoms``
    (each entering with a deterministic coefficient), else ``NotProved``."""
    from .expectation import NotProved

    probe = {ex: sp.Dummy("e") for ex in atoms}
    gd = sp.expand(gap.xreplace(probe))
    for d_ in probe.values():
        if not sp.diff(gd, d_).free_symbols.isdisjoint(probe.values()):
            raise NotProved("big − small is not linear in its expectations over the sample")
    return gap.xreplace({ex: ex.args[0] for ex in atoms})


def identity_by_cases(step: Any, params: Any, opts: Any, red: Any, small: sp.Expr, big: sp.Expr) -> str | None:
    """``small = big`` (or ``|small| = |big|``, from the same for their insides) for expectations whose integrands hold weighted means with a convention (``M_c`` above), by
    cases on the event ``{Σ_j g(D_j) > 0}`` and its complement; the method text, None when the claim has no such
    mean (``NotProved`` when it has one and a case fails).

    ``big − small = E[T]`` by linearity (every expectation over the sample enters with a deterministic
    coefficient). On ``{Σ g > 0}`` each ``M_c`` is ``N/D``: T, with its sample sums made linear and each sum a
    symbol (D a positive one), reduces by SymPy's ``cancel`` to a polynomial R in the sums. On ``{Σ g = 0}``,
    g ≥ 0 (proved) gives g(D_j) = 0 for every j, so every sum Σ_j g(D_j)·p(D_j) with p a polynomial is 0 and
    ``M_c = c``: there ``T − R`` must reduce to 0 as well. So T = R for every sample, ``E T = E R``, and ``E R``
    must reduce to 0 by the moment rule (linearity and i.i.d. moments)."""
    from .expectation import NotProved, Scalarise, _prove_scalar
    from .expectation_sums import _sum_linear

    small, big = sp.sympify(small), sp.sympify(big)
    if isinstance(small, sp.Abs) and isinstance(big, sp.Abs):  # |X| = |Y| where X = Y
        small, big = small.args[0], big.args[0]
    gap = big - small
    atoms = [ex for ex in gap.atoms(Expect_()) if ex.args[0].has(sp.Sum)]
    pws = {pw for ex in atoms for pw in ex.args[0].atoms(sp.Piecewise)}
    convs = {pw: _convention(red, pw) for pw in pws}
    convs = {pw: c_ for pw, c_ in convs.items() if c_ is not None}
    bare = {
        nd[1]
        for ex in atoms
        for node in sp.preorder_traversal(ex.args[0])
        if isinstance(node, sp.Mul) and (nd := _sample_ratio(red, node)) is not None
    }
    if not convs and not bare:
        return None
    if not convs:  # bare ratios: only where Σ g > 0 on every sample is stated (then there is no other event)
        return _identity_positive(step, params, opts, red, gap, atoms, bare)
    # a bare ratio beside the conventions (outside them) must be defined on every sample itself: the case
    # {Σ g = 0} below would otherwise substitute 0 into its denominator
    positive_denominators(step, params, opts, red, (small, big))
    dens = {c_[1] for c_ in convs.values()}
    if len(dens) != 1:
        raise NotProved(f"weighted means over different weights {sorted(map(str, dens))}: one event at a time")
    (den,) = dens
    t = _integrand(gap, atoms)
    g = _draw_first(red, den)
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    gp, box = sc.plain(g)
    m_g = _prove_scalar(f"{step.name}: weight {g} ≥ 0", sp.Integer(0), gp, Domain({**step.domain.ranges, **box}), opts)
    moments = {ex: sp.Dummy("m") for ex in t.atoms(Expect_()) if not ex.args[0].has(sp.Sum)}

    def symbols_for_sums(e: sp.Expr) -> tuple[sp.Expr, dict]:
        e = _sum_linear(sp.expand(e.xreplace(moments)))
        names: dict = {}
        by_key: dict = {}  # α-equivalent sums (Σ_i r_i, Σ_j r_j) are one symbol
        for sm in e.atoms(sp.Sum):
            if not red._sample_sum(sm):
                continue
            key = sp.Sum(sm.function.xreplace({sm.limits[0][0]: den.limits[0][0]}), den.limits[0])
            if key not in by_key:
                by_key[key] = sp.Dummy("S", positive=True) if key == den else sp.Dummy("S")
            names[sm] = by_key[key]
        return e.xreplace(names), names

    positive = t.xreplace({pw: convs[pw][0] / convs[pw][1] for pw in convs})
    body, names = symbols_for_sums(positive)
    r_ = sp.cancel(sp.together(body))
    num, dn = sp.fraction(r_)
    if dn.free_symbols & set(names.values()):
        raise NotProved(f"on {{{den} > 0}} the integrand is not a polynomial in the sample sums ({r_})")
    back = {v_: k_ for k_, v_ in names.items()}
    back.update({v_: k_ for k_, v_ in moments.items()})
    poly = r_.xreplace(back)
    # the complement: every sum of g·(polynomial) is 0, each mean its convention value
    zero_t = t.xreplace({pw: convs[pw][2] for pw in convs}) - poly
    e0, names0 = symbols_for_sums(zero_t)
    vanish = {}
    for sm, sym in names0.items():
        f = sm.function.xreplace({sm.limits[0][0]: sp.Integer(1)})
        q = sp.cancel(f / g)
        coords = sorted(f.atoms(sp.Indexed) | g.atoms(sp.Indexed), key=str)
        if sp.fraction(q)[1].has(*coords) or not q.is_polynomial(*coords):
            continue  # not g times a polynomial of the draw: its sum need not vanish
        if sp.expand(f - g * q) == 0:
            vanish[sym] = sp.Integer(0)
    rest = sp.simplify(e0.xreplace(vanish))
    if rest != 0:
        raise NotProved(f"on {{{den} = 0}} the integrand differs from its reduction by {rest}")
    reduced = red.reduce(Expect_()(poly)) if poly.has(sp.Sum) else red.reduce(poly)
    if sp.simplify(reduced) != 0:
        raise NotProved(f"E of the reduced integrand {poly} is {sp.simplify(reduced)}, not 0")
    return (
        f"by cases on {{{den} > 0}} (each weighted mean N/D: the integrand of big − small reduces to {poly}) and "
        f"{{{den} = 0}} (weights {g} ≥ 0 ({m_g[:60]}) all 0, each mean its convention: the same value), "
        f"then E[{poly}] = 0 by linearity and i.i.d. moments"
    )


def _identity_positive(step: Any, params: Any, opts: Any, red: Any, gap: sp.Expr, atoms: list, dens: set) -> str:
    """``identity_by_cases`` for bare ratios N/D: one case, as every weight is stated > 0 (so D > 0 on every sample):
    the integrand of big − small reduces by ``cancel`` (D a positive symbol) to a polynomial R with E R = 0."""
    from .expectation import NotProved, Scalarise
    from .expectation_sums import _sum_linear

    if len(dens) != 1:
        raise NotProved(f"ratios over different weights {sorted(map(str, dens))}")
    (den,) = dens
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    pos = _strictly_positive(sc, _draw_first(red, den))
    if pos is None:
        raise NotProved(
            f"{den} > 0 is not established for every sample (a zero weight on every draw is in range): the ratio "
            f"is undefined on a possible event; state the weights > 0 or write the ratio with its convention"
        )
    t = _integrand(gap, atoms)
    moments = {ex: sp.Dummy("m") for ex in t.atoms(Expect_()) if not ex.args[0].has(sp.Sum)}
    e = _sum_linear(sp.expand(t.xreplace(moments)))
    names, by_key = {}, {}  # α-equivalent sums are one symbol
    for sm in e.atoms(sp.Sum):
        if red._sample_sum(sm):
            key = sp.Sum(sm.function.xreplace({sm.limits[0][0]: den.limits[0][0]}), den.limits[0])
            if key not in by_key:
                by_key[key] = sp.Dummy("S", positive=True) if key == den else sp.Dummy("S")
            names[sm] = by_key[key]
    r_ = sp.cancel(sp.together(e.xreplace(names)))
    if sp.fraction(r_)[1].free_symbols & set(names.values()):
        raise NotProved(f"the integrand is not a polynomial in the sample sums ({r_})")
    back = {v_: k_ for k_, v_ in names.items()} | {v_: k_ for k_, v_ in moments.items()}
    poly = r_.xreplace(back)
    reduced = red.reduce(Expect_()(poly)) if poly.has(sp.Sum) else red.reduce(poly)
    if sp.simplify(reduced) != 0:
        raise NotProved(f"E of the reduced integrand {poly} is {sp.simplify(reduced)}, not 0")
    return (
        f"pointwise where {den} > 0 ({pos}: every sample): the integrand of big − small reduces to {poly}, "
        f"and E[{poly}] = 0 by linearity and i.i.d. moments"
    )


def Expect_() -> Any:  # noqa: N802 - the route's Expect class, imported late (expectation imports this module)
    from .expectation import Expect

    return Expect


from .expectation import MEANS  # noqa: E402 - registration at the end: this module builds on the route's core

MEANS.update(
    weighted_means=weighted_means, positive_denominators=positive_denominators, identity_by_cases=identity_by_cases
)
