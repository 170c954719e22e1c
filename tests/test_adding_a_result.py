"""One result, one place: a result module dropped into ``derivations/`` is seen by verify, show and constants.

The fixture writes ONE file (the module below) into a directory on the package path of
``infonce_bounds.derivations``, exactly as a contributor would add ``derivations/toy_result.py``, and
touches nothing else: no registry tuple, no table of rates or show names, no constants list.
"""

from __future__ import annotations

import json
import pathlib
import sys
import textwrap

import pytest

import infonce_bounds
from infonce_bounds.derivations import catalogue, results
from infonce_bounds.derivations.ledger import DerivationError
from infonce_bounds.numerics.cli import main

README = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
#: the module of the README's recipe, verbatim: the test adds exactly what a contributor would
TOY = README.split("<!-- adding-a-result:start -->")[1].split("```python\n")[1].split("```")[0]
WRONG_STEP = ("1 / tau, kind=", "1 / (2 * tau), kind=")  # 1/(τk) ≤ 1/(2τ) is false at k = 1


def _install(tmp_path, text: str, name: str = "toy_result"):
    import infonce_bounds.derivations as pkg

    where = tmp_path / "extra_results"
    where.mkdir(exist_ok=True)
    (where / f"{name}.py").write_text(textwrap.dedent(text))
    pkg.__path__.append(str(where))
    catalogue.refresh()
    return where


@pytest.fixture
def add_result(tmp_path):
    """Drop result modules into the package path; undo it afterwards."""
    import infonce_bounds.derivations as pkg

    added: list[str] = []

    def add(text: str, name: str = "toy_result"):
        added.append(name)
        return _install(tmp_path, text, name)

    yield add
    pkg.__path__[:] = [p_ for p_ in pkg.__path__ if not p_.startswith(str(tmp_path))]
    for name in added:
        sys.modules.pop(f"{pkg.__name__}.{name}", None)
    catalogue.refresh()


def test_verify_show_and_constants_see_the_new_result(add_result, capsys):
    add_result(TOY)
    assert "toy_result" in catalogue.names()
    mods = catalogue.module_names()
    assert mods.index("toy_result") == mods.index("theorem") + 1  # ORDER 75: between theorem and prior

    assert main(["verify", "toy_result", "--trials", "200", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by = {r["step"]: r for r in out["results"]}
    assert by["toy bound"]["verdict"] in ("proved", "verified numerically")

    assert main(["show", "toy_result"]) == 0
    assert "toy bound" in capsys.readouterr().out
    assert main(["show"]) == 0
    assert "toy_result" in capsys.readouterr().out

    assert main(["constants", "--json", "--tau", "0.1", "--k", "256"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    toy = rows["toy_constant"]
    assert toy["status"] == "certified" and toy["show"] == "toy_result" and toy["rate"] == "O(1/k)"
    assert float(toy["value"]) == pytest.approx(1 / (0.1 * 256), rel=1e-6)  # 0.0390625
    lo, hi = (float(x) for x in toy["interval"])
    assert lo <= 0.0390625 <= hi
    # the Python twin reads the same registry
    assert "toy_constant" in {r["name"] for r in infonce_bounds.constants()["rows"]}


def test_a_kernel_formula_reaches_codegen(add_result):
    from infonce_bounds.numerics import codegen

    extra = (
        "\nfrom .results import KernelFormula\n\nKERNEL_FORMULAS = [KernelFormula('toy_kernel', ('tau', 'k'), "
        "toy_constant, 'derivations.toy_result.toy_constant', 'toy_result / toy bound', '1/(τ k).')]\n"
    )
    add_result(TOY + extra)
    (spec,) = [s_ for s_ in codegen._specs() if s_.name == "toy_kernel"]
    text, _ = codegen.render_function(spec, spec.build())
    assert "def toy_kernel(tau, k):" in text and "return " in text
    # the toolkit's own specs unchanged and in their order (the toy's sits at its module's catalogue place)
    assert tuple(s_ for s_ in codegen._specs() if s_.name != "toy_kernel") == codegen.SPECS


def test_without_the_file_nothing_knows_it(capsys):
    assert "toy_result" not in catalogue.names()
    assert "toy_constant" not in {cf.name for cf in results.closed_forms()}


def test_a_wrong_step_in_the_new_module_is_refuted(add_result, capsys):
    assert WRONG_STEP[0] in TOY
    add_result(TOY.replace(*WRONG_STEP))
    assert main(["verify", "toy_result", "--trials", "200"]) == 1
    assert "COUNTEREXAMPLE" in capsys.readouterr().out


def test_a_closed_form_must_name_a_known_result(add_result):
    assert 'show="toy_result"' in TOY
    add_result(TOY.replace('show="toy_result"', 'show="no_such_result"'))
    with pytest.raises(DerivationError, match="no_such_result"):
        results.closed_forms()


def test_duplicate_order_or_name_is_an_error(add_result):
    assert "ORDER = 75" in TOY
    add_result(TOY.replace("ORDER = 75", "ORDER = 70"))
    with pytest.raises(DerivationError, match="ORDER = 70"):
        catalogue.names()


def test_duplicate_closed_form_name_is_an_error(add_result):
    assert 'ClosedForm("toy_constant"' in TOY
    add_result(TOY.replace('ClosedForm("toy_constant"', 'ClosedForm("bias_constant"'))
    with pytest.raises(DerivationError, match="two closed forms named 'bias_constant'"):
        results.closed_forms()
