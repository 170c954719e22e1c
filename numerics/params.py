"""The allowed range of every parameter, in one table: the CLI, the Python API and the README read it.

``PARAMETERS[name]`` is a ``Param``: the value's kind (real or integer), its closed or open ends, whether 0 or
``'auto'`` is allowed besides, and why the range is what it is. ``Param.read(value, shown)`` returns the value
exactly (a SymPy rational) or raises a ``ValueError`` that names the parameter *as its caller shows it*:
``--tau`` from the command line, ``tau`` from Python (the caller passes the name; the table never assumes one).
``markdown_table()`` is the README's table of parameters (``tests/test_validate.py`` keeps the two equal).

Where the ranges come from:

* τ ∈ [1e-3, 1e2]: the range on which the catalogue's inequalities behind every printed constant were proved
  (``derivations.symbols.TAU_RANGE``: the bias, continuity, Rademacher and Theorem-1 steps); outside it the
  formulas can still be evaluated, but what they give is no longer a certified bound, and beyond τ ≈ 1e154 the
  float check of a value that underflows fails. Only proved, certifiable values are printed.
* every other real or integer of ``constants`` and ``compare``: a nonzero magnitude in [1e-300, 1e300], the
  range in which each formula is evaluated by the interval route within seconds (an exponent 1/x with
  hundreds of digits stalls it); the lower ends are the derivations' own (k, n, p ≥ 1, β ≥ 1, 0 < δ < 1,
  γτ ≥ 1, L, R ≥ 0).
* ``--digits`` ∈ [1, 40]: the interval ends are computed at 140 bits (about 42 digits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

#: the nonzero magnitudes at which the formulas are evaluated (the positive range of a float)
MAG_LO, MAG_HI = "1e-300", "1e300"
#: the longest number text read (SymPy's parser is quadratic in the length; no parameter needs more)
MAX_TEXT = 400
#: an integer as the k-lists and every integer parameter write it: digits, or digits with a decimal exponent
INTEGER_TEXT = re.compile(r"^\+?(\d+)(?:[eE]\+?(\d{1,3}))?$")


def integer_token(text: object) -> int | None:
    """``text`` read as an integer written ``N`` or ``NeM`` (``1e12``; M ≤ 999), else ``None``."""
    m = INTEGER_TEXT.match(str(text).strip())
    if m is None:
        return None
    return int(m.group(1)) * 10 ** int(m.group(2) or 0)


@dataclass(frozen=True)
class Param:
    """One parameter: ``symbol`` ∈ [lo, hi] (ends open when ``lo_open``/``hi_open``), an integer when ``integer``.

    ``lo_text`` replaces the lower end in the text when it depends on another parameter (γ ≥ 1/τ: that relation is
    checked by the caller, which has τ); ``zero``: 0 is allowed besides [lo, hi]; ``auto``: what the word 'auto'
    means, when it is allowed.
    """

    name: str
    symbol: str
    what: str
    lo: str | None = None
    hi: str | None = None
    integer: bool = False
    lo_open: bool = False
    hi_open: bool = False
    zero: bool = False
    auto: str | None = None
    lo_text: str | None = None
    hi_text: str | None = None
    commands: tuple[str, ...] = ()
    why: str = ""
    default: str | None = None
    hint: str = ""

    def error(self, shown: str, value: Any, how: str = "is out of range") -> ValueError:
        hint = f" ({self.hint})" if self.hint else ""
        return ValueError(f"{shown} = {_short(value)} {how}; allowed: {self.allowed()}{hint}")

    def interval(self) -> str:
        lo = self.lo_text or (self.lo if self.lo is not None else "−∞")
        hi = self.hi_text or (self.hi if self.hi is not None else "∞")
        return f"{'(' if self.lo_open else '['}{lo}, {hi}{')' if self.hi_open or self.hi is None else ']'}"

    def allowed(self) -> str:
        """The allowed values in words: ``τ ∈ [1e-3, 1e2]``, ``an integer k ∈ [1, 1e300]``, ``… or 'auto'``."""
        text = ("an integer " if self.integer else "") + f"{self.symbol} ∈ {self.interval()}"
        if self.zero:
            text = f"{self.symbol} = 0 or " + text
        if self.auto:
            text += ", or 'auto'"
        return text

    def read(self, value: Any, shown: str | None = None):
        """``value`` (a number or its text) as an exact SymPy rational in the allowed range; the string 'auto'
        (any case) is returned as ``"auto"`` when allowed. ``ValueError`` naming ``shown`` (default: the name)."""
        got = self.read_fraction(value, shown)
        if got == "auto":
            return got
        import sympy as sp

        return sp.Integer(got.numerator) if got.denominator == 1 else sp.Rational(got.numerator, got.denominator)

    def read_int(self, value: Any, shown: str | None = None) -> int:
        """An integer parameter as a Python int (no SymPy import: ``verify`` on an unchanged catalogue stays light)."""
        return int(self.read_fraction(value, shown))

    def read_fraction(self, value: Any, shown: str | None = None):
        """``read`` as a ``fractions.Fraction`` (or ``"auto"``)."""
        shown = shown or self.name
        given = value
        if self.auto and isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise self.error(shown, value, f"is {len(value)} characters long")
        if self.integer and isinstance(value, str):
            as_int = integer_token(value)
            if as_int is None:
                raise self.error(shown, given, "is not an integer (write N or NeM, e.g. 256 or 1e12)")
            value = as_int
        val = _fraction_of(value)
        if val is None:
            raise self.error(shown, given, "is not a number")
        if self.integer and val.denominator != 1:
            raise self.error(shown, given, "is not an integer")
        if not self.contains(val):
            raise self.error(shown, given)
        return val

    def contains(self, v: Fraction) -> bool:
        if v == 0 and self.zero:
            return True
        if self.lo is not None:
            lo = Fraction(self.lo)
            if v < lo or (self.lo_open and v == lo):
                return False
        if self.hi is not None:
            hi = Fraction(self.hi)
            if v > hi or (self.hi_open and v == hi):
                return False
        return True


def _fraction_of(value: Any) -> Fraction | None:
    """A finite number exactly as a Fraction (a decimal text or a float as the decimal it prints as: "0.1" and 0.1
    are 1/10); ``None`` for anything that is not one. SymPy and mpmath numbers go through ``certify.exact``."""
    import math
    import numbers
    from decimal import Decimal

    if value is None or isinstance(value, bool) or type(value).__name__ == "bool_":
        return None
    try:
        if isinstance(value, numbers.Integral):
            return Fraction(int(value))
        if isinstance(value, float) or type(value).__module__ == "numpy":
            f = float(value)
            return Fraction(repr(f)) if math.isfinite(f) else None
        if isinstance(value, str) and "/" not in value:
            d = Decimal(value.strip())
            if not d.is_finite():
                return None
            if d and abs(d.adjusted()) > 1000:  # 1e999999999 is out of every range: never build 10^999999999
                return (1 if d > 0 else -1) * Fraction(10) ** (1001 if d.adjusted() > 0 else -1001)
            return Fraction(d)
        if isinstance(value, (Fraction, str)):
            return Fraction(value.strip() if isinstance(value, str) else value)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError):
        return None
    try:  # SymPy, mpmath, Decimal …: the one exact reader of the toolkit
        from .certify import exact

        r = exact(value, "value")
        return Fraction(int(r.p), int(r.q))
    except (ValueError, TypeError, AttributeError):
        return None


def short_int(v: int) -> str:
    """An integer as text, in scientific form beyond 15 digits (``1e+301``)."""
    from decimal import Decimal

    if abs(v) < 10**15:
        return str(v)
    mant, _, exp = f"{Decimal(v):.5e}".partition("e")
    return f"{mant.rstrip('0').rstrip('.')}e{int(exp)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:30] + "…" + f" ({len(text)} characters)"


_BOUND = ("constants", "compare")
_CHECKS = ("verify", "errata", "show --standalone")

#: every parameter, by its Python name (the CLI flag is ``--`` + the name)
PARAMETERS: dict[str, Param] = {
    p.name: p
    for p in (
        Param(
            "tau",
            "τ",
            "temperature",
            "1e-3",
            "1e2",
            commands=(*_BOUND, "constants --paper", "experiment"),
            why="where the inequalities behind every constant were proved (the derivations' TAU_RANGE)",
            hint="where the derivations' inequalities are proved",
            default="0.1 (compare: 0.5)",
        ),
        Param(
            "k",
            "k",
            "negatives per anchor",
            "1",
            MAG_HI,
            integer=True,
            commands=(*_BOUND, "constants --paper"),
            why="k ≥ 1 (the derivations' domain); the interval route evaluates the formulas up to 1e300",
            default="256 (compare: the k-list 1,2,4,...,4096)",
        ),
        Param(
            "gamma",
            "γ",
            "the toolkit's similarity-space exponent (q = γτ/(γτ − 1))",
            MAG_LO,
            MAG_HI,
            lo_text="1/τ",
            auto="the γ minimising the ℓ2-Lipschitz constant of the DCL complexity bound",
            commands=_BOUND,
            why="γτ ≥ 1 (the continuity family); evaluated up to 1e300",
            default="auto",
        ),
        Param(
            "beta",
            "β",
            "the paper's power-mean exponent (Proposition 4)",
            "1",
            MAG_HI,
            auto="Lemma 1's choice 1 ∨ 2/τ",
            commands=(*_BOUND, "constants --paper"),
            why="β ≥ 1 (Proposition 4); evaluated up to 1e300",
            hint="the paper's β of Proposition 4; the toolkit's own exponent is γ, gamma",
            default="auto",
        ),
        Param(
            "n",
            "n",
            "training tuples",
            "1",
            MAG_HI,
            integer=True,
            commands=(*_BOUND, "constants --paper"),
            why="n ≥ 1; evaluated up to 1e300",
            default="50000",
        ),
        Param(
            "delta",
            "δ",
            "confidence",
            MAG_LO,
            "1",
            hi_open=True,
            commands=(*_BOUND, "constants --paper"),
            why="0 < δ < 1; log(1/δ) is evaluated for δ ≥ 1e-300",
            default="0.05",
        ),
        Param(
            "lipschitz",
            "L",
            "Lipschitz constant of θ ↦ φ_θ",
            MAG_LO,
            MAG_HI,
            zero=True,
            commands=_BOUND,
            why="L ≥ 0; nonzero magnitudes in [1e-300, 1e300]",
            default="1",
        ),
        Param(
            "params",
            "p",
            "parameter count (d_Θ)",
            "1",
            MAG_HI,
            integer=True,
            commands=(*_BOUND, "constants --paper"),
            why="p ≥ 1; evaluated up to 1e300",
            default="10000",
        ),
        Param(
            "radius",
            "R",
            "radius of the parameter ball ‖θ‖ ≤ R",
            MAG_LO,
            MAG_HI,
            zero=True,
            commands=_BOUND,
            why="R ≥ 0; nonzero magnitudes in [1e-300, 1e300]",
            default="1",
        ),
        Param(
            "digits",
            "digits",
            "significant digits printed",
            "1",
            "40",
            integer=True,
            commands=_BOUND,
            why="the interval ends are computed at 140 bits (about 42 digits)",
            default="6",
        ),
        Param(
            "exact_digits",
            "digits",
            "digits computed and printed by `exact` (its `--digits`)",
            "5",
            "1000",
            integer=True,
            commands=("exact",),
            why="guard digits need a few; beyond 1000 the enumeration's mpmath arithmetic is slow",
            default="30",
        ),
        Param(
            "a_cov",
            "A",
            "A = eRB_τ(Z_1, …, Z_n)C_Φ (`--set a_cov=A`)",
            MAG_LO,
            MAG_HI,
            commands=("constants --paper",),
            why="A > 0; evaluated for magnitudes in [1e-300, 1e300]",
        ),
        Param(
            "E_w2",
            "E_w2",
            "E\\|dM(Z, ·)/dπ(Z')\\|² (`--set E_w2=S`)",
            "1",
            MAG_HI,
            commands=("constants --paper",),
            why="E_w2 ≥ 1 (a second moment of a density ratio of mean 1)",
        ),
        Param(
            "d_Theta",
            "d_Θ",
            "parameter dimension (`--set d_Theta=D`; default `--params`)",
            "1",
            MAG_HI,
            integer=True,
            commands=("constants --paper",),
            why="d_Θ ≥ 1; evaluated up to 1e300",
        ),
        Param(
            "trials",
            "trials",
            "falsifier trials per inequality",
            "1",
            "1e9",
            integer=True,
            commands=_CHECKS,
            why="at least one trial; 1e9 trials would take days",
            default="100000",
        ),
        Param(
            "seed",
            "seed",
            "falsifier seed",
            "0",
            str(2**63 - 1),
            hi_text="2^63 − 1",
            integer=True,
            commands=("verify", "errata", "experiment"),
            why="numpy's generators take seeds in [0, 2^63 − 1]",
            default="0",
        ),
        Param(
            "workers",
            "workers",
            "worker processes",
            "1",
            "1024",
            integer=True,
            commands=("verify", "experiment"),
            why="at least one (1: no worker process); `experiment` caps it at the usable cores",
            default="2",
        ),
    )
}

#: the ``--set NAME=VALUE`` names of ``constants --paper`` besides the paper constants' own symbols
SET_NAMES = ("a_cov", "E_w2", "d_Theta")


def read(name: str, value: Any, shown: str | None = None):
    """``PARAMETERS[name].read(value, shown)``."""
    return PARAMETERS[name].read(value, shown)


def flag(name: str) -> str:
    return "--" + name


def markdown_table() -> str:
    """The README's table of parameters (between ``<!-- parameter-table:start -->`` and ``…:end -->``)."""
    lines = [
        "| parameter | what | allowed | default | commands | why this range |",
        "|---|---|---|---|---|---|",
    ]
    for p in PARAMETERS.values():
        lines.append(
            f"| `{p.name}` | {p.what} | {p.allowed()} | {p.default or '—'} | "
            f"{', '.join(f'`{c}`' for c in p.commands)} | {p.why} |"
        )
    return "\n".join(lines)
