"""One look for every figure of the toolkit (``compare``, the experiments, the notebooks).

* labels are mathtext (``$k^{-1/2}$``, ``$\\tau$``), never code identifiers;
* the line style says whose curve it is: *ours* solid, *paper* dashed, an earlier (*prior*) bound
  dash-dotted, *measured* points with markers and error bars, a *reference* slope dotted grey;
* legends sit outside the axes (below them), so they never cover data;
* one unit per axis: a quantity in other units goes on its own axis (``twin_axis``) or panel;
* a count (tuples, seeds, steps) has integer ticks (``count_axis``); a log axis spanning under two decades
  is labelled with plain numbers at 1, 2, 5 × 10^j (``plain_log_axis``), so its labels never crowd;
* every figure is laid out by matplotlib's constrained layout (``figure``), so panels, labels and
  legends do not overlap.

Use ``figure(ncols)`` instead of ``plt.subplots``, ``style(kind)`` for the line keywords, ``legend(ax)``
for the legend and ``save(fig, path)`` to write the PNG (``show(fig)`` in a notebook).
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping
from typing import Any

#: line keywords by whose curve it is (see the module docstring)
STYLES: dict[str, dict[str, Any]] = {
    "ours": {"linestyle": "-", "linewidth": 1.6},
    "paper": {"linestyle": "--", "linewidth": 1.6},
    "prior": {"linestyle": "-.", "linewidth": 1.2},
    "measured": {"linestyle": "none", "marker": "o", "markersize": 4},
    "reference": {"linestyle": ":", "linewidth": 1.0, "color": "0.45"},  # override color= through style()
}

#: words for the legend, by kind (appended to a curve's name)
WHOSE = {"ours": "ours", "paper": "paper", "prior": "earlier bound, our reconstruction", "measured": "measured"}

RC: dict[str, Any] = {
    "figure.dpi": 110,
    "savefig.dpi": 120,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "mathtext.fontset": "dejavusans",
    "axes.formatter.use_mathtext": True,
    "lines.markersize": 4,
}

#: mathtext for the quantities that recur in labels
TEX = {
    "tau": r"$\tau$",
    "k": r"$k$",
    "k_inv_half": r"$k^{-1/2}$",
    "k_inv": r"$k^{-1}$",
    "gap": r"$|R_k - \mathrm{CE}|$",
    "nats": "nats",
}


def pyplot():
    """pyplot on the non-interactive Agg backend with the toolkit's style applied."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update(RC)
    return plt


def figure(ncols: int = 1, width: float | None = None, height: float = 4.0):
    """``(fig, axes)`` with ``ncols`` panels side by side; ``axes`` is a list even for one panel."""
    plt = pyplot()
    fig, axes = plt.subplots(
        1, ncols, figsize=(width or 5.2 * ncols + 0.6, height), squeeze=False, layout="constrained"
    )
    return fig, list(axes[0])


def style(kind: str, **over: Any) -> dict[str, Any]:
    """Line keywords for ``kind`` ∈ ``STYLES`` (ours, paper, prior, measured, reference), overridable."""
    if kind not in STYLES:
        raise ValueError(f"plot style kind must be one of {sorted(STYLES)}, got {kind!r}")
    return {**STYLES[kind], **over}


def label(name: str, kind: str) -> str:
    """``"Theorem 1 bound"`` + kind → ``"Theorem 1 bound (ours)"``: whose curve it is, in words.

    A name that already says it (``"Prop. 4 sharpened (ours)"``, ``"… (ours, right axis)"``) is returned as
    it is: the legend never reads "(ours) (ours)"."""
    if kind not in WHOSE:
        return name
    import re

    if re.search(rf"\((?:[^()]*[,;] )?{re.escape(WHOSE[kind])}(?:[,;][^()]*)?\)", name):
        return name
    return f"{name} ({WHOSE[kind]})"


def count_axis(ax, which: str = "y") -> None:
    """Integer ticks on an axis that counts (tuples, seeds, steps): never 2.5 tuples."""
    from matplotlib.ticker import MaxNLocator

    (ax.yaxis if which == "y" else ax.xaxis).set_major_locator(MaxNLocator(integer=True))


def plain_log_axis(ax, which: str = "y") -> None:
    """A log axis labelled with plain numbers at 1, 2, 5 × 10^j and no minor labels.

    Matplotlib labels a log axis that spans under two decades at its minor ticks too (2×10¹, 3×10¹, 4×10¹
    …), and those labels crowd into each other; this keeps one readable label per 1-2-5 step."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


#: how far below the bottom of the axes a legend starts, in points: the tick labels (with a superscript
#: as in 10⁻²), the axis label and their pads (≈ 35 pt at the 9 pt fonts of ``RC``), and a gap. In points,
#: not in axes fractions: a layout engine that shrinks the axes must not slide the legend onto the label.
LEGEND_DROP_PT = 40.0


def _below(ax):
    """The transform of a legend anchored ``LEGEND_DROP_PT`` points below the axes, centred."""
    from matplotlib.transforms import offset_copy

    return offset_copy(ax.transAxes, fig=ax.figure, y=-LEGEND_DROP_PT, units="points")


def legend(ax, ncol: int | None = None, where: str = "below", **kw: Any):
    """A legend that cannot cover data: below the axes and their labels (or to the right, ``where="right"``)."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    if where == "right":
        return _outside(ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kw))
    n = ncol or (1 if len(handles) <= 3 else 2)
    return _outside(
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=_below(ax), ncol=n, borderaxespad=0.0, **kw
        )
    )


def _outside(leg):
    """A legend below the axes is left out of the layout (the constrained layout would shrink every panel to
    make room for the tallest legend); ``save`` extends the canvas to take it in instead."""
    leg.set_in_layout(False)
    return leg


def legends(fig) -> list:
    """The axes legends of ``fig``: pass them as ``bbox_extra_artists`` to ``savefig`` (they are outside the layout)."""
    return [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]


def twin_axis(ax, ylabel: str, log: bool = False):
    """A right-hand axis for a quantity in other units than the left one (one unit per axis)."""
    tw = ax.twinx()
    tw.set_ylabel(ylabel)
    tw.spines["right"].set_visible(True)
    tw.grid(False)
    if log:
        tw.set_yscale("log")
    return tw


def combined_legend(ax, others: list, **kw: Any):
    """One legend (below ``ax``) for the curves of ``ax`` and of its twin axes."""
    handles, labels = ax.get_legend_handles_labels()
    for o in others:
        h, lab = o.get_legend_handles_labels()
        handles += h
        labels += lab
    n = 1 if len(handles) <= 3 else 2
    leg = ax.legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        bbox_transform=_below(ax),
        ncol=n,
        borderaxespad=0.0,
        **kw,
    )
    return _outside(leg)


def save(fig, path: pathlib.Path | str, meta: Mapping[str, str] | None = None) -> pathlib.Path:
    """Write ``fig`` as PNG with the legends outside the axes included (``bbox_inches="tight"``)."""
    import matplotlib.pyplot as plt

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", bbox_inches="tight", bbox_extra_artists=legends(fig), metadata=dict(meta or {}))
    plt.close(fig)
    return path


def show(fig) -> None:
    """Display ``fig`` in a notebook as the PNG ``save`` would write, then close it.

    ``pyplot()`` selects the Agg backend, so the notebook's inline backend never sees the figure and
    ``plt.show()`` or a bare ``fig`` shows no image; this hands IPython the PNG itself. Outside IPython
    the figure is only closed.
    """
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", bbox_extra_artists=legends(fig))
    plt.close(fig)
    try:
        from IPython.display import Image, display
    except ImportError:  # pragma: no cover - IPython comes with the notebooks extra
        return
    display(Image(data=buf.getvalue(), format="png"))
