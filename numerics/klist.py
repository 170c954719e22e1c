"""The one syntax for lists of k (numbers of negatives), shared by every subcommand.

A k-list is a comma-separated list of items, each an integer k ≥ 1 written as

* ``N``: the single value N;
* ``A-B``: every integer from A to B;
* ``A..B``: the doubling range A, 2A, 4A, … up to B (B itself when it is reached);
* ``A,B,...,C`` (or ``…``): the geometric progression of ratio B/A continued up to C, with C added
  at the end when the progression does not hit it (the ratio must keep the values integers).

``1-8``, ``1,2,4``, ``1..4096`` and ``1,2,4,...,4096`` are all k-lists. Duplicates are dropped and
the values sorted. The list is never materialised to count it: ``parse_k_list`` refuses a list
longer than ``max_values`` (or with a value above ``max_k``) from its ranges alone, so
``1-300000000`` costs nothing to refuse.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

SYNTAX = (
    "comma-separated items N, A-B (every integer), A..B (doubling) or A,B,...,C (geometric); "
    "each integer written N or NeM (1e12)"
)


@dataclass(frozen=True)
class _Range:
    start: int
    stop: int  # inclusive
    step: int = 1  # arithmetic step (ratio == 1) …
    ratio: int = 1  # … or geometric ratio (> 1)

    def __len__(self) -> int:
        if self.ratio > 1:
            n, v = 0, self.start
            while v <= self.stop:
                n, v = n + 1, v * self.ratio
            return n
        return (self.stop - self.start) // self.step + 1

    def __iter__(self) -> Iterator[int]:
        if self.ratio > 1:
            v = self.start
            while v <= self.stop:
                yield v
                v *= self.ratio
        else:
            yield from range(self.start, self.stop + 1, self.step)


class KList:
    """An increasing list of distinct k ≥ 1, held as ranges until it is iterated."""

    def __init__(self, text: str, ranges: list[_Range]):
        self.text = text
        self._ranges = ranges
        # an upper bound on the length, exact unless ranges overlap (they are merged on iteration)
        self.size_bound = sum(len(r) for r in ranges)

    def __iter__(self) -> Iterator[int]:
        if len(self._ranges) == 1:
            yield from self._ranges[0]
            return
        yield from sorted({v for r in self._ranges for v in r})

    def __len__(self) -> int:
        return self.size_bound if len(self._ranges) == 1 else sum(1 for _ in self)

    @property
    def max(self) -> int:
        return max(r.stop if r.ratio == 1 else list(r)[-1] for r in self._ranges)

    @property
    def min(self) -> int:
        return min(r.start for r in self._ranges)

    def tolist(self) -> list[int]:
        return list(self)

    def __repr__(self) -> str:
        return f"KList({self.text!r})"


def _int(tok: str, flag: str, text: str) -> int:
    """One k of a list, written as every integer parameter is (``numerics.params.integer_token``: 256, 1e12)."""
    from .params import integer_token

    tok = tok.strip()
    v = integer_token(tok)
    if v is None:
        raise ValueError(f"{flag} = {text!r}: {tok!r} is not an integer k ≥ 1; allowed: {SYNTAX}")
    if v < 1:
        raise ValueError(f"{flag} = {text!r}: k = {v} is out of range; allowed: integers k ≥ 1")
    return v


def parse_k_list(text: object, flag: str = "--k", max_values: int | None = None, max_k: int | None = None) -> KList:
    """Parse a k-list (see the module docstring); ``ValueError`` naming ``flag``, the text and the rule."""
    s = str(text).strip()
    if not s:
        raise ValueError(f"{flag} is empty; allowed: {SYNTAX}")
    parts = [p.strip() for p in s.split(",")]
    if any(not p for p in parts):
        raise ValueError(f"{flag} = {s!r} has an empty item; allowed: {SYNTAX}")
    ranges: list[_Range] = []
    singles: list[int] = []  # the last plain values, for a following '...'
    i = 0
    while i < len(parts):
        tok = parts[i]
        if tok in ("...", "…"):
            if len(singles) < 2 or i + 1 >= len(parts):
                raise ValueError(f"{flag} = {s!r}: '...' needs two values before it and one after it")
            a0, a1 = singles[-2], singles[-1]
            end = _int(parts[i + 1], flag, s)
            if a1 <= a0 or a1 % a0:
                raise ValueError(
                    f"{flag} = {s!r}: '...' continues a geometric progression with a whole ratio > 1; "
                    f"{a0}, {a1} has none"
                )
            if end < a1:
                raise ValueError(f"{flag} = {s!r}: '...' ends at {end}, below {a1}")
            ranges.append(_Range(a1, end, ratio=a1 // a0))
            ranges.append(_Range(end, end))
            singles = []
            i += 2
            continue
        if ".." in tok:
            lo_s, _, hi_s = tok.partition("..")
            lo, hi = _int(lo_s, flag, s), _int(hi_s, flag, s)
            if hi < lo:
                raise ValueError(f"{flag} = {s!r}: the range {tok!r} is empty (upper end below lower end)")
            ranges.append(_Range(lo, hi, ratio=2))
            singles = []
        elif "-" in tok.lstrip("+"):
            lo_s, _, hi_s = tok.partition("-")
            lo, hi = _int(lo_s, flag, s), _int(hi_s, flag, s)
            if hi < lo:
                raise ValueError(f"{flag} = {s!r}: the range {tok!r} is empty (upper end below lower end)")
            ranges.append(_Range(lo, hi))
            singles = []
        else:
            v = _int(tok, flag, s)
            ranges.append(_Range(v, v))
            singles.append(v)
        i += 1
    out = KList(s, ranges)
    if max_k is not None:
        top = max(r.stop for r in ranges)
        if top > max_k:
            from .params import short_int

            raise ValueError(f"{flag} = {s!r} reaches k = {short_int(top)}; allowed here: k ≤ {short_int(max_k)}")
    if max_values is not None and out.size_bound > max_values:
        raise ValueError(f"{flag} = {s!r} gives {out.size_bound} values; allowed here: at most {max_values}")
    return out
