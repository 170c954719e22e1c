"""The InfoNCE loss family in the paper's names: ℓ of (14), the DCL loss ℓ̃ (§3.4), the standard
(SimCLR cross-entropy) loss ℓ_std, the symmetric in-batch form, and the exact relation ℓ − ℓ̃.

With similarities s⁺ = ⟨φ(z^a), φ(z⁺)⟩ (positive) and s_j = ⟨φ(z^a), φ(z_j⁻)⟩ (negatives) in [−1, 1]
and temperature τ > 0:

* InfoNCE, the paper's (14):  ℓ = log(1/k + (1/k) Σ_j e^{(s_j − s⁺)/τ}), risk R (2), empirical risk R̂_n (1);
* DCL (§3.4, Yeh et al. 2022): ℓ̃ = log((1/k) Σ_j e^{(s_j − s⁺)/τ}) = −s⁺/τ + Λ(1/τ; s), risk R̃;
* standard (CPC / SimCLR, what ``F.cross_entropy`` returns): ℓ_std = −log(e^{s⁺/τ}/(e^{s⁺/τ} + Σ_j e^{s_j/τ}))
  = ℓ + log k (the paper's (1)–(2) subtract log k);
* relation:  ℓ − ℓ̃ = log(1 + e^{s⁺/τ}/(k Z_k)),  Z_k = (1/k) Σ_j e^{s_j/τ},
  which lies in [log(1 + e^{−2/τ}/k), log(1 + e^{2/τ}/k)] ⊂ [0, e^{2/τ}/k].

All three are functions of the *logit* c = log Σ_j e^{(s_j − s⁺)/τ}: ℓ̃ = c − log k,
ℓ = log(1 + e^c) − log k and ℓ_std = log(1 + e^c); the numeric kernels evaluate exactly these
closing formulas (generated from here), after a max-shifted log-sum-exp for c.

Names: ``LOSS_NAMES`` are the names every interface takes (``variant=``, ``--loss``); the old name
"averaged" of the DCL loss is accepted with a ``DeprecationWarning`` (``canonical_loss``).
"""

from __future__ import annotations

import warnings

import sympy as sp

from .ledger import Derivation, Domain, Shown, Step
from .results import KernelFormula
from .symbols import TAU_MAX, TAU_MIN, Zk, b, c, ell, ell_dcl, ell_std, g, j, k, s, s_pos, tau, x, z
from .symbols import B_batch as _B
from .symbols import S as _S
from .symbols import m_shift as x_shift
from .symbols import zeta as y

#: the loss names of every interface: the paper's ℓ of (14), the DCL loss ℓ̃, the SimCLR cross-entropy
LOSS_NAMES = ("infonce", "dcl", "standard")
#: old name → paper's name (accepted with a DeprecationWarning)
DEPRECATED_LOSS_NAMES = {"averaged": "dcl"}


def canonical_loss(name, what: str = "loss", stacklevel: int = 3) -> str:
    """The paper's name of a loss: one of ``LOSS_NAMES``; "averaged" → "dcl" with a DeprecationWarning.

    ``ValueError`` naming ``what`` (the argument) and the allowed names for anything else.
    """
    if isinstance(name, str) and name in DEPRECATED_LOSS_NAMES:
        new = DEPRECATED_LOSS_NAMES[name]
        warnings.warn(
            f"{what} = {name!r} is deprecated; use {new!r} (the paper's DCL loss ℓ̃, §3.4: same values)",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        return new
    if not isinstance(name, str) or name not in LOSS_NAMES:
        allowed = ", ".join(repr(x_) for x_ in LOSS_NAMES)
        raise ValueError(f"{what} must be one of {allowed} (or the deprecated 'averaged' = 'dcl'), got {name!r}")
    return name


SIM_DOMAIN = Domain(
    {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s_pos: (-1, 1), s: (-1, 1)},
    name="τ ∈ [1e-3, 1e2], k ≥ 1, s⁺, s_j ∈ [−1, 1]",
)


def log_mean_exp(b_, z_, k_):
    """Λ(b; z) = log((1/k) Σ_{j=1}^k e^{b z_j}); the log-partition at inverse temperature b."""
    return sp.log(sp.Sum(sp.exp(b_ * z_[j]), (j, 1, k_)) / k_)


def Z_k_expr(k_=k):
    """Z_k = (1/k) Σ_j e^{s_j/τ}, the empirical partition function over the k negatives."""
    return sp.Sum(sp.exp(s[j] / tau), (j, 1, k_)) / k_


def infonce_loss(k_=k):
    """ℓ = log(1/k + (1/k) Σ_j e^{(s_j − s⁺)/τ}), the paper's InfoNCE loss (14); τ > 0, k ≥ 1."""
    return sp.log(1 / k_ + sp.Sum(sp.exp((s[j] - s_pos) / tau), (j, 1, k_)) / k_)


def dcl_loss(k_=k):
    """ℓ̃ = −s⁺/τ + log((1/k) Σ_j e^{s_j/τ}), the DCL loss (paper §3.4: (14) without the 1/k); τ > 0, k ≥ 1."""
    return -s_pos / tau + sp.log(Z_k_expr(k_))


def standard_loss(k_=k):
    """ℓ_std = −log(e^{s⁺/τ} / (e^{s⁺/τ} + Σ_j e^{s_j/τ})) (CPC / SimCLR) = ℓ + log k; τ > 0, k ≥ 1."""
    num = sp.exp(s_pos / tau)
    return -sp.log(num / (num + sp.Sum(sp.exp(s[j] / tau), (j, 1, k_))))


#: c = log Σ_j e^{(s_j − s⁺)/τ}, the logit all three losses are closing functions of
logit_expr = sp.log(sp.Sum(sp.exp((s[j] - s_pos) / tau), (j, 1, k)))


def dcl_from_logit(c_=c, k_=k):
    """ℓ̃ = c − log k, with c = log Σ_j e^{(s_j − s⁺)/τ}."""
    return c_ - sp.log(k_)


def infonce_from_logit(c_=c, k_=k):
    """ℓ = log(1 + e^c) − log k, the paper's (14) from the logit; the kernels use the stable softplus."""
    return sp.log(1 + sp.exp(c_)) - sp.log(k_)


def standard_from_logit(c_=c):
    """ℓ_std = log(1 + e^c) (softplus of the logit); the kernels use its stable rewrite."""
    return sp.log(1 + sp.exp(c_))


def standard_offset(k_=k):
    """ℓ − ℓ̃ = ℓ_std − log k − ℓ̃ = log(1 + e^{s⁺/τ}/(k Z_k)); in [log(1 + e^{−2/τ}/k), log(1 + e^{2/τ}/k)]."""
    return sp.log(1 + sp.exp(s_pos / tau) / (k_ * Z_k_expr(k_)))


def in_batch_row_loss(i_, B_=_B):
    """Row i of the SimCLR in-batch loss: −S_ii/τ + log Σ_{j=1}^B e^{S_ij/τ}."""
    return -_S[i_, i_] / tau + sp.log(sp.Sum(sp.exp(_S[i_, j] / tau), (j, 1, B_)))


def in_batch_col_loss(i_, B_=_B):
    """Column i (positives as anchors): −S_ii/τ + log Σ_{j=1}^B e^{S_ji/τ}."""
    return -_S[i_, i_] / tau + sp.log(sp.Sum(sp.exp(_S[j, i_] / tau), (j, 1, B_)))


def symmetric_in_batch_loss(B_):
    """Symmetric in-batch InfoNCE: (1/(2B)) Σ_i [row_i + col_i] (CLIP-style), concrete B."""
    return sp.Add(*[in_batch_row_loss(i_, B_) + in_batch_col_loss(i_, B_) for i_ in range(1, B_ + 1)]) / (2 * B_)


def _expand_logs(e):
    return sp.simplify(sp.expand_log(sp.expand(e)))


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 10


def derivations() -> list[Derivation]:
    D = SIM_DOMAIN
    Dk = Domain(
        {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s_pos: (-1, 1), s: (-1, 1), c: (-sp.oo, sp.oo)},
        name="τ ∈ [1e-3, 1e2], k ≥ 1, s ∈ [−1, 1], c ∈ ℝ",
    )
    Dg = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), g: (-2, 2)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, g ∈ [−2, 2]")
    Db = Domain(
        {b: (sp.Rational(1, 100), 1000), k: (1, sp.oo), z: (-1, 1), x_shift: (-10, 10)},
        name="b ∈ [1e-2, 1e3], k ≥ 1, z_j ∈ [−1, 1], m ∈ [−10, 10]",
    )
    offset = standard_offset()
    lower = sp.log(1 + sp.exp(-2 / tau) / k)
    upper = sp.log(1 + sp.exp(2 / tau) / k)
    steps = [
        Step(
            "Z_k, the empirical partition function",
            Zk,
            Z_k_expr(),
            kind="definition",
            domain=D | Domain({Zk: (0, sp.oo)}),
            provenance="ours",
            note="our name; the paper's μ̂ = k⁻¹ Σ_j e^{X_j} of Lemma 2's proof with X_j = s_j/τ",
        ),
        Step(
            "InfoNCE ℓ, the paper's (14): ℓ = log(1/k + (1/k) Σ_j e^{(s_j − s⁺)/τ})",
            ell,
            infonce_loss(),
            kind="definition",
            domain=D | Domain({ell: (-sp.oo, sp.oo)}),
            provenance="paper",
            reference="eq. (14), §4.1; its risk R is (2), its empirical risk R̂_n is (1)",
            note="s⁺ = ⟨φ(z^a), φ(z⁺)⟩, s_j = ⟨φ(z^a), φ(z_j⁻)⟩",
        ),
        Step(
            "DCL loss ℓ̃ = −s⁺/τ + log((1/k) Σ_j e^{s_j/τ}) (the paper's §3.4: the 1 + of Algorithm 1 dropped)",
            ell_dcl,
            dcl_loss(),
            kind="definition",
            domain=D | Domain({ell_dcl: (-sp.oo, sp.oo)}),
            provenance="paper",
            reference="§3.4, the display defining the DCL risk R̃ = E log Σ_j e^{⟨φ(Z^a), φ(Z_j⁻) − φ(Z⁺)⟩/τ} − log k",
            note="the per-tuple loss under the paper's R̃; the name ℓ̃ is ours (Yeh et al. 2022 call it DCL)",
        ),
        Step(
            "standard InfoNCE ℓ_std = −log(e^{s⁺/τ}/(e^{s⁺/τ} + Σ_j e^{s_j/τ})) (SimCLR cross-entropy)",
            ell_std,
            standard_loss(),
            kind="definition",
            domain=D | Domain({ell_std: (-sp.oo, sp.oo)}),
            provenance="classical",
            reference="van den Oord, Li & Vinyals (2018); Chen et al. (2020), NT-Xent; = F.cross_entropy of the logits",
        ),
        Step(
            "the paper's ℓ (14) = standard InfoNCE − log k: ℓ = ℓ_std − log k",
            infonce_loss(),
            standard_loss() - sp.log(k),
            domain=D,
            provenance="paper",
            reference="(1)–(2) subtract log k from the loss of Algorithm 1; after (15): ℓ^log(v) − log k = ℓ",
            simplifier=_expand_logs,
        ),
        Step(
            "ℓ̃ as log-mean-exp: ℓ̃ = Λ(1/τ; s) − s⁺/τ",
            dcl_loss(),
            Shown(log_mean_exp(1 / tau, s, k), r"\Lambda(1/\tau; s)", "Λ(1/τ; s)") - s_pos / tau,
            domain=D,
            provenance="ours",
        ),
        Step(
            "shift invariance of Λ: Λ(b; z) = m b + Λ(b; z − m)",
            log_mean_exp(b, z, k),
            x_shift * b + sp.log(sp.Sum(sp.exp(b * (z[j] - x_shift)), (j, 1, k)) / k),
            domain=Db,
            provenance="classical",
            reference="max-shifted log-sum-exp; e.g. Blanchard, Higham & Higham (2021)",
            simplifier=_expand_logs,
            note="with m = max_j z_j every exponent is ≤ 0: no overflow at τ = 1e-3",
        ),
        Step(
            "ℓ̃ from the logit: ℓ̃ = c − log k",
            dcl_loss(),
            dcl_from_logit(logit_expr, k),
            domain=D,
            simplifier=_expand_logs,
        ),
        Step(
            "ℓ from the logit: ℓ = log(1 + e^c) − log k",
            infonce_loss(),
            infonce_from_logit(logit_expr, k),
            domain=D,
            simplifier=_expand_logs,
            note="log1p(Σ_j e^{(s_j − s⁺)/τ}) keeps relative accuracy when the positive dominates",
        ),
        Step(
            "ℓ_std from the logit: ℓ_std = log(1 + e^c)",
            standard_loss(),
            standard_from_logit(logit_expr),
            domain=D,
            simplifier=_expand_logs,
        ),
        Step(
            "exact relation ℓ − ℓ̃ = log(1 + e^{s⁺/τ}/(k Z_k)) (ℓ the paper's (14), ℓ̃ the DCL loss)",
            infonce_loss() - dcl_loss(),
            offset,
            domain=D,
            simplifier=_expand_logs,
        ),
        Step(
            "relation in closing form: (log(1 + e^c) − log k) − (c − log k) = log(1 + e^{−c})",
            infonce_from_logit() - dcl_from_logit(),
            sp.log(1 + sp.exp(-c)),
            domain=Dk,
            simplifier=_expand_logs,
        ),
        Step(
            "Z_k lies in [e^{−1/τ}, e^{1/τ}] (upper)",
            Z_k_expr(),
            sp.exp(1 / tau),
            kind="inequality",
            relation="<=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1)}),
            provenance="ours",
        ),
        Step(
            "Z_k lies in [e^{−1/τ}, e^{1/τ}] (lower)",
            Z_k_expr(),
            sp.exp(-1 / tau),
            kind="inequality",
            relation=">=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1)}),
            provenance="ours",
        ),
        Step(
            "offset in reduced form: with Z_k = e^{ζ/τ}, g = s⁺ − ζ ∈ [−2, 2]",
            sp.log(1 + sp.exp((g + y) / tau) / (k * sp.exp(y / tau))),
            sp.log(1 + sp.exp(g / tau) / k),
            domain=Dg | Domain({y: (-1, 1)}),
            simplifier=_expand_logs,
        ),
        Step(
            "offset upper bound log(1 + e^{2/τ}/k)",
            sp.log(1 + sp.exp(g / tau) / k),
            upper,
            kind="inequality",
            relation="<=",
            domain=Dg,
        ),
        Step(
            "offset lower bound log(1 + e^{−2/τ}/k)",
            sp.log(1 + sp.exp(g / tau) / k),
            lower,
            kind="inequality",
            relation=">=",
            domain=Dg,
        ),
        Step(
            "log(1 + x) ≤ x for x ≥ 0, hence offset ≤ e^{2/τ}/k",
            sp.log(1 + x),
            x,
            kind="inequality",
            relation="<=",
            domain=Domain({x: (0, sp.oo)}),
            provenance="classical",
            reference="concavity of log (tangent line at 1)",
            note="applied with x = e^{2/τ}/k",
        ),
        Step(
            "offset ≥ 0",
            lower,
            0,
            kind="inequality",
            relation=">=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo)}),
        ),
        Step(
            "k × offset → e^{s⁺/τ}/Z_k as k → ∞ (Z_k held fixed)",
            k * sp.log(1 + sp.exp(s_pos / tau) / (k * Zk)),
            sp.exp(s_pos / tau) / Zk,
            kind="limit",
            var=k,
            domain=Domain({tau: (TAU_MIN, TAU_MAX), s_pos: (-1, 1), Zk: (sp.exp(-1) / 10, 10)}),
            note="in expectation (Z_k → Z a.s.) k E[ℓ − ℓ̃] = k (R − R̃) → E[e^{s(x,x⁺)/τ}/Z(x)]",
        ),
    ]
    loss = Derivation(
        "loss",
        "The InfoNCE loss ℓ (14), the DCL loss ℓ̃ (§3.4), the standard loss, and the exact relation ℓ − ℓ̃",
        steps,
        result="exact relation ℓ − ℓ̃ = log(1 + e^{s⁺/τ}/(k Z_k)) (ℓ the paper's (14), ℓ̃ the DCL loss)",
        source="ours",
        paper_claim="the InfoNCE loss (14) = standard − log k, and the DCL loss of §3.4 (the 1 + dropped)",
        summary="ℓ (14), ℓ̃ (DCL) and ℓ_std = ℓ + log k are closing functions of one logit; "
        "ℓ − ℓ̃ = log(1 + e^{s⁺/τ}/(k Z_k)) ∈ [0, e^{2/τ}/k].",
        objects={
            "infonce_loss": infonce_loss(),
            "dcl_loss": dcl_loss(),
            "standard_loss": standard_loss(),
            "logit": logit_expr,
        },
    )
    Bc = 3
    in_batch_steps = [
        Step(
            "in-batch row i is the standard loss ℓ_std with k = B − 1 negatives",
            in_batch_row_loss(1, Bc).doit(),
            standard_loss(Bc - 1).doit().subs({s_pos: _S[1, 1], s[1]: _S[1, 2], s[2]: _S[1, 3]}),
            domain=Domain({tau: (TAU_MIN, TAU_MAX), _S: (-1, 1)}),
            simplifier=_expand_logs,
            note="concrete B = 3: the other positives are the anchor's negatives (SimCLR convention)",
        ),
        Step(
            "symmetric in-batch loss = mean of the row (anchor→positive) and column (positive→anchor) losses",
            Shown(symmetric_in_batch_loss(Bc).doit(), r"\ell^{\mathrm{sym}}_{B=3}", "ℓ_sym(B=3)"),
            (
                Shown(
                    sp.Add(*[in_batch_row_loss(i_, Bc) for i_ in range(1, Bc + 1)]).doit(),
                    r"\sum_{i=1}^{3} \mathrm{row}_i",
                    "Σ_i row_i",
                )
                + Shown(
                    sp.Add(*[in_batch_col_loss(i_, Bc) for i_ in range(1, Bc + 1)]).doit(),
                    r"\sum_{i=1}^{3} \mathrm{col}_i",
                    "Σ_i col_i",
                )
            )
            / (2 * Bc),
            domain=Domain({tau: (TAU_MIN, TAU_MAX), _S: (-1, 1)}),
        ),
        Step(
            "in-batch row loss ≥ log-count gap: row_i ≥ 0",
            in_batch_row_loss(1, Bc).doit(),
            0,
            kind="inequality",
            relation=">=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), _S: (-1, 1)}),
            note="the positive is one of the B terms of the partition, so the softmax probability is ≤ 1",
        ),
    ]
    in_batch = Derivation(
        "in_batch",
        "The in-batch (SimCLR) and symmetric forms of InfoNCE",
        in_batch_steps,
        result="in-batch row i is the standard loss ℓ_std with k = B − 1 negatives",
        source="ours",
        depends_on=("loss",),
        summary="In-batch losses are standard losses whose negatives are the other positives of the batch.",
    )
    return [loss, in_batch]


#: the closing formulas the numba kernels evaluate, printed by ``numerics.codegen``
KERNEL_FORMULAS = [
    KernelFormula(
        "dcl_from_logit",
        ("c", "k"),
        lambda: dcl_from_logit(c, k),
        "derivations.loss.dcl_from_logit",
        "loss / ℓ̃ from the logit: ℓ̃ = c − log k",
        "ℓ̃ = c − log k, the DCL loss (paper §3.4) from the logit c = log Σ_j e^{(s_j − s⁺)/τ}.",
    ),
    KernelFormula(
        "infonce_from_logit",
        ("c", "k"),
        lambda: infonce_from_logit(c, k),
        "derivations.loss.infonce_from_logit",
        "loss / ℓ from the logit: ℓ = log(1 + e^c) − log k",
        "ℓ = log(1 + e^c) − log k, the paper's InfoNCE loss (14) from the logit (stable softplus).",
    ),
    KernelFormula(
        "standard_from_logit",
        ("c",),
        lambda: standard_from_logit(c),
        "derivations.loss.standard_from_logit",
        "loss / ℓ_std from the logit: ℓ_std = log(1 + e^c)",
        "ℓ_std = log(1 + e^c), the standard (SimCLR) InfoNCE loss from the logit (stable softplus).",
    ),
    KernelFormula(
        "dcl_dlogit",
        ("c", "k"),
        lambda: sp.diff(dcl_from_logit(c, k), c),
        "d/dc derivations.loss.dcl_from_logit",
        "loss / ℓ̃ from the logit: ℓ̃ = c − log k",
        "∂ℓ̃/∂c = 1 (the gradient kernels multiply the softmax weights by it).",
    ),
    KernelFormula(
        "infonce_dlogit",
        ("c", "k"),
        lambda: sp.diff(infonce_from_logit(c, k), c),
        "d/dc derivations.loss.infonce_from_logit",
        "loss / ℓ from the logit: ℓ = log(1 + e^c) − log k",
        "∂ℓ/∂c = e^c/(1 + e^c), the logistic of the logit (stable form).",
    ),
    KernelFormula(
        "standard_dlogit",
        ("c",),
        lambda: sp.diff(standard_from_logit(c), c),
        "d/dc derivations.loss.standard_from_logit",
        "loss / ℓ_std from the logit: ℓ_std = log(1 + e^c)",
        "∂ℓ_std/∂c = e^c/(1 + e^c), the logistic of the logit (stable form).",
    ),
]
