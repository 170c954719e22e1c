"""The paper's own results, one module per numbered statement: N. Whiteley, arXiv 2607.09405.

Every module here holds what the text *prints*: the statement with its constants and domain, and the
steps of its proof as printed, each step citing its equation number or position (``Step.reference``
or the step name). A module is found by discovery (no list to edit) and ordered by its ``POSITION``,
the place of the result in the paper, so that a result is registered after the ones it uses.

A module defines

* ``POSITION: tuple`` — e.g. ``(3, 1)`` for the first result of section 3, ``("A", 2)`` sorts after
  every section number (appendix results);
* ``derivations() -> list[Derivation]`` — ``source="paper"``; steps of the printed proof carry
  ``provenance="paper"``, corrections and sharpenings ``provenance="ours"``;
* ``ERRATA: list[Erratum]`` (optional) — each names the *refuted* printed step and the *proved*
  corrected step of one of its derivations; ``infonce-bounds errata`` runs both and takes the
  evidence (counterexample, verdicts) from the run, so an erratum is found by checking, never typed;
* ``CONSTANTS: list[PaperConstant]`` (optional) — the paper's explicit constant beside the sharpest
  one the ledger proves (*ours*), certified by ``infonce-bounds constants --paper``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: the kinds of erratum (issue 12): what is wrong with the printed line
ERRATUM_KINDS = (
    "false as printed",  # the algebra does not hold
    "hypothesis not met",  # a lemma applied outside its assumptions
    "misprint or undefined symbol",  # a conversion slip or typo that changes nothing
    "unstated constant",  # e.g. Theorem 1's "const."
)


@dataclass(frozen=True)
class Erratum:
    """One finding about a printed line: where, what it says, what is wrong, the proved correction.

    ``printed_step`` and ``corrected_step`` are step names in derivation ``result``. For kind
    "false as printed" the printed step must be refuted and the corrected one proved when run; for
    the other kinds ``printed_step`` may be empty and ``evidence`` says what was checked.
    """

    location: str  # "Appendix A, proof of Lemma 2, display (21)"
    as_printed: str  # the line as the text prints it (LaTeX or plain)
    kind: str  # one of ERRATUM_KINDS
    result: str  # the catalogue name of the derivation holding both steps
    printed_step: str = ""
    corrected_step: str = ""
    correction: str = ""  # the corrected line, in words or LaTeX
    consequence: str = ""  # does the result survive, with which constant
    evidence: str = ""  # for kinds that no single refuted step shows (hypothesis not met, …)

    def __post_init__(self) -> None:
        if self.kind not in ERRATUM_KINDS:
            raise ValueError(f"erratum at {self.location!r}: kind {self.kind!r} not in {ERRATUM_KINDS}")
        if self.kind == "false as printed" and not (self.printed_step and self.corrected_step):
            raise ValueError(f"erratum at {self.location!r}: 'false as printed' needs printed_step and corrected_step")


@dataclass(frozen=True)
class PaperConstant:
    """A constant of the paper beside ours: ``paper`` and ``ours`` are SymPy expressions in the symbols
    of ``derivations.symbols`` (τ, the paper's β, k, …); ``ours ≤ paper`` must be a proved step of
    derivation ``result`` named ``proof_step`` (so the sharpening is checked, not asserted).

    ``build`` returns ``(paper_expr, ours_expr)`` lazily (SymPy work at import time slows the CLI).
    """

    name: str  # "prop1_upper", "lemma3_constant", …
    label: str  # "Prop. 1 upper bound (e^{2/τ} − 1)²/(8k)"
    result: str  # catalogue name
    build: Callable[[], tuple[Any, Any]]
    proof_step: str = ""  # the step proving ours ≤ paper (or ours = paper, where nothing is gained)
    attained: str = ""  # where the paper's constant is attained, if it is
    note: str = ""  # e.g. "ours is no sharper: the paper's constant is attained"
    params: tuple[str, ...] = field(default=("tau", "k"))  # which of τ, β, k, … it depends on


def _key(pos: tuple) -> tuple:
    return tuple((1, str(x)) if isinstance(x, str) else (0, x) for x in pos)


def modules() -> list[Any]:
    """Every module of this package that defines ``derivations``, in paper order (``POSITION``)."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(mod, "derivations"):
            found.append(mod)
    return sorted(found, key=lambda m: _key(getattr(m, "POSITION", ("Z",))))


def errata() -> list[Erratum]:
    return [e for m in modules() for e in getattr(m, "ERRATA", ())]


def constants() -> list[PaperConstant]:
    return [c for m in modules() for c in getattr(m, "CONSTANTS", ())]
