"""``infonce-bounds show RESULT [--latex [--standalone]|--unicode]``: print a derivation as in a proof.

``--latex`` prints a fragment that compiles with ``\\usepackage{amsmath}``; ``--latex --standalone``
prints a complete article (title, statement, each step with its kind, domain, provenance and verdict,
the claims displayed) for ``pdflatex``. The verdicts come from running the checks (``--trials``
falsifier evaluations per inequality); ``--no-verify`` leaves them out.
"""

from __future__ import annotations

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks import DEFAULTS
from infonce_bounds.derivations.render import render, render_document

HELP = "print a derivation step by step (Unicode or LaTeX)"


def add_arguments(p) -> None:
    p.add_argument("result", nargs="?", help="result name; without it, list the results")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--latex", action="store_true", help="LaTeX (a fragment needing amsmath only)")
    g.add_argument("--unicode", action="store_true", help="Unicode (default)")
    p.add_argument(
        "--standalone", action="store_true", help="with --latex: a complete document for pdflatex, with verdicts"
    )
    p.add_argument(
        "--trials",
        type=int,
        default=DEFAULTS["trials"],
        help=f"with --standalone: falsifier trials per inequality for the verdicts (default {DEFAULTS['trials']})",
    )
    p.add_argument("--no-verify", action="store_true", help="with --standalone: leave the verdicts out")


def run(args) -> int:
    if args.standalone and not args.latex:
        raise ValueError("--standalone needs --latex")
    if not args.result:
        if args.standalone:
            raise ValueError("--standalone needs a result name; `show` lists them")
        for name in catalogue.names():
            der = catalogue.get(name)
            print(f"{name:28s} {der.source:9s} {der.title}")
        return 0
    from .. import params

    params.read("trials", args.trials, "--trials")
    der = catalogue.get(args.result)
    if args.standalone:
        results = None if args.no_verify else der.verify(trials=args.trials)
        print(render_document(der, results), end="")
        return 0
    print(render(der, "latex" if args.latex else "unicode"))
    return 0
