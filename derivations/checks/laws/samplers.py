"""The laws ``law_check`` searches (``LawSpace``): random finite laws of 2 or 3 atoms for one run, drawn one
at a time from a ``random.Random`` (``sample``, ``perturb``) or a block at a time from a numpy Generator
(``sample_block``, ``perturb_block``: a ``LawBlock``, no Python object per law), and the two-atom laws of
the large-k phase (``sample_large``, ``sample_large_block``).

The generators' calls and their order are fixed: a change of them is a change of the laws searched.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from .law import Law, LawBlock

#: the snapped similarities of ``law_check``'s extremal laws
SNAPS = (-1.0, 1.0, 0.0)


class LawSpace:
    """The laws of one ``law_check`` run: 2 or 3 atoms (similarities snapped to ±1 or 0 half of the time),
    skewed Dirichlet weights, τ log-uniform on ``tau_range`` (a fifth of the time a landmark value), k
    log-uniform in [k_min, kc]; densities ν/π where ``with_density`` (a zero density on an atom half of the
    time where ``zero_density``); ``extra(rng, τ)`` the claim's extra scalars."""

    def __init__(
        self,
        k_min: int,
        kc: int,
        tau_range: tuple[float, float],
        with_density: bool,
        zero_density: bool,
        extra: Callable[[random.Random, float], dict] | None,
    ) -> None:
        self.k_min, self.kc = k_min, kc
        self.lo_t, self.hi_t = lo_t, hi_t = tau_range
        self.landmarks = [v_ for v_ in (lo_t, 0.1, 0.25, 0.5, 1.0, 2.0, hi_t) if lo_t <= v_ <= hi_t]
        self.log_t = (math.log(lo_t), math.log(hi_t))
        self.log_k = (math.log(k_min), math.log(max(kc, k_min)))
        self.d_t, self.d_k = self.log_t[1] - self.log_t[0], self.log_k[1] - self.log_k[0]
        self.n_land = len(self.landmarks)
        self.with_density, self.zero_density, self.extra = with_density, zero_density, extra

    def sample(self, rng: random.Random) -> Law:
        """One law, drawn from ``rng``."""
        # (the generator's calls and their order are fixed: a change of them is a change of the laws searched).
        # The calls of ``random.Random`` are written out as its own code has them: rng.choice(seq) is
        # seq[rng._randbelow(len(seq))], rng.randrange(n) is rng._randbelow(n), rng.uniform(a, b) is
        # a + (b − a)·rng.random(), rng.expovariate(1.0) is −log(1 − rng.random()) (the same numbers in the
        # same order, without their call layers: ``test_law_draws_are_those_of_the_random_module``)
        log_t, log_k, d_t, d_k = self.log_t, self.log_k, self.d_t, self.d_k
        k_min, extra = self.k_min, self.extra
        below, rand = rng._randbelow, rng.random
        na = (2, 2, 3)[below(3)]
        sims = [SNAPS[below(3)] if rand() < 0.5 else -1 + 2 * rand() for _ in range(na)]
        w_ = [(-math.log(1.0 - rand())) ** 3 + 1e-12 for _ in range(na)]
        tot = sum(w_)
        probs = [v_ / tot for v_ in w_]
        tv = math.exp(log_t[0] + d_t * rand())
        if rand() < 0.2:
            tv = self.landmarks[below(self.n_land)]
        kv = max(k_min, round(math.exp(log_k[0] + d_k * rand())))
        dens = None
        if self.with_density:
            nu = [(-math.log(1.0 - rand())) ** 3 + 1e-12 for _ in range(na)]
            if self.zero_density and rand() < 0.5:  # ν ≪ π with dν/dπ = 0 on an atom of π
                nu[below(na)] = 0.0
            tot_nu = sum(nu)
            nu = [v_ / tot_nu for v_ in nu]
            dens = [n_ / p_ for n_, p_ in zip(nu, probs)]
        return Law(tv, kv, sims, probs, dens, extra(rng, tv) if extra else {})

    def perturb(self, rng: random.Random, lw: Law) -> Law:
        """A law near ``lw``, drawn from ``rng``."""
        # rng.choice written out as in ``sample``; rng.gauss(0, sc) is 0 + z·sc with z from rng.gauss
        below, gauss, exp = rng._randbelow, rng.gauss, math.exp
        sc = (0.3, 0.1, 0.01)[below(3)]
        sims = [min(1.0, max(-1.0, s_ + gauss(0, sc))) for s_ in lw.sims]
        probs = [max(1e-12, p_ * exp(gauss(0, sc))) for p_ in lw.probs]
        tot = sum(probs)
        probs = [p_ / tot for p_ in probs]
        dens = None
        if lw.dens is not None:
            nu = [0.0 if w_ == 0 else max(1e-12, w_ * p_ * exp(gauss(0, sc))) for w_, p_ in zip(lw.dens, probs)]
            tot_nu = sum(nu)
            nu = [v_ / tot_nu for v_ in nu]
            dens = [n_ / p_ for n_, p_ in zip(nu, probs)]
        tv = min(self.hi_t, max(self.lo_t, lw.tau * exp(gauss(0, sc))))
        kv = min(self.kc, max(self.k_min, lw.k + (-1, 0, 0, 1)[below(4)]))
        ex = {key: v_ * exp(gauss(0, sc)) for key, v_ in lw.extra.items()}
        return Law(tv, kv, sims, probs, dens, ex)

    def sample_block(self, gen: Any, rng: random.Random, n: int) -> LawBlock:
        """``n`` laws of ``sample``'s kind, drawn with numpy: 2 atoms with probability 2/3 (else 3), each
        similarity snapped to −1, 1 or 0 half of the time (else uniform on [−1, 1]), weights e³ + 1e-12 for
        e ~ Exp(1), τ log-uniform (a fifth of the time a landmark), k log-uniform rounded, densities as in
        ``sample``; ``extra`` still draws from ``rng``, law by law. A ``LawBlock``: no Python object per law."""
        import numpy as np

        log_t, log_k, extra = self.log_t, self.log_k, self.extra
        na = np.array((2, 2, 3))[gen.integers(0, 3, n)]
        on = np.arange(3)[None, :] < na[:, None]  # (laws, 3): the atoms of each law
        sims = np.where(
            gen.random((n, 3)) < 0.5, np.array(SNAPS)[gen.integers(0, 3, (n, 3))], gen.uniform(-1, 1, (n, 3))
        )
        w_ = np.where(on, gen.exponential(1.0, (n, 3)) ** 3 + 1e-12, 0.0)
        probs = w_ / w_.sum(axis=1, keepdims=True)
        tv = np.exp(gen.uniform(log_t[0], log_t[1], n))
        tv = np.where(gen.random(n) < 0.2, np.array(self.landmarks, dtype=float)[gen.integers(0, self.n_land, n)], tv)
        kv = np.maximum(self.k_min, np.rint(np.exp(gen.uniform(log_k[0], log_k[1], n)))).astype(np.int64)
        dens = has = None
        if self.with_density:
            nu = np.where(on, gen.exponential(1.0, (n, 3)) ** 3 + 1e-12, 0.0)
            if self.zero_density:  # ν ≪ π with dν/dπ = 0 on an atom of π, for half of the laws
                hit = (gen.random(n) < 0.5)[:, None] & (np.arange(3)[None, :] == gen.integers(0, na)[:, None])
                nu = np.where(hit, 0.0, nu)
            nu = nu / nu.sum(axis=1, keepdims=True)
            dens = np.where(on, nu / np.where(on, probs, 1.0), 0.0)
            has = np.ones(n, dtype=bool)
        ex = {}
        if extra:
            drawn = [extra(rng, t_) for t_ in tv.tolist()]
            ex = {key: np.array([d_[key] for d_ in drawn], dtype=float) for key in drawn[0]}
        return LawBlock(tv, kv, na, sims, probs, dens, has, ex)

    def perturb_block(self, gen: Any, rng: random.Random, starts: list[Law], which: list[int]) -> LawBlock:
        """``perturb`` of the laws ``starts[which[i]]``, drawn with numpy: one scale per law from (0.3, 0.1,
        0.01), Gaussian steps of that scale on s (clipped to [−1, 1]), log π, log ν (a zero density stays
        zero), log τ (clipped to the τ range) and log of each extra; k moved by −1, 0, 0 or +1 (within its
        range). The starts' tables are built once and read by row."""
        import numpy as np

        n = len(which)
        rows = np.asarray(which, dtype=np.int64)
        S = LawBlock.of(starts)
        na = S.na[rows]
        wid = int(na.max())
        on = np.arange(wid)[None, :] < na[:, None]
        sc = np.array((0.3, 0.1, 0.01))[gen.integers(0, 3, n)][:, None]
        sims = np.clip(S.sims[rows, :wid] + sc * gen.standard_normal((n, wid)), -1.0, 1.0)
        probs = np.where(on, np.maximum(1e-12, S.probs[rows, :wid] * np.exp(sc * gen.standard_normal((n, wid)))), 0.0)
        probs = probs / probs.sum(axis=1, keepdims=True)
        dens = has = None
        if S.has_dens is not None and S.has_dens[rows].any():
            has = S.has_dens[rows]
            w1 = [lw.dens if lw.dens is not None else [1.0] * len(lw.probs) for lw in starts]
            w0 = np.array([list(r_) + [0.0] * (S.sims.shape[1] - len(r_)) for r_ in w1], dtype=float)
            w0 = w0[rows, :wid]
            nu = np.where(
                on & (w0 != 0), np.maximum(1e-12, w0 * probs * np.exp(sc * gen.standard_normal((n, wid)))), 0.0
            )
            nu = nu / nu.sum(axis=1, keepdims=True)
            dens = np.where(on, nu / np.where(on, probs, 1.0), 0.0)
        tv = np.clip(S.tau[rows] * np.exp(sc[:, 0] * gen.standard_normal(n)), self.lo_t, self.hi_t)
        k_min = self.k_min
        kv = np.clip(S.k[rows] + np.array((-1, 0, 0, 1))[gen.integers(0, 4, n)], k_min, max(self.kc, k_min))
        names = [tuple(starts[i].extra) for i in sorted(set(which))]
        n_ex = max(len(t_) for t_ in names)
        z_ex = np.exp(sc * gen.standard_normal((n, n_ex))) if n_ex else None
        if len(set(names)) > 1:  # starts with different extras (seeds unlike the drawn laws): a list of laws
            blk = LawBlock(tv, kv, na, sims, probs, dens, has, {})
            out = []
            for i, w in enumerate(which):
                lw = blk.law(i)
                lw.extra = {key: float(v_) * float(z_ex[i, j]) for j, (key, v_) in enumerate(starts[w].extra.items())}
                out.append(lw)
            return out
        ex = {key: S.extra[key][rows] * z_ex[:, j] for j, key in enumerate(names[0])}
        return LawBlock(tv, kv, na, sims, probs, dens, has, ex)

    def sample_large(self, rng: random.Random, large_k: int) -> Law:
        """A law of ``sample`` cut to two atoms, k log-uniform in (kc, large_k]."""
        kc = self.kc
        lw = self.sample(rng)
        kv = min(large_k, round(math.exp(rng.uniform(math.log(kc + 1), math.log(large_k)))))
        return Law(
            lw.tau,
            max(kc + 1, kv),
            lw.sims[:2],
            [p_ / sum(lw.probs[:2]) for p_ in lw.probs[:2]],
            None if lw.dens is None else lw.dens[:2],
            lw.extra,
        )

    def sample_large_block(self, gen: Any, rng: random.Random, n: int, large_k: int) -> LawBlock:
        """``sample_large`` a block at a time: ``sample_block``'s laws cut to two atoms, k log-uniform in
        (kc, large_k]."""
        import numpy as np

        kc = self.kc
        kv = np.rint(np.exp(gen.uniform(math.log(kc + 1), math.log(large_k), n)))
        kv = np.maximum(kc + 1, np.minimum(large_k, kv)).astype(np.int64)
        b_ = self.sample_block(gen, rng, n)
        tot = b_.probs[:, 0] + b_.probs[:, 1]  # sum(probs[:2]) of each law
        return LawBlock(
            b_.tau,
            kv,
            np.full(n, 2, dtype=np.int64),
            b_.sims[:, :2],
            b_.probs[:, :2] / tot[:, None],
            None if b_.dens is None else b_.dens[:, :2],
            b_.has_dens,
            b_.extra,
        )
