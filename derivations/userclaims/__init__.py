"""A user's own claims, read from a TOML file and checked by the ledger: ``infonce-bounds check FILE``.

The package: ``syntax`` (the file, ranges, scopes, expressions), ``build`` (claims into steps, ``parse``),
``outcome`` (one claim checked, its coverage, ``expect``); ``check`` below runs a file through the run layer.

Each ``[[claim]]`` table becomes one ``Step`` of a ``Derivation`` named after the file and is checked
by ``checks.check_step``, exactly as the toolkit's own steps are. The format::

    [where]                      # optional: ranges shared by every claim (a claim's own win)
    tau = [0.001, 100]

    [[claim]]
    name = "log(1 + x) <= x"     # required, unique
    claim = '\\log(1 + x) \\le x'  # LaTeX (latex_reader, cross-checked by crossread) …
    # sympy = "log(1 + x) <= x"  # … or a SymPy string: exactly one of the two
    where = { x = [0, 10] }      # the closed range of every free symbol
    kind = "inequality"          # optional: identity | inequality | limit | expansion (else inferred)
    assume = ['x \\le 5']        # optional: extra inequalities cutting the box (same syntax as the claim)
    uses = ["an earlier claim"]  # optional: earlier claims (or catalogue steps "derivation / step") it is an
                                 # instance of: proved from them when the substitution maps into their domain
    with = { x = "2*t" }         # optional: the substitution (cited symbol = expression, the claim's syntax);
                                 # with several uses: with = { "cited name" = { x = "2*t" } }
    note = "…"                   # optional, carried into the output
    expect = "proved"            # optional: proved | refuted | holds | ill-posed (exit 1 when unmet)

    [define]                     # optional: functions expanded where they are called
    "\\sigma(x)" = "\\frac{1}{1 + e^{-x}}"

Ranges: ``x = [lo, hi]`` (real; ends are numbers or strings such as ``"inf"``, ``"-inf"``, ``"1/1000"``),
``k = "integer [1, inf]"``, ``y = "real [0, 1]"``; a vector is declared by an entry with an index,
``"s[j]" = [-1, 1]``, and appears as ``s_j`` / ``s_{j}`` (LaTeX) or ``s[j]`` (SymPy), its length being
the integer upper limit of the sum over it (``\\sum_{j=1}^{k}``, ``Sum(s[j], (j, 1, k))``), which needs an
integer range. ``e`` is Euler's number and ``\\pi`` is π unless ``where`` gives them a range. The relation decides the
kind: ``=`` an identity, ``\\le``/``<``/``\\ge``/``>`` an inequality, ``\\lim_{x \\to a} f = L`` a limit
(``a^{+}``/``a^{-}`` one-sided; two-sided limits at a finite point are checked from both sides) and
``f = g + O(k^{-m})`` an expansion about ``k = ∞`` to order ``m − 1``. A limit or expansion written
without the ``\\lim``/``O`` may give ``kind`` with ``var`` and ``point`` (limits) or ``var`` and ``order``.

LaTeX is read by ``latex_reader`` (an unevaluated tree, evaluated once; rules stated there and in the README)
and read again by ``crossread`` (latex2sympy2_extended): two readings that differ are a ``ClaimFileError``.
Decimals are exact everywhere: ``sympy =`` bodies are read with ``rational=True``, TOML floats from their text.

Anything malformed or ambiguous raises ``ClaimFileError``: one line naming the claim and the field.
"""

from __future__ import annotations

import time
from typing import Any

from ..ledger import Verdict
from .build import PARALLEL_READ, UserClaim, build_claim, catalogue_step, parse
from .outcome import ERROR, ILL_POSED, check_claim, coverage, exit_status, meets
from .syntax import (
    CLAIM_FIELDS,
    EXPECTS,
    USER_KINDS,
    ClaimFileError,
    Range,
    Scope,
    _split_relation,
    load,
    parse_expression,
    parse_range,
    parse_where,
)

__all__ = [
    "CLAIM_FIELDS",
    "ERROR",
    "EXPECTS",
    "ILL_POSED",
    "PARALLEL_READ",
    "USER_KINDS",
    "ClaimFileError",
    "Range",
    "Scope",
    "UserClaim",
    "_split_relation",
    "build_claim",
    "catalogue_step",
    "check",
    "check_claim",
    "coverage",
    "exit_status",
    "load",
    "meets",
    "parse",
    "parse_expression",
    "parse_range",
    "parse_where",
]


def check(
    source: Any,
    trials: int | None = None,
    seed: int = 0,
    budget: Any = None,
    on_result: Any = None,
    workers: int = 2,
    use_cache: bool = True,
    on_read: Any = None,
    scheduler: str | None = None,
) -> dict[str, Any]:
    """Check every claim of a claim file with the ledger's checkers.

    The claim file is TOML: ``[[claim]]`` tables with ``name``, ``claim`` (LaTeX) or ``sympy`` (a SymPy
    string), ``where`` (the closed range of every free symbol; ``"integer [1, inf]"``; vector entries
    ``"s[j]" = [-1, 1]``) and optional ``kind``, ``assume``, ``uses``, ``var``/``point``/``order``,
    ``note``; see the README section "Checking your own claims" and ``derivations/userclaims.py``.

    Parameters
    ----------
    source : str, pathlib.Path or dict
        A path to the file, the TOML text itself, or the table it parses to.
    trials : int, optional
        Falsifier trials per inequality (default: the engine's, 10⁵).
    seed : int
        Seed of the falsifier and of the identity spot-checks.
    budget : checks.budget.Budget, optional
        The budget of each claim (default ``budget.CHECK``: 10 s of wall time, each symbolic call under a
        deadline and a memory cap; the verdict names the stage that ran out).
    on_result : callable, optional
        Called as ``on_result(done, total, name, verdict)`` after each claim, in the order they finish (the
        CLI's progress bar).
    workers : int
        Worker processes checking claims in parallel (default 2, as ``verify``; 1 = serial, in this process).
        The verdicts, and their order in the output (the file's), do not depend on it.
    on_read : callable, optional
        Called as ``on_read(done, total)`` while the file is read (``parse``).
    scheduler : str, optional
        The address of a Dask scheduler (``tcp://HOST:PORT``): its workers check the claims instead of
        ``workers`` local processes, with the same verdicts (``derivations.run.dask_backend``).
    use_cache : bool
        Answer an unchanged claim from the run cache (``verify``'s; ``$XDG_CACHE_HOME/infonce-bounds``), keyed
        on its parsed content, the options, the budget and the engine version (``derivations.run.claims``);
        a claim so answered has ``cached`` true. False: check every claim.

    Returns
    -------
    dict
        ``file`` (label), ``claims`` (one dict per claim, in file order: ``name``, the text (``latex`` or
        ``sympy``), ``read_as_latex`` and ``read_as_sympy`` (the claim as read), ``second_reader``
        ("agrees" or "not applicable: …"), ``statement``, ``kind``, ``verdict`` — proved / verified
        numerically / refuted / undecided / ill-posed / error (an internal error, its message in ``method``) —, ``method``,
        ``worst_ratio``, ``counterexample``, ``domain`` (as stated), ``covered`` (what the verdict
        covers), ``whole_domain``, ``uses``, ``uses_not_proved``, ``evidence``, ``trials``, ``seconds`` (of the check, also when
        cached), ``cached``, ``expect``, ``as_expected``), ``counts`` by verdict, ``refuted``, ``unexpected`` (names),
        ``second_reader_not_applicable``, ``cache`` (``cached``, ``checked``, ``workers``), ``exit_status`` (0 as expected, 1 refuted or an ``expect`` unmet,
        2 an unexpected ill-posed claim, 3 an internal error) and ``seconds``; the same object as
        ``infonce-bounds check --json``.

    Raises
    ------
    ClaimFileError
        (a ``ValueError``) for a malformed file: one line naming the claim and the field.
    """
    from ..checks import DEFAULTS

    trials = DEFAULTS["trials"] if trials is None else trials
    _check_arguments(trials, seed, workers)
    t0 = time.perf_counter()
    der, claims = parse(source, workers=workers, on_read=on_read)
    opts = {**DEFAULTS, "trials": trials, "seed": seed}
    from ..checks.budget import CHECK
    from ..run.claims import run_claims

    done_count = [0]

    def tick(_der: str, outcome: dict, _cached: bool) -> None:
        done_count[0] += 1
        if on_result is not None:
            on_result(done_count[0], len(claims), outcome["name"], outcome["verdict"])

    # every claim under the check budget (10 s, symbolic calls capped), from Python as from the CLI; the
    # runner of `verify`: the same worker slots and run cache, results in file order
    outcomes, stats = run_claims(
        der,
        claims,
        opts,
        CHECK if budget is None else budget,
        workers=workers,
        use_cache=use_cache,
        on_result=tick,
        scheduler=scheduler,
    )
    rows = [_row(claim, outcome) for claim, outcome in zip(claims, outcomes)]
    counts: dict[str, int] = {}
    for r_ in rows:
        counts[r_["verdict"]] = counts.get(r_["verdict"], 0) + 1
    return {
        "file": der.name,
        "claims": rows,
        "counts": counts,
        "refuted": counts.get(str(Verdict.REFUTED), 0),
        "unexpected": [r_["name"] for r_ in rows if not r_["as_expected"]],
        "second_reader_not_applicable": sum(r_["second_reader"].startswith("not applicable") for r_ in rows),
        "exit_status": exit_status(rows),
        "trials": trials,
        "seed": seed,
        "cache": {k_: stats[k_] for k_ in ("cached", "checked", "workers")},
        "seconds": round(time.perf_counter() - t0, 4),
    }


def _check_arguments(trials: Any, seed: Any, workers: Any) -> None:
    """``check``'s numeric arguments: ``trials`` and ``workers`` integers ≥ 1, ``seed`` an integer (a bool is
    none of them); a ValueError naming the parameter and its allowed range otherwise."""
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials = {trials!r} is out of range; allowed: an integer ≥ 1")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed = {seed!r} is not an integer")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers = {workers!r} is out of range; allowed: an integer ≥ 1")


def _row(claim: Any, outcome: dict) -> dict[str, Any]:
    """One claim's row of ``check``'s output: the claim as written and as read, its verdict and evidence
    (``outcome``, from the runner), the citations not proved, and whether the verdict meets ``expect``."""
    return {
        "name": claim.name,
        claim.syntax if claim.syntax == "sympy" else "latex": claim.text,
        **claim.reading(),
        "statement": claim.step.statement,
        "kind": claim.step.kind,
        **{k_: outcome[k_] for k_ in ("verdict", "method", "worst_ratio", "counterexample")},
        "domain": claim.step.domain.describe(),
        "covered": outcome["covered"],
        "whole_domain": outcome["whole_domain"],
        "uses": list(claim.uses),
        "uses_not_proved": [u_ for u_ in claim.uses if outcome.get("uses_verdicts", {}).get(u_) != str(Verdict.PROVED)],
        **{k_: outcome[k_] for k_ in ("evidence", "trials", "symbolic", "certified", "seconds", "unproved")},
        "cached": outcome["cached"],
        "note": claim.note,
        "expect": claim.expect,
        "as_expected": meets(outcome["verdict"], claim.expect),
    }
