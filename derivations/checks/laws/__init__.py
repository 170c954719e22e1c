"""The one search loop for claims checked on exact finite objects (laws of W, finite function classes).

A claim here is ``small(p) ≤ big(p)`` for every point ``p`` of a family that is not a box of reals: a
finite law of k i.i.d. draws (an expectation is then an exact multinomial sum), a two-point law, a finite
class of functions (a Rademacher average is then an exact sum over sign patterns). The box falsifier
(``falsifier.falsify``) cannot sample such points; this module is its counterpart, with the same rules:

* points: the checker's own seeds first (known near-extremal laws), then ``sample(rng)`` until 70 % of
  the budget, then local search (``perturb(rng, p)``) from the 16 worst points; a checker may draw them a
  block at a time instead (``sample_block`` / ``perturb_block``, a numpy Generator: ``law_check`` does);
* each point is evaluated in floats; a float-found violation is re-evaluated at ``opts["dps"]`` digits
  and the step is refuted only if it holds there (beyond 10^{10−dps} relative to the sides) and still
  holds, unmoved, when the digits double (``confirm``: a side formed from terms far larger than itself
  can carry rounding above that tolerance; rounding shrinks with the digits, a real excess does not);
  after ``NOISE_CAP`` float-only violations within float rounding, further ones that small are counted,
  not re-evaluated;
* the worst ratio small/big is reported at ``dps`` digits, with the point where it occurs;
* the verdict records ``attacked``: the ranges searched (τ, k, atoms, …), the k range included.

Claims for every k (``law_check(large_k=…)``, up to ``K_MAX`` = 10⁹): two-atom laws beyond ``EXACT_K`` =
4096 are summed over the binomial window of ``binomial_window`` (O(√k) compositions; Chernoff's bound
e^{−k D(a‖p)} puts the neglected mass below 1e-30 in floats and 10^{−(dps+10)} in the confirmation), with
Loader's binomial probabilities (``log_binomial_pmf``); the method and ``attacked`` state the k range and
the truncation.

``law_check`` is the checker for expectations over finite laws (``Law``, ``expect``) that bias, prior and
the paper's §3 / appendix-A modules share. One trial is one full enumeration, so its budget is capped at
``LAW_CAP`` laws per inequality (``IDENTITY_CAP`` per identity) unless the checker is built with
``cap=None`` or the options carry ``law_trials``.

Batches (``search(evaluate_batch=…)``, ``batch_evaluator``; off with ``opts["vectorise"] = False``): the
float pass runs the claim once per batch of laws with one k and atom count (``L = ARRAY``: numpy). The points
drawn (blocks of the batch sizes either way), the order they are scored in, the confirmations and the stopping
point are those of the one-law loop; a guard compares batch and one-law values and falls back to the loop on a
mismatch. Where the CPU goes, and why it is low (``benchmarks/bench_laws.py``):

* laws are drawn as arrays (``LawBlock``): no Python object per law until one is read (a confirmation, a
  report, a law to redo alone); after a run's first block the next blocks are scored as one batch of up to
  ``MERGE`` laws (the same blocks in the same order), so each (k, atoms) group is large;
* a batch is scored as arrays (``score_batch``): only a law to redo or a float violation takes a Python step,
  and the worst laws are kept exactly as the one-law loop keeps them (``keep``);
* an expectation over a law batch calls fn once per support of the compositions on count arrays, with the
  loop's products and running sum (``_expect_array``: the same doubles);
* two-atom windows take Loader's probabilities every 16 compositions and the exact ratio recurrence between
  (``window_pmf``), and a claim that takes k as an array has its windowed laws in one batch (``k_arrays``).

The package's modules, each a room of its own (this module re-exports their names):

* ``search_loop``: ``search``, its state ``_Search``, ``confirm`` and the verdict ``search_result``;
* ``law``: ``Law``, ``LawBlock`` and the law-batch back end ``ARRAY`` (``fmax``, ``fmin``);
* ``multinomial``: ``expect``, the exact multinomial sums (one law, or a batch on count arrays);
* ``large_k``: two-atom laws at large k (``binomial_window``, Loader's ``log_binomial_pmf``, ``window_pmf``);
* ``batches``: the float pass over many laws at once (``batch_evaluator``) and its guards;
* ``samplers``: ``LawSpace``, the laws ``law_check`` draws;
* ``checker``: ``law_check``, the law claim's checker (its small-k search and its large-k phase).
"""

from .batches import (
    BATCH_AGREE,
    GUARD_K,
    HUGE,
    HUGE_LD_EXP,
    WIDE_GUARDS,
    WIDE_MARGIN,
    batch_evaluator,
)
from .checker import IDENTITY_CAP, LARGE_K_LAWS, LAW_CAP, law_check
from .large_k import (
    EXACT_K,
    EXACT_WINDOW,
    FLOAT_EXACT_K,
    K_MAX,
    PMF_ANCHOR,
    PMF_CHUNK,
    PMF_RECURRENCE_MIN,
    TAIL,
    binomial_window,
    log_binomial_pmf,
    mp_binomial_pmf,
    tail_of,
    window_of,
    window_pmf,
    window_size,
    windowed,
)
from .large_k import _means as _means  # bias's two-atom sums at large k read the same residuals
from .law import ARRAY, Law, LawBlock, fmax, fmin
from .multinomial import COUNTS_AGREE, compositions, expect
from .samplers import SNAPS, LawSpace
from .search_loop import (
    BATCH,
    BATCH_START,
    MERGE,
    NOISE_CAP,
    SETTLE_AGREE,
    SETTLE_DOUBLINGS,
    ZERO,
    SearchOutcome,
    confirm,
    search,
    search_result,
)

__all__ = [
    "ARRAY",
    "BATCH",
    "BATCH_AGREE",
    "BATCH_START",
    "COUNTS_AGREE",
    "EXACT_K",
    "EXACT_WINDOW",
    "FLOAT_EXACT_K",
    "GUARD_K",
    "HUGE",
    "HUGE_LD_EXP",
    "IDENTITY_CAP",
    "K_MAX",
    "LARGE_K_LAWS",
    "LAW_CAP",
    "MERGE",
    "NOISE_CAP",
    "PMF_ANCHOR",
    "PMF_CHUNK",
    "PMF_RECURRENCE_MIN",
    "SETTLE_AGREE",
    "SETTLE_DOUBLINGS",
    "SNAPS",
    "TAIL",
    "WIDE_GUARDS",
    "WIDE_MARGIN",
    "ZERO",
    "Law",
    "LawBlock",
    "LawSpace",
    "SearchOutcome",
    "batch_evaluator",
    "binomial_window",
    "compositions",
    "confirm",
    "expect",
    "fmax",
    "fmin",
    "law_check",
    "log_binomial_pmf",
    "mp_binomial_pmf",
    "search",
    "search_result",
    "tail_of",
    "window_of",
    "window_pmf",
    "window_size",
    "windowed",
]
