"""Every symbol of the toolkit, declared once with its assumptions, and the named domains.

No other module calls ``sp.Symbol``: they import from here (design card, style 2).
The numeric ranges in the named domains are the toolkit's *stated* ranges: an inequality
certified "over TAU_RANGE" is certified for ``τ ∈ [1e-3, 1e2]``, nothing more.
"""

from __future__ import annotations

import sympy as sp

from .ledger import Domain

# --- model parameters -------------------------------------------------------------------
tau = sp.Symbol("tau", positive=True)  #: algorithmic temperature τ > 0
gamma = sp.Symbol(
    "gamma", positive=True
)  #: the toolkit's similarity-space exponent γ ≥ 1/τ (continuity family; q = γτ/(γτ − 1))
beta = sp.Symbol("beta", positive=True)  #: the paper's power-mean exponent β ≥ 1 on embedding differences (Prop. 4)
k = sp.Symbol("k", integer=True, positive=True)  #: number of negatives k ≥ 1
n = sp.Symbol("n", integer=True, positive=True)  #: number of training tuples n ≥ 1
delta = sp.Symbol("delta", positive=True)  #: confidence level δ ∈ (0, 1)
L = sp.Symbol("L", positive=True)  #: Lipschitz constant of θ ↦ φ_θ
p = sp.Symbol("p", integer=True, positive=True)  #: parameter count (θ ∈ R^p)
R = sp.Symbol("R", positive=True)  #: radius of the parameter ball ‖θ‖ ≤ R
d = sp.Symbol("d", integer=True, positive=True)  #: embedding dimension (sphere S^{d-1})
r = sp.Symbol("r", positive=True)  #: Hölder exponent r = γτ ≥ 1
q = sp.Symbol("q", positive=True)  #: conjugate exponent q = r/(r − 1)

# --- similarities and paths -------------------------------------------------------------
s_pos = sp.Symbol("s_plus", real=True)  #: similarity of the positive pair s⁺ ∈ [−1, 1]
s = sp.IndexedBase("s", real=True)  #: similarities of the negatives s_j ∈ [−1, 1]
v = sp.IndexedBase("v", real=True)  #: a similarity vector (path start)
h = sp.IndexedBase("h", real=True)  #: a direction of similarity vectors
z = sp.IndexedBase("z", real=True)  #: generic scores for log-mean-exp Λ(b; z)
j = sp.Symbol("j", integer=True, positive=True)  #: index over negatives
i = sp.Symbol("i", integer=True, positive=True)  #: index over states / anchors
t = sp.Symbol("t", real=True)  #: path / segment parameter t ∈ [0, 1]
b = sp.Symbol("b", positive=True)  #: generic inverse temperature in Λ(b; z)

# --- random-variable summaries ------------------------------------------------------------
W = sp.Symbol("W", positive=True)  #: W = e^{s(x, Y)/τ} ∈ [e^{−1/τ}, e^{1/τ}]
Z = sp.Symbol("Z", positive=True)  #: Z = E W, the partition function
Zk = sp.Symbol("Z_k", positive=True)  #: Z_k = (1/k) Σ_j W_j
u = sp.Symbol("u", positive=True)  #: u = Z_k/Z
a = sp.Symbol("a", positive=True)  #: a lower bound on u
y = sp.Symbol("y", nonnegative=True)  #: y = −log a ≥ 0, the lower bound on u in log scale
zeta = sp.Symbol("zeta", real=True)  #: ζ = τ log Z_k ∈ [−1, 1], a log-scale mean similarity
x = sp.Symbol("x", real=True)  #: a generic real variable
eps = sp.Symbol("epsilon", positive=True)  #: ε = 1/k for expansions about k = ∞
kappa = sp.IndexedBase("kappa", real=True)  #: cumulants κ_n of W
mu = sp.IndexedBase("mu", nonnegative=True)  #: weights of a finite measure μ
nu = sp.IndexedBase("nu", nonnegative=True)  #: weights of a finite measure ν
w = sp.IndexedBase("w", positive=True)  #: values e^{s(x, y_i)/τ} on finitely many points

# --- loss family (derivations.loss) --------------------------------------------------------
c = sp.Symbol("c", real=True)  #: the logit c = log Σ_j e^{(s_j − s⁺)/τ}
S = sp.IndexedBase("S", real=True)  #: in-batch similarity matrix S[i, j] = ⟨φ(x_i), φ(x_j⁺)⟩
B_batch = sp.Symbol("B", integer=True, positive=True)  #: batch size of the in-batch form
g = sp.Symbol("g", real=True)  #: g = s⁺ − ζ ∈ [−2, 2]
m_shift = sp.Symbol("m", real=True)  #: a shift of the scores (the max, in the kernels)
ell = sp.Symbol("ell", real=True)  #: the paper's InfoNCE loss ℓ of (14) = standard − log k
ell_dcl = sp.Symbol("ell_tilde", real=True)  #: the DCL loss ℓ̃ (paper §3.4; its risk is R̃)
ell_std = sp.Symbol("ell_std", real=True)  #: the standard (SimCLR cross-entropy) loss ℓ_std = ℓ + log k

# --- continuity and Rademacher complexity (derivations.continuity, derivations.rademacher) ---
rho = sp.Symbol("rho", positive=True)  #: similarity range [−ρ, ρ] (ρ = product of norm bounds)
omega = sp.Symbol("omega", nonnegative=True)  #: a scaled softmax weight ω = k w_j ∈ [0, k]
Lam = sp.Symbol("Lambda_theta", positive=True)  #: Lipschitz constant in θ of one coordinate
c0 = sp.Symbol("c_0", positive=True)  #: per-point radius of a class around its centre
chi = sp.Symbol("chi", positive=True)  #: ratio 2ΛR/c₀ inside the chaining logarithm
m_lvl = sp.Symbol("m_level", integer=True, positive=True)  #: chaining level (scale c₀ 2^{−m})
Rad_vec = sp.Symbol("Rad_vec", nonnegative=True)  #: (1/n) E sup Σ_{i,m} ε_im f_m(x_i), vector class

# --- combined bound (derivations.theorem) ---------------------------------------------------
CE_risk = sp.Symbol("CE", real=True)  #: expected cross-entropy E_x H(M(x, ·), Q^φ_τ(x, ·))
Rk_risk = sp.Symbol("Rtilde", real=True)  #: the DCL population risk R̃ (paper §3.4) with k negatives
R_risk = sp.Symbol("R_paper", real=True)  #: the paper's population risk R(φ; k, τ) of (2), of ℓ (14)
Rhat_std = sp.Symbol("Rhat_std", real=True)  #: empirical risk of the standard loss ℓ_std = ℓ + log k
Rhat_n = sp.Symbol("Rhat_n", real=True)  #: empirical risk on n training tuples
Rad_n = sp.Symbol("Rad_n", nonnegative=True)  #: Rademacher complexity of the loss class

# --- numeric kernels (numerics.codegen: arguments of generated closing formulas) -----------
lam_gamma = sp.Symbol("lam_gamma", real=True)  #: Λ(γ; z) = log mean_j e^{γ z_j}, at the continuity exponent γ
lam_tau = sp.Symbol("lam_tau", real=True)  #: Λ(1/τ; z), at the algorithmic inverse temperature

# --- named domains (boxes); the stated numeric range of τ is [1e-3, 1e2] --------------------
TAU_MIN = sp.Rational(1, 1000)
TAU_MAX = sp.Integer(100)
TAU_RANGE = Domain({tau: (TAU_MIN, TAU_MAX)}, name="τ ∈ [1e-3, 1e2]")
SIM_RANGE = (-1, 1)

__all__ = [name for name in dir() if not name.startswith("_") and name not in {"annotations", "sp", "Domain"}]

# --- paper §3 and appendix A (derivations/paper: Props. 1–2, Lemmas 2–4, (8), (11)–(13), A.1–A.2) -----
# Lemma 2's b > 0 is ``b`` and A.2's a ∈ (0, 1) is ``a`` (same assumptions); μ(z) is ``Z``, μ̂(z) is ``Zk``.
c_X = sp.Symbol("c_X", positive=True)  #: Lemma 2: X, X_j valued in [−c, c]
A_L3 = sp.Symbol("A_L3", real=True)  #: Lemma 3: A = m⁻¹ Σ_j w_j (f(ξ_j) − E_ν f)
B_L3 = sp.Symbol("B_L3", positive=True)  #: Lemma 3: B = m⁻¹ Σ_j w_j, w = dν/dπ
Ew2 = sp.Symbol("E_w2", positive=True)  #: Lemma 3 / Prop. 2: E_π[(dν/dπ)²] ≥ 1
rn = sp.IndexedBase("r", nonnegative=True)  #: Prop. 2: densities (dM(z, ·)/dπ)(ξ_j) ≥ 0
x_e = sp.Symbol("x_e", positive=True)  #: A.2: x = e^{1/τ} − 1 > 1 (e^{1/τ} > 2)
theta_c = sp.Symbol("theta_c", nonnegative=True)  #: A.2: ⌈x⌉ − x ∈ [0, 1), so ε = 1/(x + θ)


# --- end of paper §3 block ------------------------------------------------------------------------


# --- paper §4 and appendix B.1 (derivations/paper: Prop. 4, Lemmas 6–8, (16)–(18)) ---------------
# coordinates of a finite realisation: f(x), f(y), f(z_j) and a direction η at the same points
emb_a = sp.IndexedBase("f_a", real=True)  #: f(x) = f(z^a), the anchor's embedding (coordinates)
emb_p = sp.IndexedBase("f_p", real=True)  #: f(y) = f(z^+), the positive's embedding
emb_n = sp.IndexedBase("f_n", real=True)  #: f(z_j) = f(z_j^-), emb_n[j, i] is coordinate i of negative j
dir_a = sp.IndexedBase("eta_a", real=True)  #: η(z^a), the direction at the anchor
dir_p = sp.IndexedBase("eta_p", real=True)  #: η(z^+)
dir_n = sp.IndexedBase("eta_n", real=True)  #: η(z_j^-), dir_n[j, i]
gvec_a = sp.IndexedBase("g_A", real=True)  #: a free vector standing for G_τ(ξ, ξ, π̂, z^a) in (44)–(46)
gvec_b = sp.IndexedBase("g_B", real=True)  #: a free vector standing for G_τ(ξ, φ − φ', π̂, z^a)
veps = sp.Symbol("varepsilon", real=True)  #: the Gâteaux increment ε → 0 (f + εη)
c_mvt = sp.Symbol("c_xi", real=True)  #: the mean-value point c ∈ [0, 1], ξ = (1 − c)φ + cφ'
dist = sp.IndexedBase("Delta", nonnegative=True)  #: Δ_j = ‖φ(z_j^-) − φ'(z_j^-)‖₂ (Lemma 7's a_j ≥ 0)
dist_a = sp.Symbol("Delta_a", nonnegative=True)  #: ‖φ(z^a) − φ'(z^a)‖₂
dist_p = sp.Symbol("Delta_plus", nonnegative=True)  #: ‖φ(z^+) − φ'(z^+)‖₂
dist_m = sp.Symbol("Delta_max", nonnegative=True)  #: max_j ‖φ(z_j^-) − φ'(z_j^-)‖₂ (or their β-power mean)
cos_pp = sp.Symbol("gamma_pp", real=True)  #: ⟨φ(z), φ'(z)⟩ ∈ [−1, 1] for unit φ, φ'
wt_h = sp.Symbol("w_H", nonnegative=True)  #: the weight e^{H(ξ)}/(1/k + e^{H(ξ)}) ∈ [0, 1] of (42)–(43)
frac_g = sp.Symbol("theta_G", nonnegative=True)  #: ‖G_τ(ξ, φ − φ', π̂, z^a)‖₂ as a fraction θ ∈ [0, 1] of (49)'s bound
delta_s = sp.Symbol("delta_s", nonnegative=True)  #: a nonnegative log-scale gap (reduced-scalar weight bounds)
gap_pos = sp.Symbol("y_pos", positive=True)  #: a positive log-scale gap (entries e^{−y} of a power mean)
H_val = sp.Symbol("H_tau", real=True)  #: the value of H_τ(f, x, y, μ) (35) on a finite realisation
# --- end of paper §4 / B.1 block ------------------------------------------------------------------


# --- paper §4 (derivations/paper: Prop. 3, Lemma 5, (C), Lemma 1, Prop. 5, Theorem 1) -----------
eps_k = sp.Symbol("epsilon_k", positive=True)  #: ε = 1/k ∈ (0, 1], to certify claims tight as k → ∞
ell_lo = sp.Symbol("ell_lo", real=True)  #: a, the lower end of the loss range (proof of Prop. 3)
ell_hi = sp.Symbol("ell_hi", real=True)  #: b, the upper end of the loss range
dev = sp.Symbol("dev", positive=True)  #: √(log(2/δ)/(2n)), the deviation term of Mohri Thm 3.3
Rad_g = sp.Symbol("Rad_g", nonnegative=True)  #: empirical Rademacher complexity of g = (ℓ − a)/(b − a)
ghat = sp.Symbol("ghat", real=True)  #: (1/n) Σ_i g(φ, Z_i)
C_Phi = sp.Symbol("C_Phi", positive=True)  #: the Lipschitz constant C_Φ of assumption (C)
d_Theta = sp.Symbol("d_Theta", integer=True, positive=True)  #: parameter dimension d_Θ of (C)
t_line = sp.Symbol("t_line", real=True)  #: θ = θ₀ + R t u on a line through θ₀, t ∈ [−1, 1]
t_line2 = sp.Symbol("t_line2", real=True)  #: θ' = θ₀ + R t' u
z_norm = sp.Symbol("z_norm", positive=True)  #: ‖z‖₂ of an input
D_anc = sp.Symbol("D_anc", nonnegative=True)  #: ‖φ(zᵃ) − φ'(zᵃ)‖₂ (or its root mean square over i)
D_pos = sp.Symbol("D_pos", nonnegative=True)  #: ‖φ(z⁺) − φ'(z⁺)‖₂
D_neg = sp.Symbol("D_neg", nonnegative=True)  #: the power mean of ‖φ(z_j⁻) − φ'(z_j⁻)‖₂ over j
N_anc = sp.Symbol("N_anc", nonnegative=True)  #: ((1/n) Σ_i ‖z_iᵃ‖²)^{1/2}, first term of B_τ
N_pos = sp.Symbol("N_pos", nonnegative=True)  #: ((1/n) Σ_i ‖z_i⁺‖²)^{1/2}
N_neg = sp.Symbol("N_neg", nonnegative=True)  #: ((1/nk) Σ_ij ‖z_ij⁻‖^{2/(1∧τ)})^{(1∧τ)/2}
q_anc = sp.IndexedBase("q_anc", nonnegative=True)  #: per-tuple anchor terms (Minkowski step (51))
q_pos = sp.IndexedBase("q_pos", nonnegative=True)  #: per-tuple positive terms
q_neg = sp.IndexedBase("q_neg", nonnegative=True)  #: per-tuple negative terms; also norms ‖z_j⁻‖
m_neg = sp.IndexedBase("m_neg", nonnegative=True)  #: per-tuple means (1/k) Σ_j ‖z_ij⁻‖^β (Jensen (52))
L_rho = sp.Symbol("L_rho", positive=True)  #: Lipschitz constant of θ ↦ φ_θ in ρ_n^info, (53)
U_dud = sp.Symbol("U_dud", positive=True)  #: upper limit U of Dudley's integral
c_dud = sp.Symbol("c_dud", positive=True)  #: c = RL in the covering number (1 + 2RL/ε)^{d_Θ}
eps_cov = sp.Symbol("epsilon_cov", positive=True)  #: the scale ε in Dudley's integral
a_cov = sp.Symbol("a_cov", positive=True)  #: a := e R B_τ C_Φ of Prop. 5 (A in Theorem 1)
B_tau = sp.Symbol("B_tau", nonnegative=True)  #: B_τ(z_1, …, z_n) of Lemma 1 as one number (A = eRB_τC_Φ)
x_ratio = sp.Symbol("x_ratio", nonnegative=True)  #: x = c/U inside ∂h/∂U
mu_s = sp.Symbol("mu_s", positive=True)  #: a scale factor μ (homogeneity of h)
kap_s = sp.Symbol("kappa_s", nonnegative=True)  #: κ = L'/L ∈ [0, 1] (our Lipschitz constant over the paper's)
del_s = sp.Symbol("delta_s", nonnegative=True)  #: δ' = (b − a)/(4/τ) ∈ [0, 1] (our diameter over the paper's)
X_s = sp.Symbol("X_s", nonnegative=True)  #: X = RL/(4/τ), the paper's RL in units of its diameter 4/τ
slack1 = sp.Symbol("slack1", nonnegative=True)  #: slack of Prop. 2 in Theorem 1
slack2 = sp.Symbol("slack2", nonnegative=True)  #: slack of Prop. 3
slack3 = sp.Symbol("slack3", nonnegative=True)  #: slack of Prop. 5
bias_s = sp.Symbol("bias_s", real=True)  #: the finite-k bias term of Prop. 2
cplx_s = sp.Symbol("cplx_s", nonnegative=True)  #: the Prop. 5 bound on the Rademacher complexity
var_s = sp.Symbol("var_s", nonnegative=True)  #: the sample-variability term of Prop. 3
dell = sp.Symbol("Delta_ell", nonnegative=True)  #: |ℓ(φ, z, k, τ) − ℓ(φ', z, k, τ)|
dtheta = sp.Symbol("Delta_theta", nonnegative=True)  #: ‖θ − θ'‖₂
theta_off = sp.Symbol("theta_offset", nonnegative=True)  #: ‖θ − θ₀‖₂
s_prime = sp.IndexedBase("s_prime", real=True)  #: similarities of the negatives under a second embedding φ'
s_pos_prime = sp.Symbol("s_plus_prime", real=True)  #: similarity of the positive pair under φ'
min_term = sp.Symbol("min_term", nonnegative=True)  #: min{A√(log 3 + 1), √(log(1 + 2A) + 1)} of Theorem 1


# --- end of paper §4 generalisation block ----------------------------------------------------------

# --- the angle class of derivations.angle_class (ours): φ_θ(z) = (cos⟨θ, z⟩, sin⟨θ, z⟩) ------------------
ang = sp.Symbol("alpha_ang", nonnegative=True)  #: |⟨θ − θ', z⟩|, the angle between φ_θ(z) and φ_θ'(z) (unreduced)
phase = sp.Symbol("psi_phase", real=True)  #: ⟨θ', z⟩, the angle of φ_θ'(z) on S¹
dth1 = sp.Symbol("dtheta_1", real=True)  #: first coordinate of θ − θ' ∈ R²
dth2 = sp.Symbol("dtheta_2", real=True)  #: second coordinate of θ − θ'
zc1 = sp.Symbol("z_1", real=True)  #: first coordinate of an input z ∈ R²
zc2 = sp.Symbol("z_2", real=True)  #: second coordinate of z
