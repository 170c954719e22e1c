"""Sphinx configuration of the infonce-bounds documentation site (``sphinx-build -W docs docs/_build/html``).

The notebooks are rendered with their outputs by myst-nb. With ``INFONCE_DOCS_NOTEBOOKS`` set to a
directory of already executed notebooks (the test suite's run, ``tests/test_docs.py``), those are
shown as they are and nothing executes twice; otherwise the packaged notebooks are executed once and
cached in ``docs/_build/.jupyter_cache`` (myst-nb ``cache`` mode).
"""

from __future__ import annotations

import os
import pathlib
import shutil

import infonce_bounds

HERE = pathlib.Path(__file__).resolve().parent

project = "infonce-bounds"
author = "The infonce-bounds developers"
copyright = "2026, The infonce-bounds developers"
release = version = infonce_bounds.__version__

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax", "sphinx.ext.viewcode"]
myst_enable_extensions = ["dollarmath", "amsmath"]
exclude_patterns = ["_build", "notebooks/*.md", "**.ipynb_checkpoints"]
html_theme = "furo"
html_title = f"infonce-bounds {release}"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}
napoleon_numpy_docstring = True
napoleon_google_docstring = False
suppress_warnings = ["myst.header"]  # the README starts below h1 in places (its own layout)

# --- the notebooks: the executed copies from the tests, else execute once with a cache -------------
_src = os.environ.get("INFONCE_DOCS_NOTEBOOKS")
_nb_dir = HERE / "notebooks"
_nb_dir.mkdir(exist_ok=True)
for _old in _nb_dir.glob("*.ipynb"):
    _old.unlink()
if _src:
    for _f in sorted(pathlib.Path(_src).glob("[0-9][0-9]_*.ipynb")):
        shutil.copyfile(_f, _nb_dir / _f.name)
    nb_execution_mode = "off"
else:
    from importlib import resources

    for _f in (resources.files("infonce_bounds.numerics") / "notebooks").iterdir():
        if _f.name.endswith(".ipynb") and _f.name[:2].isdigit():
            with resources.as_file(_f) as _p:
                shutil.copyfile(_p, _nb_dir / _f.name)
    nb_execution_mode = "cache"
    nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 300
nb_execution_raise_on_error = True

# --- MathJax: the CDN by default; a local copy (Debian libjs-mathjax) for offline builds and the tests -
_local = os.environ.get("INFONCE_DOCS_MATHJAX")
if _local:
    mathjax_path = pathlib.Path(_local).as_uri() + "?config=TeX-AMS-MML_HTMLorMML"
    # MathJax 2 (Debian's): MyST marks sections tex2jax_ignore and math spans "math"; process those
    mathjax2_config = {
        "tex2jax": {
            "inlineMath": [["\\(", "\\)"]],
            "displayMath": [["\\[", "\\]"]],
            "processClass": "math|output_area|text_html",
            "ignoreClass": "tex2jax_ignore|mathjax_ignore",
        }
    }


# --- docstrings write |x| for absolute values; in reStructuredText |…| is a substitution: escape it ---
def _escape_bars(app, what, name, obj, options, lines):
    import re

    lines[:] = [re.sub(r"(?<!\\)\|", r"\\|", line) for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)
