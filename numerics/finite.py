"""Exact finite-state models: Z(x), CE, the DCL risk R̃ (key ``R_k``), R_std,k and H_k by enumerating the k i.i.d. negatives.

A model is ``π`` on ``N`` states, a row-stochastic positive-pair kernel ``M`` (N × N), unit
embeddings ``φ`` (N × d) and a temperature ``τ``. With ``s(x, y) = ⟨φ(x), φ(y)⟩`` and
``W_x(y) = e^{s(x, y)/τ}``:

* ``Z(x) = Σ_y π(y) W_x(y)``;  ``CE = Σ_x π(x) Σ_y M(x, y) [−s(x, y)/τ + log Z(x)]``
  (cross-entropy of ``M(x, ·)`` against ``Q^φ_τ(x, ·)``, densities with respect to ``π``);
* ``R̃ = E[−s⁺/τ + log Z_k(x)]``, the paper's DCL risk (§3.4; key ``R_k``), ``Z_k = (1/k) Σ_j W_x(y_j)``;
* ``R_std,k = E[log(1 + Σ_j W_x(y_j)/W_x(x⁺))]`` (standard CPC/SimCLR loss); the paper's InfoNCE risk
  R (2) is R_std,k − log k;
* ``H_k = E[−Σ_j P̂_k(x, j) log Q̂_k(x, j)]`` (similarity-search interpretation, brief item 2):
  the cross-entropy between the idealised search ``P̂_k(x, j) ∝ m(x, y_j)``, ``m = M(x, y)/π(y)``,
  and the learned search ``Q̂_k(x, j) ∝ W_x(y_j)`` over the same ``k`` unseen points. It is defined
  only when ``Σ_j m(x, y_j) > 0`` almost surely, i.e. ``M(x, y) > 0`` for every ``y`` in the
  support of ``π``; otherwise it is not computed and ``h_k_note`` says why.

Every expectation over the negatives is an exact finite sum over the ``C(k + N − 1, N − 1)`` count
vectors with multinomial probabilities (``derivations.bias.composition_probabilities``), evaluated in
mpmath at the requested number of digits plus guard digits. Entries of the model are kept as exact
rationals (``"3/11"``, ``"0.1"`` or JSON numbers, read as the exact decimal they print as).
Validation tolerance (``TOL``): ``|Σ π − 1|``, ``|Σ_y M(x, y) − 1|`` and ``|‖φ(x)‖² − 1|`` must not
exceed ``1e-12``; an entry that breaks a rule is named by its row/entry in a one-line ``ValueError``.
"""

from __future__ import annotations

import json
import math
import pathlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from infonce_bounds.derivations import bias as _bias
from infonce_bounds.derivations.symbols import Z as _Z
from infonce_bounds.derivations.symbols import k as _k
from infonce_bounds.derivations.symbols import kappa as _kappa
from infonce_bounds.derivations.symbols import tau as _tau

#: tolerance of the probability-vector, row-stochastic and unit-norm checks
TOL = Fraction(1, 10**12)
#: largest number of count vectors enumerated for one k (C(k + N − 1, N − 1))
MAX_COMPOSITIONS = 2_000_000
GUARD_DIGITS = 10
#: default budget of ``evaluate`` (and of ``infonce-bounds exact --budget``), in the units of ``work``: about
#: 30 s of mpmath arithmetic on a loaded 2-core machine (measured 18 µs per unit at 40 digits)
WORK_BUDGET = 2_000_000
#: work of the fixed per-k part of ``evaluate`` (leading terms, bounds), in the same units
K_OVERHEAD = 2000
#: the largest decimal exponent accepted in a model entry ("1e999999999" would build an integer of 10⁹ digits)
MAX_EXPONENT = 300
#: the longest text accepted for one model entry
MAX_ENTRY_CHARS = 1000
#: τ a model may have: within it the guard digits (``guard_digits``) cover the cancellation of the 1/τ-size
#: terms (small τ) and the τ⁻²-size gaps (large τ); the toolkit's stated range is [1e-3, 1e2]
TAU_EVAL = (Fraction(1, 10**30), Fraction(10**30))

#: the example model of ``../shared/examples/finite_model.json`` (a test checks they agree)
EXAMPLE_MODEL: dict[str, Any] = {
    "name": "example_N3_d2",
    "tau": "1/4",
    "pi": ["1/2", "1/3", "1/6"],
    "M": [["3/5", "3/10", "1/10"], ["1/4", "1/2", "1/4"], ["1/5", "2/5", "2/5"]],
    "phi": [["1", "0"], ["3/5", "4/5"], ["-4/5", "3/5"]],
}


_EXP = re.compile(r"[eE]\s*([+-]?\d+)\s*$")


def _fraction(value: Any, where: str) -> Fraction:
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise ValueError(f"{where} = {_short(value)} is not a number")
    text = repr(value) if isinstance(value, float) else str(value).strip()
    if len(text) > MAX_ENTRY_CHARS:
        raise ValueError(
            f"{where} = {_short(value)} is {len(text)} characters long; allowed: at most {MAX_ENTRY_CHARS}"
        )
    exp = _EXP.search(text)
    if exp and abs(int(exp.group(1))) > MAX_EXPONENT:
        raise ValueError(
            f"{where} = {_short(value)} is out of range; allowed: decimal exponents within ±{MAX_EXPONENT}"
        )
    try:
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError
        return Fraction(text)  # a float is read as the decimal the JSON file shows, exactly
    except (ValueError, ZeroDivisionError):
        raise ValueError(f'{where} = {_short(value)} is not a number (use e.g. 0.25 or "1/4")') from None


def _short(value: Any) -> str:
    r = repr(value)
    return r if len(r) <= 60 else r[:40] + "…" + r[-10:]


def _fmt(q: Fraction) -> str:
    return str(q) if q.denominator < 10**6 else f"{float(q):.15g}"


def _tuples(n_states: int, k_: int) -> int:
    return math.comb(k_ + n_states - 1, n_states - 1)


def guard_digits(tau: Fraction) -> int:
    """Guard digits for a model at τ: 10, plus |log10 τ| for the 1/τ-size terms that cancel in R̃ − CE at
    small τ, plus 2 log10 τ for the gap's τ⁻² size at large τ (the relative accuracy of the printed gap)."""
    lg = abs(math.log10(tau.numerator) - math.log10(tau.denominator))
    return GUARD_DIGITS + math.ceil(2 * lg if tau > 1 else lg)


def _base_work(N: int, d: int) -> float:
    """Work of the k-independent part (similarities, weights, cumulants: N² (d + 3) mpmath operations)."""
    return float(N) * N * (d + 3)


def _k_work(k_: int, S: int, N: int, std: bool, search: bool) -> float:
    """Work of one k: C(k + S − 1, S − 1) count vectors × S anchors × (S + N (1 + std + 2 search)) terms,
    plus S·k powers and the k factorials (k² log₂ k bits, counted as 1/12800 of an mpmath operation each
    64-bit word pair) of ``derivations.bias.composition_probabilities``, plus a fixed ``K_OVERHEAD`` per k
    (the expansion and bound terms; measured ~30 ms per k)."""
    if S <= 1:
        comps = 1.0
    else:
        # log of the binomial, so that k = 10⁹ does not build a 10⁹-digit integer just to be refused
        comps = math.exp(math.lgamma(k_ + S) - math.lgamma(S) - math.lgamma(k_ + 1))
    per = S + N * (1 + int(std) + 2 * int(search))
    return K_OVERHEAD + comps * S * per + S * k_ / 4 + k_ * k_ * math.log2(k_ + 1) / 12800


def _as_list(x: Any) -> Any:
    """A tuple or a numpy array as a list (of its entries, as Python numbers); anything else as it is."""
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):
        x = x.tolist()
    return list(x) if isinstance(x, tuple) else x


def _checked(tau: Any, pi_in: Any, M_in: Any, phi_in: Any) -> tuple:
    """(τ, π, M, φ) as exact rationals, each rule checked: τ ∈ ``TAU_EVAL``, π ≥ 0 summing to 1, M row-stochastic
    (N × N, ≥ 0), φ (N × d) with unit rows, within ``TOL``; a one-line ``ValueError`` naming the entry otherwise."""
    tau_ = _fraction(tau, "tau")
    if tau_ <= 0:
        raise ValueError(f"tau = {_short(tau)} must be > 0")
    if not (TAU_EVAL[0] <= tau_ <= TAU_EVAL[1]):
        raise ValueError(
            f"tau = {_short(tau)} is out of range; allowed: {float(TAU_EVAL[0]):g} ≤ τ ≤ "
            f"{float(TAU_EVAL[1]):g} (the weights e^{{s/τ}} are evaluated exactly there; the toolkit's "
            "stated range is [1e-3, 1e2])"
        )
    pi_in = _as_list(pi_in)
    if not isinstance(pi_in, list) or not pi_in:
        raise ValueError("pi must be a non-empty list of N probabilities")
    pi = [_fraction(v, f"pi[{i}]") for i, v in enumerate(pi_in)]
    N = len(pi)
    for i, p_ in enumerate(pi):
        if p_ < 0:
            raise ValueError(f"pi[{i}] = {_fmt(p_)} is negative")
    if abs(sum(pi) - 1) > TOL:
        raise ValueError(f"pi sums to {_fmt(sum(pi))}, not 1 (tolerance {float(TOL):g})")
    M = _as_list(M_in)
    if not isinstance(M, list) or len(M) != N:
        raise ValueError(
            f"M must have N = {N} rows (one per state of pi), got {len(M) if isinstance(M, list) else type(M).__name__}"
        )
    rows = []
    for i, row in enumerate(M):
        row = _as_list(row)
        if not isinstance(row, list) or len(row) != N:
            raise ValueError(
                f"M row {i} must have N = {N} entries, got {len(row) if isinstance(row, list) else type(row).__name__}"
            )
        vals = [_fraction(v, f"M[{i}][{j}]") for j, v in enumerate(row)]
        for j, v in enumerate(vals):
            if v < 0:
                raise ValueError(f"M[{i}][{j}] = {_fmt(v)} is negative")
        if abs(sum(vals) - 1) > TOL:
            raise ValueError(
                f"M row {i} sums to {_fmt(sum(vals))}, not 1: M must be row-stochastic (tolerance {float(TOL):g})"
            )
        rows.append(vals)
    phi = [_as_list(r) for r in _as_list(phi_in)] if isinstance(_as_list(phi_in), list) else phi_in
    if not isinstance(phi, list) or len(phi) != N:
        raise ValueError(
            f"phi must have N = {N} rows (one per state of pi), got "
            f"{len(phi) if isinstance(phi, list) else type(phi).__name__}"
        )
    if not isinstance(phi[0], list) or not phi[0]:
        raise ValueError("phi row 0 must be a non-empty list of coordinates")
    d_ = len(phi[0])
    emb = []
    for i, row in enumerate(phi):
        if not isinstance(row, list) or len(row) != d_:
            raise ValueError(
                f"phi row {i} must have d = {d_} entries (as row 0), got "
                f"{len(row) if isinstance(row, list) else type(row).__name__}"
            )
        vals = [_fraction(v, f"phi[{i}][{j}]") for j, v in enumerate(row)]
        norm2 = sum(v * v for v in vals)
        if abs(norm2 - 1) > TOL:
            raise ValueError(
                f"phi row {i} has squared norm {_fmt(norm2)}, not 1: embeddings must be unit "
                f"vectors (tolerance {float(TOL):g})"
            )
        emb.append(vals)
    return tau_, pi, rows, emb


@dataclass
class FiniteModel:
    """A finite-state model: π (N,), M (N × N) row-stochastic, φ (N × d) unit rows, τ > 0, all exact rationals.

    Parameters
    ----------
    tau : rational > 0, the temperature.
    pi : sequence of N rationals ≥ 0 summing to 1, the data law π_data.
    M : N × N row-stochastic rationals, the positive-pair kernel M(z, ·).
    phi : N × d rationals with unit rows, the embedding φ.
    name, description : labels.

    Build one with ``FiniteModel.from_json(path)`` or ``FiniteModel.example()``; ``evaluate(ks)``
    gives the exact Z, CE, R̃ and search cross-entropies by enumerating multinomial compositions.
    """

    tau: Fraction
    pi: list[Fraction]
    M: list[list[Fraction]]
    phi: list[list[Fraction]]
    name: str = "model"
    description: str = ""
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Every model is validated where it is made (``FiniteModel(tau=…, pi=…)`` in Python as well as
        ``from_dict``/``from_json``): its entries become exact rationals, or a ``ValueError`` names the rule broken."""
        self.tau, self.pi, self.M, self.phi = _checked(self.tau, self.pi, self.M, self.phi)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_dict(cls, data: Any) -> FiniteModel:
        """Validate and build a model from a mapping with keys ``tau``, ``pi``, ``M``, ``phi``."""
        if not isinstance(data, dict):
            raise ValueError(f"a model must be a JSON object with keys tau, pi, M, phi; got {type(data).__name__}")  # noqa: TRY004 — bad input is a ValueError here (one-line CLI error, exit 2)
        for key in ("tau", "pi", "M", "phi"):
            if key not in data:
                raise ValueError(f"model is missing key {key!r} (needs tau, pi, M, phi)")
        return cls(
            data["tau"],
            data["pi"],
            data["M"],
            data["phi"],
            name=str(data.get("name", "model")),
            description=str(data.get("description", "")),
        )

    @classmethod
    def from_json(cls, path: str | pathlib.Path, budget: int | None = None) -> FiniteModel:
        """Read and validate a model file (format of ``../shared/examples/finite_model.json``).

        With ``budget`` (units of ``work``), a model whose N² similarities alone exceed it is refused
        from its sizes, before its N² entries are converted.
        """
        p = pathlib.Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"model file {str(p)!r} is not UTF-8 JSON text: byte 0x{exc.object[exc.start]:02x} at offset "
                f"{exc.start}"
            ) from None
        except OSError as exc:
            raise ValueError(f"cannot read model file {str(p)!r}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"model file {str(p)!r} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
        except ValueError as exc:  # e.g. an integer literal beyond Python's 4300-digit limit
            raise ValueError(f"model file {str(p)!r} is not a readable JSON model: {exc}") from None
        except RecursionError:
            raise ValueError(
                f"model file {str(p)!r} nests lists or objects too deeply for the JSON reader "
                "(a model needs depth 3: {tau, pi, M: [[...]], phi: [[...]]})"
            ) from None
        if budget is not None and isinstance(data, dict):
            N = len(data["pi"]) if isinstance(data.get("pi"), list) else 0
            phi = data.get("phi")
            d_ = len(phi[0]) if isinstance(phi, list) and phi and isinstance(phi[0], list) else 1
            base = _base_work(N, d_)
            if base > budget:
                raise ValueError(
                    f"model file {str(p)!r} has N = {N} states (d = {d_}): its N² similarities alone need ~{base:.3g} "
                    f"units of work, above the budget {budget:.3g} (--budget)"
                )
        return cls.from_dict(data)

    @classmethod
    def example(cls) -> FiniteModel:
        return cls.from_dict(EXAMPLE_MODEL)

    @property
    def N(self) -> int:
        return len(self.pi)

    # ------------------------------------------------------------------ exact quantities
    def _mp(self, q: Fraction) -> mpmath.mpf:
        return mpmath.mpf(q.numerator) / q.denominator

    def _cached(self, name: str, build):
        """``build()`` once per mpmath precision (the model is never modified after construction)."""
        key = (name, mpmath.mp.prec)
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def similarities(self) -> list[list[mpmath.mpf]]:
        """s(x, y) = ⟨φ(x), φ(y)⟩ (exact rationals, converted at the current precision)."""
        return self._cached(
            "S", lambda: [[self._mp(sum(a_ * b_ for a_, b_ in zip(fx, fy))) for fy in self.phi] for fx in self.phi]
        )

    def weights(self) -> list[list[mpmath.mpf]]:
        """W_x(y) = e^{s(x, y)/τ} at the current mpmath precision."""
        t_ = self._mp(self.tau)
        return self._cached("W", lambda: [[mpmath.exp(sv / t_) for sv in row] for row in self.similarities()])

    def work(
        self, ks: Iterable[int], search: bool = True, std: bool = True, digits: int = 30
    ) -> tuple[float, int, float]:
        """Estimated work of ``evaluate(ks)``, in units of about one mpmath operation at 40 digits
        (more digits cost proportionally more): ``(total, the most expensive k, its work)``.

        Computed from N, d, the support size and each k alone, before any enumeration; ``ks`` may be a
        lazy ``KList`` of any length (it is iterated, never stored).
        """
        S, N, d_ = len(self.support()), self.N, len(self.phi[0])
        scale = max(1.0, (digits + guard_digits(self.tau)) / 40)
        search = search and self.search_defined()[0]
        total, worst, worst_w = _base_work(N, d_) * scale, 0, 0.0
        for k_ in ks:
            w = _k_work(k_, S, N, std, search) * scale
            total += w
            if w > worst_w:
                worst, worst_w = k_, w
        return total, worst, worst_w

    def support(self) -> list[int]:
        return [i for i, p_ in enumerate(self.pi) if p_ > 0]

    def partition(self) -> list[mpmath.mpf]:
        """Z(x) = Σ_y π(y) e^{s(x, y)/τ} for every state x."""
        W = self.weights()
        pis = [self._mp(p_) for p_ in self.pi]
        return [mpmath.fsum(p_ * w_ for p_, w_ in zip(pis, row)) for row in W]

    def cross_entropy(self) -> mpmath.mpf:
        """CE = Σ_x π(x) Σ_y M(x, y) [−s(x, y)/τ + log Z(x)]."""
        S, Zs, t_ = self.similarities(), self.partition(), self._mp(self.tau)
        return mpmath.fsum(
            self._mp(self.pi[x_])
            * mpmath.fsum(self._mp(self.M[x_][y_]) * (-S[x_][y_] / t_ + mpmath.log(Zs[x_])) for y_ in range(self.N))
            for x_ in self.support()
        )

    def search_defined(self) -> tuple[bool, str]:
        """Whether H_k is defined: M(x, y) > 0 for all x, y in the support of π."""
        for x_ in self.support():
            for y_ in self.support():
                if self.M[x_][y_] == 0:
                    return False, (
                        f"H_k not computed: M[{x_}][{y_}] = 0, so with positive probability every "
                        f"negative has m(x, y) = 0 and P̂_k is undefined"
                    )
        for x_ in self.support():
            for y_ in range(self.N):
                if self.M[x_][y_] > 0 and self.pi[y_] == 0:
                    return False, f"H_k not computed: M[{x_}][{y_}] > 0 but pi[{y_}] = 0, so m = dM/dπ does not exist"
        return True, ""

    def cumulants(self) -> list[tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]]:
        """(Z, κ₂, κ₃) of W_x(Y), Y ~ π, for every state x."""
        return self._cached("cumulants", self._cumulants)

    def _cumulants(self) -> list[tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]]:
        W = self.weights()
        pis = [self._mp(p_) for p_ in self.pi]
        out = []
        for row in W:
            z_ = mpmath.fsum(p_ * w_ for p_, w_ in zip(pis, row))
            k2 = mpmath.fsum(p_ * (w_ - z_) ** 2 for p_, w_ in zip(pis, row))
            k3 = mpmath.fsum(p_ * (w_ - z_) ** 3 for p_, w_ in zip(pis, row))
            out.append((z_, k2, k3))
        return out

    def exact_at(self, k_: int, with_search: bool = True, with_std: bool = True) -> dict[str, mpmath.mpf | None]:
        """R̃ (key ``R_k``), R_std,k (unless ``with_std`` is False) and (when defined) H_k for one k, exactly.

        Evaluated at the current mpmath precision; skipped quantities are ``None``.
        """
        if not isinstance(k_, int) or isinstance(k_, bool) or k_ < 1:
            raise ValueError(f"k must be an integer ≥ 1, got {k_!r}")
        count = _tuples(len(self.support()), k_)
        if count > MAX_COMPOSITIONS:
            raise ValueError(
                f"k = {k_} with {len(self.support())} states needs {count} count vectors, more than the "
                f"limit {MAX_COMPOSITIONS}; choose a smaller k"
            )
        N, supp = self.N, self.support()
        S, W, t_ = self.similarities(), self.weights(), self._mp(self.tau)
        pis = [self._mp(p_) for p_ in self.pi]
        Ms = [[self._mp(v) for v in row] for row in self.M]
        search_ok = with_search and self.search_defined()[0]
        m = [[Ms[x_][y_] / pis[y_] if pis[y_] != 0 else mpmath.mpf(0) for y_ in range(N)] for x_ in range(N)]
        comps = _bias.composition_probabilities(k_, pis)
        r_avg, r_std, h_k = [], [], []
        for x_ in supp:
            Wx, Mx = W[x_], Ms[x_]
            pos = mpmath.fsum(Mx[y_] * (-S[x_][y_] / t_) for y_ in range(N))  # E[−s⁺/τ]
            e_log, e_std, e_h = [], [], []
            for cnt, pr in comps:
                sw = mpmath.fsum(c * Wx[y_] for y_, c in enumerate(cnt) if c)
                e_log.append(pr * mpmath.log(sw / k_))
                if with_std:
                    e_std.append(
                        pr * mpmath.fsum(Mx[yp] * mpmath.log(1 + sw / Wx[yp]) for yp in range(N) if Mx[yp] != 0)
                    )
                if search_ok:
                    sm = mpmath.fsum(c * m[x_][y_] for y_, c in enumerate(cnt) if c)
                    lsw = mpmath.log(sw)
                    e_h.append(
                        pr * mpmath.fsum(c * m[x_][y_] / sm * (lsw - S[x_][y_] / t_) for y_, c in enumerate(cnt) if c)
                    )
            r_avg.append(pis[x_] * (pos + mpmath.fsum(e_log)))
            r_std.append(pis[x_] * mpmath.fsum(e_std))
            if search_ok:
                h_k.append(pis[x_] * mpmath.fsum(e_h))
        return {
            "R_k": mpmath.fsum(r_avg),
            "R_std_k": mpmath.fsum(r_std) if with_std else None,
            "H_k": mpmath.fsum(h_k) if search_ok else None,
        }

    def leading_terms(self, k_: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(lead1, lead2): E_x of −κ₂/(2kZ²) and of that plus [κ₃/(3Z³) − 3κ₂²/(4Z⁴)]/k² (``derivations.bias``)."""
        f1, f2 = _lead_functions()
        pis = [self._mp(p_) for p_ in self.pi]
        cum = self.cumulants()
        l1 = mpmath.fsum(pis[x_] * f1(k_, cum[x_][1], cum[x_][2], cum[x_][0]) for x_ in self.support())
        l2 = mpmath.fsum(pis[x_] * f2(k_, cum[x_][1], cum[x_][2], cum[x_][0]) for x_ in self.support())
        return l1, l1 + l2

    def evaluate(
        self, ks: Iterable[int], digits: int = 30, search: bool = True, budget: float | None = WORK_BUDGET
    ) -> dict[str, Any]:
        """Every exact quantity for each k in ``ks``, as mpmath numbers at ``digits`` (+ guard) digits.

        Returns ``{"CE", "Z", "by_k": [{"k", "R_k", "R_std_k", "H_k", "gap", "lead1", "lead2",
        "bound", "bound_simple", "bound_sqrt", "offset_std", "R_tilde", "R"}, …], "h_k_note", "interrupted"}``,
        where ``"R_tilde"`` (= ``"R_k"``) is the paper's DCL risk R̃ and ``R = R_std,k − log k`` its InfoNCE risk (2),
        ``gap = R̃ − CE``, ``bound = min(C(τ)/k, D(τ))`` (``derivations.bias.bias_bound_sharp``),
        ``bound_simple = e^{2/τ}/(4k)``, ``bound_sqrt = (e^{2/τ} − 1)/(2√k)`` and ``offset_std = R_std,k − log k − R̃``.

        Every k is checked before any is computed: a ``ValueError`` names the first k beyond
        ``MAX_COMPOSITIONS`` and refuses a list whose estimated ``work`` exceeds ``budget`` (None: no limit).
        A Ctrl-C (KeyboardInterrupt) during the enumeration returns the rows finished so far with
        ``interrupted`` true.
        """
        if not isinstance(digits, int) or isinstance(digits, bool) or digits < 5 or digits > 1000:
            raise ValueError(f"digits must be an integer in [5, 1000], got {digits!r}")
        if not isinstance(ks, (list, tuple, range)) and not hasattr(ks, "size_bound"):
            ks = list(ks)  # an iterator is read once; a KList is re-iterable and stays lazy
        S = len(self.support())
        for k_ in ks:
            if not isinstance(k_, int) or isinstance(k_, bool) or k_ < 1:
                raise ValueError(f"k must be an integer ≥ 1, got {k_!r}")
            if S > 1 and _tuples(S, k_) > MAX_COMPOSITIONS:
                raise ValueError(
                    f"k = {k_} with {S} states needs {_tuples(S, k_)} count vectors, more than the "
                    f"limit {MAX_COMPOSITIONS}; choose a smaller k"
                )
        if budget is not None:
            total, worst, worst_w = self.work(ks, search=search, digits=digits)
            if total > budget:
                raise ValueError(
                    f"the k-list needs ~{total:.3g} units of work (k = {worst} alone ~{worst_w:.3g}), above the "
                    f"budget {budget:.3g} (--budget; about 30 s per 2e6 units); choose fewer or smaller k"
                )
        interrupted = False
        with mpmath.workdps(digits + guard_digits(self.tau)):
            ce = self.cross_entropy()
            Zs = self.partition()
            ok, note = self.search_defined()
            bnd = _bound_functions()
            tv = self._mp(self.tau)
            rows = []
            try:
                for k_ in ks:
                    rows.append(self._row(k_, ce, search, bnd, tv))
            except KeyboardInterrupt:
                interrupted = True
        return {
            "model": self.name,
            "tau": str(self.tau),
            "digits": digits,
            "CE": ce,
            "Z": Zs,
            "by_k": rows,
            "h_k_note": "" if (ok or not search) else note,
            "interrupted": interrupted,
        }

    def _row(self, k_: int, ce, search: bool, bnd: dict, tv) -> dict[str, Any]:
        """One row of ``evaluate`` (at the caller's precision)."""
        ex = self.exact_at(k_, with_search=search)
        l1, l2 = self.leading_terms(k_)
        return {
            "k": k_,
            "R_k": ex["R_k"],
            "R_std_k": ex["R_std_k"],
            "H_k": ex["H_k"],
            "gap": ex["R_k"] - ce,
            "lead1": l1,
            "lead2": l2,
            "bound": bnd["bound"](tv, k_),
            "bound_simple": bnd["simple"](tv, k_),
            "bound_sqrt": bnd["sqrt"](tv, k_),
            "offset_std": ex["R_std_k"] - mpmath.log(k_) - ex["R_k"],
            # the paper's names: R̃ (§3.4, the DCL risk; key "R_k"), R (2) = R_std,k − log k
            "R_tilde": ex["R_k"],
            "R": ex["R_std_k"] - mpmath.log(k_),
        }


def _lead_functions():
    """mpmath functions (k, κ₂, κ₃, Z) of the two expansion terms, from ``derivations.bias``."""
    d2, d3 = sp.Dummy("k2"), sp.Dummy("k3")
    rep = {_kappa[2]: d2, _kappa[3]: d3}
    f1 = sp.lambdify((_k, d2, d3, _Z), _bias.leading_bias_term().xreplace(rep), modules="mpmath")
    f2 = sp.lambdify((_k, d2, d3, _Z), _bias.second_order_bias_term().xreplace(rep), modules="mpmath")
    return f1, f2


def _bound_functions():
    """mpmath functions (τ, k) of the rigorous bounds, from ``derivations.bias``."""
    return {
        "bound": sp.lambdify((_tau, _k), _bias.bias_bound_sharp(), modules="mpmath"),
        "simple": sp.lambdify((_tau, _k), _bias.simple_bias_constant() / _k, modules="mpmath"),
        "sqrt": sp.lambdify((_tau, _k), _bias.deviation_bound(), modules="mpmath"),
    }


def to_json(result: dict[str, Any], digits: int) -> dict[str, Any]:
    """The ``evaluate`` result with every number as a decimal string of ``digits`` significant digits."""

    def s_(v):
        return None if v is None else mpmath.nstr(v, digits, strip_zeros=False)

    rows = []
    for r_ in result["by_k"]:
        row = {"k": r_["k"]}
        for key, val in r_.items():
            if key == "k" or (key == "H_k" and val is None):
                continue
            row[key] = s_(val)
        rows.append(row)
    out = {
        "model": result["model"],
        "tau": result["tau"],
        "digits": digits,
        "CE": s_(result["CE"]),
        "Z": [s_(z_) for z_ in result["Z"]],
        "by_k": rows,
    }
    if result.get("h_k_note"):
        out["h_k_note"] = result["h_k_note"]
    if result.get("interrupted"):
        out["interrupted"] = True
    return out


#: the name that says what it is beside the experiments' float64 twin (``experiments.models.FloatFiniteModel``)
ExactFiniteModel = FiniteModel

__all__ = [
    "EXAMPLE_MODEL",
    "MAX_COMPOSITIONS",
    "TOL",
    "WORK_BUDGET",
    "ExactFiniteModel",
    "FiniteModel",
    "guard_digits",
    "to_json",
]
