"""Route "classical theorem": a claim as an instance of a theorem of the literature, its hypotheses discharged,
labelled *cited* with the reference (a premise, not proved by this run), with a numeric attack beside it.

Claim shape: an inequality ``small ≤ big`` (``<=``, or ``>=`` with the sides swapped). ``THEOREMS`` holds each
theorem's statement as data: its conclusion ``A ≤ B`` over its own symbols, the conditions on them (``c ≥ 0``)
and its hypotheses in words. The hint names the theorem and maps its symbols to expressions of the claim:

    Step(..., route=("classical theorem", {"theorem": "maurer2016", "with": {"L2": Lam, …},
                                           "discharge": {"lipschitz": "…", "class": "…"}, "attack": check}))

A ``VectorTheorem`` holds for vectors of every length k ≥ 1; its hint maps scalars to expressions and vectors to
lists (one length k), and the theorem builds its conclusion at that k. ``"lse_linf"``: log-sum-exp with an
optional fixed extra term c ≥ 0 and a factor m > 0 is 1-Lipschitz for ‖·‖_∞,
``|log(m(c + Σ_j e^{v_j})) − log(m(c + Σ_j e^{v'_j}))| ≤ max_j |v_j − v'_j|``:

    route=("classical theorem", {"theorem": "lse_linf", "with": {"c": 1, "m": 1/k, "v": [...], "v'": [...]}})

Its glue to a rhs ``max_i w_i |e_i|`` (``w_i`` positive by SymPy's assumptions: ``(1/τ) max_i |e_i|``) is
matched term by term, each ``v_j − v'_j = ±w_i e_i`` expanding to 0; otherwise the engine is asked as below.

The route labels the claim *cited* (PROVED, method ``cited: <reference>``, cover the domain's box, where steps
1–4 were proved) only when all hold:

1. *instance*: ``small − A(with)`` reduces to 0 in SymPy (the claim's small side is the theorem's);
2. *glue*: ``B(with) ≤ big`` on the claim's domain: ``big − B(with)`` reduces to 0, or the engine proves it
   (so a weaker claim follows, a stronger one — Maurer's √2 replaced by 1 — does not);
3. *conditions*: each of the theorem's conditions, substituted, is proved by the engine on the domain (a
   ``VectorTheorem``'s ``positive`` and ``real`` ones by SymPy's assumptions on the symbols);
4. *hypotheses*: each hypothesis in words is discharged in ``discharge``, either by a lemma
   ``(name, small, big, {symbol: (lo, hi)})`` that the engine proves, or by a sentence saying why it holds for
   the claim's objects (a definition of the claim: "Λ is, by the step's definition, an ℓ2-Lipschitz constant
   of F"), shown in the verdict as such, or by catalogue steps ``("cites", ("derivation / step", …), "why")``,
   each of which must be PROVED (else no verdict of the route). A hypothesis left out is not assumed.

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


@dataclass(frozen=True)
class VectorTheorem:
    """A theorem over vectors of every length k ≥ 1 as data: ``statement(given) -> (small, big)`` builds the
    conclusion ``small ≤ big`` from the hint's ``with`` (``scalars`` → expressions, ``vectors`` → lists of one
    common length k ≥ 1); ``conditions(given)`` are expressions proved ``≥ 0`` by the engine, ``positive(given)``
    expressions that SymPy's assumptions must call positive, ``real(given)`` expressions they must call real;
    ``hypotheses`` as for ``Theorem``. The instance is exact: the claim's small side must expand to ``small``."""

    reference: str
    text: str
    scalars: tuple[str, ...]
    vectors: tuple[str, ...]
    statement: Callable[[Mapping[str, Any]], tuple[sp.Expr, sp.Expr]]
    conditions: Callable[[Mapping[str, Any]], tuple[sp.Expr, ...]]
    positive: Callable[[Mapping[str, Any]], tuple[sp.Expr, ...]]
    real: Callable[[Mapping[str, Any]], tuple[sp.Expr, ...]]
    hypotheses: Mapping[str, str]
    #: when ``big = max_j |d_j|``: the ``d_j`` (the glue may then match the claim's rhs term by term)
    max_terms: Callable[[Mapping[str, Any]], tuple[sp.Expr, ...]] | None = None


def _lse_statement(g: Mapping[str, Any]) -> tuple[sp.Expr, sp.Expr]:
    """|log(m(c + Σ_j e^{v_j})) − log(m(c + Σ_j e^{v'_j}))| ≤ max_j |v_j − v'_j| (j = 1..k)."""
    m_, c_ = g["m"], g["c"]
    f = lambda u: sp.log(m_ * (c_ + sp.Add(*[sp.exp(x_) for x_ in u])))  # noqa: E731
    return sp.Abs(f(g["v"]) - f(g["v'"])), sp.Max(*[sp.Abs(a_ - b_) for a_, b_ in zip(g["v"], g["v'"])])


_RF, _L2, _RV = sp.symbols("R_F L2 R_V", real=True)
# symbols of the theorems added for the Rademacher chains (rademacher.py): sum of classes, Jensen for √
_RS, _SC, _RG, _RH = sp.symbols("R_S a R_G R_H", real=True)
_JS, _JU = sp.symbols("S U", real=True)

THEOREMS: dict[str, Theorem | VectorTheorem] = {
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
    # ---- added for the Rademacher chains (rademacher.py): subadditivity over a sum of classes, Jensen for √
    "rademacher_sum": Theorem(
        reference="Rademacher complexity of a sum of classes: E sup_θ (c A_θ + B_θ) ≤ |c| E sup_θ A_θ + E sup_θ B_θ "
        "(sup of a sum ≤ sum of sups, linearity of E, −ε distributed as ε); Bartlett & Mendelson (2002), Rademacher "
        "and Gaussian complexities, JMLR 3, Theorem 12 (3) and (7) (stated there with absolute values; the same "
        "one-line proof without them)",
        symbols=(_RS, _SC, _RG, _RH),
        small=_RS,
        big=_SC * _RG + _RH,
        conditions=(_SC,),
        hypotheses={
            "class": "R_S = E_ε sup_θ (1/n) Σ_i ε_i (c g_θ(z_i) + h_θ(z_i)) with |c| = a, and R_G, R_H the same for "
            "{g_θ}, {h_θ}, one index set θ ∈ Θ, the same points z_i, ε independent signs",
        },
    ),
    "jensen_sqrt": Theorem(
        reference="Jensen's inequality for the concave √ under a probability measure (Rudin (1987), Real and Complex "
        "Analysis, Thm 3.3), with √ increasing",
        symbols=(_JS, _JU),
        small=_JS,
        big=sp.sqrt(_JU),
        conditions=(_JU,),
        hypotheses={
            "series": "S = Σ_l w_l √(x_l) with w_l ≥ 0, Σ_l w_l = 1 and x_l ≥ 0 (countably many l)",
            "mean": "Σ_l w_l x_l ≤ U",
        },
    ),
    "lse_linf": VectorTheorem(
        reference="log-sum-exp is 1-Lipschitz for ‖·‖_∞ (Boyd & Vandenberghe (2004), Convex Optimization, §3.1.5; "
        "mean value theorem: ∂/∂v_j log(c + Σ_l e^{v_l}) = e^{v_j}/(c + Σ_l e^{v_l}) ≥ 0, summing to ≤ 1 for c ≥ 0, "
        "and Hölder ℓ1–ℓ∞)",
        text="|log(m(c + Σ_j e^{v_j})) − log(m(c + Σ_j e^{v'_j}))| ≤ max_j |v_j − v'_j| for every k ≥ 1, "
        "v, v' ∈ R^k, c ≥ 0, m > 0",
        scalars=("c", "m"),
        vectors=("v", "v'"),
        statement=_lse_statement,
        conditions=lambda g: (g["c"],),
        positive=lambda g: (g["m"],),
        real=lambda g: (*g["v"], *g["v'"]),
        hypotheses={},
        max_terms=lambda g: tuple(a_ - b_ for a_, b_ in zip(g["v"], g["v'"])),
    ),
}


def _params(step: Step, params: Mapping[str, Any]) -> tuple[Theorem | VectorTheorem, dict, dict, Callable | None]:
    where = f"step {step.name!r}: route 'classical theorem'"
    if step.kind != "inequality":
        raise DerivationError(f"{where} checks inequalities, not a {step.kind}")
    thm = THEOREMS.get(params.get("theorem"))
    if thm is None:
        raise DerivationError(f"{where} parameter theorem must be one of {sorted(THEOREMS)}")
    given = params.get("with", {})
    if isinstance(thm, VectorTheorem):
        sub = _vector_given(thm, given, where)
    else:
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


def _vector_given(thm: VectorTheorem, given: Any, where: str) -> dict[str, Any]:
    """The hint's ``with`` for a ``VectorTheorem``: each scalar an expression, each vector a list, one length k ≥ 1."""
    names = (*thm.scalars, *thm.vectors)
    if not isinstance(given, Mapping) or set(map(str, given)) != set(names):
        raise DerivationError(f"{where} parameter with must map exactly the theorem's names {sorted(names)}")
    out = {str(k_): v_ for k_, v_ in given.items()}
    for n_ in thm.vectors:
        if isinstance(out[n_], (str, bytes)) or not hasattr(out[n_], "__len__") or len(out[n_]) < 1:
            raise DerivationError(f"{where} parameter with[{n_!r}] must be a list of expressions, length k ≥ 1")
        out[n_] = tuple(sp.sympify(x_) for x_ in out[n_])
    if len({len(out[n_]) for n_ in thm.vectors}) != 1:
        raise DerivationError(f"{where} parameter with: the vectors {list(thm.vectors)} must have one length k")
    for n_ in thm.scalars:
        out[n_] = sp.sympify(out[n_])
    return out


def _split_positive(expr: sp.Expr) -> tuple[sp.Expr, list[sp.Expr]]:
    """``expr = m · Π rest`` with ``m`` the product of the factors SymPy's assumptions call positive."""
    scale, rest = [], []
    for f_ in sp.Mul.make_args(sp.sympify(expr)):
        (scale if f_.is_positive is True else rest).append(f_)
    return sp.Mul(*scale), rest


def _scaled_terms(expr: sp.Expr) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """``expr = m · max_i m_i |e_i|`` (``m``, ``m_i`` products of factors SymPy's assumptions call positive; a
    single ``m_i |e_i|`` counts as a max of one): ``[(m·m_i, e_i)]``, or ``None`` when ``expr`` is not of that
    shape. Sound since ``max_i m x_i = m max_i x_i`` for ``m > 0``."""
    m_, rest = _split_positive(expr)
    if len(rest) != 1:
        return None
    out = []
    for t_ in rest[0].args if isinstance(rest[0], sp.Max) else (rest[0],):
        mi, ri = _split_positive(t_)
        if len(ri) != 1 or not isinstance(ri[0], sp.Abs):
            return None
        out.append((m_ * mi, ri[0].args[0]))
    return out


def _max_glue(ds: tuple[sp.Expr, ...], big: sp.Expr) -> str | None:
    """``max_j |d_j| ≤ big`` for ``big = max_i w_i |e_i|`` (``w_i > 0``, ``_scaled_terms``): each ``d_j`` is
    ``±w_i e_i`` for some i (``expand`` to 0), so ``|d_j| = w_i |e_i| ≤ big`` for every j. ``None`` when some
    ``d_j`` matches no term (then the engine is asked)."""
    terms = _scaled_terms(big)
    if terms is None:
        return None
    match = []
    for d_ in ds:
        hit = (i_ for i_, (w_, e_) in enumerate(terms) for sg in (1, -1) if sp.expand(d_ - sg * w_ * e_) == 0)
        i_ = next(hit, None)
        if i_ is None:
            return None
        match.append(i_ + 1)
    return f"termwise max: d_j = ±w_σ(j) e_σ(j), σ = {match}, so max_j |d_j| ≤ max_i w_i |e_i| = rhs (w_i > 0)"


def _discharged(name: str, how: Any, step: Step, opts: Mapping[str, Any]) -> str:
    if isinstance(how, str) and how.strip():
        return f"{name}: {how} (the claim's definition)"
    if isinstance(how, tuple) and len(how) == 3 and how[0] == "cites":
        return _discharged_by_steps(name, how[1], how[2], step, opts)
    (lemma,) = lemmas((how,), f"step {step.name!r}: hypothesis {name!r}")
    got = prove_obligation(lemma.name, lemma.lhs, lemma.rhs, lemma.domain, opts)
    return f"{name}: {lemma.name} ({got})"


def _citation(step: Step, thm: Theorem | VectorTheorem, sub: dict, discharge: dict, opts: Mapping[str, Any]) -> str:
    """The citation's argument (module docstring, 1–4), or ``NotProved``."""
    small, big, strict = _sides(step)
    if strict:
        raise NotProved("a strict claim does not follow from the theorem's ≤")
    if isinstance(thm, VectorTheorem):
        a_, b_ = thm.statement(sub)
        conditions = thm.conditions(sub)
        for e_ in thm.positive(sub):
            if sp.sympify(e_).is_positive is not True:
                raise NotProved(f"the theorem's {e_} > 0 is not known from the symbols' assumptions")
        for e_ in thm.real(sub):
            if sp.sympify(e_).is_extended_real is not True or sp.sympify(e_).has(sp.oo, -sp.oo, sp.zoo):
                raise NotProved(f"the theorem's coordinate {e_} is not known real from the symbols' assumptions")
    else:
        a_, b_ = thm.small.xreplace(sub), thm.big.xreplace(sub)
        conditions = tuple(c_.xreplace(sub) for c_ in thm.conditions)
    if sp.expand(sp.sympify(small) - a_) != 0:
        raise NotProved(f"the claim's small side {small} is not the theorem's {a_}")
    gap = sp.expand(sp.sympify(big) - b_)
    glue = "rhs is the theorem's" if gap == 0 else None
    if glue is None and isinstance(thm, VectorTheorem) and thm.max_terms is not None:
        glue = _max_glue(thm.max_terms(sub), big)
    if glue is None:
        glue = prove_obligation("theorem's bound ≤ rhs", b_, big, step.domain, opts)
    conds = [prove_obligation(f"condition {c_} ≥ 0", 0, c_, step.domain, opts) for c_ in conditions]
    missing = sorted(set(thm.hypotheses) - set(discharge))
    if missing:
        raise NotProved(f"hypotheses not discharged: {missing}")
    hyps = [_discharged(n_, discharge[n_], step, opts) for n_ in thm.hypotheses]
    shown = ", ".join(f"{k_} = {_shown(v_)}" for k_, v_ in sub.items())
    out = f"theorem: {thm.text}; " if isinstance(thm, VectorTheorem) else ""
    out += f"instance with {shown}; glue: {glue}; conditions ≥ 0: {'; '.join(conds) or 'none'}"
    if isinstance(thm, VectorTheorem):
        out += f"; positive (assumptions): {', '.join(map(str, thm.positive(sub)))}; coordinates real (assumptions)"
    return f"{out}; hypotheses: {'; '.join(hyps) or 'none'}"


def _discharged_by_steps(name: str, cites: Any, why: Any, step: Step, opts: Mapping[str, Any]) -> str:
    """A hypothesis discharged by catalogue steps: ``("cites", ("derivation / step", …), "why they give it")``.

    Each cited step must exist and be PROVED (a cited classical premise, verdict PROVED with method ``cited: …``,
    counts and is named as such); otherwise ``NotProved`` naming the step and its verdict. ``why`` says in words
    how the cited claims give the hypothesis (shown in the verdict as such)."""
    from . import library
    from .chain import _cited_result

    where = f"step {step.name!r}: hypothesis {name!r}"
    if isinstance(cites, str) or not cites or not all(isinstance(c_, str) and " / " in c_ for c_ in cites):
        raise DerivationError(f"{where}: discharge ('cites', steps, why) needs steps as 'derivation / step' strings")
    if not (isinstance(why, str) and why.strip()):
        raise DerivationError(f"{where}: discharge ('cites', steps, why) needs why as a sentence")
    got = []
    for c_ in cites:
        der_name, _, step_name = c_.partition(" / ")
        try:
            cited = library.current().derivation(der_name).step(step_name)
        except (DerivationError, KeyError) as exc:
            raise NotProved(f"hypothesis {name!r} cites {c_!r}, which the catalogue does not hold ({exc})") from exc
        res = _cited_result(der_name, cited, opts)
        if res.verdict is not Verdict.PROVED:
            raise NotProved(f"hypothesis {name!r} cites {c_!r}, which is {res.verdict}, not proved")
        got.append(f"{c_} [{'cited premise' if res.method.startswith(CITED + ': ') else 'proved'}]")
    return f"{name}: {why} (from steps: {'; '.join(got)})"


def _shown(v_: Any) -> str:
    return f"({', '.join(map(str, v_))}) (k = {len(v_)})" if isinstance(v_, tuple) else str(v_)


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


__all__ = ["THEOREMS", "Theorem", "VectorTheorem", "prove_classical"]
