"""The documentation site builds with warnings as errors, and a browser sees its pages and its mathematics.

The build (``sphinx-build -W``) renders the notebooks the test session already executed
(``executed_notebooks`` in conftest.py), so nothing executes twice. The reader's check opens the
built index and one notebook page in headless Chromium and looks for MathJax's output elements and
for text on every page. Skipped, with the reason, without Sphinx/myst-nb/furo, without Chromium or
without a local MathJax (Debian ``libjs-mathjax``; the published site uses the CDN).
"""

from __future__ import annotations

import html
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LOCAL_MATHJAX = pathlib.Path(os.environ.get("INFONCE_DOCS_MATHJAX", "/usr/share/javascript/mathjax/MathJax.js"))
#: MathJax 2 (``MathJax-Element-N-Frame``) or MathJax 3 (``mjx-container``) typeset output
TYPESET = re.compile(r'id="MathJax-Element-\d+-Frame"|<mjx-container')


@pytest.fixture(scope="module")
def site(tmp_path_factory, executed_notebooks):
    for mod in ("sphinx", "myst_nb", "furo"):
        pytest.importorskip(mod, reason=f"{mod} not installed (the [docs] extra): documentation not built")
    src = tmp_path_factory.mktemp("docs-src")
    shutil.copytree(ROOT / "docs", src / "docs", ignore=shutil.ignore_patterns("_build", "notebooks"))
    shutil.copy(ROOT / "README.md", src / "README.md")
    executed = {r["path"].parent for r in executed_notebooks.values()}
    assert len(executed) == 1
    env = {**os.environ, "INFONCE_DOCS_NOTEBOOKS": str(executed.pop())}
    if LOCAL_MATHJAX.is_file():
        env["INFONCE_DOCS_MATHJAX"] = str(LOCAL_MATHJAX)
    out = src / "html"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(src / "docs"), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, f"sphinx-build -W failed:\n{proc.stderr[-3000:]}"
    print(f"documentation built in {seconds:.1f} s")
    return out


def _article_text(page: pathlib.Path) -> str:
    text = page.read_text()
    m = re.search(r"<article[^>]*>(.*?)</article>", text, re.S)
    body = m.group(1) if m else text
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", body, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_every_page_has_content(site):
    pages = [p for p in site.rglob("*.html") if p.name not in ("genindex.html", "search.html", "py-modindex.html")]
    assert {"index.html", "tour.html", "api.html", "notebooks.html"} <= {p.name for p in pages}
    nbs = sorted((site / "notebooks").glob("[0-9][0-9]_*.html"))
    assert len(nbs) == len(list((ROOT / "numerics" / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    empty = [str(p.relative_to(site)) for p in pages if len(_article_text(p)) < 200]
    assert not empty, f"pages without content: {empty}"


def test_api_reference_comes_from_the_docstrings(site):
    text = _article_text(site / "api.html")
    for name in ("infonce_loss", "FiniteModel", "Derivation", "latex_document", "Parameters"):
        assert name in text, f"{name} missing from the API reference"


def test_notebook_pages_show_their_outputs(site):
    for page in sorted((site / "notebooks").glob("[0-9][0-9]_*.html")):
        text = page.read_text()
        assert text.count("cell_output") >= 3, f"{page.name}: the notebook's outputs are not rendered"
        assert "notebook executed in" in _article_text(page), f"{page.name}: the closing cell's output is missing"


def _chromium() -> str | None:
    return next((shutil.which(x) for x in ("chromium", "chromium-browser", "google-chrome") if shutil.which(x)), None)


def _browse(page: pathlib.Path, screenshot: pathlib.Path | None = None) -> str:
    exe = _chromium()
    flags = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=20000"]
    url = page.resolve().as_uri()
    dom = subprocess.run([*flags, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    if screenshot is not None:
        subprocess.run(
            [*flags, "--window-size=1200,1500", f"--screenshot={screenshot}", url], capture_output=True, timeout=120
        )
    return dom


@pytest.fixture(scope="module")
def browser(site):
    if _chromium() is None:
        pytest.skip("no Chromium on PATH (Debian: chromium): pages not checked in a browser")
    if not LOCAL_MATHJAX.is_file():
        pytest.skip(f"no local MathJax at {LOCAL_MATHJAX} (Debian: libjs-mathjax): math not checked offline")
    return _browse


@pytest.mark.parametrize("page", ["index.html", "notebooks/03_finite_k_bias.html"])
def test_a_browser_sees_the_mathematics(site, browser, page, tmp_path):
    shots = pathlib.Path(os.environ.get("INFONCE_DOCS_SCREENSHOTS", tmp_path))
    shot = shots / ("docs_" + page.replace("/", "_").replace(".html", ".png"))
    dom = browser(site / page, screenshot=shot)
    n = len(TYPESET.findall(dom))
    assert n >= 3, f"{page}: MathJax typeset {n} formulas (none means the math shows as raw TeX)"
    visible = " ".join(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", dom, flags=re.S)).split())
    assert len(visible) > 1000, f"{page}: the browser shows almost nothing"
    assert shot.stat().st_size > 20_000, f"{page}: the screenshot is blank"


def test_the_browser_check_fails_on_untypeset_math(site, browser, tmp_path):
    # planted: the index without its MathJax script must show no typeset formula
    page = site / "index_nomath.html"
    page.write_text(re.sub(r"<script[^>]*MathJax\.js[^>]*></script>", "", (site / "index.html").read_text()))
    assert not TYPESET.findall(browser(page))
