"""``infonce-bounds``: the command-line entry point; one module per subcommand in ``commands/``.

Each command module defines ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
A ``UsageError`` (or a ``DerivationError`` / ``ValueError`` raised by validation) becomes one
line on stderr and exit status 2; a refuted step is exit status 1.

Only the chosen subcommand's module is imported (the others are named in the parser with their
help, which needs no import): ``infonce-bounds verify`` on an unchanged catalogue loads neither SymPy
nor numba.
"""

from __future__ import annotations

from ._env import apply_cli_defaults

# before numpy or numba is loaded by anything below (OpenBLAS and numba read these once)
apply_cli_defaults()

import argparse  # noqa: E402
import importlib  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

from infonce_bounds import __version__  # noqa: E402

#: subcommand name → module under numerics.commands; the order is the order of ``--help``
COMMANDS: dict[str, str] = {
    "report": "report",
    "verify": "verify",
    "check": "check",
    "show": "show",
    "constants": "constants",
    "compare": "compare",
    "exact": "exact",
    "experiment": "experiment",
    "errata": "errata",
    "notebooks": "notebooks",
}


class UsageError(ValueError):
    """Bad input from the command line: reported in one line, exit status 2."""


#: control characters (a user's value may hold a CR or a newline) shown escaped, so an error stays one line
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(32), 127)} | {10: "\\n", 13: "\\r", 9: "\\t"}


def one_line(message: object) -> str:
    """``message`` as one printable line: control characters escaped (``\\r``, ``\\n``, ``\\x1b`` …)."""
    return str(message).translate(_CONTROL)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line, exit 2
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def _chosen(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option), if any."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or (``only``) of that one, the others named but not imported."""
    parser = _Parser(
        prog="infonce-bounds",
        description="Derive, verify and evaluate the InfoNCE bounds "
        "of 'Similarity search generalisation in contrastive learning with InfoNCE loss'.",
    )
    parser.add_argument("--version", action="version", version=f"infonce-bounds {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, mod_name in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name)  # its help is only shown by `infonce-bounds --help`, which imports all
            continue
        mod = importlib.import_module(f"infonce_bounds.numerics.commands.{mod_name}")
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _stdout_closed() -> int:
    """The reader of stdout went away (``| head``): stop quietly, as a shell tool does (128 + SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush cannot fail again
    except (OSError, ValueError):
        pass
    return 141


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        return _stdout_closed()


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_chosen(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        status = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, inside the BrokenPipeError handler
        return status
    except ValueError as exc:  # UsageError, DerivationError (a ValueError) and validation errors
        print(f"infonce-bounds {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"infonce-bounds {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
