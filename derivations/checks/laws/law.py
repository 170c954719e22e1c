"""A finite law of W for one anchor (``Law``), laws as arrays (``LawBlock``), and the numeric back end of a law
batch (``ARRAY``, with ``fmax``/``fmin`` for every back end).

A law claim is written once, ``claim(L, law)``, and evaluated with ``L = math`` (floats), ``L = mpmath`` (the
current precision: ``law.at(mpmath)``) or ``L = ARRAY`` (numpy, on a batch of laws whose fields are arrays).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mpmath


@dataclass
class Law:
    """One anchor's finite law: τ, k, similarities, π-weights, ν-densities and extra scalars."""

    tau: Any
    k: int
    sims: list
    probs: list
    dens: list | None = None
    extra: dict = field(default_factory=dict)
    #: values computed from the fields, memoised per back end (``memo``): not part of the law
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()``, once per key for this law (a key names the back end and, for mpmath, the precision:
        the fields are not changed once a law is made)."""
        got = self.cache.get(key)
        if got is None:
            got = self.cache[key] = make()
        return got

    def at(self, L: Any) -> Law:
        if L is math:
            return self
        mp = mpmath.mpf
        probs = [mp(p_) for p_ in self.probs]
        tot = mpmath.fsum(probs)
        probs = [p_ / tot for p_ in probs]  # float weights need not sum to 1 exactly
        dens = None
        if self.dens is not None:  # renormalise so that E_π w = 1 exactly at this precision
            dens = [mp(w_) for w_ in self.dens]
            ew = mpmath.fsum(p_ * w_ for p_, w_ in zip(probs, dens))
            dens = [w_ / ew for w_ in dens]
        extra = {key: mp(v_) for key, v_ in self.extra.items()}
        return Law(mp(self.tau), self.k, [mp(s_) for s_ in self.sims], probs, dens, extra)

    def describe(self) -> dict[str, str]:
        out = {"tau": repr(self.tau), "k": str(self.k), "s": repr(self.sims), "p": repr(self.probs)}
        if self.dens is not None:
            out["w"] = repr(self.dens)
        return {**out, **{key: repr(v_) for key, v_ in self.extra.items()}}


class LawBlock:
    """Laws as arrays, one row a law: τ, k and the number of atoms ``na`` (n,), similarities, π-weights and
    (where drawn) ν-densities (n, width), zero beyond a row's atoms, extras a dict of (n,) arrays; ``has_dens``
    (n,) says which rows carry densities (None: none). What ``law_check`` draws, a block at a time: no Python
    object per law until one is read (``law(i)``: a confirmation, a report, a law the batch pass redoes)."""

    __slots__ = ("tau", "k", "na", "sims", "probs", "dens", "has_dens", "extra")

    def __init__(self, tau, k, na, sims, probs, dens=None, has_dens=None, extra=None) -> None:
        self.tau, self.k, self.na, self.sims, self.probs = tau, k, na, sims, probs
        self.dens, self.has_dens, self.extra = dens, has_dens, {} if extra is None else extra

    def __len__(self) -> int:
        return len(self.tau)

    def __iter__(self):
        return (self.law(i) for i in range(len(self.tau)))

    def law(self, i: int) -> Law:
        """Row ``i`` as a ``Law`` of Python numbers (the same doubles)."""
        m = int(self.na[i])
        dens = None
        if self.has_dens is not None and self.has_dens[i]:
            dens = self.dens[i, :m].tolist()
        return Law(
            float(self.tau[i]),
            int(self.k[i]),
            self.sims[i, :m].tolist(),
            self.probs[i, :m].tolist(),
            dens,
            {key: float(v_[i]) for key, v_ in self.extra.items()},
        )

    @classmethod
    def concat(cls, blocks: list[LawBlock]) -> LawBlock | None:
        """The blocks one after the other (rows zero-padded to the widest), or None where their extras differ."""
        import numpy as np

        if len({tuple(b_.extra) for b_ in blocks}) > 1:
            return None
        wid = max(b_.sims.shape[1] for b_ in blocks)

        def pad(a_: Any) -> Any:
            return a_ if a_.shape[1] == wid else np.pad(a_, ((0, 0), (0, wid - a_.shape[1])))

        n_ = [len(b_) for b_ in blocks]
        has = None
        dens = None
        if any(b_.has_dens is not None for b_ in blocks):
            has = np.concatenate(
                [b_.has_dens if b_.has_dens is not None else np.zeros(m, bool) for b_, m in zip(blocks, n_)]
            )
            dens = np.concatenate(
                [pad(b_.dens) if b_.dens is not None else np.zeros((m, wid)) for b_, m in zip(blocks, n_)]
            )
        return cls(
            np.concatenate([b_.tau for b_ in blocks]),
            np.concatenate([b_.k for b_ in blocks]),
            np.concatenate([b_.na for b_ in blocks]),
            np.concatenate([pad(b_.sims) for b_ in blocks]),
            np.concatenate([pad(b_.probs) for b_ in blocks]),
            dens,
            has,
            {key: np.concatenate([b_.extra[key] for b_ in blocks]) for key in blocks[0].extra},
        )

    @classmethod
    def of(cls, laws: list[Law]) -> LawBlock:
        """The block of a list of laws, zero-padded to the widest (no extras unless every law has the same names)."""
        import numpy as np

        same = len({tuple(lw.extra) for lw in laws}) == 1
        n = len(laws)
        wid = max(len(lw.probs) for lw in laws)

        def table(rows: list) -> Any:
            return np.array([list(r_) + [0.0] * (wid - len(r_)) for r_ in rows], dtype=float).reshape(n, wid)

        has = np.array([lw.dens is not None for lw in laws])
        dens = None
        if has.any():
            dens = table([lw.dens if lw.dens is not None else [0.0] * len(lw.probs) for lw in laws])
        return cls(
            np.array([lw.tau for lw in laws], dtype=float),
            np.array([lw.k for lw in laws], dtype=np.int64),
            np.array([len(lw.probs) for lw in laws], dtype=np.int64),
            table([lw.sims for lw in laws]),
            table([lw.probs for lw in laws]),
            dens,
            has if has.any() else None,
            {key: np.array([lw.extra[key] for lw in laws], dtype=float) for key in laws[0].extra} if same else {},
        )


class _Row:
    """Row ``i`` of a ``LawBlock``, read as a ``Law`` only when needed (``search``'s worst points)."""

    __slots__ = ("block", "i")

    def __init__(self, block: LawBlock, i: int) -> None:
        self.block, self.i = block, i

    def law(self) -> Law:
        return self.block.law(self.i)


class _ArrayMath:
    """``L`` for a *law batch*: a ``Law`` whose τ, similarities, weights, densities and extras are float64
    arrays over laws with one k and one number of atoms. Claims call ``L.exp``, ``L.log``, ``L.sqrt``,
    ``L.mpf`` as on ``math``/``mpmath``; here they are numpy's elementwise functions (``mpf`` is ``float``),
    so one call of the claim evaluates the whole batch. What has no elementwise meaning on an array
    (``if x > 0``, ``max(a, b)``, ``float(x)``) raises, and the claim is then evaluated law by law;
    ``fmax``/``fmin`` are the elementwise max/min a claim can use on every back end."""

    mpf = float
    inf = math.inf
    pi = math.pi
    e = math.e

    def __getattr__(self, name: str) -> Any:
        import numpy as np

        fn = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "log1p": np.log1p, "expm1": np.expm1}.get(name)
        if fn is None:
            raise AttributeError(name)
        setattr(self, name, fn)  # numpy is imported on first use; later lookups are plain attributes
        return fn


ARRAY = _ArrayMath()


def fmax(a: Any, b: Any) -> Any:
    """max(a, b) on floats and mpmath numbers; elementwise on the arrays of a law batch."""
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return np.maximum(a, b)
    return max(a, b)


def fmin(a: Any, b: Any) -> Any:
    """min(a, b) on floats and mpmath numbers; elementwise on the arrays of a law batch."""
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return np.minimum(a, b)
    return min(a, b)
