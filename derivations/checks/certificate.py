"""Route "certificate": ``small ≤ big`` from a factored certificate, ``big − small = certificate`` and ``certificate ≥ 0``.

Claim shape: an inequality ``small ≤ big`` (``<=``, ``>=``; strict ``<``, ``>`` are decided by the claim's own
checker only), ``gap = big − small``, on any domain box. The hint gives the certificate, the gap written as a
product/quotient/sum of factors whose signs interval arithmetic can certify without the cancellation the gap
itself suffers (tight inequalities, equal on a face of the box, defeat direct subdivision; their factors do not):

    Step(..., route=("certificate", {"certificate": c}))        # optional "reduction": "powsimp"

``reduction`` names the SymPy reduction of ``gap − certificate`` tried after the exact rational rewrites
(``REDUCTIONS``; default the identity checker's ``expand_then_simplify``): data, so the verify cache keys it by
value. Proved, on the cover below, when all hold:

1. ``gap − certificate`` reduces to 0 *symbolically* (``identity.check_identity`` with ``reduce_rational_first``:
   expand, one fraction's numerator, combined powers, cancel; then the named reduction): an identity in every
   symbol, so the certificate is the gap;
2. ``certificate ≥ 0`` on the domain: SymPy's structural deduction (``signs.certain_nonnegative``, constants
   signed by Arb) or certified interval arithmetic over the box (``interval.certify_nonnegative``, Arb), or
   termwise (``termwise_sign``: a sum of terms ≥ 0, a product of factors ≥ 0, each part signed the same two ways);
   when none proves it, the standard inequality checker on the certificate (its own stages);
3. the gap is defined on the domain (``wellposed.check_wellposed``; a hinted route decides definedness itself).

Else the claim's own record decides (``inequality.check_inequality``): its proof, if it finds one, or
"verified numerically". The claim's falsifier always runs (once the certificate is the gap it attacks the
certificate too). A wrong certificate (step 1 fails, even refuted) is no evidence against the claim: it only
withholds the proof. A refutation comes only through the gate: a counterexample of the claim's checker, or a
point where the certificate is negative while it is the gap, is replayed on the claim by ``refute.confirm``
(Arb enclosures at an exact point); one the gate does not confirm refutes nothing.

Cover: the claim checker's cover when it proves the claim, else the intersection of the identity's cover (the
symbols' assumption ranges) and the certificate's (the certified box, or the assumption ranges for a
symbolic sign).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Domain, Step, StepResult, Verdict, free_names, region
from .budget import Spent, run_symbolic
from .falsifier import falsify
from .identity import check_identity, expand_then_simplify
from .inequality import check_inequality
from .interval import certify_nonnegative
from .refute import RESERVED, confirm
from .sampling import _sides, intersect, symbolic_cover
from .signs import certain_nonnegative
from .verdicts import by_verdict, ill_posed, proved, refuted, verified
from .wellposed import check_wellposed


def _powsimp(e: sp.Expr) -> sp.Expr:
    """Combine powers of positive bases, then simplify (an equivalence where SymPy's assumptions allow it)."""
    return sp.simplify(sp.powsimp(sp.expand(e)))


#: the reductions a hint may name for ``gap − certificate`` (after the exact rational rewrites); None: the default
REDUCTIONS: dict[str | None, Callable[[sp.Expr], sp.Expr]] = {
    None: expand_then_simplify,
    "simplify": expand_then_simplify,
    "powsimp": _powsimp,
}

#: exact rewrites that settle most gap = certificate identities (rational functions of exponentials and powers)
#: in milliseconds, tried in order before the full reduction: each is an equivalence (expand, one fraction's
#: numerator, combining powers of the same positive base as SymPy's assumptions allow, cancelling), so a 0 is a proof
RATIONAL_REWRITES: tuple[Callable[[sp.Expr], sp.Expr], ...] = (
    sp.expand,
    lambda e: sp.expand(sp.numer(sp.together(e))),
    lambda e: sp.expand(sp.numer(sp.together(sp.expand(e)))),
    lambda e: sp.cancel(sp.expand(sp.powsimp(sp.expand(e)))),
)


def reduce_rational_first(
    simplifier: Callable[[sp.Expr], sp.Expr] | None, clock: Any = None
) -> Callable[[sp.Expr], sp.Expr]:
    """A reduction for ``check_identity``: 0 when one of ``RATIONAL_REWRITES`` gives 0, else ``simplifier`` (or
    the identity checker's default ``expand_then_simplify``) on the original expression, under the claim's
    ``clock`` when given (a reduction out of time returns the expression: no symbolic proof, the spot check decides).

    ``simplify`` runs a dozen strategies (0.02–0.3 s on these gaps); writing the difference as one fraction and
    expanding its numerator decides the factored certificates of the catalogue in ≤ 20 ms. A rewrite that fails
    (or raises) only hands over to the full reduction; the 50-digit spot check runs either way."""
    full = simplifier or expand_then_simplify

    def simp(e: sp.Expr) -> sp.Expr:
        for rewrite in RATIONAL_REWRITES:
            try:
                if rewrite(e) == 0:
                    return sp.Integer(0)
            except Exception:  # noqa: BLE001 - a rewrite failing deep inside SymPy: the full reduction decides
                pass
        if clock is None:
            return full(e)
        out = run_symbolic(full, e, deadline=clock.deadline(0.25), stage="certificate: gap = certificate")
        return e if isinstance(out, Spent) else out

    return simp


def _params(step: Step, params: Mapping[str, Any]) -> tuple[sp.Expr, Callable[[sp.Expr], sp.Expr]]:
    name = f"step {step.name!r}: route 'certificate' parameter"
    try:
        cert = sp.sympify(params["certificate"])
    except (sp.SympifyError, TypeError) as exc:
        raise DerivationError(f"{name} certificate must be a SymPy expression, got {params['certificate']!r}") from exc
    if not isinstance(cert, sp.Expr):
        raise DerivationError(f"{name} certificate must be a SymPy expression, got {cert!r}")
    red = params.get("reduction")
    if red not in REDUCTIONS:
        raise DerivationError(f"{name} reduction must be one of {sorted(k for k in REDUCTIONS if k)}, got {red!r}")
    if step.kind != "inequality":
        raise DerivationError(f"step {step.name!r}: route 'certificate' proves inequalities, not a {step.kind}")
    return cert, REDUCTIONS[red]


def certificate_sign(cert_step: Step, opts: Mapping[str, Any]) -> StepResult | None:
    """``certificate ≥ 0`` proved by SymPy's assumptions on it as written, else by interval arithmetic over the
    box, with no falsifier: the caller's identity makes the certificate the claim's gap, which the claim's
    falsifier attacks. None when neither proves it (the caller then runs the standard checker, falsifier included)."""
    cert = cert_step.lhs
    try:  # constants signed by Arb, never by SymPy's evalf (checks/signs.py)
        sign = certain_nonnegative(cert)
    except Exception:  # noqa: BLE001 - as check_inequality: an assumption query that raises settles nothing
        sign = False
    if sign:
        method, covered, symbolic = "symbolic: SymPy assumptions give gap ≥ 0", symbolic_cover([cert]), True
    else:
        # the whole certificate by branch and bound on a quarter of the boxes first (the catalogue's certify on
        # one box), then termwise, then on the whole budget: a certificate written as a sum of products for its
        # terms to be signed apart (bias_bound's C_A, C_B) spent its 1500 boxes whole before termwise signed it
        full = int(opts["box_budget"])
        quarter = max(full // 4, 1)
        iv = certify_nonnegative(cert, cert_step.domain, budget=quarter, max_dims=opts["max_dims"])
        parts = None
        if iv.status != "proved":
            parts = termwise_sign(cert, cert_step.domain, opts)
            # only a run that stopped for want of boxes may do better with more of them
            if parts is None and iv.status == "undecided" and quarter <= iv.boxes < full:
                iv = certify_nonnegative(cert, cert_step.domain, budget=full, max_dims=opts["max_dims"])
        if iv.status == "proved":
            free = {str(x_) for x_ in free_names(cert)} - set(iv.covered or {})
            covered = {**{x_: ("-oo", "oo") for x_ in sorted(free)}, **(iv.covered or {})}
            method, symbolic = f"interval arithmetic: certified on {iv.boxes} boxes", False
        else:
            if parts is None:
                return None
            covered, told = parts
            method, symbolic = f"termwise: {told}", False
    return proved(
        cert_step,
        method=f"{method}; no falsifier of its own (it is the claim's gap: the claim's falsifier attacks it)",
        symbolic=symbolic,
        certified=not symbolic,
        cover=covered,
    )


#: how deep ``termwise_sign`` descends into sums of products
TERMWISE_DEPTH = 4


def termwise_sign(
    cert: sp.Expr, domain: Any, opts: Mapping[str, Any], depth: int = 0
) -> tuple[dict[str, tuple[str, str]], str] | None:
    """``cert ≥ 0`` on the domain from its structure: a sum whose every term is ≥ 0, or a product whose every factor
    is ≥ 0, each part signed by SymPy's structural deduction (``signs.certain_nonnegative``, constants by Arb) or
    certified interval arithmetic (``interval.certify_nonnegative``), descending ``TERMWISE_DEPTH`` levels. A part
    enclosed alone loses the dependency between the parts (a chord gap tight at both ends times a factor vanishing
    at one: the product's enclosure straddles 0 where each factor's sign is certified). Returns the cover (the
    intersection of the parts') and a short account, or None."""
    try:
        if certain_nonnegative(cert):
            return symbolic_cover([cert]), "SymPy sign"
    except Exception:  # noqa: BLE001 - an assumption query that raises settles nothing
        pass
    if depth > 0 or not isinstance(cert, (sp.Add, sp.Mul)):
        budget = max(int(opts["box_budget"]) // 4, 50)
        iv = certify_nonnegative(cert, domain, budget=budget, max_dims=opts["max_dims"])
        if iv.status == "proved":
            free = {str(x_) for x_ in free_names(cert)} - set(iv.covered or {})
            return {**{x_: ("-oo", "oo") for x_ in sorted(free)}, **(iv.covered or {})}, f"Arb on {iv.boxes} boxes"
        one = one_combination_sign(cert, domain, budget)
        if one is not None:
            return one
    if depth >= TERMWISE_DEPTH or not isinstance(cert, (sp.Add, sp.Mul)):
        return None
    cover: dict[str, tuple[str, str]] | None = None
    told = []
    for part in cert.args:
        got = termwise_sign(part, domain, opts, depth + 1)
        if got is None:
            return None
        cover = got[0] if cover is None else intersect(cover, got[0])
        told.append(got[1])
    joint = "every term" if isinstance(cert, sp.Add) else "every factor"
    return cover or {}, f"{joint} ≥ 0 ({', '.join(told)})"


def _monomial_range(m: sp.Expr, ranges: Mapping[sp.Symbol, tuple[Any, Any]]) -> tuple[sp.Expr, sp.Expr] | None:
    """The exact range of the monomial ``m = c·Π sᵢ^{pᵢ}`` (integer ``pᵢ``) over the box: each ``sᵢ``'s range lies on
    one side of 0 (and excludes 0 for ``pᵢ < 0``), so ``m`` is monotone in each variable and its extremes are corner
    values, computed exactly. None when that does not hold or a corner is not finite."""
    syms = sorted(free_names(m), key=str)
    for s_ in syms:
        lo, hi = (sp.sympify(v) for v in ranges[s_])
        if not (lo.is_finite and hi.is_finite and lo.is_number and hi.is_number):
            return None
        if not (bool(lo >= 0) or bool(hi <= 0)):  # exact comparisons of numbers
            return None
    corners = [m.subs(dict(zip(syms, pt, strict=True))) for pt in itertools.product(*(ranges[s_] for s_ in syms))]
    if not all(c_.is_finite and c_.is_real for c_ in corners):
        return None
    return sp.Min(*corners), sp.Max(*corners)


def one_combination_sign(e: sp.Expr, domain: Any, budget: int) -> tuple[dict[str, tuple[str, str]], str] | None:
    """``e ≥ 0`` on the domain's box where ``e`` depends on its variables through one monomial ``m`` only (``e(t, τ) =
    F(2t/τ)``): ``e = F(m)`` is an exact substitution (one variable ``s`` of ``m``, of power ±1, written through
    ``W = m``: ``F`` has no other variable), ``m`` ranges over ``[lo, hi]`` on the box (``_monomial_range``, exact),
    and ``F ≥ 0`` on ``[lo, hi]`` by Arb branch and bound in one variable (where the box in all the variables
    cannot resolve ``F``'s maximum along the curve ``m = const``). None when no monomial does it."""
    names = free_names(e)
    if len(names) < 2 or not names <= set(domain.ranges) or domain.constraints:
        return None
    ranges = {s_: domain.ranges[s_] for s_ in names}
    seen: list[sp.Expr] = []
    for node in sp.preorder_traversal(e):
        if not isinstance(node, (sp.Mul, sp.Pow)) or len(free_names(node)) < 2:
            continue
        coeff, m = node.as_coeff_Mul()
        if m in seen or not all(
            isinstance(f, sp.Symbol) or (isinstance(f, sp.Pow) and f.base.is_Symbol and f.exp.is_Integer)
            for f in sp.Mul.make_args(m)
        ):
            continue
        seen.append(m)
        rng = _monomial_range(m, ranges)
        if rng is None:
            continue
        W = sp.Dummy("W", real=True)
        powers = m.as_powers_dict()
        for s_ in sorted(free_names(m), key=str):
            power = powers.get(s_)
            if power not in (1, -1):
                continue
            rest = m / s_**power
            rest_rng = _monomial_range(rest, ranges)
            if rest_rng is None or not (bool(rest_rng[0] > 0) or bool(rest_rng[1] < 0)):
                continue  # s = W/rest (or rest/W) needs rest ≠ 0 on the whole box
            sol = W / rest if power == 1 else rest / W
            F = sp.powsimp(sp.expand_power_base(e.subs(s_, sol), force=False))
            if free_names(F) != {W}:
                F = sp.simplify(F)
            if free_names(F) != {W}:
                continue
            lo, hi = rng
            if power == -1 and not (bool(lo > 0) or bool(hi < 0)):
                continue  # s = rest/W needs W ≠ 0 on the range
            iv = certify_nonnegative(F, Domain({W: (lo, hi)}), budget=budget, max_dims=1)
            if iv.status == "proved":
                return region(ranges), f"one combination: = F({m}), F ≥ 0 on [{lo}, {hi}] (Arb on {iv.boxes} boxes)"
    return None


def claim_record(step: Step, opts: Mapping[str, Any]) -> StepResult:
    """The claim's own record where its certificate proves it: a one-box interval attempt on the gap (no SymPy
    ``simplify``: the certificate's sign was the interval's), then the falsifier, whose counterexample (the
    gate's) refutes; an interval refutation is replayed through the gate before it refutes."""
    small, big, strict = _sides(step)
    gap = big - small
    methods, evidence = [], []
    iv = certify_nonnegative(gap, step.domain, strict=strict, budget=1, max_dims=opts["max_dims"])
    if iv.status == "proved":
        methods.append(f"interval arithmetic: certified on {iv.boxes} boxes")
    elif iv.status != "refuted":
        evidence.append(f"interval: {iv.reason}")
    fz = falsify(step, opts)
    methods.append(f"falsifier: {fz.trials} trials")
    evidence.append(fz.evidence)
    common = dict(worst_ratio=fz.worst_ratio, trials=fz.trials)
    cx = fz.counterexample
    if cx is None and iv.status == "refuted":
        cx = gated(step, iv.counterexample)
    if cx is not None:
        return refuted(step, method="; ".join(methods), evidence="; ".join(evidence), counterexample=cx, **common)
    how = dict(method="; ".join(methods), evidence="; ".join(evidence), attacked=fz.attacked, **common)
    if iv.status == "proved":
        free = {str(x_) for x_ in free_names(small) | free_names(big)} - set(iv.covered or {})
        covered = {**{x_: ("-oo", "oo") for x_ in sorted(free)}, **(iv.covered or {})}
        return proved(step, certified=True, cover=covered, **how)
    return verified(step, **how)


def gated(step: Step, cx: Any) -> dict | None:
    """The gate's counterexample to ``step`` at the point of ``cx`` (a checker's counterexample dict), or None:
    the claim itself is replayed by ``refute.confirm`` at the point's exact coordinates."""
    if not isinstance(cx, Mapping):
        return None
    point = {k_: v for k_, v in cx.items() if k_ not in RESERVED and v is not None}
    if not point:
        return None
    try:
        out = confirm(step.lhs, step.rhs, step.relation or "=", point, domain=step.domain)
    except (ValueError, TypeError):
        return None
    return None if out is None else out.as_dict()


def prove_certificate(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (module docstring)."""
    certificate, reduction = _params(step, params)
    opts = dict(opts)
    small, big, strict = _sides(step)
    wp = check_wellposed([step.lhs, step.rhs], step.domain, f"certificate:{step.name}", opts.get("clock"))
    if wp.status == "ill-posed":
        return ill_posed(step, point=wp.point, method="route certificate: undefined at a point of the domain")
    defined = wp.status == "defined"
    ident = check_identity(
        Step(
            f"{step.name}: gap = certificate",
            big - small,
            certificate,
            kind="identity",
            domain=step.domain,
            simplifier=reduce_rational_first(reduction, opts.get("clock")),
        ),
        opts,
    )
    is_gap = ident.verdict is Verdict.PROVED and ident.symbolic
    cert_step = Step(
        f"{step.name}: certificate ≥ 0", certificate, 0, kind="inequality", relation=">=", domain=step.domain
    )
    cert = certificate_sign(cert_step, opts) if is_gap else None
    if cert is None:
        cert = check_inequality(cert_step, opts)
    # certificate ≥ 0 proves the non-strict claim only: a strict one is left to the claim's own checker
    rigorous = is_gap and cert.verdict is Verdict.PROVED and defined and not strict
    if rigorous and not cert.symbolic:
        # the certificate decides rigour: the claim gets its record (falsifier) and a one-box try
        orig = claim_record(step, opts)
    else:
        # spare the claim a long (often futile) subdivision where the certificate is proved
        orig = check_inequality(step, {**opts, "box_budget": 1} if rigorous else opts)
    parts = (
        f"route certificate (gap = certificate: {ident.verdict} ({ident.method}); certificate ≥ 0: {cert.verdict} "
        f"({cert.method}); claim: {orig.method}"
        + ("" if defined else f"; definedness not established: {wp.reason}")
        + ("; strict: the certificate's sign does not decide it" if strict else "")
        + ")"
    )
    cx = orig.counterexample if orig.verdict is Verdict.REFUTED else None
    cx = gated(step, cx) if cx is not None else None
    if cx is None and is_gap and cert.verdict is Verdict.REFUTED:  # the certificate is the gap: its point may refute
        cx = gated(step, cert.counterexample)
    if cx is not None:
        return refuted(
            step,
            method=parts,
            evidence=orig.evidence or cert.evidence,
            worst_ratio=orig.worst_ratio,
            trials=orig.trials,
            counterexample=cx,
        )
    if (orig.verdict is Verdict.PROVED and defined) or rigorous:
        covered = orig.covered if orig.verdict is Verdict.PROVED else intersect(ident.covered, cert.covered)
        return proved(
            step,
            method=parts,
            evidence=orig.evidence,
            worst_ratio=orig.worst_ratio,
            trials=orig.trials,
            certified=True,
            symbolic=orig.symbolic,
            cover=covered,
            attacked=orig.attacked,
        )
    verdict = orig.verdict
    if verdict in (Verdict.REFUTED, Verdict.PROVED):  # a refutation the gate did not confirm; a proof undefined
        verdict = Verdict.VERIFIED if orig.attacked else Verdict.UNDECIDED
    return by_verdict(
        verdict,
        step,
        method=parts,
        evidence=orig.evidence,
        worst_ratio=orig.worst_ratio,
        trials=orig.trials,
        attacked=orig.attacked,
    )
