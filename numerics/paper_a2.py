"""The construction of the paper's appendix A.2, evaluated exactly for k up to 10⁶.

For e^{1/τ} > 2 and ε = 1/⌈e^{1/τ} − 1⌉ (33), φ(Z), Z ~ π_data, is uniform on N = 1/ε orthonormal vectors
(δ = 0). For an anchor, J ~ Bin(k, ε) of its k negatives share its vector, so with E = e^{1/τ},
μ = 1 + ε(E − 1) and μ̂ = 1 + J(E − 1)/k,

    CE − R̃ = log μ − E log μ̂ = −E log1p((J − kε)(E − 1)/(kμ)),                    (binomial sum)

and, for the positive-pair kernel M(z, ·) = (1 − λ)π + λ·uniform on z's cell (dM/dπ = α = 1 − λ + λN on
the cell, β = 1 − λ off it), the numerator of (13) is (1/τ)|E[Jα/(Jα + (k − J)β)] − εα|.

``A2Construction`` evaluates both in float64 from the log-binomial weights (no 0·∞, no cancellation
beyond the final O(1/k) sum; a test compares with the 50-digit sums of
``derivations.paper.eq13_a2`` and with ``FiniteModel``'s exact enumeration at small k).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from infonce_bounds.derivations.paper import eq13_a2

from .finite import FiniteModel


@dataclass(frozen=True)
class A2Construction:
    """The δ = 0 model of appendix A.2 at temperature ``tau`` (e^{1/τ} > 2) and mixing ``lam`` ∈ (0, 1)."""

    tau: Fraction
    lam: Fraction = Fraction(1, 2)

    def __post_init__(self) -> None:
        tv, lv = Fraction(self.tau), Fraction(self.lam)
        object.__setattr__(self, "tau", tv)
        object.__setattr__(self, "lam", lv)
        with mpmath.workdps(30):
            c_ = eq13_a2.a2_constants(
                sp.Rational(tv.numerator, tv.denominator), sp.Rational(lv.numerator, lv.denominator)
            )
            object.__setattr__(self, "_c", {key: (v_ if isinstance(v_, int) else float(v_)) for key, v_ in c_.items()})

    # ------------------------------------------------------------------ constants
    @property
    def N(self) -> int:
        return self._c["N"]

    @property
    def eps(self) -> float:
        return self._c["eps"]

    @property
    def Ew2(self) -> float:
        """E_{Z, Z'}[(dM(Z, ·)/dπ(Z'))²] = εα² + (1 − ε)β²."""
        return self._c["Ew2"]

    @property
    def limit(self) -> float:
        """lim_k k(CE − R̃) = Var/(2μ²) = ε(1 − ε)(E − 1)²/(2(1 + ε(E − 1))²)."""
        return self._c["var_ratio"] / 2

    @property
    def printed_lower(self) -> float:
        """(e^{1/τ} − 2)/16: the k-scaled lower bound of A.2 (a → 0)."""
        return (self._c["E"] - 2) / 16

    def bound13(self) -> float:
        """65 E w²/(τ(e^{1/τ} − 2)): the right side of (13)."""
        return 65 * self.Ew2 / (float(self.tau) * (self._c["E"] - 2))

    # ------------------------------------------------------------------ binomial sums
    def _weights(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"k must be an integer ≥ 1, got {k!r}")
        j = np.arange(k + 1, dtype=np.float64)
        eps = self.eps
        steps = np.log(k - j[:-1]) - np.log(j[:-1] + 1) + math.log(eps / (1 - eps))
        logp = np.concatenate(([k * math.log1p(-eps)], k * math.log1p(-eps) + np.cumsum(steps)))
        return j, np.exp(logp - logp.max()) / np.exp(logp - logp.max()).sum()

    def gap(self, k: int) -> float:
        """CE − R̃ at k negatives (float64)."""
        j, p = self._weights(k)
        e1, mu = self._c["E"] - 1, 1 + self.eps * (self._c["E"] - 1)
        return float(-np.dot(p, np.log1p((j - k * self.eps) * e1 / (k * mu))))

    def numerator(self, k: int) -> float:
        """|∫E CrossEnt[M̂_k‖Q̂_k]dπ − R̃| at k negatives (float64)."""
        j, p = self._weights(k)
        al, be = self._c["alpha"], self._c["beta"]
        ratio = j * al / (j * al + (k - j) * be)
        return abs(float(np.dot(p, ratio)) - self.eps * al) / float(self.tau)

    def table(self, ks: list[int]) -> list[dict[str, Any]]:
        """k, k(CE − R̃), its limit, (e^{1/τ} − 2)/16, the (13) ratio and its bound, for each k."""
        out = []
        for k_ in ks:
            g = self.gap(k_)
            out.append(
                {
                    "k": k_,
                    "k_gap": k_ * g,
                    "limit": self.limit,
                    "printed_lower": self.printed_lower,
                    "ratio13": self.numerator(k_) / g,
                    "bound13": self.bound13(),
                }
            )
        return out

    # ------------------------------------------------------------------ the same model, enumerated
    def finite_model(self) -> FiniteModel:
        """The construction as a ``FiniteModel`` (N states, φ = identity rows, M = (1 − λ)π + λ δ)."""
        n_ = self.N
        lam = self.lam
        rows = [[str((1 - lam) / n_ + (lam if i_ == j_ else 0)) for j_ in range(n_)] for i_ in range(n_)]
        phi = [["1" if i_ == j_ else "0" for j_ in range(n_)] for i_ in range(n_)]
        return FiniteModel.from_dict(
            {"name": f"A2_tau_{self.tau}", "tau": str(self.tau), "pi": [f"1/{n_}"] * n_, "M": rows, "phi": phi}
        )
