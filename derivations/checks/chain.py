"""Chain checker: ``A₀ R₁ A₁ R₂ … R_m A_m`` proves ``lhs R rhs`` when the links compose and each is cited.

A step of kind ``"chain"`` lists ``Link`` s (``derivations.ledger``). The check, in order:

1. *direction*: every link's relation is ``=`` or goes the chain's way (≤ or < in a ≤ chain; a ≥ link
   in a ≤ chain is refuted); a strict chain needs at least one strict link;
2. *composition*: ``lhs ≡ A₀``, ``A_i ≡`` the next link's left side, ``A_m ≡ rhs``, each checked as an
   identity (symbolic reduction, then a 50-digit spot-check: a mismatch refutes the chain as a gap);
3. *citation*: each link names ``derivation / step`` of the catalogue; the step must exist, must not be
   refuted (or an erratum), and must be proved or verified numerically (a *classical* definition —
   a theorem of the literature taken as premise — counts when the link says what it ``reads``);
4. *instance*: ``gap(link) ≡ factor · gap(cited)|_{subs}`` as an identity, with ``factor ≥ 0``;
5. *domain*: every substituted value lies in the cited step's range for that symbol wherever the
   chain uses it (a symbol: range inclusion; a number: membership; an expression: two inequality
   steps checked on the chain's domain), and the cited domain's constraints hold after substitution.

A *min* chain (links that all start at the claim's left side, the right side a min of as many entries, ``≤``):
each link bounds the left side by one entry, so by their min (``_min_joins``); its joins are entry ≡ link's right
side.

The verdict is proved when every part is proved, refuted when any part is refuted, otherwise the
weakest verdict, naming the weakest link. A link with ``cite=""`` is pure algebra: checked on its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import (
    DerivationError,
    Domain,
    Link,
    Step,
    StepResult,
    Verdict,
    covers,
    free_names,
    region,
)
from . import library, verdicts
from .sampling import symbolic_cover

_ORDER = {Verdict.REFUTED: 0, Verdict.UNDECIDED: 1, Verdict.VERIFIED: 2, Verdict.DEFINED: 3, Verdict.PROVED: 3}
_WAY = {"<=": ("<=", "<"), "<": ("<=", "<"), ">=": (">=", ">"), ">": (">=", ">")}

#: results of cited steps already checked in this process: (derivation, step, trials, seed) → StepResult
_MEMO: dict[tuple, StepResult] = {}


def _gap(lhs: sp.Expr, rhs: sp.Expr, relation: str) -> sp.Expr:
    """The nonnegative side of the claim: rhs − lhs for ≤/<, lhs − rhs for ≥/> and for =."""
    return rhs - lhs if relation in ("<=", "<") else lhs - rhs


def _quick(expr: sp.Expr) -> sp.Expr:
    """Cheap reductions first (the gaps are often equal term by term), ``simplify`` only if needed."""
    e = sp.expand(expr)
    if e == 0:
        return e
    # expand_log only where SymPy's assumptions allow it: force=True splits log(ab) for any a, b, and a join
    # reduced to 0 that way could be called proved where its logs' arguments are negative
    e = sp.expand(sp.expand_log(e))
    return e if e == 0 else sp.simplify(e)


def _exact_sign(c: sp.Expr) -> bool | None:
    """``c ≥ 0`` for a constant, decided exactly (a rational) or by Arb at rising precision
    (``signs.arb_sign``; SymPy's own comparison decides a number by ``evalf``); ``None`` when undecided."""
    from .signs import arb_sign

    try:
        s = arb_sign(c)
    except ValueError:  # not a constant
        return None
    return None if s is None else s >= 0


def _same_tree(a: sp.Expr, b: sp.Expr, either_sign: bool) -> str | None:
    """Why ``a ≡ b`` needs no check: the two are the same SymPy tree (so equal wherever either is defined).

    A link that is its cited claim with the substitution applied is that, and a spot-check would only
    evaluate one expression twice. ``None`` when the trees differ: then the identity checker decides.
    """
    if a == b:
        return "the link's gap is the cited gap with the substitution applied (the same expression)"
    if either_sign and a == -b:
        return "the link's gap is minus the cited gap with the substitution applied (the same expression)"
    return None


def _identity(name: str, lhs: Any, rhs: Any, domain: Domain, opts: Mapping[str, Any]) -> StepResult:
    from .identity import check_identity

    # printed quantities (E_AB(k), …) are opaque reals here: each application one real symbol over ℝ, the same on
    # both sides, so an identity holding for every value of them holds for theirs (and the spot-check can evaluate)
    apps = {f_ for e in (lhs, rhs) for f_ in sp.sympify(e).atoms(sp.core.function.AppliedUndef)}
    if apps:
        opaque = {f_: sp.Dummy(f"q_{f_.func}", real=True) for f_ in apps}
        lhs, rhs = sp.sympify(lhs).xreplace(opaque), sp.sympify(rhs).xreplace(opaque)
        domain = Domain({**domain.ranges, **{d_: (-sp.oo, sp.oo) for d_ in opaque.values()}}, domain.constraints)
    return check_identity(Step(name, lhs, rhs, domain=domain, simplifier=_quick), opts)


def _cited_result(der_name: str, step: Step, opts: Mapping[str, Any]) -> StepResult:
    """The cited step's verdict: from the library's cache when it holds it, else checked here (and memoised)."""
    from .reentry import check_step

    memo_key = (der_name, step.name, opts.get("trials"), opts.get("seed"))
    if memo_key in _MEMO:
        return _MEMO[memo_key]
    lib = library.current()
    try:
        res = lib.cached(lib.derivation(der_name), step, opts)
    except Exception:  # noqa: BLE001 - the cache is an optimisation; a miss means: check it here
        res = None
    if res is None:
        res = check_step(step, **{k: v for k, v in opts.items()})
    _MEMO[memo_key] = res
    return res


_DEPTH = 0  # chains being checked in this process (a cited chain is checked inside its citer)


def _resolve(link: Link) -> tuple[str, Step] | str:
    der_name, step_name = link.cited
    try:
        der = library.current().derivation(der_name)
    except DerivationError:
        return f"cites derivation {der_name!r}, which the catalogue does not hold"
    try:
        return der_name, der.step(step_name)
    except KeyError:
        return f"cites step {step_name!r}, which derivation {der_name!r} does not have"


def _fails(name: str, method: str, reason: str, kind: str = "chain") -> StepResult:
    """A part of a chain's argument that fails: REFUTED without a point (the argument, not a value, is wrong)."""
    return verdicts.refuted_argument(name, kind=kind, method=method, reason=reason)


def _in_range(e: sp.Expr, sym: sp.Symbol, cited: Domain, use: Domain, opts, label: str) -> list[StepResult]:
    """Parts showing that the value ``e`` substituted for ``sym`` stays in ``cited``'s range of ``sym``."""
    lo, hi = cited.ranges[sym]
    name = f"{label}: {sym} ↦ {e} within [{lo}, {hi}]"
    if e.is_number:
        ok = bool(sp.Ge(e, lo)) and bool(sp.Le(e, hi))
        if ok:  # a number: nothing to cover
            return [verdicts.proved(name, kind="inequality", method="exact comparison", cover={})]
        return [_fails(name, "exact comparison", f"{e} is not in [{lo}, {hi}]", "inequality")]
    if isinstance(e, sp.Symbol) and e in use.ranges:
        ulo, uhi = use.ranges[e]
        ok = covers({str(e): (str(lo), str(hi))}, Domain({e: (ulo, uhi)}))  # cited range ⊇ the chain's
        how = f"range of {e} on the chain: {use.ranges[e]}"
        if ok:
            return [verdicts.proved(name, kind="inequality", method=how, cover={str(e): (str(ulo), str(uhi))})]
        return [_fails(name, how, f"not within [{lo}, {hi}]", "inequality")]
    parts = []
    what = f"{sym} ↦ {e} within [{lo}, {hi}]"
    try:
        if lo.is_finite:
            parts.append(_part(label, f"{what} (lower)", e, lo, ">=", use, opts))
        if hi.is_finite:
            parts.append(_part(label, f"{what} (upper)", e, hi, "<=", use, opts))
    except DerivationError as exc:
        parts.append(_fails(name, "uncovered symbol", str(exc), "inequality"))
    return parts


#: the parts of chains checked in this process (content key → result): theorem's three chains, say,
#: use the same substituted values on the same ranges
_PARTS: dict[str, StepResult] = {}


def _part(label: str, what: str, lhs: Any, rhs: Any, relation: str, use: Domain, opts: Mapping[str, Any]) -> StepResult:
    """The inequality ``lhs (relation) rhs`` on the chain's domain, checked as a step of its own.

    Named and drawn by its content (``what``, without the link's label), on the part of ``use`` that
    it involves: the same claim gets the same check wherever a chain makes it, so it is checked once
    per process, and once per ``verify`` run across its workers (the library's run memo: a directory that
    lives as long as the run; never reused by another run). The result carries ``label: what``.
    """
    from .reentry import check_step

    step = Step(what, lhs, rhs, "inequality", _restrict(use, [lhs, rhs]), relation=relation)
    lib = library.current()
    key = lib.key(step, opts)
    res = _PARTS.get(key) if key is not None else None
    if res is None:
        hit = lib.memo_load(key) if key is not None else None
        res = hit if hit is not None else check_step(step, **opts)
        if hit is None and key is not None:
            lib.memo_store(key, res)
        if key is not None:
            _PARTS[key] = res
    return dataclasses.replace(res, step=f"{label}: {what}")


def _restrict(domain: Domain, exprs: list[Any]) -> Domain:
    """``domain`` on the symbols of ``exprs`` and those tied to them by a constraint (the rest cannot
    change the claim); a symbol without a range stays without one, so ``Step`` still rejects it."""
    names = set().union(*(free_names(e) for e in exprs))
    constraints = list(domain.constraints)
    keep: list = []
    grew = True
    while grew:
        grew = False
        for c in constraints:
            if c not in keep and free_names(c) & names:
                keep.append(c)
                names |= free_names(c)
                grew = True
    ranges = {sym: rng for sym, rng in domain.ranges.items() if sym in names}
    return Domain(ranges, tuple(c for c in domain.constraints if c in keep), name=domain.name)


def _check_link(i: int, link: Link, chain: Step, opts: Mapping[str, Any]) -> tuple[list[StepResult], str]:
    """Every part of link ``i``'s justification, and its one-line description."""
    from .reentry import check_step

    label = f"link {i + 1}"
    use = chain.domain
    if not link.cite:  # pure algebra, checked where it is used
        kind = "identity" if link.relation == "=" else "inequality"
        rel = None if kind == "identity" else link.relation
        try:
            res = check_step(Step(f"{label} (algebra)", link.lhs, link.rhs, kind, use, relation=rel), **opts)
        except DerivationError as exc:
            return [_fails(label, "malformed link", str(exc), kind)], f"{label}: {exc}"
        return [res], f"{label} [algebra: {res.verdict}]"
    found = _resolve(link)
    if isinstance(found, str):
        return [_fails(label, "citation not found", found)], f"{label}: {found}"
    der_name, cited = found
    where = f"{label} [{link.cite}]"
    cited_rel = "=" if cited.kind == "identity" else cited.relation
    if cited.kind == "definition":
        if cited.provenance != "classical" or link.reads is None:
            why = "cites a definition (a premise, not a checked step); only a classical theorem with `reads` counts"
            return [_fails(label, "citation not checkable", why)], f"{where}: {why}"
        cited_rel = link.reads
    elif cited.kind not in ("identity", "inequality", "chain"):
        why = f"cites a step of kind {cited.kind!r}, which states no inequality or identity"
        return [_fails(label, "citation not usable", why)], f"{where}: {why}"
    if cited.expected == "refuted":
        why = "cites a printed step known to be false (an erratum)"
        return [_fails(label, "cites an erratum", why)], f"{where}: {why}"
    parts: list[StepResult] = []
    if cited.kind == "definition":
        ref = cited.reference or "classical"
        # a quoted theorem is a premise of the chain, not something this run proved: labelled *cited*
        parts.append(
            verdicts.cited(
                label, kind="chain", reference=ref, evidence="classical premise, taken as given, not proved here"
            )
        )
    else:
        got = _cited_result(der_name, cited, opts)
        if got.verdict == Verdict.REFUTED:
            why = f"the cited step is refuted ({got.method})"
            return [_fails(label, "cites a refuted step", why)], f"{where}: {why}"
        parts.append(got)
    # relations: an inequality cites an inequality of the same orientation after normalising, or an identity
    if link.relation == "=" and cited_rel != "=":
        why = f"an identity link cannot come from a {cited_rel} step"
        return [*parts, _fails(label, "relation", why)], f"{where}: {why}"
    if link.relation in ("<", ">") and cited_rel not in ("<", ">"):
        why = f"a strict link cannot come from a non-strict ({cited_rel}) step"
        return [*parts, _fails(label, "relation", why)], f"{where}: {why}"
    parts.append(_instance(label, link, cited, cited_rel, use, opts))
    if link.factor != 1 and link.relation != "=":
        parts.append(_factor_nonneg(label, link, use, opts))
    # domain: the cited claim is used at the substituted values, which must lie in its domain
    parts += _in_cited_domain(label, link, cited, use, opts)
    worst = min(parts, key=lambda p: _ORDER[p.verdict])
    cites = [p.method for p in parts if _is_cited(p)]
    if worst.verdict == Verdict.PROVED and cites:  # proved given the quoted premise: say so, never "[proved]"
        return parts, f"{where} [{'; '.join(cites)}; the rest proved]"
    return (
        parts,
        f"{where} [{worst.verdict}{'' if worst.verdict == Verdict.PROVED else ': ' + worst.step + ', ' + worst.method}]",
    )


def _instance(label: str, link: Link, cited: Step, cited_rel: str, use: Domain, opts: Mapping[str, Any]) -> StepResult:
    """The link's gap is the cited step's gap at the link's substitution, times its factor: the same tree
    (proved symbolically), else an identity checked on the chain's domain (an identity cited either way round).
    A refutation says the link is not an instance of the cited step."""
    cited_gap = _gap(cited.lhs, cited.rhs, cited_rel if cited_rel != "=" else ">=")
    link_gap = _gap(link.lhs, link.rhs, link.relation if link.relation != "=" else ">=")
    inst = sp.sympify(cited_gap).subs(link.subs, simultaneous=True)
    try:
        same = _same_tree(link_gap, link.factor * inst, either_sign=cited_rel == "=")
        if same is not None:
            # the same expression tree: it holds wherever its symbols take values
            r = verdicts.proved(
                f"{label}: instance",
                kind="identity",
                method=same,
                symbolic=True,
                cover=symbolic_cover([link_gap, link.factor * inst]),
            )
        elif cited_rel == "=":  # an identity may be used in either orientation
            r1 = _identity(f"{label}: instance", link_gap, link.factor * inst, use, opts)
            r = (
                r1
                if r1.verdict != Verdict.REFUTED
                else _identity(f"{label}: instance", link_gap, -link.factor * inst, use, opts)
            )
        else:
            r = _identity(f"{label}: instance", link_gap, link.factor * inst, use, opts)
    except DerivationError as exc:
        r = _fails(label, "instance has symbols without range on the chain", str(exc))
    if r.verdict == Verdict.REFUTED:
        r.method = "not an instance of the cited step: " + r.method
    return r


def _factor_nonneg(label: str, link: Link, use: Domain, opts: Mapping[str, Any]) -> StepResult:
    """The link's factor ≥ 0 (an inequality scaled by it keeps its direction): exactly for a constant, else on
    the chain's domain."""
    try:
        exact = _exact_sign(link.factor) if link.factor.is_number else None
        if exact is not None:  # a constant: compared exactly, as a substituted number is
            what = f"{label}: factor ≥ 0"
            return (
                verdicts.proved(what, kind="inequality", method="exact comparison", cover={})
                if exact
                else _fails(what, "exact comparison", f"{link.factor} < 0", "inequality")
            )
        return _part(label, "factor ≥ 0", link.factor, sp.Integer(0), ">=", use, opts)
    except DerivationError as exc:
        return _fails(label, "factor has symbols without range", str(exc))


def _in_cited_domain(label: str, link: Link, cited: Step, use: Domain, opts: Mapping[str, Any]) -> list[StepResult]:
    """The substituted values lie in the cited step's domain: each range of a symbol it uses, each constraint."""
    parts: list[StepResult] = []
    used = free_names(cited.lhs) | free_names(cited.rhs)
    subs_by_name = {}
    for a, b in link.subs.items():
        if isinstance(a, sp.Symbol):
            subs_by_name[a] = b
    for sym in cited.domain.ranges:
        if sym not in used:
            continue
        parts += _in_range(subs_by_name.get(sym, sym), sym, cited.domain, use, opts, label)
    for c in cited.domain.constraints:
        cc = c.subs(subs_by_name, simultaneous=True)
        if cc is sp.true or cc in use.constraints:
            continue
        if cc is sp.false:
            parts.append(_fails(label, "domain", f"constraint {c} fails"))
            continue
        rel = {sp.GreaterThan: ">=", sp.StrictGreaterThan: ">", sp.LessThan: "<=", sp.StrictLessThan: "<"}[type(cc)]
        parts.append(_part(label, f"constraint {c}", cc.lhs, cc.rhs, rel, use, opts))
    return parts


#: the method prefix of a link part that is a quoted classical theorem (a premise, not proved by the run)
CITED = verdicts.CITED


def _is_cited(part: StepResult) -> bool:
    return part.verdict == Verdict.PROVED and part.method.startswith(f"{CITED}: ")


def check_chain(step: Step, opts: Mapping[str, Any]) -> StepResult:
    global _DEPTH
    lib = library.current()
    if _DEPTH == 0:
        lib.begin(step, opts)  # the keys of every cited derivation, in one computation (their upstreams overlap)
    _DEPTH += 1
    try:
        return _check_chain(step, opts)
    finally:
        _DEPTH -= 1
        if _DEPTH == 0:
            lib.end()


def _min_entries(e: sp.Expr) -> list[sp.Expr] | None:
    """The entries of ``e`` as a min, by exact rewrites: ``Min`` flattened, ``exp(min(a, b)) = min(e^a, e^b)`` (exp
    increasing); None when ``e`` is not a min."""
    e = sp.sympify(e)
    if isinstance(e, sp.Min):
        out = []
        for a_ in e.args:
            out += _min_entries(a_) or [a_]
        return out
    if isinstance(e, sp.exp) and isinstance(e.args[0], sp.Min):
        return [sp.exp(a_) for a_ in _min_entries(e.args[0]) or []]
    return None


def _min_joins(step: Step, links: list) -> list[tuple[str, Any, Any]] | None:
    """The joins of a *min* chain, or None: in a non-strict ≤ chain whose links all start at the claim's left side
    (the same tree) and whose right side is min(b_1, …, b_n) (``_min_entries``) with n the number of links, link i
    proves lhs ≤ b_i, so lhs ≤ min_i b_i; the joins are b_i ≡ link i's right side."""
    if step.relation != "<=" or len(links) < 2 or any(x.lhs != step.lhs or x.relation == "=" for x in links):
        return None
    entries = _min_entries(step.rhs)
    if entries is None or len(entries) != len(links):
        return None
    return [
        (f"min entry {i + 1} of the claim's right side = link {i + 1}'s right side", x.rhs, b_)
        for i, (x, b_) in enumerate(zip(links, entries, strict=True))
    ]


def _check_chain(step: Step, opts: Mapping[str, Any]) -> StepResult:
    links = list(step.links)
    fails: list[str] = []
    for i, link in enumerate(links):
        if link.relation != "=" and link.relation not in _WAY[step.relation]:
            fails.append(f"link {i + 1} goes the wrong way ({link.relation} in a {step.relation} chain)")
    if step.relation in ("<", ">") and not any(x.relation in ("<", ">") for x in links):
        fails.append(f"a strict ({step.relation}) chain needs a strict link")
    if fails:
        return verdicts.refuted_argument(step, method="chain: relations do not compose", reason="; ".join(fails))
    joins = _min_joins(step, links)
    if joins is None:
        joins = [("claim's left side = link 1's left side", step.lhs, links[0].lhs)]
        joins += [
            (f"link {i + 1}'s right side = link {i + 2}'s left side", links[i].rhs, links[i + 1].lhs)
            for i in range(len(links) - 1)
        ]
        joins.append((f"link {len(links)}'s right side = the claim's right side", links[-1].rhs, step.rhs))
    weakest: list[tuple[Verdict, str]] = []
    evidence: list[str] = []
    for name, a, b in joins:
        if a == b:
            continue
        try:
            r = _identity(name, a, b, step.domain, opts)
        except DerivationError as exc:
            return verdicts.refuted_argument(step, method="chain: malformed join", reason=f"{name}: {exc}")
        if r.verdict == Verdict.REFUTED:
            return verdicts.refuted(
                step,
                method="chain: gap between links",
                evidence=f"{name} fails: {r.evidence}",
                counterexample=r.counterexample,
            )
        if r.verdict != Verdict.PROVED:
            weakest.append((r.verdict, name))
        evidence.append(f"{name}: {r.verdict}")
    refuted: list[str] = []
    attacked: dict[str, tuple[str, str]] = {}
    cited: list[str] = []
    for i, link in enumerate(links):
        parts, desc = _check_link(i, link, step, opts)
        evidence.append(desc)
        cited += [f"link {i + 1}: {p.method.removeprefix(CITED + ': ')}" for p in parts if _is_cited(p)]
        for p in parts:
            if p.verdict == Verdict.REFUTED:
                refuted.append(desc)
            elif p.verdict not in (Verdict.PROVED,):
                weakest.append((p.verdict, f"link {i + 1} ({link.cite or 'algebra'})"))
                attacked = _narrowest(attacked, p.attacked or {})
    n = len(links)
    if refuted:
        return verdicts.refuted_argument(step, method=f"chain of {n} links: a link fails", reason="; ".join(refuted))
    if not weakest:
        return verdicts.proved(
            step,
            method=f"chain of {n} links: every join and every cited link proved"
            + (f"; premises cited, not proved here: {'; '.join(cited)}" if cited else ""),
            evidence="; ".join(evidence),
            symbolic=True,
            cover=region(step.domain.ranges),  # every link was shown to hold on the chain's whole domain
        )
    verdict = min((v for v, _ in weakest), key=lambda v: _ORDER[v])
    if verdict == Verdict.DEFINED:  # pragma: no cover - definitions are turned into premises above
        verdict = Verdict.UNDECIDED
    names = sorted({w for v, w in weakest if v == verdict})
    return verdicts.by_verdict(
        verdict,
        step,
        method=f"chain of {n} links; weakest: {', '.join(names)} ({verdict})",
        evidence="; ".join(evidence),
        # what the links that are not proved were attacked on (per symbol, the narrowest of their ranges)
        attacked=attacked or None,
    )


def _narrowest(a: dict[str, tuple[str, str]], b: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Per symbol name, the intersection of two attacked ranges (a symbol in one only keeps its range)."""
    out = dict(a)
    for name, (lo, hi) in b.items():
        if name not in out:
            out[name] = (lo, hi)
            continue
        lo0, hi0 = out[name]
        try:
            out[name] = (str(sp.Max(sp.sympify(lo0), sp.sympify(lo))), str(sp.Min(sp.sympify(hi0), sp.sympify(hi))))
        except (sp.SympifyError, TypeError, ValueError):  # not numbers: keep both, stated side by side
            out[name] = (f"{lo0} | {lo}", f"{hi0} | {hi}")
    return out
