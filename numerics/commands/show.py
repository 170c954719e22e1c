"""``infonce-bounds show RESULT [--latex|--unicode]``: print a derivation as in a proof."""

from __future__ import annotations

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.render import render

HELP = "print a derivation step by step (Unicode or LaTeX)"


def add_arguments(p) -> None:
    p.add_argument("result", nargs="?", help="result name; without it, list the results")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--latex", action="store_true", help="LaTeX enumerate environment")
    g.add_argument("--unicode", action="store_true", help="Unicode (default)")


def run(args) -> int:
    if not args.result:
        for name in catalogue.names():
            der = catalogue.get(name)
            print(f"{name:28s} {der.source:9s} {der.title}")
        return 0
    der = catalogue.get(args.result)
    print(render(der, "latex" if args.latex else "unicode"))
    return 0
