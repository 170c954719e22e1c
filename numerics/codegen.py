"""Print the scalar closing formulas of ``derivations/`` into committed numba source:
``numerics/_generated/constants.py``.

One source of truth: each generated function is a SymPy expression declared by its result module in
``KERNEL_FORMULAS`` (``derivations.results.KernelFormula``: ``loss.dcl_from_logit``,
``loss.infonce_from_logit``, ``loss.standard_from_logit``, their derivatives in ``c``,
``continuity.data_factor``), passed through the stability rewrites of ``derivations.rewriting``
(softplus, logistic, log1p, expm1), optionally common-subexpression-eliminated, and printed with
SymPy's ``PythonCodePrinter`` as a ``@helper`` (``numerics._jit``) function with a fixed argument
order. Real source files, not ``lambdify`` closures, are what make numba's ``cache=True`` work.

Usage::

    python -m infonce_bounds.numerics.codegen           # (re)write numerics/_generated/constants.py
    python -m infonce_bounds.numerics.codegen --check   # exit 1 if the committed file differs from a fresh render

Generation fails loudly (``CodegenError``) if an expression has a free symbol that is not one of
the declared arguments, or if a declared argument is not a symbol of ``derivations.symbols``.
"""

from __future__ import annotations

import argparse
import hashlib
import pathlib
import sys
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from infonce_bounds.derivations import symbols as S
from infonce_bounds.derivations.ledger import free_names
from infonce_bounds.derivations.rewriting import stabilise

TARGET = pathlib.Path(__file__).resolve().parent / "_generated" / "constants.py"


class CodegenError(ValueError):
    """An expression cannot be printed as declared (undeclared free symbol, unknown argument, …)."""


@dataclass(frozen=True)
class Spec:
    """One generated scalar function: ``name(*args) = build()`` (before the stability rewrites)."""

    name: str
    args: tuple[str, ...]  #: argument names: attributes of derivations.symbols, in call order
    build: Callable[[], sp.Expr]
    source: str  #: the named interface it comes from
    result: str  #: the derivation (and step) that establishes it
    doc: str
    optional: bool = False  #: skipped, and said so in the header, while its module does not exist yet


def _specs() -> tuple[Spec, ...]:
    """One ``Spec`` per ``KERNEL_FORMULAS`` entry of the result modules, in catalogue order."""
    from infonce_bounds.derivations.results import kernel_formulas

    return tuple(Spec(f.name, f.args, f.build, f.source, f.result, f.doc) for f in kernel_formulas())


#: every generated function: declared by the result modules (``derivations.results.KernelFormula``)
SPECS: tuple[Spec, ...] = _specs()


class _Printer(PythonCodePrinter):
    """``PythonCodePrinter`` with float literals for integers (numba then keeps float64 arithmetic)."""

    def _print_Integer(self, expr):
        return f"{int(expr)}.0"

    def _print_Rational(self, expr):
        return f"({int(expr.p)}.0/{int(expr.q)}.0)"


def expression_hash(expr: sp.Expr) -> str:
    return hashlib.sha256(sp.srepr(expr).encode()).hexdigest()[:16]


def _arg_symbols(spec: Spec) -> list[sp.Symbol]:
    out = []
    for a in spec.args:
        sym = getattr(S, a, None)
        if not isinstance(sym, sp.Symbol):
            raise CodegenError(f"{spec.name}: declared argument {a!r} is not a symbol of derivations.symbols")
        out.append(sym)
    return out


def render_function(spec: Spec, expr: sp.Expr) -> tuple[str, str]:
    """Source text of one ``@helper`` function and the hash of its (un-rewritten) expression."""
    args = _arg_symbols(spec)
    expr = sp.sympify(expr)
    extra = free_names(expr) - set(args)
    if extra:
        raise CodegenError(
            f"{spec.name}: free symbol(s) {sorted(map(str, extra))} of {expr} are not among the "
            f"declared arguments {spec.args} (from {spec.source})"
        )
    digest = expression_hash(expr)
    rename = {sym: sp.Symbol(name) for sym, name in zip(args, spec.args)}  # print the declared names
    stable = stabilise(expr).xreplace(rename)
    printer = _Printer({"fully_qualified_modules": True})
    body: list[str] = []
    if stable.has(sp.Piecewise):  # no CSE across branches: a hoisted e^{−c} could overflow in the unused one
        final = stable
    else:
        repl, (final,) = sp.cse(stable, symbols=sp.numbered_symbols("_t"))
        body += [f"    {printer.doprint(lhs)} = {printer.doprint(rhs)}" for lhs, rhs in repl]
    text = printer.doprint(final)
    names = ", ".join(spec.args)
    lines = [
        "@helper",
        f"def {spec.name}({names}):",
        f'    """{spec.doc}',
        "",
        f"    from: {spec.source}  ({spec.result})",
        f"    expression: {sp.sstr(expr)}",
        f"    sha256(srepr)[:16]: {digest}",
        '    """',
        *body,
        f"    return {text}",
    ]
    return "\n".join(lines) + "\n", digest


def render() -> str:
    """The full text of ``_generated/constants.py`` from the current derivations."""
    parts, header, skipped = [], [], []
    for spec in SPECS:
        try:
            expr = spec.build()
        except (ImportError, AttributeError) as exc:
            if spec.optional:
                skipped.append(f"#   {spec.name}: not generated ({spec.source} unavailable: {type(exc).__name__})")
                continue
            raise CodegenError(f"{spec.name}: cannot build {spec.source}: {exc}") from exc
        text, digest = render_function(spec, expr)
        parts.append(text)
        header.append(f"#   {spec.name}({', '.join(spec.args)}) <- {spec.source} [{spec.result}] sha256:{digest}")
    names = [sp_.name for sp_ in SPECS if f"#   {sp_.name}(" in "\n".join(header)]
    head = [
        "# GENERATED by `python -m infonce_bounds.numerics.codegen` -- DO NOT EDIT.",
        "# Scalar closing formulas printed from derivations/ after the stability rewrites of",
        "# derivations.rewriting; tests/test_codegen.py regenerates this file and fails on any drift.",
        "# Functions (argument order fixed in numerics/codegen.py; expression hash = sha256 of srepr):",
        *header,
        *skipped,
        '"""Generated scalar kernels (see the header); edit derivations/ and rerun infonce_bounds.numerics.codegen."""',
        "",
        "import math  # noqa: F401  (used by the printed expressions)",
        "",
        "from infonce_bounds.numerics._jit import helper",
        "",
        f"__all__ = {names!r}",
        "",
    ]
    return "\n".join(head) + "\n\n" + "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m infonce_bounds.numerics.codegen", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file differs from a fresh render")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        current = TARGET.read_text() if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is out of date: run `python -m infonce_bounds.numerics.codegen`", file=sys.stderr)
            return 1
        print(f"{TARGET} is up to date")
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET} (numerics._jit drops the stale kernel cache on next import)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
