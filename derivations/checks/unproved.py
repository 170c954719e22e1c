"""Why a step is only "verified numerically": the reason no proof route proved it, stated beside the verdict.

``unproved_reason(step, result) → str`` (never empty) for a VERIFIED result: the step's own ``unproved``
where its author states one; otherwise the reason the checks report, by what the claim is:

* a claim over every law of the draws (the exact-finite-law search), or over every embedding configuration
  (the finite-configuration search): a claim quantified over distributions or configurations, which no
  route states; attacked on the laws or configurations named in the method;
* a chain: the links that are not proved (a chain is proved only when all of them are);
* an identity SymPy does not reduce to 0, with no route for its shape;
* an inequality: what each stage said when it stopped (the interval stage, each route tried: sums,
  unbounded, touching), as the checks recorded it;
* anything else: the checker's own statement of how it attacked the claim (it proves nothing by design).

The text is taken from what the checkers recorded (their method and evidence), never invented: a reader
can compare the two.
"""

from __future__ import annotations

from typing import Any

from ..ledger import Step

#: the stages of an inequality check whose messages say why they stopped
_STAGES = ("interval", "sums", "touching", "unbounded", "no symbolic sign", "certificate", "definedness")

LAWS = (
    "a claim over every law of the draws (an expectation under every distribution of X on its range): no "
    "proof route states expectations over all laws; attacked on exact finite laws"
)
CONFIGURATIONS = (
    "a claim over every embedding configuration (every d and every set of vectors in the unit ball): no "
    "proof route states it; attacked on random and adversarial configurations"
)


def _parts(text: str) -> list[str]:
    return [p.strip() for p in str(text).split(";") if p.strip()]


def unproved_reason(step: Step, res: Any) -> str:
    """The reason ``step`` (verdict ``res``, VERIFIED) is not proved; the module docstring lists the cases."""
    if getattr(step, "unproved", ""):
        return str(step.unproved)
    if getattr(res, "unproved", ""):
        return str(res.unproved)
    method = str(getattr(res, "method", ""))
    if method.startswith("exact finite laws") or "two-point laws" in method or "laws of W" in method:
        return LAWS
    if method.startswith("finite-configuration"):
        return CONFIGURATIONS
    if step.kind == "chain":
        weakest = method.partition("weakest:")[2].strip()
        return f"a chain is proved only when every link is; not proved: {weakest or method}"
    if step.kind == "identity" and "did not reduce" in method:
        return "SymPy did not reduce lhs − rhs to 0, and no route proves identities of this shape"
    said = [p for p in _parts(method) + _parts(getattr(res, "evidence", "")) if p.startswith(_STAGES)]
    if said:
        return "; ".join(dict.fromkeys(said))
    if step.kind == "inequality":
        return f"no route applies to this claim's shape; attacked only ({method})"
    return f"checked by attack only ({method})"
