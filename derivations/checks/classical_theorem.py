"""Route "classical theorem": a claim as an instance of a theorem of the literature, its hypotheses discharged,
labelled *cited* with the reference (a premise, not proved by this run), with a numeric attack beside it.

Claim shape: an inequality ``small ≤ big`` (``<=``, or ``>=`` with the sides swapped). ``THEOREMS`` holds each
theorem's statement as data: its conclusion ``A ≤ B`` over its own symbols, the conditions on them (``c ≥ 0``)
and its hypotheses in words. The hint names the theorem and maps its symbols to expressions of the claim:

    Step(..., route=("classical theorem", {"theorem": "maurer2016", "with": {"L2": Lam, …},
                                           "discharge": {"lipschitz": "…", "class": "…"}, "attack": check}))

The route labels the claim *cited* (PROVED, method ``cited: <reference>``, cover the domain's box, where steps
1–4 were proved) only when all hold:

1. *instance*: ``small − A(with)`` reduces to 0 in SymPy (the claim's small side is the theorem's);
2. *glue*: ``B(with) ≤ big`` on the claim's domain: ``big − B(with)`` reduces to 0, or the engine proves it
   (so a weaker claim follows, a stronger one — Maurer's √2 replaced by 1 — does not);
3. *conditions*: each of the theorem's conditions, substituted, is proved by the engine on the domain;
4. *hypotheses*: each hypothesis in words is discharged in ``discharge``, either by a lemma
   ``(name, small, big, {symbol: (lo, hi)})`` that the engine proves, or by a sentence saying why it holds for
   the claim's objects (a definition of the claim: "Λ is, by the step's definition, an ℓ2-Lipschitz constant
   of F"), shown in the verdict as such. A hypothesis left out is not assumed: no verdict of the route.

``attack`` (optional, code: the run cache keys it by its bytecode) is a ``(step, opts) -> StepResult`` numeric
attack on configurations the claim's symbols stand for (finite classes, say); its refutation refutes the claim,
its trials and attacked ranges are recorded beside the citation. Without the citation the verdict is the
attack's (at most verified numerically), or undecided.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Step, StepResult, Verdict, region
from .integral_bound import NotProved, lemmas, prove_obligation
from .sampling import _sides
from .verdicts import CITED, proved, undecided


@dataclass(frozen=True)
class Theorem:
    """A theorem of the literature as data: ``small ≤ big`` over ``symbols``, under ``conditions`` (each
    ``expr ≥ 0``) and ``hypotheses`` (name → the hypothesis in words)."""

    reference: str
    symbols: tuple[sp.Symbol, ...]
    small: sp.Expr
    big: sp.Expr
    conditions: tuple[sp.Expr, ...]
    hypotheses: Mapping[str, str]


_RF, _L2, _RV = sp.symbols("R_F L2 R_V", real=True)

THEOREMS: dict[str, Theorem] = {
    "maurer2016": Theorem(
        reference="Maurer (2016), A vector-contraction inequality for Rademacher complexities, ALT, Corollary 1",
        symbols=(_RF, _L2, _RV),
        small=_RF,
        big=sp.sqrt(2) * _L2 * _RV,
        conditions=(_L2, _RV),
        hypotheses={
            "lipschitz": "each h_i : R^K → R satisfies |h_i(u) − h_i(u')| ≤ L2 ‖u − u'‖₂ for all u, u'",
            "class": "R_F = (1/n) E sup_f Σ_i ε_i h_i(f(x_i)) and R_V = (1/n) E sup_f Σ_{i,m} ε_im f_m(x_i) over "
            "one class of f : X → R^K (any class, any K), ε independent signs",
        },
    ),
}


def _params(step: Step, params: Mapping[str, Any]) -> tuple[Theorem, dict, dict, Callable | None]:
    where = f"step {step.name!r}: route 'classical theorem'"
    if step.kind != "inequality":
        raise DerivationError(f"{where} checks inequalities, not a {step.kind}")
    thm = THEOREMS.get(params.get("theorem"))
    if thm is None:
        raise DerivationError(f"{where} parameter theorem must be one of {sorted(THEOREMS)}")
    given = params.get("with", {})
    names = {str(s_): s_ for s_ in thm.symbols}
    if not isinstance(given, Mapping) or set(map(str, given)) != set(names):
        raise DerivationError(f"{where} parameter with must map exactly the theorem's symbols {sorted(names)}")
    sub = {names[str(k_)]: sp.sympify(v_) for k_, v_ in given.items()}
    discharge = params.get("discharge", {})
    if not isinstance(discharge, Mapping) or not set(discharge) <= set(thm.hypotheses):
        raise DerivationError(f"{where} parameter discharge must map hypotheses among {sorted(thm.hypotheses)}")
    attack = params.get("attack")
    if attack is not None and not callable(attack):
        raise DerivationError(f"{where} parameter attack must be a checker (step, opts) -> StepResult")
    return thm, sub, dict(discharge), attack


def _discharged(name: str, how: Any, step: Step, opts: Mapping[str, Any]) -> str:
    if isinstance(how, str) and how.strip():
        return f"{name}: {how} (the claim's definition)"
    (lemma,) = lemmas((how,), f"step {step.name!r}: hypothesis {name!r}")
    got = prove_obligation(lemma.name, lemma.lhs, lemma.rhs, lemma.domain, opts)
    return f"{name}: {lemma.name} ({got})"


def _citation(step: Step, thm: Theorem, sub: dict, discharge: dict, opts: Mapping[str, Any]) -> str:
    """The citation's argument (module docstring, 1–4), or ``NotProved``."""
    small, big, strict = _sides(step)
    if strict:
        raise NotProved("a strict claim does not follow from the theorem's ≤")
    a_, b_ = thm.small.xreplace(sub), thm.big.xreplace(sub)
    if sp.expand(sp.sympify(small) - a_) != 0:
        raise NotProved(f"the claim's small side {small} is not the theorem's {a_}")
    gap = sp.expand(sp.sympify(big) - b_)
    glue = "rhs is the theorem's" if gap == 0 else prove_obligation("theorem's bound ≤ rhs", b_, big, step.domain, opts)
    conds = [prove_obligation(f"condition {c_} ≥ 0", 0, c_.xreplace(sub), step.domain, opts) for c_ in thm.conditions]
    missing = sorted(set(thm.hypotheses) - set(discharge))
    if missing:
        raise NotProved(f"hypotheses not discharged: {missing}")
    hyps = [_discharged(n_, discharge[n_], step, opts) for n_ in thm.hypotheses]
    shown = ", ".join(f"{k_} = {v_}" for k_, v_ in sub.items())
    return f"instance with {shown}; glue: {glue}; conditions ≥ 0: {'; '.join(conds)}; hypotheses: {'; '.join(hyps)}"


def prove_classical(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (module docstring)."""
    thm, sub, discharge, attack = _params(step, params)
    try:
        why, ok = _citation(step, thm, sub, discharge, opts), True
    except NotProved as exc:
        why, ok = f"not an instance: {exc}", False
    att = attack(step, dict(opts)) if attack is not None else None
    if att is not None and (att.verdict is Verdict.REFUTED or not ok):
        att.method = f"{att.method}; route classical theorem ({thm.reference}): {why}"
        return att
    if not ok:
        return undecided(step, method=f"route classical theorem ({thm.reference}): {why}")
    # labelled cited (the method's prefix, as ``verdicts.cited``): the theorem is a premise; what this run proved
    # (instance, glue, conditions, hypothesis lemmas) holds on the domain's box, the cover
    return proved(
        step,
        method=f"{CITED}: {thm.reference}",
        evidence=why if att is None else f"{why}; attack beside the citation: {att.method} ({att.verdict})",
        cover=region(step.domain.ranges),
        trials=0 if att is None else att.trials,
        attacked=None if att is None else att.attacked,
        worst_ratio=None if att is None else att.worst_ratio,
    )


__all__ = ["THEOREMS", "Theorem", "prove_classical"]
