"""The two top-level calls that wrap a subcommand: ``constants`` and ``verify``."""

from __future__ import annotations

import argparse
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
        ``parameters`` (exact strings), ``gamma_choice``, ``loss``, ``rows`` (one dict per quantity:
        ``name``, ``symbol``, ``value``, ``interval``, ``provenance``, ``rate``, ``show``, …) and ``notes``.

    Raises
    ------
    ValueError
        Naming the parameter, its value and the allowed range.
    """
    from .derivations.loss import canonical_loss
    from .numerics.commands import constants as C

    loss = canonical_loss(loss)
    ns = argparse.Namespace(
        tau=str(tau),
        k=str(k),
        gamma=str(gamma),
        beta=None if beta is None else str(beta),
        n=str(n),
        delta=str(delta),
        lipschitz=str(lipschitz),
        params=str(params),
        radius=str(radius),
        loss=loss,
        digits=digits,
    )
    data = C.payload(ns)
    data.pop("_values", None)
    return data


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
    from .derivations.checks import DEFAULTS
    from .numerics.commands.verify import verify_all

    trials = DEFAULTS["trials"] if trials is None else int(trials)
    if trials < 1:
        raise ValueError(f"trials = {trials!r} is out of range; allowed: an integer ≥ 1")
    return verify_all(list(results or []), trials, int(seed), progress=progress)
