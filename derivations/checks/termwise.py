"""Route "termwise": ``a_1 + … + a_n ≤ b_1 + … + b_n`` from ``a_i ≤ b_{σ(i)}`` for each i, each proved by the engine.

Claim shape: an inequality (``<=`` or ``>=``, not strict) whose two sides are sums of the same number n ≥ 2 of
terms (as written, else after ``expand``), that *match* one to one by their key symbols: a symbol read by exactly
one term of each side is a key, and ``a_i`` goes with the one ``b_j`` that shares a key with it (a norm ``‖Δ_a‖``
against ``2W_k ‖Δ_a‖``, the negatives' sum against their power mean); every term must find its own. A claim without such a matching is not of this shape (``applies`` is False).

Proved when every pair ``a_i ≤ b_{σ(i)}`` is PROVED by ``check_step`` (every stage and route, as for any claim) on
the claim's box restricted to the pair's symbols and covering it: summing the n inequalities gives the claim on
the whole box. Each sign is decided where the pair's proof decides it (Arb or exact); the route never refutes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import Domain, Step, Verdict, covers, free_names, region
from .sampling import _sides

#: the fewest and most terms a side may have
MIN_TERMS, MAX_TERMS = 2, 6
#: ``expand`` only sides this small, with no integer power above this: (1 + x)^{10⁶} − 10⁶x ≥ 1 (Bernoulli) would
#: expand a polynomial of degree 10⁶ (minutes and tens of GB) before the route could say it does not apply
MAX_EXPAND_OPS, MAX_EXPAND_POWER = 200, 12
#: falsifier trials inside each pair (the claim's own falsifier attacks the claim; the pairs want a proof)
_PAIR_TRIALS = 200


def _terms(e: Any) -> tuple:
    return sp.Add.make_args(sp.sympify(e))


def _expandable(e: Any) -> bool:
    e = sp.sympify(e)
    big_power = any(p_.exp.is_Integer and abs(p_.exp) > MAX_EXPAND_POWER for p_ in e.atoms(sp.Pow))
    return not big_power and sp.count_ops(e) <= MAX_EXPAND_OPS


def matching(step: Step) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """The pairs ``(a_i, b_σ(i))`` of the module docstring, or None when the sides do not match one to one."""
    try:
        small, big, strict = _sides(step)
    except Exception:  # noqa: BLE001 - not an inequality of two sides
        return None
    if strict:
        return None
    for expand in (False, True):
        if expand and not (_expandable(small) and _expandable(big)):
            return None
        a_s = _terms(sp.expand(small) if expand else small)
        b_s = _terms(sp.expand(big) if expand else big)
        if not (MIN_TERMS <= len(b_s) <= MAX_TERMS and len(a_s) == len(b_s)):
            continue
        names = [free_names(b_) for b_ in b_s]
        small_names = [free_names(a_) for a_ in a_s]
        every = set().union(*names, *small_names)
        # a key: a symbol read by exactly one term of each side (a norm, the negatives' family)
        keys = {s_ for s_ in every if sum(s_ in n_ for n_ in names) == 1 and sum(s_ in n_ for n_ in small_names) == 1}
        pairs, used = [], set()
        for a_ in a_s:
            hits = [i for i, n_ in enumerate(names) if free_names(a_) & n_ & keys]
            if len(hits) != 1 or hits[0] in used:
                break
            used.add(hits[0])
            pairs.append((a_, b_s[hits[0]]))
        else:
            return pairs
    return None


def applies(step: Step) -> bool:
    return step.kind == "inequality" and matching(step) is not None


def prove_termwise(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    """The route's outcome (``routes.Route``): proved when every matched pair is proved (module docstring)."""
    from .reentry import check_step

    pairs = matching(step)
    if pairs is None:
        return None
    hows = []
    for i, (a_, b_) in enumerate(pairs, start=1):
        names = free_names(a_) | free_names(b_)
        dom = Domain(
            {s_: r_ for s_, r_ in step.domain.ranges.items() if getattr(s_, "label", s_) in names},
            tuple(c for c in step.domain.constraints if free_names(c) <= names),
        )
        part = Step(f"{step.name} [term {i}]", a_, b_, "inequality", dom, relation="<=")
        sub = {o: v for o, v in opts.items() if o not in ("clock", "budget")}
        sub["trials"] = min(int(opts.get("trials", _PAIR_TRIALS)), _PAIR_TRIALS)
        sub["spot_points"] = min(int(opts.get("spot_points", 2)), 2)
        res = check_step(part, **sub)
        if res.verdict != Verdict.PROVED or not covers(res.covered, dom):
            return _Outcome(False, None, f"term {i}: {sp.sstr(a_)} ≤ {sp.sstr(b_)} {res.verdict}", "")
        hows.append(f"term {i}: {str(res.method).split(';')[0][:100]}")
    reduction = "termwise: " + "; ".join(hows) + f"; the {len(pairs)} inequalities summed"
    return _Outcome(True, region(step.domain.ranges), reduction, reduction)


class _Outcome:
    def __init__(self, proved: bool, covered: Any, method: str, reduction: str):
        self.proved, self.covered, self.method, self.reduction = proved, covered, method, reduction


__all__ = ["applies", "matching", "prove_termwise"]
