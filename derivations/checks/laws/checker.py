"""The checker of a claim over exact finite laws (``law_check``): the laws of ``LawSpace`` searched by
``search``, in floats (batches by ``batch_evaluator``) and confirmed at full precision, then for a claim for
every k the two-atom laws beyond ``k_cap`` (``_large_k_phase``, sums over binomial windows beyond ``EXACT_K``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import mpmath

from ...ledger import Step, StepResult
from ...symbols import TAU_MAX, TAU_MIN
from .batches import batch_evaluator
from .large_k import EXACT_K, EXACT_WINDOW, TAIL, window_size, windowed
from .law import Law
from .samplers import LawSpace
from .search_loop import SearchOutcome, search, search_result

#: largest number of exact laws per inequality / per identity (see ``law_check``)
LAW_CAP = 20_000
IDENTITY_CAP = 2_000
#: most two-atom laws per step beyond k_cap (``law_check(large_k=…)``): each costs O(k)
LARGE_K_LAWS = 500


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
    cap: int | None = LAW_CAP,
    large_k: int | None = None,
    k_arrays: bool = False,
) -> Callable[[Step, dict], StepResult]:
    """A checker for ``small ≤ big`` over exact finite laws: ``claim(L, law) -> (small, big)`` in floats
    (``L = math``) and at full precision (``L = mpmath``); a float overflow (τ near 1e-3 makes e^{1/τ} ≈
    e^{1000}) falls back to mpmath at 30 digits.

    Laws searched: 2 or 3 atoms (similarities snapped to ±1 or 0 half of the time: the extremal laws),
    skewed Dirichlet weights, τ log-uniform on ``tau_range`` (a fifth of the time a landmark value), k
    log-uniform in [k_min, k_cap]; ``seeds`` first; then local search around the worst laws. Budget:
    ``trials`` laws, at most ``cap`` per inequality (``None``: no cap) and ``IDENTITY_CAP`` per identity.

    ``large_k`` (up to ``K_MAX`` = 10⁹): a claim for every k is also attacked beyond ``k_cap``: a tenth of
    the budget (at most ``LARGE_K_LAWS``) goes to two-atom laws with k log-uniform in (k_cap, large_k].
    Their expectations are exact sums over the k + 1 compositions up to k = ``EXACT_K`` and, beyond it,
    sums over the binomial window of ``binomial_window`` (O(√k) compositions; neglected mass ≤ 1e-30 by
    Chernoff's bound in floats, ≤ 10^{−(dps+10)} in the full-precision confirmation, which stays a
    confirmation: a violation is refuted only beyond 10^{10−dps} relative, 10^{20} above what the
    neglected mass can move an expectation of |f| ≤ 1). The verdict's ``attacked`` gives k up to
    ``large_k``, with ``k_two_atoms`` and ``k_binomial_window`` (the k of truncated sums), and the method
    says how. A float-rounding-sized violation or the worst point at a window wider than ``EXACT_WINDOW``
    compositions at ``dps`` digits is not re-summed at full precision (``search(exact_cheap=…)``).

    ``k_arrays``: ``claim(ARRAY, batch)`` also takes a batch whose ``k`` is an array (the windowed two-atom
    laws of a block, ``_groups``), so the large-k phase is one batch call instead of one per law.
    """

    def check(step: Step, opts: dict) -> StepResult:
        kc = int(k_cap or opts["k_cap"])
        default_cap = IDENTITY_CAP if step.kind == "identity" else cap
        lim = opts.get("law_trials", default_cap)
        budget = max(int(opts["trials"]) if lim is None else min(int(opts["trials"]), int(lim)), 200)
        space = LawSpace(k_min, kc, tau_range, with_density, zero_density, extra)
        floats = _LawEvaluator(claim)
        batch = None
        if opts.get("vectorise", True):
            batch = batch_evaluator(claim, floats.one, k_arrays)
        # the last run's evaluator (a test reads ``_batch.off``); underscored: not part of the cache key
        check._batch = batch  # type: ignore[attr-defined]

        n_large = min(budget // 10, LARGE_K_LAWS) if large_k and large_k > kc and step.kind != "identity" else 0
        out = search(
            step,
            opts,
            budget=budget - n_large,
            sample=space.sample,
            evaluate=floats.evaluate,
            describe=_describe,
            perturb=space.perturb,
            seeds=seeds,
            evaluate_batch=batch,
            sample_block=space.sample_block,
            perturb_block=space.perturb_block,
        )
        lo_t, hi_t = tau_range
        method = (
            f"exact finite laws (multinomial enumeration): {out.trials} laws"
            + (f" (cap {lim})" if lim is not None else "")
            + f", τ ∈ [{lo_t:g}, {hi_t:g}], k ∈ [{k_min}, {kc}]"
        )
        attacked = {
            "tau": (repr(lo_t), repr(hi_t)),
            "k": (str(k_min), str(kc)),
            "atoms": ("2", "3"),
            "s": ("-1", "1"),
        }
        if n_large and out.counterexample is None:
            out, method = _large_k_phase(step, opts, space, floats, batch, large_k, n_large, out, method, attacked)
        return search_result(step, out, f"{method}; {reason}", attacked)

    check.claim = claim  # type: ignore[attr-defined]  # lets a test plant a wrong version of the same claim
    check.law_claim = claim  # type: ignore[attr-defined]  # (bias replaces ``claim`` by its own form)
    check._batch = None  # type: ignore[attr-defined]
    return check


class _LawEvaluator:
    """``search``'s ``evaluate`` for a law claim: at full precision ``claim(mpmath, law.at(mpmath))``; in
    floats ``claim(math, law)``, redone at 30 digits where a double overflows (e^{1/τ} at τ near 1e-3) unless
    the law's binomial window is too wide for a 30-digit pass: such a law is counted (``unscored``), not
    scored."""

    def __init__(self, claim: Callable[[Any, Law], tuple[Any, Any]]) -> None:
        self.claim = claim
        self.unscored = 0

    def evaluate(self, law: Law, exact: bool) -> tuple[Any, Any]:
        claim = self.claim
        if exact:
            return claim(mpmath, law.at(mpmath))
        try:
            return claim(math, law)
        except (OverflowError, ZeroDivisionError):
            if windowed(law) and window_size(law, 30) > EXACT_WINDOW:
                # e^{1/τ} overflows a double and the window is too wide for a 30-digit float pass (seconds):
                # the law is counted, not scored (the long-double batch pass scores most such laws first)
                self.unscored += 1
                raise ValueError("float pass overflows; window too wide for 30 digits") from None
            with mpmath.workdps(30):
                sm, bg = claim(mpmath, law.at(mpmath))
                return float(sm), float(bg)

    def one(self, law: Law) -> tuple[Any, Any]:
        """The float pass of one law (the batch evaluator's reference)."""
        return self.evaluate(law, False)


def _describe(law: Law) -> dict[str, str]:
    return law.describe()


def _large_k_phase(
    step: Step,
    opts: dict,
    space: LawSpace,
    floats: _LawEvaluator,
    batch: Callable[[list], tuple[Any, Any]] | None,
    large_k: int,
    n_large: int,
    out: SearchOutcome,
    method: str,
    attacked: dict[str, tuple[str, str]],
) -> tuple[SearchOutcome, str]:
    """``law_check``'s second phase for a claim for every k: ``n_large`` two-atom laws with k log-uniform in
    (kc, large_k] (binomial windows beyond ``EXACT_K``), searched with their own seed; returns the outcome of
    both phases (the worse one's ratio and evidence first) and the method extended; ``attacked`` gains the k
    ranges of the phase."""
    kc = space.kc
    big = search(
        step,
        {**opts, "seed": f"{opts['seed']}:large-k"},
        budget=n_large,
        sample=lambda rng: space.sample_large(rng, large_k),
        evaluate=floats.evaluate,
        describe=_describe,
        noise_cap=5,  # equality laws (constant W) are common here and cost O(√k) at 50 digits
        # at k ~ 1e9 a 1/k bound and its gap both fall below ZERO without being tight: no evidence
        # either way (ratio 0), not the equality-law ratio 1 (a violation is still confirmed as always)
        zero_ratio=0.0,
        evaluate_batch=batch,
        exact_cheap=lambda lw: window_size(lw, int(opts["dps"])) <= EXACT_WINDOW,
        sample_block=lambda gen, rng, n: space.sample_large_block(gen, rng, n, large_k),
    )
    method += f"; then {big.trials} two-atom laws with k log-uniform in [{kc + 1}, {large_k}]"
    if large_k > EXACT_K:
        method += (
            f" (exact binomial sums up to k = {EXACT_K}; beyond, truncated binomial sums over the "
            f"window of ±~12 sd: neglected mass ≤ {TAIL:g} by Chernoff's bound e^{{−k D(a‖p)}}, "
            f"≤ 1e-{int(opts['dps']) + 10} in the {int(opts['dps'])}-digit confirmation)"
        )
    if floats.unscored:
        method += (
            f"; {floats.unscored} of them not scored (float overflow at τ near 1e-3 and a window wider than "
            f"{EXACT_WINDOW} compositions for the 30-digit float pass)"
        )
    attacked["k"] = (str(space.k_min), str(large_k))
    attacked["k_two_atoms"] = (str(kc + 1), str(large_k))
    if large_k > EXACT_K:
        attacked["k_binomial_window"] = (str(max(kc, EXACT_K) + 1), str(large_k))
    if big.counterexample is not None or (big.worst_ratio or -math.inf) > (out.worst_ratio or -math.inf):
        out = SearchOutcome(
            out.trials + big.trials,
            big.worst_ratio,
            f"{big.evidence} (large k); {out.evidence}",
            big.counterexample,
            big.worst_point,
        )
    else:
        out = SearchOutcome(
            out.trials + big.trials,
            out.worst_ratio,
            f"{out.evidence}; large k: {big.evidence}",
            None,
            out.worst_point,
        )
    return out, method
