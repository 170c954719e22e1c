"""A configuration claim: ``lhs ≤ rhs`` for every finite configuration of vectors (embeddings, directions, …) and
parameters, attacked on random configurations by the shared search of ``checks.laws``.

``ConfigurationClaim`` is a typed claim for what SymPy cannot state in one expression (a bound over vectors of
any dimension, sup norms over points): a ``Step.check`` that is data — the claim function, the sampler and what
is reported — keyed by the run cache through its fields. Its verdict is refuted or verified numerically, never
proved:

* ``claim(P, lib) -> (lhs, rhs)``: both sides at the configuration ``P`` (a dict of floats and lists of floats),
  with ``lib`` = ``math`` (floats) or ``mpmath`` (at the current precision);
* ``draw(seed, n) -> [P, …]``: ``n`` configurations, deterministic in ``seed`` (a string or an integer).

The search draws ``n = max(40, min(trials // 20, 5000))`` configurations as seeds (seeded by the run's seed and
the step's name) and as many random ones, with local search around the worst, evaluates in floats (a
configuration whose floats overflow is evaluated in mpmath at 30 digits) and confirms a float-found violation at
50 digits before refuting (``laws.search``). Where both sides vanish the point counts as an equality
(``zero_ratio`` 0). ``shown`` names the entries of ``P`` a counterexample reports; ``attacked`` the ranges drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath

from ..ledger import DerivationError, Step, StepResult
from . import DEFAULTS
from .laws import search, search_result


def _at_mp(P: Mapping[str, Any]) -> dict:
    """``P`` with every float (and every float of a list) as an mpmath number at the current precision."""
    return {kk: ([mpmath.mpf(x) for x in v] if isinstance(v, list) else mpmath.mpf(v)) for kk, v in P.items()}


@dataclass(frozen=True)
class ConfigurationClaim:
    """``lhs ≤ rhs`` over random finite configurations (module docstring), as a ``Step.check``."""

    claim: Callable[..., tuple[Any, Any]]
    draw: Callable[[Any, int], list]
    shown: tuple[str, ...]
    attacked: Mapping[str, tuple[str, str]]
    #: what is drawn, for the verdict's method ("random finite vectors", "d ∈ {2, 3, 8}, norms ≤ ~3, …")
    what: str
    ranges: str

    def __post_init__(self) -> None:
        if not callable(self.claim) or not callable(self.draw):
            raise DerivationError("ConfigurationClaim: claim and draw must be callables (P, lib) and (seed, n)")
        if not self.shown:
            raise DerivationError("ConfigurationClaim: shown must name at least one entry of a configuration")

    def evaluate(self, P: Mapping[str, Any], exact: bool) -> tuple:
        """(lhs, rhs) at ``P``: in mpmath when ``exact``, else in floats (mpmath at 30 digits past overflow)."""
        if exact:
            return self.claim(_at_mp(P), mpmath)
        try:
            return self.claim(P)
        except OverflowError:  # a side beyond the float range: the same point in mpmath
            with mpmath.workdps(30):
                return self.claim(_at_mp(P), mpmath)

    def __call__(self, step: Step, opts: Mapping[str, Any]) -> StepResult:
        n_ = max(40, min(int(opts.get("trials", 100_000)) // 20, 5000))
        out = search(
            step,
            {**DEFAULTS, **opts},
            budget=n_,
            sample=lambda rng: self.draw(rng.getrandbits(64), 1)[0],
            evaluate=self.evaluate,
            describe=lambda P: {key: str(P[key]) for key in self.shown},
            seeds=self.draw(f"{opts.get('seed', 0)}:{step.name}", n_),
            zero=0.0,
            zero_ratio=0.0,
        )
        method = f"{self.what}: {out.trials} draws, {self.ranges}"
        return search_result(step, out, method, dict(self.attacked))
