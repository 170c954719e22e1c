"""Print the scalar closing formulas of ``derivations/`` into committed numba source:
``numerics/_generated/constants.py``.

One source of truth: each generated function is a SymPy expression taken from a named interface of
``derivations`` (``loss.dcl_from_logit``, ``loss.infonce_from_logit``, ``loss.standard_from_logit``,
their derivatives in ``c``,
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
import importlib
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


def _loss():
    return importlib.import_module("infonce_bounds.derivations.loss")


def _continuity():
    return importlib.import_module("infonce_bounds.derivations.continuity")


SPECS: tuple[Spec, ...] = (
    Spec(
        "dcl_from_logit",
        ("c", "k"),
        lambda: _loss().dcl_from_logit(S.c, S.k),
        "derivations.loss.dcl_from_logit",
        "loss / ℓ̃ from the logit: ℓ̃ = c − log k",
        "ℓ̃ = c − log k, the DCL loss (paper §3.4) from the logit c = log Σ_j e^{(s_j − s⁺)/τ}.",
    ),
    Spec(
        "infonce_from_logit",
        ("c", "k"),
        lambda: _loss().infonce_from_logit(S.c, S.k),
        "derivations.loss.infonce_from_logit",
        "loss / ℓ from the logit: ℓ = log(1 + e^c) − log k",
        "ℓ = log(1 + e^c) − log k, the paper's InfoNCE loss (14) from the logit (stable softplus).",
    ),
    Spec(
        "standard_from_logit",
        ("c",),
        lambda: _loss().standard_from_logit(S.c),
        "derivations.loss.standard_from_logit",
        "loss / ℓ_std from the logit: ℓ_std = log(1 + e^c)",
        "ℓ_std = log(1 + e^c), the standard (SimCLR) InfoNCE loss from the logit (stable softplus).",
    ),
    Spec(
        "dcl_dlogit",
        ("c", "k"),
        lambda: sp.diff(_loss().dcl_from_logit(S.c, S.k), S.c),
        "d/dc derivations.loss.dcl_from_logit",
        "loss / ℓ̃ from the logit: ℓ̃ = c − log k",
        "∂ℓ̃/∂c = 1 (the gradient kernels multiply the softmax weights by it).",
    ),
    Spec(
        "infonce_dlogit",
        ("c", "k"),
        lambda: sp.diff(_loss().infonce_from_logit(S.c, S.k), S.c),
        "d/dc derivations.loss.infonce_from_logit",
        "loss / ℓ from the logit: ℓ = log(1 + e^c) − log k",
        "∂ℓ/∂c = e^c/(1 + e^c), the logistic of the logit (stable form).",
    ),
    Spec(
        "standard_dlogit",
        ("c",),
        lambda: sp.diff(_loss().standard_from_logit(S.c), S.c),
        "d/dc derivations.loss.standard_from_logit",
        "loss / ℓ_std from the logit: ℓ_std = log(1 + e^c)",
        "∂ℓ_std/∂c = e^c/(1 + e^c), the logistic of the logit (stable form).",
    ),
    Spec(
        "data_factor",
        ("lam_gamma", "lam_tau", "gamma", "tau"),
        lambda: _continuity().data_factor(S.lam_gamma, S.lam_tau, S.gamma, S.tau),
        "derivations.continuity.data_factor",
        "continuity / data-dependent factor: D_r(w) = exp(Λ(γ; z)/(γτ) − Λ(1/τ; z)), γ = r/τ",
        "exp(Λ(γ; z)/(γτ) − Λ(1/τ; z)), the data-dependent continuity factor, from Λ at b = γ and b = 1/τ.",
        optional=True,
    ),
)


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
