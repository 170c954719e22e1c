"""The checkers a step can use. Every one of them can fail, and a test shows each one failing.

* identity: ``simplify(lhs − rhs) == 0`` and a 50-digit spot-check at random domain points (a
  simplification bug cannot pass: a spot-check mismatch the refutation gate confirms refutes even a
  "simplified" identity);
* inequality: symbolic reduction where SymPy can (assumptions, or a supplied certificate
  checked as an identity), else certified interval arithmetic (Arb balls via python-flint, adaptive
  subdivision of the domain box); and in every case a randomized + adversarial falsifier
  (box corners, boundary snapping, log-uniform sampling of wide ranges, the step's own
  adversarial points, then pattern-search toward violation) reporting the worst ratio found;
  a float-found violation is only a proposal to the refutation gate (``refute``: an exact point, Arb
  enclosures of both sides at rising precision strictly on the wrong side, or exactly equal for a
  strict claim), which every refutation of the engine goes through;
* expansion: SymPy series about ``var = ∞`` compared term by term with the claim;
* limit: SymPy limit compared with the claim, with a numeric cross-check;
* chain: the composition of cited links (``chain``): consecutive sides equal, relations composing,
  every link an instance of a checked catalogue step used inside its domain.

The package has one module per checker: ``identity``, ``interval`` (certified branch and bound),
``falsifier``, ``inequality`` (symbolic + interval + falsifier), ``series`` (expansions, limits),
``refute`` (the refutation gate),
``laws`` (the one search over exact finite laws and finite classes: bias, prior, rademacher and the
paper modules' law checkers all run it), ``custom`` (falsifier-only, conjunction and proof-plus-falsifier
verdicts for the result modules' own checkers, each recording ``covered``/``attacked``); ``sampling``
holds what they share.
"""

from __future__ import annotations

from typing import Any

from ..ledger import Step, StepResult, Verdict, free_names
from .falsifier import FalsifierOutcome, falsify
from .identity import check_identity
from .inequality import check_inequality
from .interval import IntervalOutcome, certify_nonnegative
from .sampling import Evaluator, Instance, Sampler, _sides
from .series import check_expansion, check_limit
from .verdicts import defined, ill_posed

__all__ = [
    "DEFAULTS",
    "Evaluator",
    "FalsifierOutcome",
    "Instance",
    "IntervalOutcome",
    "_sides",
    "Sampler",
    "certify_nonnegative",
    "check_expansion",
    "check_identity",
    "check_inequality",
    "check_limit",
    "check_step",
    "falsify",
]

DEFAULTS: dict[str, Any] = {
    "trials": 100_000,  # falsifier evaluations per inequality
    "seed": 0,
    "dps": 50,  # digits for spot-checks and confirmations
    "spot_points": 6,  # random points per identity spot-check
    "box_budget": 1500,  # interval boxes per inequality
    "max_dims": 4,  # interval subdivision only below this many free symbols
    "k_cap": 12,  # largest concrete k used to instantiate symbolic sums
    "real_cap": 1e6,  # sampling cap for unbounded real ranges
    "vectorise": True,  # falsifier on numpy batches (False: the one-point-at-a-time loops)
    "budget": None,  # a budget.Budget for one claim (None: budget.default_budget(), CATALOGUE unless set)
    "wellposed": True,  # decide the definedness of identities and inequalities first (checks.wellposed)
}


def check_step(step: Step, **options: Any) -> StepResult:
    """Check one step with the checker for its kind.

    An identity or inequality without its own ``check`` is first tested for well-posedness
    (``wellposed.check_wellposed``): undefined at a point of its domain → ``ILL_POSED`` with that point;
    definedness undecided → at most ``VERIFIED`` ("definedness not established"); established → the
    interval enclosures may clip what lies outside a function's domain (``intervals.assume_defined``).
    The claim runs under ``opts["budget"]`` (``budget.default_budget()`` when None): ``opts["clock"]`` is
    its clock.
    """
    from .. import intervals
    from .budget import Budget, default_budget

    opts = {**DEFAULTS, **options}
    b = opts.get("budget")
    if b is not None and not isinstance(b, Budget):
        raise TypeError(f"option budget must be a checks.budget.Budget or None, got {type(b).__name__}")
    b = b or default_budget()
    opts["clock"] = b.started()
    if b.trials is not None:  # the budget's own limits on work, where it sets them
        opts["trials"] = min(int(opts["trials"]), b.trials)
    if b.boxes is not None:
        opts["box_budget"] = min(int(opts["box_budget"]), b.boxes)
    printed = step
    step = step.unwrapped()  # printed forms (Shown) are for the reader; checks run on the values
    wp = None
    # a hinted route decides definedness itself, as part of its contract (``routes.HINTED``)
    own = step.check is not None or step.route is not None
    if not own and step.kind in ("identity", "inequality") and opts.get("wellposed", True):
        from .wellposed import check_wellposed

        wp = check_wellposed([step.lhs, step.rhs], step.domain, step.name, opts["clock"])
        if wp.status == "ill-posed":
            res = ill_posed(
                step,
                point=wp.point,
                method="well-posedness: undefined at a point of the stated domain",
                evidence=wp.reason,
            )
            res.provenance = step.provenance
            res.expected = step.expected
            return res
    with intervals.assume_defined(wp is not None and wp.status == "defined"):
        res = _dispatch(step, opts)
    if wp is not None and wp.status == "undecided" and res.verdict == Verdict.PROVED:
        res.verdict = Verdict.VERIFIED
        res.symbolic = res.certified = False
        res.covered = None
        res.evidence = "; ".join(x_ for x_ in (wp.reason, res.evidence) if x_)
        res.method = f"{res.method} (not proved: definedness not established)"
    res.provenance = step.provenance
    res.expected = step.expected
    if res.verdict == Verdict.VERIFIED:  # a verified step says why no route proved it
        from .unproved import unproved_reason

        res.unproved = unproved_reason(step, res)
    if printed is not step and res.verdict == Verdict.PROVED and isinstance(res.covered, dict):
        # a symbol of the printed form that the checked value does not contain (R̃ in
        # (CE − R̃) + (R̃ − R̂_n) once evaluated) cannot restrict the proof: it holds for all its values
        from .sampling import symbolic_cover

        gone = (free_names(printed.lhs) | free_names(printed.rhs)) - (free_names(step.lhs) | free_names(step.rhs))
        for name, rng in symbolic_cover([printed.lhs, printed.rhs]).items():
            if name in {str(g) for g in gone}:
                res.covered.setdefault(name, rng)
    return res


def _dispatch(step: Step, opts: dict[str, Any]) -> StepResult:
    """The checker for the step's kind (its own ``check`` first, then the route its hint names)."""
    if step.check is not None:
        res = step.check(step, opts)
    elif step.route is not None:
        from .routes import prove_hinted

        res = prove_hinted(step, opts)
    elif step.kind == "definition":
        res = defined(step, method="definition (well-formed: free symbols covered)")
    elif step.kind == "identity":
        res = check_identity(step, opts)
    elif step.kind == "inequality":
        res = check_inequality(step, opts)
    elif step.kind == "expansion":
        res = check_expansion(step, opts)
    elif step.kind == "limit":
        res = check_limit(step, opts)
    elif step.kind == "chain":
        from .chain import check_chain  # citations resolve through checks.library: only when needed

        res = check_chain(step, opts)
    else:  # pragma: no cover - Step validates kind
        raise AssertionError(step.kind)
    return res
