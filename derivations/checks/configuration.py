"""Route "configuration": claims over every embedding configuration (every dimension d, every k, every set of
vectors with the stated norm hypotheses), proved by classical rules of the inner-product algebra whose instances
are checked, then a scalar claim the engine proves.

Vocabulary (SymPy objects; the hint declares what is a vector):

* vectors: a ``Symbol`` (one vector) or an ``IndexedBase`` (a family ``v[j]``, j = 1..k), declared in
  ``vectors`` as ``("sphere", r)`` (‖v‖ = r), ``("ball", r)`` (‖v‖ ≤ r) or ``("def", e)`` (a derived vector:
  ``e`` linear in the others; for a family ``Lambda(i, e(i))``);
* ``Norm(v)`` ‖v‖, ``Inner(u, v)`` ⟨u, v⟩, ``FamilyMax(t, (j, 1, k))`` max_j t_j, and ``Sum`` over ``j = 1..k``;
  a vector expression is linear in the vectors, its coefficients (weights) scalar expressions that may read
  ``Norm`` and ``Inner`` of vectors (a softmax of similarities).

Claim shape (``claim = (lhs, rhs)``, relation ≤): lhs is ``Norm(v)``, ``Abs(s)`` (``s`` a scalar in inner
products), ``Inner(u, v)`` or ``FamilyMax`` of one of them; rhs is a scalar expression in the parameters and
in norms of named vectors (kept as variables: the claim is about them), possibly ``FamilyMax(Norm(v_j))``.
The rules, each classical and applied to its exact instance (the reduction shows each use):

* triangle inequality and homogeneity: ‖Σ_i c_i u_i‖ ≤ Σ_i |c_i| ‖u_i‖, its weighted form
  ‖Σ_j w_j u_j‖ ≤ Σ_j w_j ‖u_j‖ with w_j ≥ 0 proved (structurally, or by Arb over the parameters' ranges;
  a weight of unproved sign stays |w_j| in the scalar claim);
* Cauchy–Schwarz: |⟨u, v⟩| ≤ ‖u‖ ‖v‖, and |a + b| ≤ |a| + |b| on reals;
* a norm hypothesis: ‖v‖ ≤ r; a derived vector's norm is bounded through its definition, as written and
  then with every derived vector expanded into the declared ones (both tried);
* a bilinear identity (``split``): an alternative form of the lhs argument, proved equal to it by expanding
  both bilinear forms symbolically in the declared vectors (the Gram identities of the inner-product algebra);
* a convex combination is at most the max: Σ_j w_j t_j ≤ max_j t_j from w_j ≥ 0, Σ_j w_j ≤ 1 (proved by the
  engine) and t_j ≥ 0 (norms);
* a term is at most the max: for an lhs max_j t_j, a max_i b_i (b_i ≥ 0) inside a rhs nondecreasing in it
  (∂rhs/∂M ≥ 0 structurally) is replaced by b_j, and t_j ≤ that rhs is proved for each j;
* a positive semidefinite quadratic form: small ≤ K √Q (K > 0) from K²Q − small² ≥ 0 everywhere (exact principal
  minors; ``configuration_terms.quadratic_form``).

What is left is a scalar claim ``bound ≤ rhs`` in the parameters and in *atoms*: each remaining ``Norm`` and
``Inner`` becomes a variable over a range its rules prove (a norm in [0, its bound], an inner product in
[−‖u‖‖v‖, ‖u‖‖v‖]), indexed when it reads the family index. The atoms range over a box that contains every
joint value a configuration can give them, so the scalar claim on the box implies the configuration claim;
the engine proves it (``check_step``: symbolic, interval, sums, touching routes). A claim the rules do not
reduce, or whose scalar claim the engine does not prove, is not proved (the attack's verdict stands).

Existence (``rule = "attained"``): ``lhs ≤ Q(witness) ≤ rhs`` for an exact witness configuration (rational or
algebraic coordinates, every sphere/ball hypothesis checked exactly, derived vectors computed from their
definitions), the typed quantity ``Q`` evaluated exactly and both signs decided by Arb: "the supremum rhs is
approached to within lhs" (a constant above the supremum fails at the witness: not proved).

Link to the printed step: ``realise`` maps each vector to its coordinates in the step's finite realisation
(a family to k lists), ``at`` gives the realisation's k; the route realises the typed claim (sums written out,
``Norm`` → √Σ, ``Inner`` → Σ) and requires it to be the step's lhs and rhs exactly, and every realised derived
vector to equal its definition; so the claim proved is the printed one, read over every configuration with
the hypotheses (the step's box stands for them in its finite realisation). The cover is the parameters' ranges;
the realisation's coordinate box joins it only when every point of the stated domain (the box cut by its
``Domain`` constraints) is a configuration the proof covers: each realised vector's box lies in its ball, or
the domain states that ball as a constraint ``Σ_i v_i² ≤ r²`` (``_box_cover``; the bound rule reads ‖v‖ ≤ r
only, so a sphere's ball serves). A box point outside the hypotheses that no constraint excludes is no claim of
the proof: then the attack's verdict stands.

Hint: ``route=("configuration", {"vectors": …, "claim": (lhs, rhs), "realise": …, "at": {k: 3}, "scalars":
{τ: (lo, hi), …}, "split": …, "attack": vector_check(...)})``. ``attack`` (a ``paper._embed.vector_check``
closure) runs beside the proof; a counterexample it confirms refutes the step whatever the proof says.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Domain, Step, StepResult, Verdict, covers, free_names
from .configuration_terms import (
    FamilyMax,
    Inner,
    Norm,
    NotProved,
    corner_inside,
    cover_row,
    quadratic_form,
    realise,
    stated_ball,
    vector_coords,
)
from .verdicts import proved, undecided

__all__ = ["FamilyMax", "Inner", "Norm", "NotProved", "bilinear", "prove_configuration", "realise", "vector_coords"]


RULES = ("bound", "attained")


# ----------------------------------------------------------------------------- the declared vectors


class Space:
    """The declared vectors of a hint and the rules' bookkeeping (atoms, uses of each rule)."""

    def __init__(self, vectors: Mapping[Any, Any], scalars: Mapping[Any, tuple], step: Step):
        self.spec: dict[Any, tuple] = {}
        for v, s_ in dict(vectors).items():
            if not isinstance(v, (sp.Symbol, sp.IndexedBase)):
                raise DerivationError(f"step {step.name!r}: a vector must be a Symbol or an IndexedBase, got {v!r}")
            if not (isinstance(s_, tuple) and len(s_) == 2 and s_[0] in ("sphere", "ball", "def")):
                raise DerivationError(
                    f"step {step.name!r}: vectors[{v}] must be ('sphere', r), ('ball', r) or ('def', e), got {s_!r}"
                )
            if s_[0] == "def" and isinstance(v, sp.IndexedBase) and not isinstance(s_[1], sp.Lambda):
                raise DerivationError(
                    f"step {step.name!r}: the family {v} is defined by Lambda(i, e(i)), got {s_[1]!r}"
                )
            self.spec[v] = (s_[0], sp.sympify(s_[1]))
        self.scalars = {sp.sympify(k_): (sp.sympify(a), sp.sympify(b)) for k_, (a, b) in dict(scalars).items()}
        self.used: dict[str, None] = {}
        self.expanded = False  # whether the bound rule's proof expanded the derived vectors (set by it)
        self.split = False  # whether it used a bilinear identity (set by it)
        self.atoms: dict[sp.Expr, tuple[Any, Any, Any]] = {}  # canonical Norm/Inner → (variable base, lo, hi)

    # -- what is a vector
    def base_of(self, e: sp.Expr) -> Any:
        if isinstance(e, sp.Indexed) and e.base in self.spec:
            return e.base
        if isinstance(e, sp.Symbol) and e in self.spec:
            return e
        return None

    def is_vector_atom(self, e: sp.Expr) -> bool:
        return self.base_of(e) is not None

    def has_vector(self, e: sp.Expr) -> bool:
        e = sp.sympify(e)
        if self.is_vector_atom(e):
            return True
        if isinstance(e, (Norm, Inner)):
            return False  # a scalar
        return any(self.has_vector(a) for a in e.args)

    def definition(self, e: sp.Expr) -> sp.Expr | None:
        b = self.base_of(e)
        kind, val = self.spec[b]
        if kind != "def":
            return None
        if isinstance(e, sp.Indexed):
            return val(e.indices[0])
        return val

    def radius(self, e: sp.Expr) -> sp.Expr:
        return self.spec[self.base_of(e)][1]

    def expand_defs(self, e: sp.Expr) -> sp.Expr:
        """e with every derived vector replaced by its definition (recursively)."""

        def fix(node: sp.Expr) -> sp.Expr:
            d_ = self.definition(node)
            return self.expand_defs(d_) if d_ is not None else node

        return sp.sympify(e).replace(lambda n: self.is_vector_atom(n) and self.definition(n) is not None, fix)


# ----------------------------------------------------------------------------- signs


def _nonneg(e: sp.Expr, sp_: Space) -> bool:
    """e ≥ 0 structurally (exp > 0, norms ≥ 0, sums and products of such, a parameter with lo ≥ 0) or by Arb
    over the parameters' ranges (an expression in the parameters only)."""
    e = sp.sympify(e)
    if e.is_number:
        from .signs import arb_sign

        s_ = arb_sign(e)
        return s_ is not None and s_ >= 0
    if isinstance(e, (sp.exp, Norm, sp.Abs)):
        return True
    if isinstance(e, sp.Symbol) and e.is_nonnegative is True:  # a declared nonnegative symbol (an assumption)
        return True
    if e.is_Symbol and e in sp_.scalars:
        return sp_.scalars[e][0].is_nonnegative is True
    if e.is_Add or e.is_Mul:
        if all(_nonneg(a, sp_) for a in e.args):
            return True
    if e.is_Pow and _nonneg(e.base, sp_) and (e.exp.is_real or e.exp.is_number):
        return True
    if isinstance(e, sp.Sum) and _nonneg(e.function, sp_):
        return True
    if not e.has(sp.Sum, sp.Indexed, Norm, Inner) and set(e.free_symbols) <= set(sp_.scalars):
        from .. import intervals

        try:
            iv = intervals.interval_eval(e, {s_: sp_.scalars[s_] for s_ in e.free_symbols})
        except Exception:  # noqa: BLE001 - no enclosure: the sign is not proved
            return False
        return bool(iv.lo >= 0)
    return False


def _abs(c: sp.Expr, sp_: Space) -> sp.Expr:
    if _nonneg(c, sp_):
        return c
    if _nonneg(-c, sp_):
        return -c
    return sp.Abs(c)


# ----------------------------------------------------------------------------- the rules (upper bounds)


def _split(e: sp.Expr, sp_: Space) -> tuple[sp.Expr, sp.Expr]:
    """A product as (scalar factor, the one vector factor)."""
    vec = [f_ for f_ in sp.Mul.make_args(e) if sp_.has_vector(f_)]
    if len(vec) != 1:
        raise NotProved(f"{e} is not linear in the vectors (vector factors {vec})")
    sc = sp.Mul(*[f_ for f_ in sp.Mul.make_args(e) if not sp_.has_vector(f_)])
    return sc, vec[0]


def ub_norm(e: sp.Expr, sp_: Space, keep: Mapping[sp.Expr, sp.Expr]) -> sp.Expr:
    """An upper bound of ‖e‖ by the triangle inequality, homogeneity and the norm hypotheses; a norm the claim
    names (``keep``: Norm(v) → its variable) stays that variable."""
    e = sp.sympify(e)
    for cand in (e, -e):
        if Norm(cand) in keep:
            return keep[Norm(cand)]
    if e == 0:
        return sp.Integer(0)
    if sp_.is_vector_atom(e):
        d_ = sp_.definition(e)
        if d_ is None:
            sp_.used["norm hypotheses (‖v‖ ≤ r)"] = None
            return sp_.radius(e)
        return ub_norm(d_, sp_, keep)
    if e.is_Add:
        sp_.used["triangle inequality ‖u + v‖ ≤ ‖u‖ + ‖v‖"] = None
        return sp.Add(*[ub_norm(t_, sp_, keep) for t_ in e.args])
    if e.is_Mul:
        c, v = _split(e, sp_)
        sp_.used["homogeneity ‖c v‖ = |c| ‖v‖"] = None
        return _abs(c, sp_) * ub_norm(v, sp_, keep)
    if isinstance(e, sp.Sum) and len(e.limits) == 1:
        sp_.used["triangle inequality over j (weighted: ‖Σ_j w_j u_j‖ ≤ Σ_j |w_j| ‖u_j‖)"] = None
        return sp.Sum(ub_norm(e.function, sp_, keep), e.limits)
    raise NotProved(f"no rule bounds ‖{e}‖")


def ub_abs(s: sp.Expr, sp_: Space, keep: Mapping[sp.Expr, sp.Expr]) -> sp.Expr:
    """An upper bound of |s| for a scalar s in inner products: |a + b| ≤ |a| + |b|, Cauchy–Schwarz."""
    s = sp.sympify(s)
    if isinstance(s, Inner):
        sp_.used["Cauchy–Schwarz |⟨u, v⟩| ≤ ‖u‖ ‖v‖"] = None
        return ub_norm(s.args[0], sp_, keep) * ub_norm(s.args[1], sp_, keep)
    if s.is_Add:
        sp_.used["|a + b| ≤ |a| + |b|"] = None
        return sp.Add(*[ub_abs(t_, sp_, keep) for t_ in s.args])
    if s.is_Mul:
        inner = [f_ for f_ in sp.Mul.make_args(s) if f_.has(Inner)]
        if len(inner) == 1:
            c = sp.Mul(*[f_ for f_ in sp.Mul.make_args(s) if not f_.has(Inner)])
            return _abs(c, sp_) * ub_abs(inner[0], sp_, keep)
    if isinstance(s, sp.Sum) and len(s.limits) == 1:
        sp_.used["|Σ_j a_j| ≤ Σ_j |a_j|"] = None
        return sp.Sum(ub_abs(s.function, sp_, keep), s.limits)
    if not s.has(Inner, Norm) and not sp_.has_vector(s):
        return _abs(s, sp_)
    raise NotProved(f"no rule bounds |{s}|")


# ----------------------------------------------------------------------------- bilinear identities


def _coords(e: sp.Expr, sp_: Space, gens: dict) -> list:
    """e (linear in the declared vectors, derived ones expanded) as a coefficient map over basic vectors."""
    e = sp.expand(sp_.expand_defs(e))
    out: dict = {}
    for t_ in sp.Add.make_args(e):
        if t_ == 0:
            continue
        c, v = _split(t_, sp_)
        if not sp_.is_vector_atom(v):
            raise NotProved(f"{v} is not a declared vector")
        out[v] = out.get(v, 0) + c
    return out


def bilinear(s: sp.Expr, sp_: Space) -> sp.Expr:
    """s with every ⟨u, v⟩ expanded by bilinearity into inner products of basic vectors (symmetric: each pair
    one symbol), a polynomial identity check's normal form."""

    def gram(node: Inner) -> sp.Expr:
        a, b = _coords(node.args[0], sp_, {}), _coords(node.args[1], sp_, {})
        tot = sp.Integer(0)
        for u, cu in a.items():
            for v, cv in b.items():
                key = tuple(sorted((u, v), key=sp.default_sort_key))
                tot += cu * cv * sp.Symbol(f"G[{key[0]},{key[1]}]", real=True)
        return tot

    return sp.expand(sp.sympify(s).replace(lambda n: isinstance(n, Inner), gram))


# ----------------------------------------------------------------------------- atoms and the scalar claim


def _index_of(node: sp.Expr) -> sp.Symbol | None:
    idx = {i for ix in node.atoms(sp.Indexed) for i in ix.indices if isinstance(i, sp.Symbol)}
    if len(idx) > 1:
        raise NotProved(f"{node} reads two family indices {sorted(map(str, idx))}: no atom for it")
    return next(iter(idx), None)


_CANON = sp.Symbol("J_cfg", integer=True)


def atomise(expr: sp.Expr, sp_: Space) -> sp.Expr:
    """Every Norm and Inner left in ``expr`` replaced by a variable over its proved range (indexed when it reads
    the family index): a box that contains every value a configuration gives them."""

    def fix(node: sp.Expr) -> sp.Expr:
        i = _index_of(node)
        canon = node.xreplace({i: _CANON}) if i is not None else node
        if canon not in sp_.atoms:
            n = len(sp_.atoms) + 1
            if isinstance(node, Norm):
                hi = sp.simplify(ub_norm(canon.args[0], sp_, {}))
                lo = sp.Integer(0)
                name = f"n{n}"
            else:
                hi = sp.simplify(ub_abs(canon, sp_, {}))
                lo = -hi
                name = f"x{n}"
            if hi.free_symbols:
                raise NotProved(f"the range of {canon} is [{lo}, {hi}], not a numeric box")
            var = sp.IndexedBase(name, real=True) if i is not None else sp.Symbol(name, real=True)
            sp_.atoms[canon] = (var, lo, hi)
        var = sp_.atoms[canon][0]
        return var[i] if i is not None else var

    return sp.sympify(expr).replace(lambda n: isinstance(n, (Norm, Inner)), fix)


def _kept(rhs: sp.Expr, sp_: Space) -> dict:
    """Norm(v) of the rhs (the claim's own quantities) → the variable the scalar claim keeps for it."""
    out = {}
    for node in sp.sympify(rhs).atoms(Norm):
        out[node] = atomise(node, sp_)
    return out


def _opts(opts: Mapping[str, Any]) -> dict:
    return {k_: v_ for k_, v_ in opts.items() if k_ != "clock"}


def _one_index(small: sp.Expr, big: sp.Expr, j: sp.Symbol | None, sp_: Space) -> tuple[sp.Expr, sp.Expr, dict]:
    """For a claim made for each j: every atom read at j (``n3[j]``) as a plain variable over the atom's range
    (for a fixed j it is one value of that range); (small, big, {variable: range})."""
    if j is None:
        return small, big, {}
    rep, extra = {}, {}
    for var, lo, hi in sp_.atoms.values():
        if isinstance(var, sp.IndexedBase):
            name = sp.Symbol(f"{var.label}_{j}", real=True)
            rep[var[j]] = name
            extra[name] = (lo, hi)
    small, big = sp.sympify(small).xreplace(rep), sp.sympify(big).xreplace(rep)
    used = free_names(small) | free_names(big)
    return small, big, {k_: v_ for k_, v_ in extra.items() if k_ in used}


def prove_scalar(
    name: str, small: sp.Expr, big: sp.Expr, sp_: Space, opts: Mapping[str, Any], extra: Mapping | None = None
) -> str:
    """``small ≤ big`` over the parameters' ranges and the atoms' boxes (and ``extra`` ranges), by the engine;
    the method, or NotProved."""
    from .reentry import check_step

    ranges: dict = dict(sp_.scalars)
    for var, lo, hi in sp_.atoms.values():
        ranges[var] = (lo, hi)
    ranges.update(extra or {})
    names = free_names(small) | free_names(big)
    missing = {str(n) for n in names} - {str(s_) for s_ in ranges}
    if missing:
        raise NotProved(f"{name}: no range for {sorted(missing)}")
    used = {str(n) for n in names}
    dom = Domain({s_: r_ for s_, r_ in ranges.items() if str(s_) in used})
    if not names:
        from .signs import arb_sign

        if arb_sign(sp.sympify(big) - sp.sympify(small)) in (0, 1) or sp.simplify(big - small) == 0:
            return "exact"
        raise NotProved(f"{name}: {small} ≤ {big} is false or undecided (exact constants)")
    sub = Step(name, small, big, kind="inequality", relation="<=", domain=dom)
    sub_opts = _opts(opts)
    # the scalar claim is for the proof: the configuration attack beside it refutes, so a short falsifier run
    # (which may still refute the scalar claim: then nothing is proved) leaves the time to the routes
    sub_opts["trials"] = min(int(sub_opts.get("trials", 400)), 400)
    sub_opts["spot_points"] = min(int(sub_opts.get("spot_points", 2)), 2)
    clock = opts.get("clock")
    left = clock.left() if clock is not None else None
    if left is not None:
        if left <= 0.05:
            raise NotProved(f"{name}: the claim's time ran out before the scalar claim")
        sub_opts["budget"] = clock.budget.but(claim_seconds=left)
    res: StepResult = check_step(sub, **sub_opts)
    if res.verdict != Verdict.PROVED or not covers(res.covered, dom):
        raise NotProved(f"{name}: scalar claim {small} ≤ {big} {res.verdict} ({str(res.method)[:160]})")
    return str(res.method)


# ----------------------------------------------------------------------------- realisation (the link)


def _link(step: Step, params: Mapping[str, Any], sp_: Space, lhs: sp.Expr, rhs: sp.Expr) -> str:
    coords, at = params.get("realise"), params.get("at", {})
    if coords is None:
        raise NotProved("no realisation (realise=): the typed claim is not tied to the printed step")
    for v in coords:
        if v not in sp_.spec:
            raise NotProved(f"realise names {v}, not a declared vector")
        d_ = sp_.spec[v]
        body = d_[1].expr if isinstance(d_[1], sp.Lambda) else d_[1]
        parts = {ix.base for ix in body.atoms(sp.Indexed)} | {s_ for s_ in body.atoms(sp.Symbol) if s_ in sp_.spec}
        # a derived vector realised by its own coordinates stands for its definition (the hypotheses come from
        # the declaration); where its parts are realised too, the realisation must agree with the definition
        if d_[0] == "def" and parts <= set(coords):
            if isinstance(v, sp.IndexedBase):
                for jj in range(len(coords[v])):
                    want = realise(Norm(v[jj + 1] - d_[1](jj + 1)) ** 2, coords, at)
                    if sp.expand(want) != 0:
                        raise NotProved(f"the realised {v}[{jj + 1}] is not its definition")
            elif sp.expand(realise(Norm(v - d_[1]) ** 2, coords, at)) != 0:
                raise NotProved(f"the realised {v} is not its definition")
    ok = []
    for mine, printed_ in ((lhs, step.lhs), (rhs, step.rhs)):
        got = realise(mine, coords, at)
        if got != sp.sympify(printed_) and sp.expand(got - sp.sympify(printed_)) != 0:
            raise NotProved(f"the typed claim realises to {str(got)[:120]}, not the step's {str(printed_)[:120]}")
        ok.append(got)
    return f"the printed step is its realisation at {dict(at) or 'the stated index'} (symbolically identical)"


# ----------------------------------------------------------------------------- the rules as a proof


_CANON_SUM = sp.Symbol("I_cfg", integer=True)


def _canonical_sums(e: sp.Expr) -> sp.Expr:
    """Every one-index sum written with the same index (sums over the same terms then compare by equality)."""
    return e.replace(
        lambda n: isinstance(n, sp.Sum) and len(n.limits) == 1,
        lambda n: sp.Sum(n.function.xreplace({n.limits[0][0]: _CANON_SUM}), (_CANON_SUM, *n.limits[0][1:])),
    )


def _sums_to_one(w: sp.Expr, j: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> bool:
    """Σ_{j=lo..hi} w_j = 1 symbolically: w_j = A_j·B with B free of j and B = 1/Σ_j A_j (a normalised weight)."""
    dep = sp.Mul(*[f_ for f_ in sp.Mul.make_args(w) if j in f_.free_symbols])
    ind = sp.Mul(*[f_ for f_ in sp.Mul.make_args(w) if j not in f_.free_symbols])
    return _canonical_sums(sp.Sum(dep, (j, lo, hi)) * ind) == 1


def _family_max_mean(bound: sp.Expr, rhs: FamilyMax, sp_: Space, keep: dict, opts: Mapping[str, Any]) -> str:
    """Σ_j w_j t_j ≤ max_j t_j (w_j ≥ 0, Σ_j w_j ≤ 1, t_j ≥ 0): the convex-combination rule."""
    body, lim = rhs.args
    j, lo, hi = lim
    t = atomise(body, sp_)
    if not isinstance(bound, sp.Sum) or len(bound.limits) != 1:
        raise NotProved(f"the bound {bound} is not one sum over the family, for max_j {body}")
    jj, blo, bhi = bound.limits[0]
    if (blo, bhi) != (lo, hi):
        raise NotProved(f"the sum runs over {jj} = {blo}..{bhi}, the max over {j} = {lo}..{hi}")
    f_ = bound.function.xreplace({jj: j})
    if t not in sp.Mul.make_args(f_):
        raise NotProved(f"the summand {f_} is not a weight times {t}")
    w = sp.Mul(*[x_ for x_ in sp.Mul.make_args(f_) if x_ != t])
    if w.has(t) or (isinstance(t, sp.Indexed) and w.has(t.base)):
        raise NotProved(f"the summand {f_} is not a weight times {t}")
    if not _nonneg(w, sp_):
        raise NotProved(f"the weight {w} is not proved ≥ 0")
    if _sums_to_one(w, j, lo, hi):
        m = "Σ_j w_j = 1 (the normalising sum, symbolic)"
    else:
        m = prove_scalar("Σ_j w_j ≤ 1", atomise(sp.Sum(w, (j, lo, hi)), sp_), sp.Integer(1), sp_, opts)
    sp_.used["a convex combination is at most the max (w_j ≥ 0, Σ_j w_j ≤ 1, t_j ≥ 0)"] = None
    return f"Σ_j w_j ≤ 1 with w_j = {w} ≥ 0 ({m[:90]})"


def _max_in_rhs(rhs: sp.Expr, j: sp.Symbol, lim: tuple, sp_: Space) -> tuple[sp.Expr, str | None]:
    """For each j: rhs with every ``max_i b_i`` (over the lhs max's range) replaced by ``b_j``, when rhs is
    nondecreasing in that max (∂rhs/∂M ≥ 0 structurally for every M ≥ 0, and b_i ≥ 0): t_j ≤ rhs(b_j) then gives
    t_j ≤ rhs(max_i b_i), since b_j ≤ max_i b_i. (rhs unchanged, None) when it holds no such max."""
    nodes = [n_ for n_ in sp.preorder_traversal(rhs) if isinstance(n_, FamilyMax)]
    if not nodes or rhs in nodes:
        return rhs, None
    out = rhs
    for node in nodes:
        i_, lo, hi = node.args[1]
        if (lo, hi) != tuple(lim):
            raise NotProved(f"the rhs's max runs over {i_} = {lo}..{hi}, the lhs's over {j} = {lim[0]}..{lim[1]}")
        body = node.args[0]
        if not _nonneg(body, sp_):
            raise NotProved(f"the rhs's max of {body}: its terms are not proved ≥ 0")
        m_ = sp.Dummy("M", nonnegative=True)
        if not _nonneg(sp.diff(out.xreplace({node: m_}), m_), sp_):
            raise NotProved(f"the rhs is not proved nondecreasing in {node}")
        out = out.xreplace({node: body.xreplace({i_: j})})
    sp_.used["a term is at most the max, and the rhs is nondecreasing in it (∂/∂max ≥ 0)"] = None
    return out, f"for each {j}: the rhs's max replaced by its {j}-th term (the rhs nondecreasing in it)"


def _bound_rule(step: Step, params: Mapping[str, Any], sp_: Space, opts: Mapping[str, Any]) -> str:
    lhs, rhs = (sp.sympify(x_) for x_ in params["claim"])
    text = [_link(step, params, sp_, lhs, rhs)]
    target = lhs
    per_j = None
    if isinstance(target, FamilyMax):  # max_j t_j ≤ rhs (rhs free of j) ⟸ t_j ≤ rhs for each j
        per_j, lim = target.args[1][0], tuple(target.args[1][1:])
        if per_j in sp.sympify(rhs).free_symbols:
            raise NotProved("the rhs reads the max's index")
        target = target.args[0]
        rhs, note = _max_in_rhs(rhs, per_j, lim, sp_)
        if note:
            text.append(note)
    split_used = {}
    if isinstance(target, sp.Abs) and "split" in params:  # a bilinear identity of the inner-product algebra
        alt = sp.sympify(params["split"])
        # |x| = |−x|: the split may be of either sign (SymPy writes Abs(a − b) as Abs(b − a) where it likes)
        if bilinear(target.args[0] - alt, sp_) != 0 and bilinear(target.args[0] + alt, sp_) != 0:
            raise NotProved(f"the split {alt} is not {target.args[0]} (bilinear expansion differs)")
        split_used["bilinearity of ⟨·,·⟩ (the split, both sides expanded in the declared vectors)"] = None
        text.append(f"bilinear identity: {target.args[0]} = {alt}")
        target = sp.Abs(alt)
    sp_.split = bool(split_used)  # the box cover reads it: a split's identity holds only where Δ is its definition
    rule_used = dict(sp_.used)
    last: Exception | None = None
    for expanded in (False, True):
        sp_.used = {**rule_used, **split_used}
        sp_.expanded = expanded  # the box cover reads it: expanded, the proof uses what derived vectors are
        keep = _kept(rhs, sp_)
        try:
            arg = target.args[0] if isinstance(target, (Norm, sp.Abs)) else target
            if expanded:
                arg = sp_.expand_defs(arg)
            if isinstance(target, Norm):
                bound = ub_norm(arg, sp_, keep)
            elif isinstance(target, (sp.Abs, Inner)):
                bound = ub_abs(arg if isinstance(target, sp.Abs) else target, sp_, keep)
            else:
                raise NotProved(f"the lhs {target} is not a norm, |scalar|, inner product or a max of one")
            if isinstance(rhs, FamilyMax):
                why = _family_max_mean(bound, rhs, sp_, keep, opts)
                return "; ".join(text + [f"‖·‖ ≤ {atomise(bound, sp_)}", why])
            small = atomise(bound, sp_)
            big = atomise(rhs, sp_)
            if _canonical_sums(big) == _canonical_sums(small) or sp.expand(_canonical_sums(big - small)) == 0:
                m = "the two sides are equal (symbolic)"
            else:
                small_, big_, extra = _one_index(small, big, per_j, sp_)
                m = quadratic_form(small_, big_)
                if m is None:
                    m = prove_scalar(f"{step.name} [scalar]", small_, big_, sp_, opts, extra)
                else:
                    sp_.used["a positive semidefinite quadratic form (exact principal minors)"] = None
            return "; ".join(
                text
                + ([f"for each {per_j}"] if per_j is not None else [])
                + [
                    f"{'with derived vectors expanded, ' if expanded else ''}lhs ≤ {small}",
                    f"scalar claim {small} ≤ {big}: {m[:200]}",
                ]
            )
        except NotProved as exc:
            last = exc
    raise NotProved(str(last))


def _exact(e: sp.Expr) -> sp.Expr:
    return sp.nsimplify(e) if isinstance(e, sp.Float) else sp.sympify(e)


def _attained_rule(step: Step, params: Mapping[str, Any], sp_: Space, opts: Mapping[str, Any]) -> str:
    """lhs ≤ Q(witness) ≤ rhs at an exact witness configuration satisfying every hypothesis exactly."""
    from .signs import arb_sign

    wit = params.get("witness")
    q = params.get("quantity")
    if not isinstance(wit, Mapping) or q is None:
        raise DerivationError(f"step {step.name!r}: rule 'attained' needs witness (vector → coordinates) and quantity")
    coords: dict = {}
    for v, (kind, val) in sp_.spec.items():
        if kind == "def":
            continue
        if v not in wit:
            raise NotProved(f"the witness gives no coordinates for {v}")
        rows = wit[v] if isinstance(v, sp.IndexedBase) else [wit[v]]
        for row in rows:
            row = [_exact(c_) for c_ in row]
            if any(c_.free_symbols for c_ in row) or any(isinstance(c_, sp.Float) for c_ in row):
                raise NotProved(f"the witness's {v} is not exact")
            sq = sp.expand(sum(c_**2 for c_ in row) - val**2)
            s_ = 0 if sq == 0 else arb_sign(sq)
            if (kind == "sphere" and s_ != 0) or (kind == "ball" and s_ not in (0, -1)):
                raise NotProved(f"the witness's {v} = {row} breaks ‖{v}‖ {'=' if kind == 'sphere' else '≤'} {val}")
        coords[v] = (
            [[_exact(c_) for c_ in r_] for r_ in rows]
            if isinstance(v, sp.IndexedBase)
            else [_exact(c_) for c_ in wit[v]]
        )
    # derived vectors: computed from their definitions at the witness (in declaration order)
    dims = {len(c_) for k_, c_ in coords.items() if isinstance(k_, sp.Symbol)}
    if len(dims) != 1:
        raise NotProved(f"the witness's vectors have dimensions {sorted(dims)}")
    (d_,) = dims
    for v, (kind, val) in sp_.spec.items():
        if kind == "def":
            if isinstance(v, sp.IndexedBase):
                raise NotProved("a derived family in a witness: give the witness without it")
            coords[v] = [sp.expand(c_) for c_ in vector_coords(val, coords, d_)]
    value = realise(sp.sympify(q), coords, params.get("at", {}))
    lo_, hi_ = sp.sympify(step.lhs), sp.sympify(step.rhs)
    s1 = arb_sign(value - lo_)
    s2 = arb_sign(hi_ - value)
    if s1 not in (0, 1):
        raise NotProved(f"at the witness Q = {value} is not ≥ {lo_} (Arb sign {s1})")
    if s2 not in (0, 1):
        raise NotProved(f"at the witness Q = {value} exceeds {hi_}: {hi_} is not an upper bound (Arb sign {s2})")
    sp_.used["an exact witness configuration (hypotheses checked exactly, signs by Arb)"] = None
    return f"witness {', '.join(f'{k_} = {v_}' for k_, v_ in wit.items())}: Q = {value} ∈ [{lo_}, {hi_}] (Arb)"


def _box_cover(step: Step, sp_: Space, coords: Mapping[Any, Any], rule: str) -> tuple[dict, str]:
    """(cover, why): the realisation's coordinate box as part of the cover, when every point of the stated
    domain (its box cut by its constraints) is a configuration the proof covers; else ({}, why not).

    The bound rule uses of a declared vector only ``‖v‖ ≤ r`` (a sphere vector too: no rule reads ``‖v‖ = r``),
    so it proves the claim for every configuration with the declared vectors in their balls. A declared vector
    realised by ``row`` is covered when the box lies in its ball (every entry a stated symbol with a finite
    range, the corner inside: Σ_i max(lo_i², hi_i²) ≤ r², exact) or the domain states ``Σ_i row_i² ≤ r²``
    (``stated_ball``). A derived vector realised by expressions of its realised parts is its definition there
    (``_link`` checks it); one realised by its own free coordinates is covered when the proof read it only
    through ``‖Δ‖ ≤ ub`` (its derived vectors not expanded, no bilinear identity: the proof then holds for every
    such Δ), ``ub`` its norm bound, and the box lies in that ball or the domain states ``Σ_i Δ_i² ≤ ub²``.
    (Δ = φ − φ' of two unit vectors: ub = 2, and for d ≥ 2 every vector of norm ≤ 2 is such a difference.)
    A box point outside a stated ball
    is outside the stated domain; a box point outside the hypotheses with no constraint excluding it is no
    claim of the proof: then ({}, …). The attained rule (an existence claim at a witness) has no box."""
    if rule != "bound" or not coords:
        return {}, "no realised coordinate box"
    out: dict = {}
    used: list[str] = []

    for v, (kind, r_) in sp_.spec.items():
        if v not in coords:
            continue  # not in the printed step (a part of a derived vector realised by its own coordinates)
        rows = coords[v] if isinstance(v, sp.IndexedBase) else [coords[v]]
        if kind == "def":
            body = r_.expr if isinstance(r_, sp.Lambda) else r_
            parts = {ix.base for ix in body.atoms(sp.Indexed)} | {s_ for s_ in body.atoms(sp.Symbol) if s_ in sp_.spec}
            if parts <= set(coords):
                continue  # realised as its definition (checked by _link): its parts carry the hypotheses
            if sp_.expanded or sp_.split:
                return {}, (
                    f"the derived {v} is realised by its own coordinates, but the proof "
                    f"{'expanded it into its parts' if sp_.expanded else 'used a bilinear identity'}: there it is "
                    "not a free vector of bounded norm"
                )
            saved = dict(sp_.used)
            try:
                ub = sp.simplify(ub_norm(r_(1) if isinstance(r_, sp.Lambda) else r_, sp_, {}))
            except NotProved as exc:
                return {}, f"no norm bound of the derived {v}: {exc}"
            finally:
                sp_.used = saved
            if ub.free_symbols:
                return {}, f"the derived {v}'s norm bound {ub} is not a number"
            r2 = ub**2
            label = f"‖{v}‖ ≤ {ub} (its definition, triangle inequality)"
        else:
            r2 = sp.sympify(r_) ** 2
            label = f"‖{v}‖ ≤ {r_}"
        for n_, row in enumerate(rows):
            what = f"{v}[{n_ + 1}]" if isinstance(v, sp.IndexedBase) else str(v)
            if corner_inside(step.domain, row, r2):
                why = cover_row(step.domain, row, what, sp_.scalars, out)
                if why:
                    return {}, why
                continue
            stated = stated_ball(step.domain, row, r2)
            if stated is None:
                return {}, (
                    f"the realised {what} ranges over a box wider than {label} and the domain states no "
                    f"constraint Σ_i {what}_i² ≤ {r2}"
                )
            why = cover_row(step.domain, row, what, sp_.scalars, out)
            if why:
                return {}, why
            used.append(stated)
    if not used:
        return out, "the box inside the hypotheses"
    return out, f"{len(used)} stated constraints ({used[0]}{', …' if len(used) > 1 else ''})"


def prove_configuration(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The step's verdict by the configuration rules (module docstring), with the configuration attack beside."""
    rule = params.get("rule", "bound")
    if rule not in RULES:
        raise DerivationError(
            f"step {step.name!r}: route 'configuration' parameter rule must be one of {RULES}, got {rule!r}"
        )
    if step.kind != "inequality":
        raise DerivationError(
            f"step {step.name!r}: route 'configuration' proves ≤ inequalities, not {step.kind} {step.relation}"
        )
    if rule == "bound" and ("claim" not in params or len(params["claim"]) != 2):
        raise DerivationError(f"step {step.name!r}: route 'configuration' needs claim = (lhs, rhs)")
    attack = params.get("attack")
    if attack is not None and not callable(attack):
        raise DerivationError(
            f"step {step.name!r}: route 'configuration' parameter attack must be a configuration checker"
        )
    t0 = time.perf_counter()
    scalars = params.get("scalars")
    if scalars is None:
        scalars = {s_: r_ for s_, r_ in step.domain.ranges.items() if isinstance(s_, sp.Symbol)}
    sp_ = Space(params.get("vectors", {}), scalars, step)
    try:
        if step.relation != "<=":
            raise NotProved(
                f"relation {step.relation}: the rules prove lhs ≤ rhs only (a strict or reversed claim is not)"
            )
        reason = (_bound_rule if rule == "bound" else _attained_rule)(step, params, sp_, opts)
        why = None
        t0 = time.perf_counter() - t0  # the proof's own seconds (the attack's are the falsifier's)
    except NotProved as exc:
        reason, why = "", f"configuration route ({rule}): not proved: {exc}"
    numeric = attack(step, dict(opts)) if attack is not None else None
    if numeric is not None and numeric.verdict in (Verdict.REFUTED, Verdict.ILL_POSED):
        return numeric  # a confirmed counterexample stands whatever a proof says
    if why is not None:
        if numeric is None:
            return undecided(step, method=why)
        numeric.method = f"{numeric.method}; {why[:300]}"
        numeric.unproved = why[:400]
        return numeric
    ranges = "; ".join(f"{v} ∈ [{lo}, {hi}] for {a}" for a, (v, lo, hi) in sp_.atoms.items())
    hyps = ", ".join(f"‖{v}‖ {'=' if k_ == 'sphere' else '≤'} {r_}" for v, (k_, r_) in sp_.spec.items() if k_ != "def")
    # the parameters' ranges: the claim holds there for every d and every configuration with the hypotheses (a
    # coordinate box of the printed realisation is not a region of the proof: it stays uncovered)
    cover = {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in sp_.scalars.items()}
    box, box_why = _box_cover(step, sp_, params.get("realise") or {}, rule)
    cover.update(box)
    if not covers(cover, step.domain, free_names(step.lhs) | free_names(step.rhs)):
        # the stated coordinate box holds points outside the hypotheses (a corner outside a ball, a derived
        # vector's coordinates free) that no stated constraint excludes: there the proof says nothing, so the
        # step is not proved on its domain
        missing = sorted(
            str(s_)
            for s_ in step.domain.ranges
            if s_ in free_names(step.lhs) | free_names(step.rhs)
            and not covers(cover, Domain({s_: step.domain.ranges[s_]}))
        )
        gap = (
            f"{box_why}, where the proof says nothing: the domain should state them as constraints"
            if not box
            else f"{box_why}; the proof's ranges miss the stated ones of {', '.join(missing)}"
        )
        why = (
            f"configuration route ({rule}): proved for every d and every configuration with "
            f"{hyps or 'the declared vectors'}, but the step's stated domain is wider than these hypotheses "
            f"({gap}); classical rules {'; '.join(sp_.used)}; {reason}" + (f"; atoms: {ranges}" if ranges else "")
        )
        if numeric is None:
            res = undecided(step, method=why[:2000])
            res.unproved = why[:400]
            return res
        numeric.method = f"{numeric.method}; {why[:1500]}"
        numeric.unproved = why[:400]
        return numeric
    scope = (
        f"for every d and every configuration with {hyps or 'the declared vectors'} (the bound rule reads ‖v‖ ≤ r "
        f"only: the balls); the stated domain lies there: {box_why if box else 'no coordinate box'}"
        if rule == "bound"
        else f"a configuration with {hyps or 'the declared vectors'} exists (the witness)"
    )
    method = (
        f"configuration route ({rule}): classical rules {'; '.join(sp_.used)}; {reason}"
        + (f"; atoms: {ranges}" if ranges else "")
        + f"; {scope} (proof {t0:.2f} s)"
    )
    return proved(
        step,
        method=method[:2000],
        cover=cover,
        evidence=(f"configuration attack: {numeric.evidence}" if numeric is not None else "")[:2000],
        symbolic=True,
        certified=True,
        trials=numeric.trials if numeric is not None else 0,
        worst_ratio=numeric.worst_ratio if numeric is not None else None,
        attacked=numeric.attacked if numeric is not None else None,
    )
