"""The LaTeX a reader gets compiles, prints symbols in the paper's notation and keeps every claim's form.

``test_pdflatex_*`` compile with ``pdflatex -halt-on-error``: every catalogue result as a standalone
document, and all the ``show --latex`` fragments inside an article that loads amsmath only. Without
pdflatex on PATH they are skipped with that reason (``.ci/run`` installs a minimal TeX so CI compiles).
"""

from __future__ import annotations

import pickle
import random
import re
import shutil
import subprocess

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.ledger import Domain, Shown, Step, unwrap
from infonce_bounds.derivations.render import (
    DISPLAY_WIDTH_PT,
    Printed,
    break_lines,
    display,
    domain_latex,
    latex,
    latex_document,
    printed,
    printed_forms,
    render_document,
    render_latex,
    step_latex,
    symbol_latex,
    tex_text,
    unrenderable,
)
from infonce_bounds.derivations.symbols import Z, b, ell_dcl, k, s_pos, tau, x
from infonce_bounds.numerics.cli import main
from infonce_bounds.numerics.latex import LatexError, markdown_document, pdflatex

NAMES = catalogue.names()
needs_tex = pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not on PATH: LaTeX not compiled")
MINIMAL = "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n%s\n\\end{document}\n"


def _compile(tmp_path, tex: str, name: str = "doc") -> subprocess.CompletedProcess:
    (tmp_path / f"{name}.tex").write_text(tex)
    return subprocess.run(
        ["pdflatex", "-halt-on-error", "-interaction=nonstopmode", f"{name}.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
    )


def _math(tex: str) -> list[str]:
    """The math-mode parts of a rendering: displays (one line or broken into an align*) and inline domains."""
    return (
        re.findall(r"\\\[(.*?)\\\]", tex, re.S)
        + re.findall(r"\\begin\{align\*\}(.*?)\\end\{align\*\}", tex, re.S)
        + re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", tex)
    )


def _estimated_width(tex: str) -> float:
    from infonce_bounds.derivations.render import _tree, _width

    return _width(_tree(tex))


def test_symbols_print_in_the_papers_notation():
    assert symbol_latex("tau") == r"\tau"
    assert symbol_latex("s_plus") == "s^{+}"
    assert symbol_latex("ell_tilde") == r"\tilde{\ell}"
    assert symbol_latex("Rhat_n") == r"\hat{R}_{n}"
    assert symbol_latex("CE") == r"\mathrm{CE}"
    assert latex(-s_pos / tau + ell_dcl) == r"\tilde{\ell} - \frac{s^{+}}{\tau}"
    assert latex(sp.Function("SV")(tau)) == r"\mathrm{SV}{\left(\tau \right)}"


@pytest.mark.parametrize("name", NAMES)
def test_no_code_identifier_or_unrenderable_character_in_a_rendering(name):
    tex = render_latex(catalogue.get(name))
    assert not unrenderable(tex), f"{name}: characters with no LaTeX: {unrenderable(tex)}"
    for m in _math(tex):
        bad = re.findall(r"(?<![\\a-zA-Z])(tau|beta|gamma|delta|plus|minus|ell|rho|kappa|zeta|epsilon)(?![a-zA-Z])", m)
        assert not bad, f"{name}: code identifier {bad} printed in math: {m[:120]}"


def test_claims_keep_their_printed_form():
    """No step prints as "X = X": SymPy evaluating a claim before printing it shows as equal sides.

    Every step of the catalogue prints its two sides apart (the last 24 paper steps that did not now keep
    the proof's form through ``render.Printed``); a new one fails here: build the side unevaluated and
    wrap it in ``printed(form, value)``.
    """
    same = sorted(
        f"{der.name}: {st.name}"
        for der in catalogue.all_derivations()
        for st in der.steps
        if st.kind != "definition" and latex(st.lhs) == latex(st.rhs)
    )
    assert not same, f"{len(same)} steps print as X = X (wrap a side in render.printed): {same}"


def _numeric(expr: sp.Expr, point: dict, rng: random.Random) -> complex:
    """``expr`` at ``point`` (symbols), then any indexed entry left by a summed-out index at a random value."""
    val = sp.sympify(expr).xreplace(point).doit()
    rest = {x: point.setdefault(x, sp.Rational(rng.randint(-9, 9), 10)) for x in val.atoms(sp.Indexed)}
    return complex(sp.N(val.xreplace(rest).doit(), 30))


def _form_matches_value(p: Printed, trials: int = 3) -> bool:
    """``p.form`` evaluates to ``p.value``: at random points (integers for integer symbols, entries of
    vectors in [−0.9, 0.9], positive reals in [0.3, 1.7] otherwise)."""
    rng = random.Random(0)
    syms = (p.form.free_symbols | p.value.free_symbols) - {x for x in p.form.free_symbols if isinstance(x, sp.Indexed)}
    for _ in range(trials):
        point: dict = {}
        for sym in sorted(syms, key=str):
            if isinstance(sym, sp.Symbol):
                point[sym] = sp.Integer(rng.randint(2, 4)) if sym.is_integer else sp.Rational(rng.randint(3, 17), 10)
        shown, checked = _numeric(p.form.doit(), point, rng), _numeric(p.value, point, rng)
        if abs(shown - checked) > 1e-20 + 1e-12 * abs(checked):
            return False
    return True


def _all_printed() -> list[tuple[str, Printed]]:
    return [
        (f"{der.name}: {st.name}", p)
        for der in catalogue.all_derivations()
        for st in der.steps
        for side in (st.lhs, st.rhs)
        for p in printed_forms(side)
    ]


def test_every_printed_form_evaluates_to_the_checked_value():
    """A printed form is mathematics, not decoration: it must evaluate to the value the checkers see."""
    found = _all_printed()
    assert len(found) >= 24
    wrong = [name for name, p in found if not _form_matches_value(p)]
    assert not wrong, f"printed forms that do not evaluate to their checked value: {wrong}"


def test_a_printed_form_that_drifts_from_its_value_is_caught():
    # planted: the (20) form with one sign flipped, and Lemma 4's quotient with e^{+1/τ} below
    assert _form_matches_value(
        printed(sp.Add(sp.log(b * Z), -sp.log(1 / k + b * Z), sp.log(1 / k + b * Z), evaluate=False))
    )
    drift = printed(sp.Add(sp.log(b * Z), sp.log(1 / k + b * Z), sp.log(1 / k + b * Z), evaluate=False), sp.log(b * Z))
    assert not _form_matches_value(drift)
    quotient = sp.Mul(sp.exp(1 / tau), sp.Pow(sp.exp(1 / tau), -1, evaluate=False), evaluate=False)
    assert not _form_matches_value(printed(sp.log(quotient), 2 / tau))
    assert latex(printed(sp.log(quotient), 2 / tau)) != latex(2 / tau)


def test_a_printed_form_keeps_the_proofs_order_and_is_checked_as_its_value():
    from infonce_bounds.derivations.checks import check_step
    from infonce_bounds.derivations.ledger import Verdict

    form = sp.Add(sp.log(b * Z), -sp.log(1 / k + b * Z), sp.log(1 / k + b * Z), -x, evaluate=False)
    dom = Domain({b: (1, 2), Z: (1, 2), k: (1, 10), x: (-1, 1)})
    good = Step("(20)", sp.log(b * Z) - x, printed(form), domain=dom)
    assert step_latex(good).endswith(
        r"\log{\left(Z b \right)} - \log{\left(Z b + \frac{1}{k} \right)} + \log{\left(Z b + \frac{1}{k} \right)} - x"
    )
    assert unwrap(good.rhs) == sp.log(b * Z) - x
    bad = Step("(20), planted", sp.log(b * Z) + x, printed(form), domain=dom)
    assert check_step(good, trials=50).verdict is Verdict.PROVED
    assert check_step(bad, trials=50).verdict is Verdict.REFUTED
    # SymPy re-evaluates an unevaluated form when it unpickles it; the checked value must survive
    assert unwrap(pickle.loads(pickle.dumps(good.rhs))) == unwrap(good.rhs)


def test_the_x_equals_x_detector_catches_an_evaluated_claim():
    # planted: √k · (e^{1/τ}/√k) evaluates to e^{1/τ} unless the printed form is kept
    bound = sp.exp(1 / tau) / sp.sqrt(k)
    dom = Domain({tau: (1, 2), k: (1, sp.oo)})
    evaluated = Step("rate", sp.sqrt(k) * bound, sp.exp(1 / tau), domain=dom)
    kept = Step("rate", sp.sqrt(k) * Shown(bound), sp.exp(1 / tau), domain=dom)
    assert latex(evaluated.lhs) == latex(evaluated.rhs)
    assert latex(kept.lhs) != latex(kept.rhs) and r"\sqrt{k}" in latex(kept.lhs)
    assert unwrap(kept.lhs) == sp.exp(1 / tau)  # the checkers see the value
    assert kept.unwrapped().lhs == evaluated.lhs


def test_shown_sides_are_checked_as_their_values():
    from infonce_bounds.derivations.checks import check_step
    from infonce_bounds.derivations.ledger import Verdict

    dom = Domain({tau: (1, 2), k: (1, sp.oo)})
    good = Step(
        "rate", sp.sqrt(k) * Shown(sp.exp(1 / tau) / sp.sqrt(k), r"\mathrm{b}", "b"), sp.exp(1 / tau), domain=dom
    )
    bad = Step(
        "rate, planted",
        sp.sqrt(k) * Shown(sp.exp(2 / tau) / sp.sqrt(k), r"\mathrm{b}", "b"),
        sp.exp(1 / tau),
        domain=dom,
    )
    assert check_step(good, trials=50).verdict is Verdict.PROVED
    assert check_step(bad, trials=50).verdict is Verdict.REFUTED


def test_prose_is_escaped():
    assert tex_text("a & b 50% $x #1") == r"a \& b 50\% \$x \#1"
    assert tex_text("e^{2/τ}") == r"\ensuremath{e^{2/\ensuremath{\tau}}}"
    assert tex_text("R̂_n ≤ 1") == r"\ensuremath{\hat{R}_{n}} \ensuremath{\le} 1"
    assert unrenderable(tex_text("☃")) == ["[U+2603]"]


def test_domain_reads_as_mathematics():
    dom = Domain({tau: (sp.Rational(1, 1000), 100), k: (1, sp.oo), s_pos: (-1, 1)})
    assert domain_latex(dom) == r"\tau \in [10^{-3}, 100],\ k \in \{1, 2, \dots\},\ s^{+} \in [-1, 1]"


@needs_tex
@pytest.mark.parametrize("name", NAMES)
def test_pdflatex_compiles_every_result_standalone(tmp_path, name):
    proc = _compile(tmp_path, render_document(catalogue.get(name)))
    assert proc.returncode == 0, f"{name}: pdflatex failed:\n{proc.stdout[-1500:]}"
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


def _overfull(log: str) -> list[str]:
    """The "Overfull \\hbox" warnings of a pdflatex log (a line or a display wider than the text)."""
    return re.findall(r"Overfull \\hbox \([\d.]+pt too wide\)[^\n]*", log)


@needs_tex
def test_pdflatex_compiles_every_fragment_with_amsmath_only(tmp_path, capsys):
    """``show NAME --latex`` of every result, in an article with amsmath only: it compiles, and no line or
    display runs into the margin (long displays are broken; the prose may break between formulas)."""
    parts = []
    for n in NAMES:
        assert main(["show", n, "--latex"]) == 0
        parts.append(capsys.readouterr().out)
    proc = _compile(tmp_path, MINIMAL % "\n\\clearpage\n".join(parts))
    assert proc.returncode == 0, f"pdflatex failed on the show --latex fragments:\n{proc.stdout[-1500:]}"
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert not _overfull(log), f"{len(_overfull(log))} overfull lines, e.g. {_overfull(log)[:3]}"


@needs_tex
def test_overfull_count_can_fail(tmp_path):
    """Planted: one unbroken long display must be counted (so a zero above means something)."""
    long = " + ".join(f"x_{{{i}}}^{{2}}" for i in range(60))
    proc = _compile(tmp_path, MINIMAL % rf"\[ {long} \]")
    assert proc.returncode == 0 and _overfull(proc.stdout)
    proc = _compile(tmp_path, MINIMAL % display(long), name="broken")
    assert proc.returncode == 0 and not _overfull(proc.stdout), _overfull(proc.stdout)


def test_a_long_display_is_broken_into_lines_that_fit():
    long = (
        r"\tau \left("
        + " + ".join(rf"\frac{{a_{{{i}}}}}{{b_{{{i}}}}} e^{{x_{{{i}}}}}" for i in range(30))
        + r"\right) \le 1"
    )
    lines = break_lines(long)
    assert len(lines) > 3
    for ln in lines:
        assert ln.count(r"\left") == ln.count(r"\right"), ln  # each line closes what it opens (\right.)
        assert _estimated_width(ln) <= DISPLAY_WIDTH_PT * 1.05, ln
    assert lines[-1].rstrip().endswith(r"\le 1")

    # the same mathematics: remove what the breaker adds and the tokens are the original's
    def core(t):
        return re.sub(r"\\(left|right)\.|\{\}|\\times|\s+", "", t)

    assert core("".join(lines)) == core(long)
    assert break_lines(r"a + b \le c") == [r"a + b \le c"]  # a short display is left alone
    assert display(r"a + b \le c") == r"\[ a + b \le c \]"
    assert display(long).startswith("\\begin{align*}")


@needs_tex
def test_pdflatex_refuses_what_used_to_be_printed(tmp_path):
    # planted: the old rendering (unescaped Unicode and & in \textbf) must fail, so a pass means something
    proc = _compile(tmp_path, MINIMAL % r"\textbf{ℓ_k ≤ e^{2/τ} & more}")
    assert proc.returncode != 0
    with pytest.raises(LatexError, match="pdflatex failed"):
        pdflatex(MINIMAL % r"\begin{enumerate}", tmp_path / "x.pdf")


@needs_tex
def test_standalone_document_with_verdicts_compiles(tmp_path):
    der = catalogue.get("loss")
    results = der.verify(trials=200)
    # planted: a refuted claim, so a counterexample goes through the escaping too
    from infonce_bounds.derivations.checks import check_step

    wrong = Step("planted: ℓ_k ≥ 3 & more", sp.Integer(1), 3, kind="inequality", relation=">=", domain=Domain({}))
    bad = check_step(wrong, trials=50)
    tex = render_document(der, results) + latex_document("x", render_latex(catalogue.get("loss"), [bad]))
    doc = tex.split("\\end{document}")[0] + "\\end{document}\n"
    assert "Verdict: \\textbf{proved}" in doc
    proc = _compile(tmp_path, doc)
    assert proc.returncode == 0, proc.stdout[-1500:]


def test_show_latex_standalone_cli(capsys):
    assert main(["show", "loss", "--latex", "--standalone", "--no-verify"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("\\documentclass") and out.rstrip().endswith("\\end{document}")
    assert display(step_latex(catalogue.get("loss").result_step)) in out  # broken into lines when long


def test_show_standalone_needs_latex(capsys):
    assert main(["show", "loss", "--standalone"]) == 2
    assert "--standalone needs --latex" in capsys.readouterr().err


@needs_tex
def test_markdown_report_converts_and_compiles(tmp_path):
    md = (
        "# infonce-bounds report\n\nBuilt in 1 s. Defaults: τ = 0.1, k = 256.\n\n## Summary\n\n"
        "- **Derivations:** 172 steps, `show theorem`, R_k − CE ≈ e^{2/τ}/k & 5 %\n- second *item*\n\n"
        "| k | β | 2Rad averaged |\n|---|---|---|\n| 1 | 20 | 0.5 |\n| 4096 | 20 | 1.2 |\n\n"
        "_(section built in 0.1 s)_\n"
    )
    tex = markdown_document(md)
    assert "\\begin{longtable}" in tex and "\\item" in tex and "\\title{infonce-bounds report" in tex
    pdf = pdflatex(tex, tmp_path / "r.pdf")
    assert pdf.stat().st_size > 1000


@needs_tex
def test_errata_latex_standalone_compiles(tmp_path, capsys):
    assert main(["errata", "--latex", "--standalone", "--trials", "300"]) == 0
    doc = capsys.readouterr().out
    assert doc.startswith("\\documentclass") and "Printed step" in doc and "refuted" in doc
    assert not unrenderable(doc), unrenderable(doc)
    proc = _compile(tmp_path, doc)
    assert proc.returncode == 0, f"pdflatex failed on errata --latex --standalone:\n{proc.stdout[-1500:]}"


def test_errata_standalone_needs_latex(capsys):
    assert main(["errata", "--standalone"]) == 2
    assert "--standalone needs --latex" in capsys.readouterr().err


def _random_claim(rng: random.Random, depth: int) -> sp.Expr:
    """A random expression of the kinds the catalogue prints: sums, products, quotients, exp(·/τ), log, √, max."""
    xs = (*sp.symbols("x0:6", positive=True), tau)
    if depth == 0:
        return rng.choice(xs)
    pick = rng.randrange(7)
    sub = lambda: _random_claim(rng, depth - 1)  # noqa: E731
    if pick == 0:
        return sp.Add(*[sub() for _ in range(rng.randint(2, 5))])
    if pick == 1:
        return sp.Mul(*[sub() for _ in range(rng.randint(2, 3))])
    if pick == 2:
        return sub() / (sub() + 1)
    if pick == 3:
        return sp.exp(sub() / tau)
    if pick == 4:
        return sp.log(sub() + 1)
    if pick == 5:
        return sp.sqrt(sub() + sub())
    return sp.Max(sub(), sub())


@needs_tex
def test_unseen_long_displays_fit_too(tmp_path):
    """Displays the catalogue does not have (random sums, products, quotients, exponentials, logs, roots and
    maxima, up to six levels deep), in an enumerate item of an amsmath article: no overfull line."""
    rng = random.Random(7)
    claims = [
        display(f"{latex(_random_claim(rng, rng.randint(3, 6)))} \\le {latex(_random_claim(rng, rng.randint(2, 5)))}")
        for _ in range(40)
    ]
    assert sum(c.startswith("\\begin{align*}") for c in claims) >= 20  # most of them needed breaking
    body = "\\begin{enumerate}\n" + "\n".join(f"\\item claim\n{c}" for c in claims) + "\n\\end{enumerate}"
    proc = _compile(tmp_path, MINIMAL % body)
    assert proc.returncode == 0, proc.stdout[-1500:]
    assert not _overfull(proc.stdout), _overfull(proc.stdout)[:3]
