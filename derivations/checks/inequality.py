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
    """``small ≤ big`` (or ``<``) on the step's domain, in stages sharing one clock and one record
    (``_InequalityCheck``): (a) a symbolic reduction (a supplied certificate, or SymPy's sign of the gap, after
    simplify if need be); (b) certified interval arithmetic over the box; (b') the proof routes; (c) the
    falsifier, always (a gate-confirmed counterexample refutes). Under a per-claim limit (``check``) the
    interval stage and a falsifier probe come before simplify."""
    run = _InequalityCheck(step, opts)
    run.symbolic_stage()
    run.interval_proof()
    run.routes()
    return run.conclude()


class _InequalityCheck:
    """One ``check_inequality``: the claim's sides and gap, the clock, and what the stages found: the methods
    and evidence so far, ``symbolic_ok`` / ``certified`` (a symbolic or a certified proof), the interval
    outcome, the route's, the falsifier's (``fz``) and whether its early probe refuted (``found``)."""

    def __init__(self, step: Step, opts: Mapping[str, Any]) -> None:
        self.step, self.opts = step, opts
        self.small, self.big, self.strict = _sides(step)
        self.gap = self.big - self.small
        self.methods: list[str] = []
        self.symbolic_ok = self.certified = False
        self.evidence: list[str] = []
        self.clock = claim_clock(opts)
        self.mem = self.clock.budget.memory_mb
        # under a per-claim time limit (``check``) the interval stage, cheap and often decisive, runs before
        # simplify (often the most expensive call, rarely decisive where intervals are not); without one
        # (``verify``) the symbolic route comes first, as it always has
        self.limited = self.clock.budget.claim_seconds is not None
        self.interval: Any = None
        # under a per-claim limit, where the assumptions do not settle the sign, a probe of the falsifier (PROBE
        # trials: its seeds, the box's corners, random points; at most a fifth of the claim's time) runs before
        # the proof stages: a counterexample it finds (gate-confirmed) ends the check, and the proof stages,
        # which cannot prove a false claim, are spared (their failure on a false claim is the slowest path of a
        # check: the box budget runs out). Found nothing, it is discarded and the falsifier runs after them.
        self.fz: Any = None
        self.found = False
        self.route: Any = None

    def symbolic(self, stage: str, fn: Any, *args: Any, share: float = 0.5) -> Any:
        # at most half of what the claim has left: the interval stage and the falsifier still need time
        out = run_symbolic(fn, *args, deadline=self.clock.deadline(share), memory=self.mem, stage=stage)
        if isinstance(out, Spent):
            self.evidence.append(str(out))
        return out

    def interval_stage(self) -> Any:
        return certify_nonnegative(
            self.gap,
            self.step.domain,
            strict=self.strict,
            budget=self.opts["box_budget"],
            max_dims=self.opts["max_dims"],
            clock=self.clock,
        )

    def falsifier(self, quick: bool, share: float = 1.0, trials: int | None = None) -> Any:
        # quick: the seeds and the random phase only (``falsify``'s opts["pattern_search"] False)
        opts = self.opts
        left = self.clock.left()
        run_opts = {**opts, "pattern_search": False} if quick else dict(opts)
        if trials is not None:
            run_opts["trials"] = min(int(opts["trials"]), trials)
        return run_symbolic(
            falsify,
            self.step,
            run_opts,
            deadline=None if left is None else max(left * share, 0.05),
            memory=None,  # no memory cap: it may JIT-compile, and LLVM aborts on a failed allocation
            stage="falsifier",
        )

    def symbolic_stage(self) -> None:
        """(a) symbolic reduction: a supplied certificate (equal to the gap, ≥ 0 by SymPy's assumptions), else
        the sign of the gap as written, else (no witness against it, nothing settled, time left) simplified.
        Under a per-claim limit the falsifier's probe and the interval stage come before simplify."""
        step, gap, strict, limited = self.step, self.gap, self.strict, self.limited
        symbolic, evidence, methods = self.symbolic, self.evidence, self.methods
        if step.certificate is not None:
            cert = sp.sympify(step.certificate)
            same = symbolic("certificate = gap (simplify)", expand_then_simplify, gap - cert)
            same = not isinstance(same, Spent) and same == 0
            sign_ok = bool(symbolic("certificate sign", certain_nonnegative, cert, strict)) if same else False
            if same and sign_ok:
                self.symbolic_ok = True
                methods.append("symbolic: gap = certificate, certificate ≥ 0 by SymPy's structural assumptions")
            else:
                evidence.append("certificate rejected" + ("" if same else " (not equal to the gap)"))
        if self.symbolic_ok:
            return
        try:
            # the assumptions may already settle the gap as written (a product of factors ≥ 0, as a
            # factored certificate is): then simplify (often the most expensive call here) is spared
            sign = symbolic("sign of the gap", certain_nonnegative, gap, strict, share=0.25 if limited else 0.5)
            if not sign:
                # where the claim fails at a point the symbols' assumptions allow (outside the stated
                # domain), SymPy's sign deduction cannot succeed: simplify is spared (prescreen.py)
                witness = assumption_witness([self.small, self.big], "<" if strict else "<=", step.name, step.domain)
                if witness is not None:
                    evidence.append(f"no symbolic sign: the claim fails at {_fmt(witness)}, allowed by the assumptions")
                if limited:
                    probe = self.falsifier(quick=True, share=0.2, trials=PROBE)
                    self.found = not isinstance(probe, Spent) and probe.counterexample is not None
                    self.fz = probe if self.found else None
                if limited and not self.found:
                    self.interval = self.interval_stage()
                interval = self.interval
                settled = self.found or (interval is not None and interval.status in ("proved", "refuted"))
                if witness is None and not settled and not self.clock.spent(0.8):
                    g = symbolic("simplify of the gap", sp.simplify, gap)
                    sign = (
                        False
                        if isinstance(g, Spent)
                        else symbolic("sign of the simplified gap", certain_nonnegative, g, strict)
                    )
        except Exception:
            sign = None
        if sign:
            self.symbolic_ok = True
            methods.append("symbolic: SymPy's structural assumptions give gap ≥ 0 (constants signed by Arb)")

    def interval_proof(self) -> None:
        """(b) certified interval arithmetic over the box; also where a symbolic proof covers less than the
        stated domain (a symbol declared nonnegative on a range reaching below 0): the box may cover it all."""
        small, big = self.small, self.big
        narrow = self.symbolic_ok and not covers(
            symbolic_cover([small, big]), self.step.domain, free_names(small) | free_names(big)
        )
        if (not self.symbolic_ok or narrow) and not self.found:
            if self.interval is None:
                self.interval = self.interval_stage()
            interval = self.interval
            if interval.status == "proved":
                self.certified = True
                if narrow:  # the box covers the stated domain: the interval proof is the one recorded
                    self.symbolic_ok = False
                    self.methods.clear()
                self.methods.append(
                    f"interval arithmetic: certified on {interval.boxes} box{'' if interval.boxes == 1 else 'es'}"
                )
            elif narrow:
                self.interval = None  # the symbolic proof stands (on what the assumptions allow)
            elif interval.status == "refuted":
                pass
            else:
                self.evidence.append(f"interval: {interval.reason}")
        elif self.interval is not None and self.interval.status != "proved":
            self.interval = None  # the symbolic proof stands; an undecided early interval attempt is not evidence

    def routes(self) -> None:
        """(b') the proof routes (sums over every k, unbounded ranges, touching points), in their registry's
        order, where nothing has proved or refuted the claim yet."""
        interval = self.interval
        if self.symbolic_ok or self.certified or (interval is not None and interval.status == "refuted") or self.found:
            return
        opts, clock, evidence = self.opts, self.clock, self.evidence

        def run_route(stage: str, fn: Any, *a: Any) -> Any:
            # each route under its own cap (opts["route_seconds"], default 4 s) within the claim's budget; with no
            # wall budget (verify) the cap counts CPU seconds, so the verdict does not depend on the machine's load
            cap = float(opts.get("route_seconds", 4.0))
            left = clock.deadline(0.7)
            out = run_symbolic(
                fn, *a, deadline=cap if left is None else min(cap, left), memory=self.mem, stage=stage, cpu=left is None
            )
            if isinstance(out, Spent):
                evidence.append(str(out))
                return None
            return out

        route, notes = prove_by_routes(self.step, self.strict, opts, run_route)
        self.route = route
        if route is not None:
            self.certified = True
            self.methods.append(f"{route.route} route: {route.method}")
            evidence.append(f"reduction: {route.reduction}")
        else:
            evidence += notes

    def cover(self) -> Any:
        """What a proof covers: every symbol of the claim (symbolic; also one the gap cancels, then
        unconstrained), the route's cover, or the box (certified); None without a proof."""
        if self.symbolic_ok:
            return symbolic_cover([self.small, self.big])
        if self.route is not None:
            return self.route.covered
        if self.certified:
            return _interval_cover(self.small, self.big, self.interval)
        return None

    def conclude(self) -> StepResult:
        """(c) the falsifier, always (its worst ratio is part of the record), within what the claim has left,
        then the verdict. Under a per-claim limit (``check``) a claim proved gets the quick part only: the
        pattern search climbs toward a violation the proof excludes, so its one product would be a sharper
        worst ratio."""
        step, methods, evidence = self.step, self.methods, self.evidence
        proved = self.symbolic_ok or self.certified
        quick = self.limited and proved
        if not self.found:
            self.fz = self.falsifier(quick=quick)
        fz = self.fz
        if isinstance(fz, Spent):
            evidence.append(str(fz))
            return by_verdict(
                Verdict.PROVED if proved else Verdict.UNDECIDED,
                step,
                method="; ".join([*methods, "falsifier: time budget spent"]),
                evidence="; ".join(evidence),
                symbolic=self.symbolic_ok,
                certified=self.certified,
                cover=self.cover(),
            )
        methods.append(
            f"falsifier: {fz.trials} trials" + (" (random, no pattern search: already proved)" if quick else "")
        )
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
        interval = self.interval
        if interval is not None and interval.status == "refuted":
            gated = self.gate_interval_point(fz)
            if gated is not None:
                return gated
        verdict = Verdict.PROVED if proved else Verdict.VERIFIED
        if fz.trials == 0 and verdict is Verdict.VERIFIED:
            verdict = Verdict.UNDECIDED
        return by_verdict(
            verdict,
            step,
            method="; ".join(methods),
            evidence="; ".join(evidence),
            worst_ratio=fz.worst_ratio,
            trials=fz.trials,
            symbolic=self.symbolic_ok,
            certified=self.certified,
            cover=self.cover(),
            attacked=fz.attacked,
        )

    def gate_interval_point(self, fz: Any) -> StepResult | None:
        """Branch and bound only proposes the point: the refutation gate decides there (exact point, Arb
        enclosures of both sides at rising precision); unconfirmed, the step is not refuted (None, noted)."""
        from .refute import confirm as gate

        step, interval = self.step, self.interval
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
        self.evidence.append(
            f"interval: a proposed violation at {interval.counterexample} not confirmed by the Arb gate"
        )
        return None
