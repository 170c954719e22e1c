"""What a result module says about itself, so that registries read it instead of listing it.

A result module of ``derivations/`` (found by ``catalogue`` discovery) defines

* ``ORDER: int`` — its place in the proof: a module is registered after every module of smaller
  ``ORDER``, so a derivation may depend on the derivations of earlier modules;
* ``derivations() -> list[Derivation]`` — its derivations (``verify`` and ``show`` read them);
* ``CLOSED_FORMS: list[ClosedForm]`` (optional) — the named closed forms it contributes to
  ``infonce-bounds constants`` (and to ``infonce_bounds.constants``): a symbol text, a callable
  building the SymPy expression in ``derivations.symbols``, provenance, rate, and the result name
  ``show`` prints for it;
* ``KERNEL_FORMULAS: list[KernelFormula]`` (optional) — scalar closing formulas that
  ``numerics.codegen`` prints into the numba source ``numerics/_generated/constants.py``.

``closed_forms()`` and ``kernel_formulas()`` collect them in catalogue order and check them: unique
names, a known provenance, and a ``show`` / ``result`` that the catalogue holds.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import sympy as sp

from .ledger import PROVENANCES, DerivationError

#: the groups of ``constants``, in print order (a group not listed here prints after them)
GROUPS = ("constants", "Theorem-1 components")


@dataclass(frozen=True)
class ClosedForm:
    """One named closed form: ``name = build()`` with where it comes from.

    Parameters
    ----------
    name : str
        The row name in ``constants`` (unique over the catalogue).
    symbol : str
        The formula as printed; ``{loss}`` is replaced by the loss variant's label.
    build : callable
        Returns the SymPy expression in the symbols of ``derivations.symbols``; called as
        ``build(loss=...)`` when it has a parameter named ``loss``, else ``build()`` (so a module's own
        function with symbol defaults, ``bias_constant(tau_=tau)``, serves as it is).
    provenance : {"paper", "ours", "classical"}
    rate : str or mapping
        Its behaviour in ``k`` and ``n``; a mapping gives one text per loss variant.
    show : str
        The catalogue result (``infonce-bounds show NAME``) that derives it.
    group : str
        ``"constants"`` or ``"Theorem-1 components"`` (see ``GROUPS``).
    note : str
        Printed beside the row.
    """

    name: str
    symbol: str
    build: Callable[..., Any]
    provenance: str
    rate: str | Mapping[str, str]
    show: str
    group: str = "constants"
    note: str = ""

    def __post_init__(self) -> None:
        if self.provenance not in PROVENANCES:
            raise DerivationError(f"closed form {self.name!r}: provenance must be one of {PROVENANCES}")
        if not callable(self.build):
            raise DerivationError(f"closed form {self.name!r}: build must be callable")

    def expr(self, loss: str = "dcl") -> sp.Expr:
        """The SymPy expression for this loss variant."""
        takes_loss = "loss" in inspect.signature(self.build).parameters
        return sp.sympify(self.build(loss=loss) if takes_loss else self.build())

    def for_loss(self, loss: str = "dcl", label: str | None = None) -> ClosedForm:
        """This closed form with its texts and builder fixed for one loss variant (``label``: how it is named)."""
        rate = self.rate[loss] if isinstance(self.rate, Mapping) else self.rate
        symbol = self.symbol.replace("{loss}", label or loss)
        return replace(self, symbol=symbol, rate=rate, build=lambda: self.expr(loss))


def closed_forms(loss: str = "dcl", label: str | None = None) -> list[ClosedForm]:
    """Every module's ``CLOSED_FORMS`` for one loss variant, in catalogue order, grouped as ``GROUPS``."""
    from . import catalogue

    known = set(catalogue.names())
    out: list[ClosedForm] = []
    seen: dict[str, str] = {}
    for mod in catalogue.modules():
        mod_name = mod.__name__.rsplit(".", 1)[-1]
        for cf in getattr(mod, "CLOSED_FORMS", ()):
            if not isinstance(cf, ClosedForm):
                raise DerivationError(f"{mod_name}.CLOSED_FORMS holds {cf!r}, not a ClosedForm")
            if cf.name in seen:
                raise DerivationError(f"two closed forms named {cf.name!r} ({seen[cf.name]}, {mod_name})")
            if cf.show not in known:
                raise DerivationError(
                    f"closed form {cf.name!r} ({mod_name}): show = {cf.show!r} is not a catalogue result"
                )
            seen[cf.name] = mod_name
            out.append(cf.for_loss(loss, label))
    rank = {g: i for i, g in enumerate(GROUPS)}
    return sorted(out, key=lambda cf: rank.get(cf.group, len(GROUPS)))  # stable: catalogue order within a group


@dataclass(frozen=True)
class KernelFormula:
    """A scalar closing formula that ``numerics.codegen`` prints as a numba ``@helper``: ``name(*args) = build()``.

    ``args`` are attribute names of ``derivations.symbols`` in call order; ``source`` names the
    interface the expression comes from and ``result`` the derivation (and step) establishing it,
    ``"loss / ℓ_k from the logit: …"``; the derivation's name (before `` / ``) must be a catalogue result.
    """

    name: str
    args: tuple[str, ...]
    build: Callable[[], Any]
    source: str
    result: str
    doc: str


def kernel_formulas() -> list[KernelFormula]:
    """Every module's ``KERNEL_FORMULAS``, in catalogue order (the order of the generated file)."""
    from . import catalogue

    known = set(catalogue.names())
    out: list[KernelFormula] = []
    seen: dict[str, str] = {}
    for mod in catalogue.modules():
        mod_name = mod.__name__.rsplit(".", 1)[-1]
        for kf in getattr(mod, "KERNEL_FORMULAS", ()):
            if not isinstance(kf, KernelFormula):
                raise DerivationError(f"{mod_name}.KERNEL_FORMULAS holds {kf!r}, not a KernelFormula")
            if kf.name in seen:
                raise DerivationError(f"two kernel formulas named {kf.name!r} ({seen[kf.name]}, {mod_name})")
            if kf.result.split(" / ")[0] not in known:
                raise DerivationError(
                    f"kernel formula {kf.name!r} ({mod_name}): result {kf.result!r} is not a catalogue result"
                )
            seen[kf.name] = mod_name
            out.append(kf)
    return out
