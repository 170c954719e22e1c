"""Every figure follows ``numerics.plotstyle``: legends in words (no code identifiers), outside the data.

The figures are drawn from small synthetic inputs (no experiment is run); a legend "covers data" when
its box overlaps the axes' box.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from infonce_bounds.numerics import plotstyle

IDENT = re.compile(r"\b[a-z]+_[a-z_]+\b")


def _labels_outside_math(fig) -> list[str]:
    out = []
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None:
            out += [t.get_text() for t in leg.get_texts()]
    return out


#: y-axis labels of axes that count things: their ticks must be integers
COUNT_LABELS = ("tuples", "seeds", "steps", "count")
PAREN = re.compile(r"\(([^()]*)\)")


def _tick_labels(axis, renderer) -> list:
    """Boxes of the tick labels drawn (matplotlib also keeps labels of ticks just outside the view limits)."""
    ab = axis.axes.get_window_extent(renderer)
    out = []
    for t in axis.get_ticklabels():
        if not (t.get_visible() and t.get_text()):
            continue
        b = t.get_window_extent(renderer)
        mid = (b.x0 + b.x1) / 2 if axis.axis_name == "x" else (b.y0 + b.y1) / 2
        lo, hi = (ab.x0, ab.x1) if axis.axis_name == "x" else (ab.y0, ab.y1)
        if lo - 1 <= mid <= hi + 1:
            out.append(b)
    return out


def _check(fig):
    """The figure follows ``plotstyle``: legends in words, outside every axes and clear of every label and of
    each other, no "(ours) (ours)", no two tick labels of one axis overlapping, integer ticks on a count axis,
    and a layout engine (constrained layout) that keeps panels and labels apart."""
    assert fig.get_layout_engine() is not None, "figure laid out by hand: use plotstyle.figure (constrained layout)"
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = _labels_outside_math(fig)
    assert labels, "figure has no legend"
    for text in labels:
        prose = re.sub(r"\$[^$]*\$", "", text)
        assert not IDENT.search(prose), f"code identifier in a legend: {text!r}"
        words = [w.strip() for grp in PAREN.findall(prose) for w in re.split(r"[,;]", grp)]
        repeated = {w for w in words if w and words.count(w) > 1}
        assert not repeated, f"legend label says {sorted(repeated)} twice: {text!r}"
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    boxes = [leg.get_window_extent(renderer) for leg in legends]
    for i, (leg, lb) in enumerate(zip(legends, boxes)):
        loc = leg._loc  # noqa: SLF001 - where the legend was put: "best" (0) inside, or anchored outside
        assert loc == 0 or leg.get_bbox_to_anchor() is not None, "legend at a fixed place inside the axes"
        for other in fig.axes:
            assert not lb.overlaps(other.get_window_extent(renderer)), (
                f"legend {labels[:2]} covers the axes of {other.get_title()!r}"
            )
            for lab in (other.xaxis.label, other.yaxis.label):
                if lab.get_text():
                    assert not lb.overlaps(lab.get_window_extent(renderer)), (
                        f"legend {labels[:2]} covers the axis label {lab.get_text()!r}"
                    )
            for tb in _tick_labels(other.xaxis, renderer) + _tick_labels(other.yaxis, renderer):
                assert not lb.overlaps(tb), f"legend {labels[:2]} covers tick labels of {other.get_title()!r}"
        for lb2 in boxes[i + 1 :]:
            assert not lb.overlaps(lb2), "two legends overlap"
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            tb = _tick_labels(axis, renderer)
            for j in range(len(tb) - 1):
                for other in tb[j + 1 :]:
                    assert not tb[j].overlaps(other), f"tick labels overlap on {ax.get_title()!r}"
        if any(w in ax.get_ylabel().lower() for w in COUNT_LABELS):
            loc = ax.yaxis.get_major_locator()
            assert getattr(loc, "_integer", False), f"count axis {ax.get_ylabel()!r} has fractional ticks"


def test_planted_legend_inside_and_identifier_fail():
    fig, (ax,) = plotstyle.figure(1)
    ax.plot([1, 2], [1, 2], label="complexity_klinear")
    ax.legend(loc="center")
    with pytest.raises(AssertionError):
        _check(fig)


def test_compare_plot(tmp_path, monkeypatch):
    from infonce_bounds.numerics.commands import compare

    captured = {}
    monkeypatch.setattr(plotstyle, "save", lambda fig, path, meta=None: captured.setdefault("fig", fig) and path)
    rows = [
        {"k": kv, **{key: {"log10": float(np.log10(kv)) + i * 0.1} for i, key in enumerate(compare.COLUMNS)}}
        for kv in (1, 4, 16, 64)
    ]
    compare.plot(rows, tmp_path / "c.png", "τ = 0.5")
    _check(captured["fig"])
    # every column has a legend in words, but "capped" = min(bound, trivial), which is read off the two lines drawn
    assert set(compare.PLOT_LABELS) == set(compare.COLUMNS) - {"capped"}


def test_rate_plot():
    from infonce_bounds.numerics.experiments import rate

    pts = [{"k": kv, "gap": 0.5 / kv, "gap_se": 0.01 / kv, "rigorous_bound": 2.0 / kv} for kv in (1, 4, 16, 64)]
    per = {"binary": {"points": pts, "slope": -1.0, "slope_ci": [-1.01, -0.99], "a1": 0.5, "kind": "finite"}}
    _check(rate.plot(per, 0.5))


def test_search_plot():
    from infonce_bounds.numerics.experiments import search

    pts = [
        {"k": kv, "R_k": 1 - 1 / kv, "H_k_minus_log_k": 1 - 2 / kv, "D_k": 1 / kv, "D_k_se": 0.01} for kv in (1, 4, 16)
    ]
    per = {"ring6": {"points": pts, "ce": 1.0, "delta1": 1.0, "D_slope": -1.0}}
    _check(search.plot(per, 0.5))


def test_style_kinds_are_checked():
    with pytest.raises(ValueError, match="plot style kind"):
        plotstyle.style("mine")
    assert plotstyle.style("paper")["linestyle"] != plotstyle.style("ours")["linestyle"]


def test_temperature_plot_keeps_one_unit_per_axis():
    from infonce_bounds.numerics.experiments import temperature

    taus = [0.1, 0.5, 1.0]
    ci = {"mean": 0.5, "ci": [0.4, 0.6]}
    row = {
        "gap": ci,
        "gap_same_k": ci,
        "bias_constant": {"simple_e2tau_over_4": 2.0, "C": 1.5, "measured": {"ring6": {"256": {"k_times_gap": 1.0}}}},
        "continuity_factor": {"max_form_gamma_1_over_tau": 3.0, "gamma_2_over_tau": 2.0, "average_form_gamma_inf": 1.5},
        "theorem": {"available": True, "bound": 300.0},
        "data_factor_mean": {"mean": 1.2},
        "data_factor_max": {"mean": 1.4},
    }
    fig = temperature.plot({repr(x): row for x in taus}, taus, 16)
    _check(fig)
    factors = fig.axes[2]
    assert "nats" not in factors.get_ylabel()
    twins = [a for a in fig.axes[3:] if a.bbox.bounds == factors.bbox.bounds]
    assert twins and "nats" in twins[0].get_ylabel()  # the bound in nats lives on its own axis


def test_planted_duplicate_suffix_and_fractional_count_fail():
    fig, (ax,) = plotstyle.figure(1)
    ax.plot([1, 2], [1, 2], label="Prop. 4 sharpened (ours) (ours)")
    plotstyle.legend(ax)
    with pytest.raises(AssertionError, match="twice"):
        _check(fig)
    fig, (ax,) = plotstyle.figure(1)
    ax.hist([0.1, 0.2, 0.2, 0.3], label="ratios (ours)")
    ax.set_ylabel("tuples")
    plotstyle.legend(ax)
    with pytest.raises(AssertionError, match="fractional"):
        _check(fig)


def test_label_never_doubles_whose_curve_it_is():
    assert plotstyle.label("Prop. 4 sharpened (ours)", "ours") == "Prop. 4 sharpened (ours)"
    assert plotstyle.label("Theorem 1 bound (ours, right axis)", "ours") == "Theorem 1 bound (ours, right axis)"
    assert plotstyle.label("Theorem 1 bound", "ours") == "Theorem 1 bound (ours)"
    assert plotstyle.label("bound (paper)", "ours") == "bound (paper) (ours)"  # a different word is kept


def test_prop4_plot():
    from infonce_bounds.numerics.experiments import prop4

    rng = np.random.default_rng(0)
    per = {
        b: {"beta": beta, "ratios": {r: list(10 ** rng.uniform(0.5, 3.5, 60)) for r in prop4.ROUTES}}
        for b, beta in (("4", 4.0), ("inf", float("inf")))
    }
    _check(prop4.plot({"per_beta": per}, 0.5, 32))


def test_theorem_plot_log_axis_labels_do_not_crowd():
    from infonce_bounds.numerics.experiments import theorem

    ns = [1000, 2000, 5000, 10000, 20000, 50000]
    per_n = [
        {
            "n": n,
            "paper": {"bound": 35 * (1000 / n) ** 0.5},
            "ours": {"bound": 30 * (1000 / n) ** 0.5},
            "ours_direct": {"bound": 7 * (1000 / n) ** 0.15},
            "truth": 1.34,
            "rhat": 1.43,
        }
        for n in ns
    ]
    fig = theorem.plot([{"k": 16, "tau": 0.5, "per_n": per_n}])
    _check(fig)


def test_generalisation_plot():
    from infonce_bounds.numerics.experiments import generalisation

    ks = [1, 16, 256]

    def ci(m):
        return {"mean": m, "ci": [m - 0.5, m + 0.5]}

    keys = ("empirical_risk", "test_risk_k", "test_ce", "train_ce", "gap", "gap_same_k")
    per_k = {
        str(k): {
            **{key: ci(1.0 / (1 + i) + 1.0 / k) for i, key in enumerate(keys)},
            "theorem": {"available": True, **{name: 10.0 * k**0.2 for name in generalisation.THEOREM_LABELS}},
            "prior": {"available": True, **{name: 20.0 * k**0.3 for name in generalisation.PRIOR_LABELS}},
        }
        for k in ks
    }
    _check(generalisation.plot(per_k, ks, 0.5, 200))


def test_saved_png_takes_in_the_legend_below_the_axes(tmp_path):
    """The legends are outside the layout (so panels are not squeezed): the PNG must still contain them,
    through ``plotstyle.save`` and through the experiments' ``save_figure_atomic``."""
    import matplotlib.image as mpimg

    from infonce_bounds.numerics.experiments import common

    def fig_with_long_legend():
        fig, (ax,) = plotstyle.figure(1, width=5.0, height=3.0)
        for i in range(8):
            ax.plot([1, 2], [i, i + 1], label=f"curve number {i} (ours)")
        plotstyle.legend(ax, ncol=1)
        return fig

    for name, write in (
        ("a.png", lambda fig, p: plotstyle.save(fig, p)),
        ("b.png", lambda fig, p: common.save_figure_atomic(fig, p)),
    ):
        fig = fig_with_long_legend()
        fig.canvas.draw()
        leg = fig.axes[0].get_legend().get_window_extent()
        ax_box = fig.axes[0].get_window_extent()
        write(fig, tmp_path / name)
        h = mpimg.imread(tmp_path / name).shape[0]
        dpi = 120 if name == "a.png" else 110
        # the image spans from the top of the axes to the bottom of the legend at least
        need = (ax_box.y1 - leg.y0) / fig.dpi * dpi
        assert h >= need * 0.98, f"{name}: {h} px tall, the axes and legend need {need:.0f}"
