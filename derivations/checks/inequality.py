"""Inequality checker: symbolic reduction where SymPy can (assumptions, or a supplied certificate
checked as an identity), else certified interval arithmetic over the box; and in every case the
falsifier, whose worst ratio is part of the record.

Every sign the symbolic route relies on comes from ``signs.certain_nonnegative`` (constants signed by
Arb, never by SymPy's ``evalf``), and every symbolic call runs under the claim's ``Budget``
(``budget.run_symbolic``): a call that runs out is undecided and the interval stage still runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import Step, StepResult, Verdict, covers, free_names
from .budget import Budget, Spent, default_budget, run_symbolic
from .falsifier import falsify
from .identity import expand_then_simplify
from .interval import certify_nonnegative
from .prescreen import assumption_witness
from .reentry import prove_by_routes
from .sampling import _sides, symbolic_cover
from .signs import certain_nonnegative
from .verdicts import by_verdict, refuted

#: trials of the falsifier's probe before the proof stages (``check`` only; its seeds, corners and 60% of it
#: random points): the false claims of simple kinds fail on a set that many points hit, and the probe costs
#: little beside a proof attempt
PROBE = 2000


def claim_clock(opts: Mapping[str, Any]) -> Any:
    """The running budget of the claim being checked (``opts["clock"]``, set by ``check_step``), or a
    fresh one from ``opts["budget"]`` (default ``budget.default_budget()``)."""
    clock = opts.get("clock")
    if clock is None:
        b = opts.get("budget")
        clock = (b if isinstance(b, Budget) else default_budget()).started()
    return clock


def _interval_cover(small: sp.Expr, big: sp.Expr, interval: Any) -> dict[str, tuple[str, str]]:
    """What an interval proof covers: its box, and any symbol of the claim that the gap does not contain
    (it cancelled out: the box holds for any value of it)."""
    free = {str(x_) for x_ in free_names(small) | free_names(big)} - set(interval.covered or {})
    return {**{x_: ("-oo", "oo") for x_ in sorted(free)}, **(interval.covered or {})}


def _fmt(point: dict[str, str]) -> str:
    """A short form of a point (at most four coordinates, 12 characters each)."""
    items = [f"{k_} = {v_[:12]}" for k_, v_ in point.items()]
    return ", ".join(items[:4]) + (", …" if len(items) > 4 else "")


def check_inequality(step: Step, opts: Mapping[str, Any]) -> StepResult:
    small, big, strict = _sides(step)
    gap = big - small
    methods: list[str] = []
    symbolic_ok = certified = False
    evidence: list[str] = []

    clock = claim_clock(opts)
    mem = clock.budget.memory_mb

    def symbolic(stage: str, fn: Any, *args: Any, share: float = 0.5) -> Any:
        # at most half of what the claim has left: the interval stage and the falsifier still need time
        out = run_symbolic(fn, *args, deadline=clock.deadline(share), memory=mem, stage=stage)
        if isinstance(out, Spent):
            evidence.append(str(out))
        return out

    def interval_stage() -> Any:
        return certify_nonnegative(
            gap,
            step.domain,
            strict=strict,
            budget=opts["box_budget"],
            max_dims=opts["max_dims"],
            clock=clock,
        )

    # under a per-claim time limit (``check``) the interval stage, cheap and often decisive, runs before
    # simplify (often the most expensive call, rarely decisive where intervals are not); without one
    # (``verify``) the symbolic route comes first, as it always has
    limited = clock.budget.claim_seconds is not None
    interval = None

    def falsifier(quick: bool, share: float = 1.0, trials: int | None = None) -> Any:
        # quick: the seeds and the random phase only (``falsify``'s opts["pattern_search"] False)
        left = clock.left()
        run_opts = {**opts, "pattern_search": False} if quick else dict(opts)
        if trials is not None:
            run_opts["trials"] = min(int(opts["trials"]), trials)
        return run_symbolic(
            falsify,
            step,
            run_opts,
            deadline=None if left is None else max(left * share, 0.05),
            memory=None,  # no memory cap: it may JIT-compile, and LLVM aborts on a failed allocation
            stage="falsifier",
        )

    # under a per-claim limit, where the assumptions do not settle the sign, a probe of the falsifier (PROBE
    # trials: its seeds, the box's corners, random points; at most a fifth of the claim's time) runs before the
    # proof stages: a counterexample it finds (gate-confirmed) ends the check, and the proof stages, which
    # cannot prove a false claim, are spared (their failure on a false claim is the slowest path of a
    # check: the box budget runs out). Found nothing, it is discarded and the falsifier runs after them.
    fz = None
    found = False

    # (a) symbolic reduction
    if step.certificate is not None:
        cert = sp.sympify(step.certificate)
        same = symbolic("certificate = gap (simplify)", expand_then_simplify, gap - cert)
        same = not isinstance(same, Spent) and same == 0
        sign_ok = bool(symbolic("certificate sign", certain_nonnegative, cert, strict)) if same else False
        if same and sign_ok:
            symbolic_ok = True
            methods.append("symbolic: gap = certificate, certificate ≥ 0 by SymPy's structural assumptions")
        else:
            evidence.append("certificate rejected" + ("" if same else " (not equal to the gap)"))
    if not symbolic_ok:
        try:
            # the assumptions may already settle the gap as written (a product of factors ≥ 0, as a
            # factored certificate is): then simplify (often the most expensive call here) is spared
            sign = symbolic("sign of the gap", certain_nonnegative, gap, strict, share=0.25 if limited else 0.5)
            if not sign:
                # where the claim fails at a point the symbols' assumptions allow (outside the stated
                # domain), SymPy's sign deduction cannot succeed: simplify is spared (prescreen.py)
                witness = assumption_witness([small, big], "<" if strict else "<=", step.name, step.domain)
                if witness is not None:
                    evidence.append(f"no symbolic sign: the claim fails at {_fmt(witness)}, allowed by the assumptions")
                if limited:
                    probe = falsifier(quick=True, share=0.2, trials=PROBE)
                    found = not isinstance(probe, Spent) and probe.counterexample is not None
                    fz = probe if found else None
                if limited and not found:
                    interval = interval_stage()
                settled = found or (interval is not None and interval.status in ("proved", "refuted"))
                if witness is None and not settled and not clock.spent(0.8):
                    g = symbolic("simplify of the gap", sp.simplify, gap)
                    sign = (
                        False
                        if isinstance(g, Spent)
                        else symbolic("sign of the simplified gap", certain_nonnegative, g, strict)
                    )
        except Exception:
            sign = None
        if sign:
            symbolic_ok = True
            methods.append("symbolic: SymPy's structural assumptions give gap ≥ 0 (constants signed by Arb)")

    # (b) certified interval arithmetic over the box; also where a symbolic proof covers less than the
    # stated domain (a symbol declared nonnegative on a range reaching below 0): the box may cover it all
    narrow = symbolic_ok and not covers(symbolic_cover([small, big]), step.domain, free_names(small) | free_names(big))
    if (not symbolic_ok or narrow) and not found:
        if interval is None:
            interval = interval_stage()
        if interval.status == "proved":
            certified = True
            if narrow:  # the box covers the stated domain: the interval proof is the one recorded
                symbolic_ok = False
                methods.clear()
            methods.append(
                f"interval arithmetic: certified on {interval.boxes} box{'' if interval.boxes == 1 else 'es'}"
            )
        elif narrow:
            interval = None  # the symbolic proof stands (on what the assumptions allow)
        elif interval.status == "refuted":
            pass
        else:
            evidence.append(f"interval: {interval.reason}")
    elif interval is not None and interval.status != "proved":
        interval = None  # the symbolic proof stands; an undecided early interval attempt is not evidence

    # (b') the proof routes (sums over every k, unbounded ranges, touching points), in their registry's order
    route = None
    if not (symbolic_ok or certified) and (interval is None or interval.status != "refuted") and not found:

        def run_route(stage: str, fn: Any, *a: Any) -> Any:
            # each route under its own cap (opts["route_seconds"], default 4 s) within the claim's budget
            cap = float(opts.get("route_seconds", 4.0))
            left = clock.deadline(0.7)
            out = run_symbolic(fn, *a, deadline=cap if left is None else min(cap, left), memory=mem, stage=stage)
            if isinstance(out, Spent):
                evidence.append(str(out))
                return None
            return out

        route, notes = prove_by_routes(step, strict, opts, run_route)
        if route is not None:
            certified = True
            methods.append(f"{route.route} route: {route.method}")
            evidence.append(f"reduction: {route.reduction}")
        else:
            evidence += notes

    # (c) falsifier, always (its worst ratio is part of the record), within what the claim has left. Under a
    # per-claim limit (``check``) a claim proved gets the quick part only: the pattern search climbs toward a
    # violation the proof excludes, so its one product would be a sharper worst ratio
    quick = limited and (symbolic_ok or certified)
    if not found:
        fz = falsifier(quick=quick)
    if isinstance(fz, Spent):
        evidence.append(str(fz))
        verdict = Verdict.PROVED if (symbolic_ok or certified) else Verdict.UNDECIDED
        return by_verdict(
            verdict,
            step,
            method="; ".join([*methods, "falsifier: time budget spent"]),
            evidence="; ".join(evidence),
            symbolic=symbolic_ok,
            certified=certified,
            cover=symbolic_cover([small, big])
            if symbolic_ok
            else route.covered
            if route is not None
            else _interval_cover(small, big, interval)
            if certified
            else None,
        )
    methods.append(f"falsifier: {fz.trials} trials" + (" (random, no pattern search: already proved)" if quick else ""))
    evidence.append(fz.evidence)

    if fz.counterexample is not None:
        return refuted(
            step,
            method="; ".join(methods),
            evidence="; ".join(evidence),
            worst_ratio=fz.worst_ratio,
            trials=fz.trials,
            counterexample=fz.counterexample,
            attacked=fz.attacked,
        )
    if interval is not None and interval.status == "refuted":
        # branch and bound only proposes the point: the refutation gate decides there (exact point, Arb
        # enclosures of both sides at rising precision); unconfirmed, the step is not refuted
        from .refute import confirm as gate

        try:
            gx = gate(step.lhs, step.rhs, step.relation, interval.counterexample or {}, domain=step.domain)
        except ValueError:
            gx = None
        if gx is not None:
            return refuted(
                step,
                method="interval subdivision found a violating point (confirmed by the Arb gate)",
                evidence=interval.reason,
                worst_ratio=fz.worst_ratio,
                trials=fz.trials,
                counterexample=gx.as_dict(),
            )
        evidence.append(f"interval: a proposed violation at {interval.counterexample} not confirmed by the Arb gate")
    verdict = Verdict.PROVED if (symbolic_ok or certified) else Verdict.VERIFIED
    covered = None
    if symbolic_ok:  # every symbol of the claim, also one the gap cancels (it is then unconstrained)
        covered = symbolic_cover([small, big])
    elif route is not None:
        covered = route.covered
    elif certified:
        covered = _interval_cover(small, big, interval)
    if fz.trials == 0 and verdict is Verdict.VERIFIED:
        verdict = Verdict.UNDECIDED
    return by_verdict(
        verdict,
        step,
        method="; ".join(methods),
        evidence="; ".join(evidence),
        worst_ratio=fz.worst_ratio,
        trials=fz.trials,
        symbolic=symbolic_ok,
        certified=certified,
        cover=covered,
        attacked=fz.attacked,
    )
