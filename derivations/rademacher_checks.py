"""Numeric attacks beside the Rademacher bounds' citations and chains (``derivations.rademacher``).

* ``maurer_check``: Maurer's vector contraction, E sup Σ ε_i F(f(x_i)) ≤ c(τ, γ, K) E sup Σ ε_im f_m(x_i), by exact
  enumeration of the signs on random finite classes;
* ``sum_check``: the sum of classes, R(c g + h) ≤ |c| R(g) + R(h), by exact enumeration;
* ``class_check``: R̂_n(ℓ̃∘Θ) ≤ rhs by Monte-Carlo estimates on concrete 1-Lipschitz classes on S¹ (p = 1);
* ``class_chain_check``: a chain step with ``class_check`` as the attack beside it.

Evidence, not proof: each refutes a claim on a confirmed violation, else verifies numerically on its ranges.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import mpmath
import sympy as sp

from .checks import DEFAULTS
from .checks.laws import search, search_result
from .ledger import Step, StepResult
from .symbols import L, Lam, R, Rad_vec, gamma, k, n, p, tau

#: the two complexities in the middle of the max-type and averaged chains (opaque, ≥ 0 as complexities of classes
#: holding a constant-free function of θ: E sup ≥ sup E = 0): R̂_n({z ↦ s⁺_θ(z)}) and R̂_n({z ↦ F(s_θ(z))})
Rad_pos = sp.Symbol("Rad_pos", nonnegative=True)
Rad_F = sp.Symbol("Rad_F", nonnegative=True)


# ----------------------------------------------------------------------------- custom check: Maurer


def _maurer_classes(gen: Any, rng: random.Random, m: int, with_gamma: bool = False) -> list:
    """m classes: n, K ∈ {1, 2, 3}, 2–5 functions, τ log-uniform on [10^{−3/2}, 10], each value −1, +1 or
    uniform on [−1, 1] with probability 1/3 (the extremal values often); a class is an array (functions, n, K),
    all drawn by numpy a block at a time (one Python draw per value cost 5 µs). ``with_gamma``: also
    γ = (1 + 10^u)/τ, u uniform on [−2, 2] (γτ > 1), drawn after the rest (else γ is None)."""
    import numpy as np

    ns, Ks, nfs = gen.integers(1, 4, m), gen.integers(1, 4, m), gen.integers(2, 6, m)
    taus = 10 ** gen.uniform(-1.5, 1, m)
    sizes = nfs * ns * Ks
    total = int(sizes.sum())
    kind = gen.integers(0, 3, total)
    vals = np.where(kind == 0, -1.0, np.where(kind == 1, 1.0, gen.uniform(-1, 1, total)))
    vals.flags.writeable = False
    ends = np.cumsum(sizes).tolist()
    gammas = ((1 + 10 ** gen.uniform(-2, 2, m)) / taus).tolist() if with_gamma else [None] * m
    return [
        (n_, K_, t_, vals[e_ - z_ : e_].reshape(f_, n_, K_), g_)
        for n_, K_, f_, t_, z_, e_, g_ in zip(
            ns.tolist(), Ks.tolist(), nfs.tolist(), taus.tolist(), sizes.tolist(), ends, gammas
        )
    ]


def _maurer_batch(pts: list, factor: Any, sign_matrix: Any) -> tuple:
    """The float pass on many classes: F by a stable log-mean-exp, both sign sums as matrix products, one numpy
    pass per shape (n, K, functions); ``factor(pt)`` the bound's factor on R_vec for that class."""
    import numpy as np

    sm, bg = np.full(len(pts), np.nan), np.full(len(pts), np.nan)
    groups: dict[tuple, list[int]] = {}
    for i_, pt in enumerate(pts):
        groups.setdefault(pt[3].shape, []).append(i_)
    for (nf, n_, K_), idx in groups.items():
        A = np.stack([pts[i_][3] for i_ in idx])  # (B, functions, n, K)
        t_ = np.array([pts[i_][2] for i_ in idx])[:, None, None]
        mx = A.max(axis=3)
        vals = mx / t_ + np.log(np.exp((A - mx[..., None]) / t_[..., None]).mean(axis=3))  # (B, functions, n)
        lhs = (vals @ sign_matrix(n_).T).max(axis=1).mean(axis=1)  # (B, functions, signs) → max over f
        rv = A.reshape(len(idx), nf, n_ * K_) @ sign_matrix(n_ * K_).T
        sm[idx] = lhs
        bg[idx] = np.array([factor(pts[i_]) for i_ in idx]) * rv.max(axis=1).mean(axis=1)
    return sm, bg


def maurer_check(step: Step, opts: dict) -> StepResult:
    """Vector contraction E sup_f Σ_i ε_i F(f(x_i)) ≤ c(τ, γ, K) · E sup_f Σ_{i,m} ε_im f_m(x_i), by exact enumeration.

    c = ``step.rhs`` at Rad_vec = 1, Λ = 1/τ (√2 Λ R_vec: √2/τ; √2 L₂(γ, τ, k) R_vec: that constant at k = K), a
    function of τ, γ and k only (else ValueError). Random finite classes (≤ 5 functions, n ≤ 3 points, K ≤ 3
    coordinates, values in [−1, 1]) with h = F = log-mean-exp at temperature τ; γ drawn with γτ > 1 where c has
    it; both expectations are computed exactly over all sign patterns, in mpmath (15 digits in the search, 50 to
    confirm a violation: the shared search of ``checks.laws``). Evidence, not proof: the provenance is the reference.
    """
    factor_expr = step.rhs.subs({Rad_vec: 1, Lam: 1 / tau})
    extra = factor_expr.free_symbols - {tau, gamma, k}
    if extra:
        raise ValueError(f"maurer_check: the bound's factor on R_vec must depend on tau, gamma, k only, got {extra}")
    with_gamma = gamma in factor_expr.free_symbols
    factor_fn = sp.lambdify((tau, gamma, k), factor_expr, modules="math")

    def factor(pt: tuple) -> float:
        return float(factor_fn(pt[2], pt[4], pt[1]))

    def factor_mp(pt: tuple) -> Any:  # exact: τ, γ are binary floats, taken exactly
        sub = {tau: sp.Rational(pt[2]), k: pt[1]}
        if pt[4] is not None:
            sub[gamma] = sp.Rational(pt[4])
        return mpmath.mpf(str(sp.N(factor_expr.subs(sub), mpmath.mp.dps + 5)))

    signs_cache: dict[int, list] = {}

    def signs(m_):
        if m_ not in signs_cache:
            signs_cache[m_] = list(itertools.product((-1.0, 1.0), repeat=m_))
        return signs_cache[m_]

    def block(gen: Any, rng: random.Random, m: int) -> list:
        return _maurer_classes(gen, rng, m, with_gamma)

    def sample(rng: random.Random) -> tuple:
        import numpy as np

        return block(np.random.default_rng(rng.getrandbits(64)), rng, 1)[0]

    sign_arrays: dict[int, Any] = {}

    def sign_matrix(m_):
        if m_ not in sign_arrays:
            import numpy as np

            sign_arrays[m_] = np.asarray(signs(m_))
        return sign_arrays[m_]

    def evaluate(pt: tuple, exact: bool) -> tuple:
        if not exact:  # the float pass: the batch of one (F by a stable log-mean-exp, sign sums as products)
            sm, bg = evaluate_batch([pt])
            return float(sm[0]), float(bg[0])
        n_, K_, tau_, cls, _g = pt
        cls = cls.tolist()
        t_ = mpmath.mpf(tau_)

        def F(u_):
            mx = max(u_)
            return mx / t_ + mpmath.log(mpmath.fsum(mpmath.exp((e - mx) / t_) for e in u_) / len(u_))

        vals = [[F(f[i_]) for i_ in range(n_)] for f in cls]
        lhs = mpmath.fsum(
            max(mpmath.fsum(e * val[i_] for i_, e in enumerate(eps)) for val in vals) for eps in signs(n_)
        )
        flat = [[mpmath.mpf(f[i_][m_]) for i_ in range(n_) for m_ in range(K_)] for f in cls]
        rv = mpmath.fsum(max(mpmath.fsum(e * fv for e, fv in zip(eps, fl)) for fl in flat) for eps in signs(n_ * K_))
        return lhs / 2**n_, factor_mp(pt) * rv / 2 ** (n_ * K_)

    def evaluate_batch(pts: list) -> tuple:
        return _maurer_batch(pts, factor, sign_matrix)

    def describe(pt: tuple) -> dict[str, str]:
        n_, K_, tau_, cls, g_ = pt
        out = {"n": str(n_), "K": str(K_), "functions": str(len(cls)), "tau": f"{tau_:.6g}"}
        if g_ is not None:
            out["gamma"] = f"{g_:.6g}"
        return {**out, "class": repr(cls.tolist())}

    # one trial = one exactly enumerated class (float pass in numpy, batched by shape)
    out = search(
        step,
        {**DEFAULTS, **opts},
        budget=max(50, int(opts.get("trials", 100_000))),
        sample=sample,
        evaluate=evaluate,
        describe=describe,
        zero_ratio=0.0,  # a class whose functions coincide: both sides vanish, no evidence either way
        evaluate_batch=evaluate_batch,
        sample_block=block,
    )
    method = f"exact enumeration of Rademacher signs on {out.trials} random finite classes (n, K ≤ 3)"
    attacked = {"n": ("1", "3"), "K": ("1", "3"), "functions": ("2", "5"), "tau": ("10**(-3/2)", "10")}
    if with_gamma:
        attacked["gamma*tau"] = ("1 + 10**(-2)", "1 + 10**2")
    return search_result(step, out, method, attacked)


def sum_check(step: Step, opts: dict) -> StepResult:
    """R(c g + h) ≤ ``step.rhs`` at Rad_pos = R(g), Rad_F = R(h), c = −1/τ, by exact enumeration of the signs.

    R(f) = E_ε max_θ (1/n) Σ_i ε_i f_θ(z_i) on random finite classes: 2–5 indices θ, n ≤ 4 points, values of g and
    h −1, +1 or uniform on [−1, 1] (1/3 each), τ log-uniform on [10^{−3/2}, 10]; floats in the search, 50 digits
    to confirm a violation (the shared search of ``checks.laws``). Evidence, not proof."""
    import numpy as np

    bound = sp.lambdify((tau, Rad_pos, Rad_F), step.rhs, modules="mpmath")
    sign_rows: dict[int, Any] = {}

    def rows(n_: int) -> Any:
        if n_ not in sign_rows:
            sign_rows[n_] = np.asarray(list(itertools.product((-1.0, 1.0), repeat=n_)))
        return sign_rows[n_]

    def draw(gen: Any, shape: tuple) -> Any:
        kind = gen.integers(0, 3, shape)
        return np.where(kind == 0, -1.0, np.where(kind == 1, 1.0, gen.uniform(-1, 1, shape)))

    def sample(rng: random.Random) -> tuple:
        gen = np.random.default_rng(rng.getrandbits(64))
        m_, n_ = int(gen.integers(2, 6)), int(gen.integers(1, 5))
        return float(10 ** gen.uniform(-1.5, 1)), draw(gen, (m_, n_)), draw(gen, (m_, n_))

    def rad(vals: Any, exact: bool) -> Any:  # E_ε max_θ (1/n) Σ_i ε_i v_θi, over all 2^n sign rows
        n_ = vals.shape[1]
        if not exact:
            return float((rows(n_) @ vals.T).max(axis=1).mean() / n_)
        v_ = [[mpmath.mpf(x_) for x_ in row] for row in vals.tolist()]
        tot = mpmath.fsum(
            max(mpmath.fsum(e * x_ for e, x_ in zip(eps, row)) for row in v_) for eps in rows(n_).tolist()
        )
        return tot / (2**n_ * n_)

    def evaluate(pt: tuple, exact: bool) -> tuple:
        tau_, g_, h_ = pt
        if exact:
            t_ = mpmath.mpf(tau_)
            mixed = [[-mpmath.mpf(a_) / t_ + mpmath.mpf(b_) for a_, b_ in zip(ra, rb)] for ra, rb in zip(g_, h_)]
            n_ = g_.shape[1]
            lhs = mpmath.fsum(
                max(mpmath.fsum(e * x_ for e, x_ in zip(eps, row)) for row in mixed) for eps in rows(n_).tolist()
            ) / (2**n_ * n_)
            return lhs, bound(t_, rad(g_, True), rad(h_, True))
        return rad(-g_ / tau_ + h_, False), float(bound(tau_, rad(g_, False), rad(h_, False)))

    def describe(pt: tuple) -> dict[str, str]:
        tau_, g_, h_ = pt
        return {
            "tau": f"{tau_:.6g}",
            "n": str(g_.shape[1]),
            "indices": str(g_.shape[0]),
            "g": repr(g_.tolist()),
            "h": repr(h_.tolist()),
        }

    out = search(
        step,
        {**DEFAULTS, **opts},
        budget=max(50, int(opts.get("trials", 100_000)) // 20),
        sample=sample,
        evaluate=evaluate,
        describe=describe,
        zero_ratio=0.0,
    )
    method = f"exact enumeration of Rademacher signs on {out.trials} random finite classes (n ≤ 4, ≤ 5 indices)"
    return search_result(step, out, method, {"n": ("1", "4"), "indices": ("2", "5"), "tau": ("10**(-3/2)", "10")})


# ----------------------------------------------------------------------------- custom check: a concrete class


def rademacher_signs(seed: int, m: int) -> Any:
    """``[random.Random(seed).choice((-1.0, 1.0)) for _ in range(m)]`` as a numpy array, bit for bit, from the
    generator's 32-bit words in numpy (Python's ``choice`` of two items is ``getrandbits(2)``, the word's top two
    bits, redrawn while ≥ 2: a word is accepted when its top bit is 0 and gives index bit 30; numpy's MT19937
    continues Python's state, as in ``paper._embed.gauss_block``). ~50× faster than m Python calls."""
    import numpy as np

    _version, internal, _pending = random.Random(seed).getstate()
    bg = np.random.MT19937(0)
    bg.state = {"bit_generator": "MT19937", "state": {"key": np.array(internal[:624], np.uint32), "pos": internal[624]}}
    got: list = []
    have = 0
    while have < m:
        w = bg.random_raw(2 * (m - have) + 64)
        idx = (w[(w >> 31) == 0] >> 30) & 1
        got.append(idx)
        have += len(idx)
    return np.where(np.concatenate(got)[:m] == 1, 1.0, -1.0)


def class_check(step: Step, opts: dict) -> StepResult:
    """``Rad_n ≤ rhs`` on concrete classes: φ_θ(y) = (cos(θ a_y + b_y), sin(θ a_y + b_y)), |a_y| ≤ 1, |θ| ≤ R.

    Each class is 1-Lipschitz in θ ∈ R¹ (p = 1, L = 1) on S¹. R̂_n = E_ε sup_θ (1/n) Σ_i ε_i ℓ_θ(tuple_i) is
    estimated with a 201-point θ grid (a lower bound of the sup) and 200 sign draws; the claim is refuted
    only if the estimate exceeds ``rhs`` by more than 4 standard errors, i.e. the search of ``checks.laws``
    compares the estimate with ``rhs + 4 SE`` (a Monte-Carlo estimate: its "confirmation" repeats the same
    draws, and the bound is evaluated at 50 digits). Random τ, γ ≥ 1/τ, k ≤ 6, n ≤ 16.
    """
    import math

    def sample(rng: random.Random) -> tuple:
        n_, k_ = rng.randint(2, 16), rng.randint(1, 6)
        tau_ = 10 ** rng.uniform(-1, 1)
        gamma_ = (1 + 10 ** rng.uniform(-2, 2)) / tau_
        R_ = 10 ** rng.uniform(-1, 0.7)
        pts = [[(rng.uniform(-1, 1), rng.uniform(-math.pi, math.pi)) for _ in range(k_ + 2)] for _ in range(n_)]
        return n_, k_, tau_, gamma_, R_, pts, rng.getrandbits(32)

    def estimate(pt: tuple) -> tuple[float, float]:
        # the θ grid × tuples × negatives as numpy arrays (one class was 4·10⁴ Python-level cosines and
        # sums: 0.15 s); the sign draws still come one by one from the class's own generator
        import numpy as np

        n_, k_, tau_, _g, R_, pts, seed = pt
        th = np.array([-R_ + 2 * R_ * g_ / 200 for g_ in range(201)])[:, None]  # (201, 1)
        arr = np.asarray(pts, dtype=float)  # (n, k + 2, 2): anchor, positive, negatives
        ax, bx, ap, bp = arr[:, 0, 0], arr[:, 0, 1], arr[:, 1, 0], arr[:, 1, 1]
        an, bn = arr[:, 2:, 0], arr[:, 2:, 1]
        sp_ = np.cos(th * (ax - ap) + bx - bp)  # (201, n)
        sn = np.cos(th[:, :, None] * (ax[:, None] - an) + bx[:, None] - bn)  # (201, n, k)
        m_ = sn.max(axis=2)
        losses = -sp_ / tau_ + m_ / tau_ + np.log(np.exp((sn - m_[:, :, None]) / tau_).sum(axis=2) / k_)
        eps = rademacher_signs(seed, 200 * n_).reshape(200, n_)  # the class's own draws: re-evaluation repeats them
        draws = (eps @ losses.T).max(axis=1) / n_
        est = float(draws.mean())
        se = float(draws.std(ddof=1) / math.sqrt(len(draws)))
        return est, se

    bound_args = (tau, gamma, k, n, L, p, R)
    bound_fn = sp.lambdify(bound_args, step.rhs, modules="math")
    lambdified_ok: list[bool] = []  # checked once against SymPy's own evaluation: a mismatch keeps subs

    def bound_float(tau_, gamma_, k_, n_, R_) -> float:
        sub = {tau: sp.Float(tau_, 30), gamma: sp.Float(gamma_, 30), k: k_, n: n_, L: 1, p: 1, R: sp.Float(R_, 30)}
        if not lambdified_ok:
            ref = float(step.rhs.subs(sub))
            try:
                got = float(bound_fn(tau_, gamma_, k_, n_, 1, 1, R_))
                lambdified_ok.append(math.isclose(got, ref, rel_tol=1e-12, abs_tol=1e-300))
            except (TypeError, ValueError, OverflowError, ZeroDivisionError):
                lambdified_ok.append(False)
            return ref
        if lambdified_ok[0]:
            return float(bound_fn(tau_, gamma_, k_, n_, 1, 1, R_))
        return float(step.rhs.subs(sub))

    def evaluate(pt: tuple, exact: bool) -> tuple:
        n_, k_, tau_, gamma_, R_, _pts, _seed = pt
        est, se = estimate(pt)
        if exact:
            sub = {tau: sp.Float(tau_, 30), gamma: sp.Float(gamma_, 30), k: k_, n: n_, L: 1, p: 1, R: sp.Float(R_, 30)}
            return mpmath.mpf(est), mpmath.mpf(str(sp.N(step.rhs.subs(sub), mpmath.mp.dps))) + 4 * mpmath.mpf(se)
        return est, bound_float(tau_, gamma_, k_, n_, R_) + 4 * se

    def describe(pt: tuple) -> dict[str, str]:
        n_, k_, tau_, gamma_, R_, _pts, seed = pt
        return {
            "n": str(n_),
            "k": str(k_),
            "tau": f"{tau_:.6g}",
            "gamma": f"{gamma_:.6g}",
            "R": f"{R_:.6g}",
            "sign_seed": str(seed),
        }

    # one class costs a 201-point θ grid × 200 sign draws (~0.1 s): 100 classes at the default budget
    out = search(
        step,
        {**DEFAULTS, **opts},
        budget=max(4, int(opts.get("trials", 100_000)) // 1_000),
        sample=sample,
        evaluate=evaluate,
        describe=describe,
    )
    method = (
        f"Monte-Carlo Rademacher estimates on {out.trials} random 1-Lipschitz classes on S¹ (p = 1); "
        "ratio = estimate/(bound + 4 standard errors)"
    )
    attacked = {"n": ("2", "16"), "k": ("1", "6"), "tau": ("1/10", "10"), "R": ("1/10", "10**(7/10)"), "p": ("1", "1")}
    return search_result(step, out, method, attacked)


def class_chain_check(step: Step, opts: dict) -> StepResult:
    """A chain step ``Rad_n ≤ rhs`` (``checks.chain``) with ``class_check`` as the attack beside it.

    The attack runs first: its refutation (an estimate above rhs + 4 standard errors) refutes the claim. Otherwise
    the chain's verdict when it is proved or refuted (a link or a join fails: the argument is wrong), else the
    attack's (at most verified numerically), naming the chain's weakest link."""
    from .checks.chain import check_chain
    from .ledger import Verdict

    att = class_check(step, opts)
    if att.verdict is Verdict.REFUTED:
        return att
    res = check_chain(step, opts)
    if res.verdict is Verdict.PROVED:
        res.evidence = f"{res.evidence}; attack beside the chain: {att.method} ({att.verdict})"
        res.trials, res.attacked, res.worst_ratio = att.trials, att.attacked, att.worst_ratio
        return res
    if res.verdict is Verdict.REFUTED:
        return res
    att.method = f"{att.method}; chain not proved: {res.method}"
    return att


def jensen_check(step: Step, opts: dict) -> StepResult:
    """``6 c₀ √(p/m) Σ_{l≥1} 2^{−l} √(log(1 + 2^l χ)) ≤ rhs`` attacked with the partial sum over l ≤ 60 (a lower bound
    of the series: a violation by it is a violation of the claim), at random c₀ ∈ [0, 10], χ log-uniform on
    [10^{−6}, 10^{6}], p, m ≤ 1000; floats in the search, 50 digits to confirm. Evidence, not proof."""
    from .symbols import c0, chi

    rhs = sp.lambdify((c0, chi, p, n), step.rhs, modules="mpmath")

    def sample(rng: random.Random) -> tuple:
        return rng.uniform(0, 10), 10 ** rng.uniform(-6, 6), rng.randint(1, 1000), rng.randint(1, 1000)

    def evaluate(pt: tuple, exact: bool) -> tuple:
        c_, x_, p_, m_ = (mpmath.mpf(v_) for v_ in pt)
        part = mpmath.fsum(mpmath.sqrt(mpmath.log1p(2**lv * x_)) / 2**lv for lv in range(1, 61))
        lhs, big = 6 * c_ * mpmath.sqrt(p_ / m_) * part, rhs(c_, x_, p_, m_)
        return (lhs, big) if exact else (float(lhs), float(big))

    def describe(pt: tuple) -> dict[str, str]:
        return {"c_0": f"{pt[0]:.6g}", "chi": f"{pt[1]:.6g}", "p": str(pt[2]), "n": str(pt[3])}

    out = search(
        step,
        {**DEFAULTS, **opts},
        budget=max(50, int(opts.get("trials", 100_000)) // 100),
        sample=sample,
        evaluate=evaluate,
        describe=describe,
    )
    method = f"partial sums (l ≤ 60, a lower bound of the series) at {out.trials} random points"
    attacked = {"c_0": ("0", "10"), "chi": ("10**(-6)", "10**6"), "p": ("1", "1000"), "n": ("1", "1000")}
    return search_result(step, out, method, attacked)
