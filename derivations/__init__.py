"""Symbolic derivations of the InfoNCE bounds: the step ledger and every result, SymPy only."""

from .ledger import Derivation, DerivationError, Domain, Step, StepResult, Verdict

__all__ = ["Derivation", "DerivationError", "Domain", "Step", "StepResult", "Verdict"]
