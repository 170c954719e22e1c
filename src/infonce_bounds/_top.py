"""The two top-level calls ``constants`` and ``verify``: thin doors to the library (``numerics.bound_constants``,
``numerics.verification``), which the command line calls too. Errors name the arguments of these functions
(``tau``), never a command-line flag."""

from __future__ import annotations

from typing import Any


def constants(
    tau: float | str = "0.1",
    k: int | str = 256,
    *,
    gamma: float | str = "auto",
    beta: float | str | None = None,
    n: int | str = 50000,
    delta: float | str = 0.05,
    lipschitz: float | str = 1,
    params: int | str = 10000,
    radius: float | str = 1,
    loss: str = "dcl",
    digits: int = 6,
) -> dict[str, Any]:
    """Every bound constant and Theorem-1 component at the given parameters, certified.

    Each value is the upper end of an outward-rounded interval, so it is never understated; the same
    rows as ``infonce-bounds constants --json``.

    Parameters
    ----------
    tau : float or str
        Temperature τ > 0 (a string is read exactly: ``"0.1"`` is 1/10).
    k : int or str
        Number of negatives, an integer k ≥ 1.
    gamma : float, str or "auto"
        The toolkit's similarity-space exponent γ ≥ 1/τ of its continuity family (power mean exponent
        q = γτ/(γτ − 1)), or ``"auto"`` for the one that minimises the ℓ2-Lipschitz constant.
    beta : float or str, optional
        The paper's power-mean exponent β ≥ 1 (Proposition 4, on embedding differences), passed to the
        paper's rows. Our γ with the same power mean exponent is β/(τ(β − 1)).
    n, delta, lipschitz, params, radius
        Sample size n ≥ 1, confidence 0 < δ < 1, Lipschitz constant L ≥ 0, parameter count p ≥ 1,
        radius R ≥ 0.
    loss : {"dcl", "infonce", "standard"}
        Which loss the Theorem-1 terms are for: the DCL loss of the paper's §3.4 (default), the paper's
        InfoNCE ℓ of (14), or the standard (SimCLR) loss ℓ + log k. "averaged" is the deprecated name of
        "dcl" (DeprecationWarning).
    digits : int
        Significant digits of the printed interval ends (1 … 40).

    Returns
    -------
    dict
        ``parameters`` (numbers; ``parameters_exact``: the exact values as text), ``gamma_choice``, ``loss``,
        ``rows`` (one dict per quantity: ``name``, ``symbol``, ``value`` — the certified upper end as a number,
        rounded up — ``interval`` [lo, hi] as numbers rounded outward, ``value_text``/``interval_text`` as the
        table prints them, ``provenance``, ``rate``, ``show``, …), ``theorem1`` and ``notes``.

    Raises
    ------
    ValueError
        Naming the parameter (``tau``, not ``--tau``), its value and its allowed range: the ranges are the
        table ``infonce_bounds.numerics.params.PARAMETERS`` (τ ∈ [1e-3, 1e2], where the inequalities behind
        the constants were proved; the README's table of parameters).
    """
    from .numerics.bound_constants import constants as compute

    return compute(
        tau,
        k,
        gamma=gamma,
        beta=beta,
        n=n,
        delta=delta,
        lipschitz=lipschitz,
        params=params,
        radius=radius,
        loss=loss,
        digits=digits,
    )


def verify(
    results: list[str] | tuple[str, ...] | None = None,
    *,
    trials: int | None = None,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """Check every step of the named derivations (all, by default) and say how each was checked.

    Parameters
    ----------
    results : list of str, optional
        Result names from ``infonce_bounds.catalogue.names()``; ``None`` checks the whole catalogue.
    trials : int, optional
        Falsifier trials per inequality (default: the engine's, 10⁵).
    seed : int
        Falsifier seed.
    progress : bool
        Show a progress bar on stderr.

    Returns
    -------
    dict
        ``results`` (one row per step: ``result``, ``step``, ``kind``, ``verdict``, ``method``,
        ``worst_ratio``, ``counterexample``, …), ``counts`` by verdict and ``seconds``.

    Raises
    ------
    ValueError
        For an unknown result name (the message lists the known ones) or ``trials < 1``.
    """
    from .numerics import params
    from .numerics.validate import flag
    from .numerics.verification import verify_all

    if isinstance(results, str):  # verify("loss") would check the results "l", "o", "s", "s"
        raise ValueError(f"results must be a list of result names, got the string {results!r}; write [{results!r}]")
    trials = None if trials is None else params.PARAMETERS["trials"].read_int(trials, "trials")
    seed = params.PARAMETERS["seed"].read_int(seed, "seed")
    return verify_all(list(results or []), trials, seed, progress=flag(progress, "progress"))
