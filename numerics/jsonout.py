"""Certified numbers as JSON numbers: what ``--json`` of ``constants``, ``compare``, ``verify`` and ``exact`` prints.

A certified interval [lo, hi] is given as two JSON numbers, ``lo`` rounded *down* and ``hi`` rounded *up* to the
nearest float (so the printed interval still contains the value, and an upper end is never understated), and
the certified upper end (``value``) as a number rounded up. The decimal text the tables print is kept beside
each (``value_text``, ``interval_text``), and exact rationals (parameters, exact values) as strings beside their
numbers (``…_exact``). A value beyond the float range (e^{2000} at τ = 1e-3) has no JSON number: it is
``null`` there, and its text says what it is.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any


def _fraction(text: Any) -> Fraction | None:
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        return Fraction(text) if math.isfinite(text) else None
    try:
        return Fraction(Decimal(str(text).strip())) if "/" not in str(text) else Fraction(str(text).strip())
    except (InvalidOperation, ValueError, ZeroDivisionError, OverflowError):
        return None


def up(text: Any) -> float | None:
    """The least float ≥ the number ``text`` (decimal or ``p/q``); ``None`` if none is finite or it is no number."""
    x = _fraction(text)
    if x is None:
        return None
    try:
        f = float(x)
    except OverflowError:
        return None
    if Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    return f if math.isfinite(f) else None


def down(text: Any) -> float | None:
    """The greatest float ≤ the number ``text``; ``None`` if none is finite or it is no number."""
    x = _fraction(text)
    if x is None:
        return None
    try:
        f = float(x)
    except OverflowError:
        return None
    if Fraction(f) > x:
        f = math.nextafter(f, -math.inf)
    return f if math.isfinite(f) else None


def nearest(text: Any) -> float | None:
    """The number nearest to an exact number (a parameter, an exact value): not a bound, so no direction; an
    integer written as one (``"256"``, not ``"0.0"``) that a float holds exactly stays an integer."""
    x = _fraction(text)
    if x is None:
        return None
    written_int = isinstance(text, int) or (isinstance(text, str) and text.strip().lstrip("+-").isdigit())
    if written_int and abs(x.numerator) <= 2**53:
        return int(x.numerator)
    try:
        f = float(x)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def interval(pair: Any) -> list[float | None] | None:
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        return None
    return [down(pair[0]), up(pair[1])]


def certified(row: dict, value: str = "value", pair: str = "interval", lower: tuple[str, ...] = ()) -> dict:
    """``row`` with ``value`` (an upper end) and ``pair`` (an interval) as numbers, their texts beside them; the keys
    in ``lower`` (lower ends, e.g. a certified ratio) rounded down."""
    out = dict(row)
    if value in row and isinstance(row[value], str):
        out[value] = up(row[value])
        out[value + "_text"] = row[value]
    if pair in row and isinstance(row[pair], (list, tuple)):
        out[pair] = interval(row[pair])
        out[pair + "_text"] = list(row[pair])
    for key in lower:
        if isinstance(row.get(key), str):
            out[key] = down(row[key])
            out[key + "_text"] = row[key]
    return out


def exact_parameters(parameters: dict) -> tuple[dict, dict]:
    """``{name: exact text}`` → (``{name: nearest float}``, the texts)."""
    return {name: nearest(v) for name, v in parameters.items()}, dict(parameters)


def constants_json(data: dict, values: dict | None = None) -> dict:
    """``constants --json`` (and ``infonce_bounds.constants``): rows with numbers; parameters as numbers and texts."""
    out = dict(data)
    out["parameters"], out["parameters_exact"] = exact_parameters(data["parameters"])
    out["rows"] = [certified(r) for r in data["rows"]]
    t1 = data.get("theorem1")
    if t1:
        out["theorem1"] = {key: (up(v) if key != "active" else v) for key, v in t1.items()}
        out["theorem1_text"] = dict(t1)
    return out


def compare_json(rows: list[dict]) -> list[dict]:
    """``compare --json``'s rows: each column's ``upper`` up, ``lo`` down, ``interval`` [down, up], texts beside."""
    out = []
    for r in rows:
        row = {}
        for key, v in r.items():
            if isinstance(v, dict) and "upper" in v:
                cell = certified(v, value="upper", lower=("lo",))
                row[key] = cell
            elif key == "gamma":
                row[key], row["gamma_exact"] = nearest(v), v
            else:
                row[key] = v
        out.append(row)
    return out


#: what a gate counterexample says beside its point (checks/refute.py): the two sides' Arb enclosures, the
#: relation, whether the sides were shown exactly equal, the working precision; an exact construction's
#: refutation (paper/eq13_a2.py) also names its check and carries further enclosures (``…_enclosure``)
GATE_KEYS = ("lhs_enclosure", "rhs_enclosure", "relation", "equal_exactly", "bits", "check")


def _point(values: dict) -> tuple[dict, dict]:
    """A point ``{name: exact text}`` (a counterexample) → (numbers, the texts); a value no float holds is null.
    The gate's enclosures become ``[lo, hi]`` numbers; its relation, flag and precision pass as they are."""
    nums = {}
    for k, v in values.items():
        if k.endswith("_enclosure") and isinstance(v, (list, tuple)):
            nums[k] = [nearest(e) if isinstance(e, str) else e for e in v]
        elif k in GATE_KEYS:
            nums[k] = v
        else:
            nums[k] = nearest(v) if isinstance(v, str) else v
    return nums, dict(values)


def _box(box: dict) -> tuple[dict, dict]:
    """A box ``{name: [lo, hi]}`` (what a verdict covers or attacked; ends as text, ``oo`` unbounded) → (numbers, the
    texts); an unbounded end is null in the numbers."""
    nums = {
        name: [nearest(e) if isinstance(e, str) else e for e in ends] if isinstance(ends, (list, tuple)) else ends
        for name, ends in box.items()
    }
    return nums, dict(box)


def verdict_json(row: dict) -> dict:
    """One verdict row (``verify``, ``errata``): the counterexample and the boxes as numbers, their texts beside."""
    out = dict(row)
    if isinstance(row.get("counterexample"), dict):
        out["counterexample"], out["counterexample_text"] = _point(row["counterexample"])
    for key in ("covered", "attacked"):
        if isinstance(row.get(key), dict):
            out[key], out[key + "_text"] = _box(row[key])
    return out


def check_json(out: dict) -> dict:
    """``check --json``: each claim's counterexample as numbers (the gate's enclosures ``[lo, hi]``), its exact
    texts beside it (``counterexample_text``), as ``verify --json`` gives them; the Python ``check`` keeps the
    texts."""
    claims = []
    for c in out["claims"]:
        row = dict(c)
        if isinstance(c.get("counterexample"), dict):
            row["counterexample"], row["counterexample_text"] = _point(c["counterexample"])
        claims.append(row)
    return {**out, "claims": claims}


def verify_json(summary: dict) -> dict:
    """``verify --json``: every row through ``verdict_json``."""
    return {**summary, "results": [verdict_json(r) for r in summary["results"]]}


def exact_json(out: dict) -> dict:
    """``exact --json``: every value (computed to ``digits`` digits) as a number, the digits as text beside it
    (``text``), τ as a number and as its exact rational (``tau_exact``)."""
    res = dict(out)
    res["tau"], res["tau_exact"] = nearest(out["tau"]), out["tau"]
    res["CE"], res["CE_text"] = nearest(out["CE"]), out["CE"]
    res["Z"], res["Z_text"] = [nearest(z) for z in out["Z"]], list(out["Z"])
    rows = []
    for r in out["by_k"]:
        row = {key: (nearest(v) if isinstance(v, str) else v) for key, v in r.items()}
        row["text"] = {key: v for key, v in r.items() if isinstance(v, str)}
        rows.append(row)
    res["by_k"] = rows
    return res


def paper_json(data: dict) -> dict:
    """``constants --paper --json``: upper ends (paper, ours, each Theorem-1 term) rounded up, the certified ratio
    paper/ours (a lower end) rounded down, intervals outward; texts and exact parameters beside them."""
    out = dict(data)
    out["parameters"], out["parameters_exact"] = exact_parameters(data["parameters"])
    rows = []
    for r in data["rows"]:
        row = certified(r, value="paper", pair="paper_interval", lower=("ratio",))
        row = certified(row, value="ours", pair="ours_interval")
        rows.append(row)
    out["rows"] = rows
    t1 = data.get("theorem1")
    if isinstance(t1, dict):
        t = certified(t1, value="trivial", pair="trivial_interval")
        if isinstance(t1.get("parameters"), dict):
            t["parameters"], t["parameters_exact"] = exact_parameters(t1["parameters"])
        if isinstance(t1.get("versions"), list):
            versions = []
            for v in t1["versions"]:
                w = certified(v, value="bound", pair="interval")
                for key in ("complexity", "variability", "bias", "trivial", "capped"):
                    if isinstance(v.get(key), str):
                        w[key], w[key + "_text"] = up(v[key]), v[key]
                versions.append(w)
            t["versions"] = versions
        out["theorem1"] = t
    return out
