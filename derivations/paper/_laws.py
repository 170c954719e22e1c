"""Exact finite-law checker for the claims of §3 / appendix A that are expectations over k i.i.d. draws.

A *law* is one anchor's view of the data: atoms ``i`` with similarity ``s_i ∈ [−1, 1]`` to the anchor,
probability ``π_i`` under π_data and (where a claim needs ν = M(z, ·)) density ``w_i = ν_i/π_i`` of the
positive-pair law. Every expectation over the k draws is an exact sum over the multinomial compositions
(``derivations.bias.compositions``); a claim is a function ``claim(L, law) -> (small, big)`` evaluated
in floats (``L = math``) and, for any violation and for the worst ratio, at 50 digits (``L = mpmath``).
A float overflow (τ near 1e-3 makes e^{1/τ} ≈ e^{1000}) falls back to mpmath at 30 digits.

Budget: ``trials`` laws, at most ``LAW_CAP`` = 20 000 per inequality and ``IDENTITY_CAP`` = 2 000 per
identity (each law is a full enumeration; ``law_trials`` in the options lifts the cap).

Laws searched: 2 or 3 atoms (similarities snapped to ±1 or 0 half of the time: the extremal laws),
skewed Dirichlet weights, τ log-uniform on the claim's range, k log-uniform in [k_min, k_cap]; then a
local search around the worst points. A claim is refuted only by a violation confirmed at 50 digits.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import mpmath

from ..bias import compositions
from ..ledger import Step, StepResult, Verdict
from ..symbols import TAU_MAX, TAU_MIN

#: largest number of exact laws per inequality / per identity (see ``law_check``)
LAW_CAP = 20_000
IDENTITY_CAP = 2_000


@dataclass
class Law:
    """One anchor's finite law: τ, k, similarities, π-weights, ν-densities and extra scalars."""

    tau: Any
    k: int
    sims: list
    probs: list
    dens: list | None = None
    extra: dict = field(default_factory=dict)

    def at(self, L: Any) -> Law:
        if L is math:
            return self
        mp = mpmath.mpf
        probs = [mp(p_) for p_ in self.probs]
        tot = mpmath.fsum(probs)
        probs = [p_ / tot for p_ in probs]  # float weights need not sum to 1 exactly
        dens = None
        if self.dens is not None:  # renormalise so that E_π w = 1 exactly at this precision
            dens = [mp(w_) for w_ in self.dens]
            ew = mpmath.fsum(p_ * w_ for p_, w_ in zip(probs, dens))
            dens = [w_ / ew for w_ in dens]
        extra = {key: mp(v_) for key, v_ in self.extra.items()}
        return Law(mp(self.tau), self.k, [mp(s_) for s_ in self.sims], probs, dens, extra)


@lru_cache(maxsize=256)
def _comps(k_: int, n_atoms: int) -> tuple:
    """(counts, exact multinomial coefficient) for k draws over ``n_atoms`` atoms."""
    fact = [math.factorial(c) for c in range(k_ + 1)]
    out = []
    for cnt in compositions(k_, n_atoms):
        coef = fact[k_]
        for c in cnt:
            coef //= fact[c]
        out.append((cnt, coef))
    return tuple(out)


def expect(L: Any, law: Law, fn: Callable[[tuple], Any]) -> Any:
    """E fn(counts) over the k i.i.d. draws: the exact multinomial sum (zero-probability atoms skipped)."""
    total = 0 * law.probs[0]
    one = L.mpf(1) if L is mpmath else 1.0
    for cnt, coef in _comps(law.k, len(law.probs)):
        if any(c and p_ == 0 for c, p_ in zip(cnt, law.probs)):
            continue
        pr = coef * one
        for c, p_ in zip(cnt, law.probs):
            if c:
                pr *= p_**c
        total += pr * fn(cnt)
    return total


def mu(L: Any, law: Law) -> Any:
    """μ = E e^{s/τ} (log-sum-exp free: callers with τ ≈ 1e-3 reach here only in mpmath)."""
    return sum(p_ * L.exp(s_ / law.tau) for p_, s_ in zip(law.probs, law.sims))


def mu_hat(L: Any, law: Law, cnt: tuple) -> Any:
    """μ̂ = k⁻¹ Σ_j e^{s(ξ_j)/τ} for the draw with atom counts ``cnt``."""
    return sum(c * L.exp(s_ / law.tau) for c, s_ in zip(cnt, law.sims) if c) / law.k


def bias_gap(L: Any, law: Law) -> Any:
    """log μ − E log μ̂ (one anchor's CE − R̃, (31))."""
    m_ = mu(L, law)
    return L.log(m_) - expect(L, law, lambda cnt: L.log(mu_hat(L, law, cnt)))


def var_w(L: Any, law: Law) -> Any:
    m_ = mu(L, law)
    return sum(p_ * (L.exp(s_ / law.tau) - m_) ** 2 for p_, s_ in zip(law.probs, law.sims))


def law_check(
    claim: Callable[[Any, Law], tuple[Any, Any]],
    reason: str,
    *,
    k_min: int = 1,
    with_density: bool = False,
    zero_density: bool = False,
    extra: Callable[[random.Random, float], dict] | None = None,
    tau_range: tuple[float, float] = (float(TAU_MIN), float(TAU_MAX)),
    k_cap: int | None = None,
    seeds: tuple[Law, ...] = (),
) -> Callable[[Step, dict], StepResult]:
    """A checker for ``small ≤ big`` over exact finite laws (see the module docstring).

    ``seeds`` are laws tried first (known near-extremal laws: the search then refines around them).
    """

    def check(step: Step, opts: dict) -> StepResult:
        rng = random.Random(f"{opts['seed']}:{step.name}")
        kc = int(k_cap or opts["k_cap"])
        # one trial is a full multinomial enumeration (≈ 0.1–0.5 ms): the budget is capped (LAW_CAP, or
        # IDENTITY_CAP for an identity, which the standard checker spot-checks at a handful of points);
        # ``law_trials`` in the options overrides the cap
        cap = int(opts.get("law_trials", IDENTITY_CAP if step.kind == "identity" else LAW_CAP))
        budget = max(min(int(opts["trials"]), cap), 200)
        lo_t, hi_t = tau_range

        def sample() -> Law:
            na = rng.choice((2, 2, 3))
            sims = [rng.choice((-1.0, 1.0, 0.0)) if rng.random() < 0.5 else rng.uniform(-1, 1) for _ in range(na)]
            w_ = [rng.expovariate(1.0) ** 3 + 1e-12 for _ in range(na)]
            probs = [v_ / sum(w_) for v_ in w_]
            tv = math.exp(rng.uniform(math.log(lo_t), math.log(hi_t)))
            if rng.random() < 0.2:
                tv = rng.choice([v_ for v_ in (lo_t, 0.1, 0.25, 0.5, 1.0, 2.0, hi_t) if lo_t <= v_ <= hi_t])
            kv = max(k_min, round(math.exp(rng.uniform(math.log(k_min), math.log(max(kc, k_min))))))
            dens = None
            if with_density:
                nu = [rng.expovariate(1.0) ** 3 + 1e-12 for _ in range(na)]
                if zero_density and rng.random() < 0.5:  # ν ≪ π with dν/dπ = 0 on an atom of π
                    nu[rng.randrange(na)] = 0.0
                nu = [v_ / sum(nu) for v_ in nu]
                dens = [n_ / p_ for n_, p_ in zip(nu, probs)]
            return Law(tv, kv, sims, probs, dens, extra(rng, tv) if extra else {})

        def evaluate(law: Law, L: Any = math) -> tuple[Any, Any]:
            if L is math:
                try:
                    sm, bg = claim(math, law)
                    return float(sm), float(bg)
                except (OverflowError, ZeroDivisionError):
                    with mpmath.workdps(30):
                        sm, bg = claim(mpmath, law.at(mpmath))
                        return float(sm), float(bg)
            return claim(mpmath, law.at(mpmath))

        worst: list[tuple[float, Law]] = []
        state = {"n": 0, "cx": None, "min_margin": math.inf, "noise": 0}

        def score(law: Law) -> float:
            state["n"] += 1
            try:
                sm, bg = evaluate(law)
            except (ValueError, ZeroDivisionError, OverflowError):
                return -math.inf
            if math.isnan(sm) or math.isnan(bg):
                return -math.inf
            tiny = abs(sm - bg) <= 1e-9 * max(1.0, abs(sm), abs(bg))
            if sm > bg and state["cx"] is None and tiny and state["noise"] >= 20:
                state["noise"] += 1  # float rounding of a tight claim: enough of them confirmed at 50 digits
            elif sm > bg and state["cx"] is None:
                with mpmath.workdps(opts["dps"]):
                    sm_, bg_ = evaluate(law, mpmath)
                    tol = mpmath.mpf(10) ** (10 - opts["dps"]) * max(1, abs(sm_), abs(bg_))
                    if sm_ - bg_ > tol:
                        state["cx"] = {
                            "tau": repr(law.tau),
                            "k": str(law.k),
                            "s": repr(law.sims),
                            "p": repr(law.probs),
                            **({"w": repr(law.dens)} if law.dens is not None else {}),
                            **{key: repr(v_) for key, v_ in law.extra.items()},
                            "lhs": mpmath.nstr(sm_, 20),
                            "rhs": mpmath.nstr(bg_, 20),
                        }
                    else:
                        state["noise"] += 1
                        sm, bg = float(sm_), float(bg_)
            state["min_margin"] = min(state["min_margin"], bg - sm)
            ratio = sm / bg if bg > 1e-12 else (1.0 if sm - bg <= 1e-12 else math.inf)
            worst.append((ratio, law))
            if len(worst) > 64:
                worst.sort(key=lambda w_: -w_[0])
                del worst[16:]
            return ratio

        for lw in seeds:
            if state["cx"] is None:
                score(lw)
        while state["n"] < int(0.7 * budget) and state["cx"] is None:
            score(sample())
        worst.sort(key=lambda w_: -w_[0])
        starts = [lw for _, lw in worst[:16]]
        while state["n"] < budget and state["cx"] is None and starts:
            for lw in list(starts):
                sc = rng.choice((0.3, 0.1, 0.01))
                sims = [min(1.0, max(-1.0, s_ + rng.gauss(0, sc))) for s_ in lw.sims]
                probs = [max(1e-12, p_ * math.exp(rng.gauss(0, sc))) for p_ in lw.probs]
                probs = [p_ / sum(probs) for p_ in probs]
                dens = None
                if lw.dens is not None:
                    nu = [
                        0.0 if w_ == 0 else max(1e-12, w_ * p_ * math.exp(rng.gauss(0, sc)))
                        for w_, p_ in zip(lw.dens, probs)
                    ]
                    nu = [v_ / sum(nu) for v_ in nu]
                    dens = [n_ / p_ for n_, p_ in zip(nu, probs)]
                tv = min(hi_t, max(lo_t, lw.tau * math.exp(rng.gauss(0, sc))))
                kv = min(kc, max(k_min, lw.k + rng.choice((-1, 0, 0, 1))))
                ex = {key: v_ * math.exp(rng.gauss(0, sc)) for key, v_ in lw.extra.items()}
                score(Law(tv, kv, sims, probs, dens, ex))
                if state["n"] >= budget or state["cx"] is not None:
                    break
        worst.sort(key=lambda w_: -w_[0])
        best = None
        if worst and worst[0][0] not in (math.inf, -math.inf):
            with mpmath.workdps(opts["dps"]):
                sm_, bg_ = evaluate(worst[0][1], mpmath)
                best = float(sm_ / bg_) if bg_ > 1e-12 else worst[0][0]
        where = ""
        if worst:
            lw = worst[0][1]
            where = f" at τ={lw.tau:.4g}, k={lw.k}, s={[round(s_, 4) for s_ in lw.sims]}"
        ev = (
            (f"worst ratio lhs/rhs = {best:.9g}" if best is not None else "no ratio defined")
            + f", min margin {state['min_margin']:.3g}{where}"
            + (f"; {state['noise']} float-only violations (none at {opts['dps']} digits)" if state["noise"] else "")
        )
        method = (
            f"exact finite laws (multinomial enumeration): {state['n']} laws (cap {cap}), τ ∈ [{lo_t:g}, {hi_t:g}], "
            f"k ∈ [{k_min}, {kc}]; {reason}"
        )
        verdict = Verdict.REFUTED if state["cx"] is not None else Verdict.VERIFIED
        return StepResult(
            step.name,
            step.kind,
            verdict,
            method,
            ev,
            worst_ratio=best,
            trials=state["n"],
            counterexample=state["cx"],
        )

    check.claim = claim  # type: ignore[attr-defined]  # lets a test plant a wrong version of the same claim
    return check


def monotone_from(end: Any, derivative: Any, var: Any, side: str = "left") -> Callable:
    """Checker for ``gap(var) ≥ 0`` from ``gap(end) = 0`` and the sign of ``gap' = derivative``.

    The sign is read from SymPy's assumptions or, failing that, certified by interval arithmetic on the
    step's domain.

    ``side="left"``: the domain starts at ``end`` and ``gap' ≥ 0`` to its right; ``side="right"``: the
    domain ends at ``end`` and ``gap' ≤ 0`` to its left. SymPy must reduce ``gap(end)`` to 0, match
    ``derivative`` with the derivative of the gap, and read its sign from its assumptions after the
    substitution ``var = end ± v`` with ``v > 0``. The falsifier then runs for the record.
    """
    import sympy as sp

    from ..checks import _sides, certify_nonnegative, falsify

    def check(step: Step, opts: dict) -> StepResult:
        small, big, _ = _sides(step)
        gap = big - small
        base_ok = sp.simplify(gap.subs(var, end)) == 0
        same = sp.simplify(sp.diff(gap, var) - derivative) == 0
        dmy = sp.Dummy("v", positive=True)
        signed = derivative if side == "left" else -derivative
        shifted = signed.subs(var, end + dmy if side == "left" else end - dmy)
        sign_ok = bool(sp.simplify(shifted).is_nonnegative)
        if not sign_ok:  # SymPy's assumptions do not see it: certified interval arithmetic over the domain
            sign_ok = certify_nonnegative(signed, step.domain, budget=opts["box_budget"]).status == "proved"
        parts = [f"gap({end}) = 0: {base_ok}", f"gap' = {derivative}: {same}", f"sign of gap' certain: {sign_ok}"]
        fz = falsify(step, opts)
        proved = base_ok and same and sign_ok
        if fz.counterexample is not None:
            verdict = Verdict.REFUTED
        else:
            verdict = Verdict.PROVED if proved else Verdict.VERIFIED
        return StepResult(
            step.name,
            step.kind,
            verdict,
            f"monotone from the {side} end ({'; '.join(parts)}); falsifier: {fz.trials} trials",
            fz.evidence,
            worst_ratio=fz.worst_ratio,
            trials=fz.trials,
            counterexample=fz.counterexample,
            symbolic=proved,
        )

    return check


def factored_certificate(cert: Any) -> Callable:
    """Checker for ``small ≤ big`` given ``cert``, a factored form of the gap: SymPy must reduce
    ``gap − cert`` to 0, and ``cert ≥ 0`` must be certified by interval arithmetic on the step's domain
    (a product of factors each of one sign encloses without the cancellation the gap itself suffers).
    The falsifier then runs for the record."""
    import sympy as sp

    from ..checks import _sides, certify_nonnegative, falsify

    def check(step: Step, opts: dict) -> StepResult:
        small, big, _ = _sides(step)
        same = sp.simplify(big - small - cert) == 0
        cert_ok = certify_nonnegative(cert, step.domain, budget=opts["box_budget"]).status == "proved"
        fz = falsify(step, opts)
        proved = same and cert_ok
        if fz.counterexample is not None:
            verdict = Verdict.REFUTED
        else:
            verdict = Verdict.PROVED if proved else Verdict.VERIFIED
        return StepResult(
            step.name,
            step.kind,
            verdict,
            f"factored gap (SymPy: gap = certificate: {same}; interval: certificate ≥ 0: {cert_ok}); "
            f"falsifier: {fz.trials} trials",
            fz.evidence,
            worst_ratio=fz.worst_ratio,
            trials=fz.trials,
            counterexample=fz.counterexample,
            certified=proved,
        )

    return check
