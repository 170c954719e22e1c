"""`constants` and `compare` at the ends of their documented ranges (issue 28, audited anew).

`compare --k 1e300` (the top of k's one range, which `constants --k` accepts too) ended in a matplotlib
traceback (an int past int64 on the plot's axis); `compare --k 1e12` (one k) warned of a singular axis; the
parameter lines wrote n = 10^300 and δ = 10^-300 out in 300 digits.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from infonce_bounds.numerics.certify import short_str
from infonce_bounds.numerics.cli import main


@pytest.mark.parametrize("ks", ["1e300", "1e12", "1e299,1e300"])
def test_compare_plots_any_k_of_the_range(tmp_path, capsys, ks):
    png = tmp_path / "c.png"
    assert main(["compare", "--k", ks, "--plot", str(png)]) == 0  # strict warnings: no singular-axis warning
    out = capsys.readouterr().out
    assert png.stat().st_size > 10_000
    assert "0" * 40 not in out  # k = 1e300 in the table as 1e300
    last = short_str(int(Fraction(ks.split(",")[-1])))  # 1e300 → "1e300", 1e12 → "1000000000000"
    assert any(line.lstrip().startswith(last + " ") for line in out.splitlines()), out


def test_constants_and_compare_accept_the_same_top_k(capsys):
    assert main(["constants", "--k", "1e300", "--json"]) == 0
    capsys.readouterr()
    assert main(["compare", "--k", "1e300", "--json", "--no-plot"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["k"] == 10**300


def test_parameter_lines_are_short_at_the_range_ends(capsys):
    assert main(["constants", "--n", "1e300", "--delta", "1e-300", "--radius", "1e-300", "--k", "1e300"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "n = 1e300" in first and "δ = 1e-300" in first and "k = 1e300" in first and "R = 1e-300" in first
    assert len(first) < 300, first


@pytest.mark.parametrize(
    "value, text",
    [(10**300, "1e300"), ("1/10**300", "1e-300"), ("1/10", "0.1"), (256, "256"), (-(10**40), "-1e40"), ("1/3", "1/3")],
)
def test_short_str(value, text):
    import sympy as sp

    assert short_str(sp.Rational(sp.sympify(value))) == text


def test_short_str_of_a_long_ratio_is_rounded_and_says_so():
    import sympy as sp

    txt = short_str(sp.Rational(10**40 + 1, 3))
    assert txt.startswith("≈ ") and "e+39" in txt
