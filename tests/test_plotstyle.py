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


def _check(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = _labels_outside_math(fig)
    assert labels, "figure has no legend"
    for text in labels:
        prose = re.sub(r"\$[^$]*\$", "", text)
        assert not IDENT.search(prose), f"code identifier in a legend: {text!r}"
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        lb = leg.get_window_extent(renderer)
        for other in fig.axes:
            ab = other.get_window_extent(renderer)
            assert not lb.overlaps(ab), f"legend {labels[:2]} covers the axes of {other.get_title()!r}"


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
