"""What every function of the public kernel API (``numerics.api``, ``numerics.api_bounds``) shares: its
embedding arguments checked and shaped for one layout (``_raw_triplet``: shapes and dtypes; ``_triplet``: and
finite unit rows, or normalised; ``_pair``: anchors and negatives only, ``numerics.validate`` raising a
``ValueError`` that names the argument), and the short repr of its result tuples (``_brief_repr``).
"""

from __future__ import annotations

import numpy as np

from . import validate as V


def _brief(value) -> str:
    """A field in a short repr: an array by its shape, dtype and range (a 10⁶-row array is one line), a float to 6
    significant digits."""
    if isinstance(value, np.ndarray):
        if value.size and np.issubdtype(value.dtype, np.number):
            with np.errstate(all="ignore"):
                lo, hi = np.nanmin(value), np.nanmax(value)
            return f"array(shape={value.shape}, {value.dtype}, range [{lo:.6g}, {hi:.6g}])"
        return f"array(shape={value.shape}, {value.dtype})"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return repr(value)


def _brief_repr(self) -> str:
    """``Name(field=…, …)`` with every array summarised (``_brief``): the repr of a result is a few lines."""
    return f"{type(self).__name__}(" + ", ".join(f"{k}={_brief(v)}" for k, v in zip(self._fields, self)) + ")"


def _triplet(anchors, positives, negatives, normalize):
    """Shapes and dtypes checked (``_raw_triplet``), then finite unit rows (or normalised)."""
    a, p, ng = _raw_triplet(anchors, positives, negatives)
    a = V.finite_unit_rows(a, "anchors", normalize)
    p = V.finite_unit_rows(p, "positives", normalize)
    ng = V.finite_unit_rows(ng, "negatives", normalize)
    return a, p, ng


def _pair(anchors, negatives, normalize):
    a = V.embeddings(anchors, "anchors", 2)
    ng = V.embeddings(negatives, "negatives", 3)
    V.same_rows(a, "anchors", ng, "negatives")
    V.same_dim(a, "anchors", ng, "negatives")
    a = V.small_operand(a, "anchors", V.common_dtype(a, ng), anchors)
    return V.finite_unit_rows(a, "anchors", normalize), V.finite_unit_rows(ng, "negatives", normalize)


def _raw_triplet(anchors, positives, negatives):
    """The three embedding arrays with consistent shapes (no norm check): the negatives as given (dtype and
    strides), anchors and positives C-contiguous in the common dtype (``validate.small_operand``)."""
    a = V.embeddings(anchors, "anchors", 2)
    p = V.embeddings(positives, "positives", 2)
    ng = V.embeddings(negatives, "negatives", 3)
    V.same_rows(a, "anchors", p, "positives")
    V.same_rows(a, "anchors", ng, "negatives")
    V.same_dim(a, "anchors", p, "positives")
    V.same_dim(a, "anchors", ng, "negatives")
    dt = V.common_dtype(a, p, ng)
    V.refuse_kernel_scratch(ng, "negatives")  # O(k) working rows per thread: a huge k is refused, not an OOM
    return V.small_operand(a, "anchors", dt, anchors), V.small_operand(p, "positives", dt, positives), ng
