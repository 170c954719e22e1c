"""``infonce-bounds notebooks DIR``: copy the teaching notebooks that ship with the package into DIR.

Each notebook comes as ``NN_name.ipynb`` (no outputs) with its paired MyST Markdown text
``NN_name.md`` (jupytext); open them with ``jupyter lab DIR`` (``pip install "infonce-bounds[notebooks]"``).
They need nothing beside the installed package: the example model is ``FiniteModel.example()``.
"""

from __future__ import annotations

import pathlib
import shutil
from importlib import resources

HELP = "copy the teaching notebooks (.ipynb with their paired .md text) into DIR"


def notebook_files() -> list:
    """The packaged notebooks and their paired texts, sorted by name (``importlib.resources`` traversables)."""
    root = resources.files("infonce_bounds.numerics") / "notebooks"
    return sorted(
        (f for f in root.iterdir() if f.name[:2].isdigit() and f.name.endswith((".ipynb", ".md"))),
        key=lambda f: f.name,
    )


def add_arguments(p) -> None:
    p.add_argument("dir", metavar="DIR", help="directory to copy the notebooks into (created if missing)")
    p.add_argument("--force", action="store_true", help="overwrite notebooks already in DIR")


def run(args) -> int:
    out = pathlib.Path(args.dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"DIR {str(out)!r} exists and is not a directory")
    files = notebook_files()
    clash = [f.name for f in files if (out / f.name).exists()]
    if clash and not args.force:
        raise ValueError(f"DIR {str(out)!r} already holds {', '.join(clash)}; pass --force to overwrite them")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for f in files:
            with resources.as_file(f) as src:
                shutil.copyfile(src, out / f.name)
    except OSError as exc:
        raise ValueError(f"DIR {str(out)!r} cannot be written: {exc.strerror or exc}") from None
    for f in files:
        if f.name.endswith(".ipynb"):
            print(out / f.name)
    print(f"open them with: jupyter lab {out}", flush=True)
    return 0
