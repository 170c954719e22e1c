"""Verdicts as typed values: one builder per verdict, each refusing a verdict that lacks what it means.

Every ``StepResult`` of the engine is made here (``tests/test_verdicts.py`` walks the package and fails on a
``StepResult(`` call anywhere else). What each builder requires, with a ``ValueError`` naming the parameter:

* ``proved(step, method=, cover=)``: PROVED on ``cover``, the region the proof covers (symbol name → (lo, hi),
  exact strings; ``{}`` only for a claim without symbols), never ``None``;
* ``cited(step, reference=)``: PROVED as a premise quoted from the literature, not proved by this run (a chain
  link citing a classical theorem); its method reads ``cited: <reference>`` and it has no cover;
* ``refuted(step, method=, counterexample=)``: REFUTED at a point: ``counterexample`` is a non-empty mapping
  (the refutation gate's ``Counterexample.as_dict()``, or the exact point of a custom checker);
* ``refuted_argument(step, method=, reason=)``: REFUTED without a point: the argument offered for the claim
  fails (a chain whose links do not compose, a citation missing or refuted, a conjunction with a refuted part,
  two numbers compared exactly); ``reason`` (non-empty) says why and is the evidence;
* ``verified(step, method=, attacked=)``: VERIFIED numerically on ``attacked``, the non-empty ranges the
  numeric attack sampled (symbol → (lo, hi));
* ``undecided(step, method=)``: UNDECIDED, ``method`` saying what was tried;
* ``ill_posed(step, point=, method=)``: ILL_POSED at ``point`` (non-empty), where the claim is undefined;
* ``defined(step, method=)``: DEFINED, a definition (nothing to prove);
* ``by_verdict(verdict, step, …)``: the builder of a computed verdict (the weakest of a checker's parts);
* ``restored(record)``: a result rebuilt from ``StepResult.as_dict()`` (the cache, the run memo), as stored.

``step`` is the ``Step`` checked, or a name with ``kind=`` for a part that is not a step (a chain link).
All fields stay those of ``StepResult`` (``as_dict`` and the cache format are unchanged); ``check_step``
then sets ``provenance`` and ``expected``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any

from ..ledger import StepResult, Verdict, free_names

__all__ = [
    "CITED",
    "by_verdict",
    "cited",
    "defined",
    "ill_posed",
    "proved",
    "refuted",
    "refuted_argument",
    "restored",
    "undecided",
    "verified",
]

#: the method prefix of a PROVED part that is a quoted classical theorem (a premise, not proved by the run)
CITED = "cited"

Ranges = Mapping[str, tuple[str, str]]


def _named(step: Any, kind: str | None, builder: str) -> tuple[str, str]:
    """(name, kind) of ``step``: a ``Step`` (its own kind, unless ``kind`` overrides it) or a name with ``kind``."""
    if isinstance(step, str):
        if not kind:
            raise ValueError(f"{builder}: step given by name ({step!r}) needs kind=")
        return step, kind
    name = getattr(step, "name", None)
    if not isinstance(name, str):
        raise ValueError(f"{builder}: step must be a Step or a name, got {type(step).__name__}")
    return name, kind or step.kind


def _method(method: Any, builder: str) -> str:
    if not isinstance(method, str) or not method.strip():
        raise ValueError(f"{builder}: method must be a non-empty string saying how the verdict was reached")
    return method


def _ranges(value: Any, builder: str, param: str, *, empty: bool) -> dict[str, tuple[str, str]]:
    """``value`` as a ranges dict (symbol name → (lo, hi)); ``None``, a non-mapping, an entry that is not a
    pair, or (unless ``empty``) no entry at all is a ``ValueError`` naming ``param``."""
    if value is None or not isinstance(value, Mapping):
        raise ValueError(f"{builder}: {param} must be a mapping symbol → (lo, hi), got {value!r}")
    if not value and not empty:
        raise ValueError(f"{builder}: {param} must name at least one range, got an empty mapping")
    for key, rng in value.items():
        if not isinstance(rng, (tuple, list)) or len(rng) != 2:
            raise ValueError(f"{builder}: {param}[{key!r}] must be a pair (lo, hi), got {rng!r}")
    return value if isinstance(value, dict) else dict(value)


def _point(value: Any, builder: str, param: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not value:
        raise ValueError(
            f"{builder}: {param} must be a non-empty mapping (the point, with what decided it), got {value!r}"
        )
    return value if isinstance(value, dict) else dict(value)


def proved(
    step: Any,
    *,
    method: str,
    cover: Ranges,
    evidence: str = "",
    symbolic: bool = False,
    certified: bool = False,
    worst_ratio: float | None = None,
    trials: int = 0,
    attacked: Ranges | None = None,
    kind: str | None = None,
) -> StepResult:
    """PROVED on ``cover`` (symbol → (lo, hi)): a symbolic reduction (``symbolic``) or an interval/exact
    certificate (``certified``) over that region. ``attacked``/``trials``/``worst_ratio`` record the falsifier
    run beside the proof, if any. A proof without a cover is a ``ValueError``."""
    name, kind = _named(step, kind, "proved")
    return StepResult(
        name,
        kind,
        Verdict.PROVED,
        _method(method, "proved"),
        evidence,
        worst_ratio=worst_ratio,
        trials=trials,
        symbolic=symbolic,
        certified=certified,
        covered=_ranges(cover, "proved", "cover", empty=True),
        attacked=attacked,
    )


def cited(step: Any, *, reference: str, evidence: str = "", kind: str | None = None) -> StepResult:
    """PROVED as a quoted premise (method ``cited: <reference>``): taken as given, not proved here, so it has
    no cover; a chain that rests on it says so in its method."""
    name, kind = _named(step, kind, "cited")
    if not isinstance(reference, str) or not reference.strip():
        raise ValueError("cited: reference must name the source of the quoted premise")
    return StepResult(name, kind, Verdict.PROVED, f"{CITED}: {reference}", evidence)


def refuted(
    step: Any,
    *,
    method: str,
    counterexample: Mapping[str, Any],
    evidence: str = "",
    worst_ratio: float | None = None,
    trials: int = 0,
    attacked: Ranges | None = None,
    kind: str | None = None,
) -> StepResult:
    """REFUTED at ``counterexample`` (a non-empty mapping: the point's coordinates and what decided it). A
    refutation without a point is a ``ValueError`` (an argument that fails is ``refuted_argument``)."""
    name, kind = _named(step, kind, "refuted")
    return StepResult(
        name,
        kind,
        Verdict.REFUTED,
        _method(method, "refuted"),
        evidence,
        worst_ratio=worst_ratio,
        trials=trials,
        counterexample=_point(counterexample, "refuted", "counterexample"),
        attacked=attacked,
    )


def refuted_argument(
    step: Any,
    *,
    method: str,
    reason: str,
    worst_ratio: float | None = None,
    trials: int = 0,
    attacked: Ranges | None = None,
    kind: str | None = None,
) -> StepResult:
    """REFUTED without a point: the argument offered for the claim fails (``reason``, non-empty, is the
    evidence): a chain whose relations do not compose or whose link fails, a citation that is missing,
    unusable or refuted, a conjunction with a refuted part, a comparison of two numbers that is false."""
    name, kind = _named(step, kind, "refuted_argument")
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError(
            "refuted_argument: reason must say why the argument fails (a refutation needs a point or a reason)"
        )
    return StepResult(
        name,
        kind,
        Verdict.REFUTED,
        _method(method, "refuted_argument"),
        reason,
        worst_ratio=worst_ratio,
        trials=trials,
        attacked=attacked,
    )


def verified(
    step: Any,
    *,
    method: str,
    attacked: Ranges,
    evidence: str = "",
    worst_ratio: float | None = None,
    trials: int = 0,
    kind: str | None = None,
) -> StepResult:
    """VERIFIED numerically: every attack on ``attacked`` (the non-empty ranges sampled, symbol → (lo, hi))
    failed to refute. Without attacked ranges it is a ``ValueError`` (the verdict would say nothing), except
    ``{}`` for a ``Step`` whose claim has no symbols (a constant identity SymPy cannot reduce: its one point
    was evaluated)."""
    name, kind = _named(step, kind, "verified")
    return StepResult(
        name,
        kind,
        Verdict.VERIFIED,
        _method(method, "verified"),
        evidence,
        worst_ratio=worst_ratio,
        trials=trials,
        attacked=_ranges(attacked, "verified", "attacked", empty=_closed(step)),
    )


def _closed(step: Any) -> bool:
    """True when ``step`` is a ``Step`` whose two sides have no free symbols (a claim about constants)."""
    if isinstance(step, str):
        return False
    try:
        return not (free_names(step.lhs) | free_names(step.rhs))
    except Exception:  # noqa: BLE001 - sides SymPy cannot read (a law claim's own objects): not a constant claim
        return False


def undecided(
    step: Any,
    *,
    method: str,
    evidence: str = "",
    worst_ratio: float | None = None,
    trials: int = 0,
    attacked: Ranges | None = None,
    kind: str | None = None,
) -> StepResult:
    """UNDECIDED: neither proved nor refuted nor meaningfully attacked; ``method`` says what was tried."""
    name, kind = _named(step, kind, "undecided")
    return StepResult(
        name,
        kind,
        Verdict.UNDECIDED,
        _method(method, "undecided"),
        evidence,
        worst_ratio=worst_ratio,
        trials=trials,
        attacked=attacked,
    )


def ill_posed(
    step: Any, *, point: Mapping[str, Any], method: str, evidence: str = "", kind: str | None = None
) -> StepResult:
    """ILL_POSED: the claim is undefined at ``point`` (non-empty, exact) of its stated domain; the point is
    recorded as ``counterexample``."""
    name, kind = _named(step, kind, "ill_posed")
    return StepResult(
        name,
        kind,
        Verdict.ILL_POSED,
        _method(method, "ill_posed"),
        evidence,
        counterexample=_point(point, "ill_posed", "point"),
    )


def defined(step: Any, *, method: str, kind: str | None = None) -> StepResult:
    """DEFINED: a definition, well-formed, nothing to prove."""
    name, kind = _named(step, kind, "defined")
    return StepResult(name, kind, Verdict.DEFINED, _method(method, "defined"))


_BUILDERS = {
    Verdict.PROVED: proved,
    Verdict.REFUTED: refuted,
    Verdict.VERIFIED: verified,
    Verdict.UNDECIDED: undecided,
    Verdict.ILL_POSED: ill_posed,
    Verdict.DEFINED: defined,
}


def by_verdict(verdict: Verdict, step: Any, **fields: Any) -> StepResult:
    """The builder of ``verdict`` applied to ``fields``, for a checker whose verdict is computed (PROVED when its
    argument went through, else VERIFIED; the weakest of its parts'). Optional fields at ``None`` or ``False``
    are dropped (each builder's default); a required one stays, so the builder rejects it (a PROVED verdict with
    ``cover=None``); a field the builder does not take (a counterexample on a VERIFIED verdict) is a ``TypeError``."""
    if verdict not in _BUILDERS:
        raise ValueError(f"by_verdict: verdict must be one of {[str(v) for v in _BUILDERS]}, got {verdict!r}")
    builder = _BUILDERS[verdict]
    required = _required(builder)
    return builder(step, **{k: v for k, v in fields.items() if k in required or (v is not None and v is not False)})


@functools.cache
def _required(builder: Any) -> frozenset[str]:
    """The keyword-only parameters ``builder`` requires (no default)."""
    params = inspect.signature(builder).parameters.values()
    return frozenset(p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty)


def restored(d: Mapping[str, Any]) -> StepResult:
    """A ``StepResult`` rebuilt from ``StepResult.as_dict()`` (the verify cache, the run memo), as it was stored:
    a record is not re-judged (a result the builders made, stored by an earlier run)."""
    res = StepResult(
        d["step"],
        d["kind"],
        Verdict(d["verdict"]),
        d["method"],
        d.get("evidence", ""),
        worst_ratio=d.get("worst_ratio"),
        trials=d.get("trials", 0),
        counterexample=d.get("counterexample"),
        seconds=d.get("seconds", 0.0),
        provenance=d.get("provenance", "ours"),
        certified=d.get("certified", False),
        symbolic=d.get("symbolic", False),
        expected=d.get("expected"),
    )
    for name in ("covered", "attacked", "unproved"):
        if name in d and hasattr(res, name):
            setattr(res, name, d[name])
    return res
