"""Long LaTeX displays broken into lines that fit a page: ``break_lines(tex, width)`` splits a display at its
top-level relations, then sums, then factors, each piece at most ``DISPLAY_WIDTH_PT`` wide as ``_width``
estimates TeX's width of a token tree (``_tree``); ``display`` wraps the lines in ``align*`` (or ``\\[ \\]``
when one line fits), ``break_display`` returns them as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: the width a display may take before it is broken, in points as ``_width`` estimates them (TeX's width is
#: at most 0.97 of the estimate: ``_WIDTH_CALIBRATION``), so a line is at most ~310 pt, and a continued line
#: with its \qquad fits the 320 pt of an enumerate item in the 345 pt column of an article with amsmath and
#: no geometry (what a fragment gets; tests/test_render.py compiles every result and counts overfull boxes)
DISPLAY_WIDTH_PT = 320.0

_TOKEN_RE = re.compile(r"\\[A-Za-z]+\*?|\\.|[{}^_&]|\s+|[^\\{}^_&\s]")
_RELATIONS = {"=", "<", ">", r"\le", r"\ge", r"\leq", r"\geq", r"\ne", r"\neq", r"\approx", r"\sim", r"\simeq"}
_BINARY = {"+", "-", r"\pm", r"\mp"}
#: commands whose following brace groups are arguments (how many), not free groups
_ARGS = {r"\frac": 2, r"\dfrac": 2, r"\tfrac": 2, r"\binom": 2, r"\sqrt": 1, r"\mathrm": 1, r"\mathbf": 1,
         r"\mathcal": 1, r"\operatorname": 1, r"\text": 1, r"\textrm": 1, r"\hat": 1, r"\bar": 1, r"\tilde": 1,
         r"\dot": 1, r"\ddot": 1, r"\overline": 1, r"\underline": 1, r"\mathit": 1, r"\boldsymbol": 1,
         r"\widehat": 1, r"\widetilde": 1, r"\check": 1, r"\vec": 1, r"\mathbb": 1, r"\mathsf": 1,
         r"\mathtt": 1, r"\begin": 1, r"\end": 1}  # fmt: skip
_TEXTUAL = {r"\mathrm", r"\operatorname", r"\text", r"\textrm", r"\mathtt", r"\mathsf", r"\mathit"}
_SPACES = {r"\,": 1.7, r"\:": 2.2, r"\;": 2.8, r"\ ": 3.3, r"\quad": 10.0, r"\qquad": 20.0, r"\!": -1.7}


class _G(list):
    """A brace group ``{…}`` of the token tree."""


def _tree(tex: str) -> list:
    """``tex`` as a token list with brace groups as nested ``_G`` lists (unbalanced input raises ValueError)."""
    stack: list[list] = [[]]
    for tok in _TOKEN_RE.findall(tex):
        if tok == "{":
            stack.append(_G())
        elif tok == "}":
            if len(stack) == 1:
                raise ValueError("unbalanced braces")
            g = stack.pop()
            stack[-1].append(g)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise ValueError("unbalanced braces")
    return stack[0]


def _src(items: Iterable) -> str:
    out = []
    for it in items:
        out.append("{" + _src(it) + "}" if isinstance(it, _G) else it)
    return "".join(out)


def _chars(items: Iterable) -> int:
    return sum(_chars(it) if isinstance(it, _G) else (0 if it.isspace() else len(it)) for it in items)


#: TeX's width of the catalogue's displays over ``_raw_width``'s estimate is at most 1.10 (measured with
#: ``\settowidth`` on 267 pieces of six of the widest derivations): ``_width`` multiplies by this
_WIDTH_CALIBRATION = 1.15


def _width(items: list, scale: float = 1.0) -> float:
    """Estimated width in points of a display at 10 pt, calibrated to over- rather than under-estimate."""
    return _WIDTH_CALIBRATION * _raw_width(items, scale)


def _raw_width(items: list, scale: float = 1.0) -> float:
    """Letters 5.5 pt, a binary operator or relation with its spaces 13.5 pt, scripts at 0.8 of the size (the
    small fonts are relatively wide) and never below 0.65, a fraction as its wider part (its parts at 0.85
    once inside a script)."""
    scale = max(scale, 0.65)  # scriptscript size: sub-subscripts shrink no further (and 5 pt letters are wide)
    w = 0.0
    i = 0
    n = len(items)
    while i < n:
        it = items[i]
        if isinstance(it, _G):
            w += _raw_width(it, scale)
        elif it.isspace() or it in ("&",):
            pass
        elif it in (r"\left", r"\right", r"\middle"):
            i += 1  # the delimiter that follows
            w += 4.5 * scale
        elif it in ("^", "_"):
            nxt = items[i + 1] if i + 1 < n else ""
            w += _raw_width(nxt if isinstance(nxt, _G) else [nxt], scale * 0.8)
            i += 1
        elif it in _SPACES:
            w += _SPACES[it] * scale
        elif it in (r"\frac", r"\dfrac", r"\tfrac", r"\binom"):
            a = items[i + 1] if i + 1 < n else _G()
            b = items[i + 2] if i + 2 < n else _G()
            inner = scale if scale >= 1 else scale * 0.85
            w += max(
                _raw_width(a if isinstance(a, _G) else [a], inner), _raw_width(b if isinstance(b, _G) else [b], inner)
            )
            w += 2.0 * scale
            i += 2
        elif it == r"\sqrt":
            a = items[i + 1] if i + 1 < n else _G()
            w += _raw_width(a if isinstance(a, _G) else [a], scale) + 9.0 * scale
            i += 1
        elif it in _TEXTUAL:
            a = items[i + 1] if i + 1 < n else _G()
            w += 5.5 * scale * (_chars(a) if isinstance(a, _G) else 1)
            i += 1
        elif it in _RELATIONS or it in _BINARY or it in (r"\cdot", r"\times", r"\to", r"\in"):
            w += 13.5 * scale
        elif it.startswith("\\") and it[1:].isalpha() and it not in _ARGS:
            # \tau, \log, \sum, \infty: an operator name takes its letters, a symbol about one letter
            name = it[1:]
            if name in ("log", "exp", "sin", "cos", "max", "min", "sup", "inf", "lim"):
                w += 5.5 * len(name) * scale
            else:
                w += (14.0 if name in ("sum", "prod", "int") else 8.0) * scale
        elif it.startswith("\\") and it not in _ARGS:
            w += 5.5 * scale
        elif it not in _ARGS:
            w += 5.5 * scale
        i += 1
    return w


def _is_group(x) -> bool:
    return isinstance(x, _G)


def _has_top_sum(items: list) -> bool:
    prev = None
    for it in items:
        if not _is_group(it) and it in _BINARY and prev is not None:
            return True
        if not (not _is_group(it) and it.isspace()):
            prev = it
    return False


def _paren(items: list) -> list:
    return [r"\left", "(", *items, r"\right", ")"] if _has_top_sum(items) else list(items)


def _open(items: list, limit: float) -> list:
    r"""Rewrite the parts of ``items`` a line cannot break inside into forms it can break: a fraction wider
    than ``limit`` into (numerator) / (denominator), ``e^{…}`` and ``\sqrt{…}`` wider than ``limit / 2`` into
    ``\exp\left(…\right)`` and ``\left(…\right)^{1/2}``, and a free brace group wider than ``limit``
    (``\log{\left(…\right)}``) into its contents; recursively, so a wide numerator is opened too. The
    mathematics is the same; only its notation changes."""
    out: list = []
    i = 0
    n = len(items)
    while i < n:
        it = items[i]
        nxt = items[i + 1] if i + 1 < n else None
        if not _is_group(it) and it in (r"\frac", r"\dfrac", r"\tfrac") and i + 2 < n:
            a, b = items[i + 1], items[i + 2]
            a = list(a) if _is_group(a) else [a]
            b = list(b) if _is_group(b) else [b]
            if _width([it, _G(a), _G(b)]) > limit:
                out += (
                    _paren(_open(a, limit))
                    + [" ", "/", " "]
                    + ([r"\left", "(", *_open(b, limit), r"\right", ")"] if len(b) > 1 else b)
                )
            else:
                out += [it, _G(a), _G(b)]
            i += 3
            continue
        if not _is_group(it) and it == r"\sqrt" and _is_group(nxt) and _width([it, nxt]) > limit / 2:
            out += [r"\left", "(", *_open(list(nxt), limit), r"\right", ")", "^", _G(["1", "/", "2"])]
            i += 2
            continue
        if (
            not _is_group(it)
            and it == "e"
            and nxt == "^"
            and i + 2 < n
            and _is_group(items[i + 2])
            and _width(list(items[i + 2])) * 0.8 > limit / 2
        ):
            out += [r"\exp", r"\left", "(", *_open(list(items[i + 2]), limit), r"\right", ")"]
            i += 3
            continue
        if _is_group(it):
            prev = next((x for x in reversed(out) if _is_group(x) or not x.isspace()), None)
            bound = prev in ("^", "_") or (not _is_group(prev) and prev is not None and prev in _ARGS)
            if not bound and _width(list(it)) > limit and nxt not in ("^", "_"):
                out += _open(list(it), limit)  # a free group: TeX sees the same mathematics
                i += 1
                continue
            if not bound:
                out.append(_G(_open(list(it), limit)) if _width(list(it)) > limit else it)
                i += 1
                continue
        out.append(it)
        i += 1
    return out


#: what may start a factor of a product, after a closing delimiter or a group: a line may end before it
_FACTOR_STARTS = (r"\left", r"\frac", r"\sqrt", r"\max", r"\min", r"\log", r"\exp", r"\lim", r"\sum", "e")
_OPENERS = ("(", "[", r"\{", "|", r"\|", r"\left", r"\right", "^", "_", ",", "&")


def _segments(items: list) -> list[tuple[list, int, str]]:
    r"""Split ``items`` where a line may end: before every relation and every binary + or − (not a sign),
    kind "op", and between two factors of a product — a closing delimiter or a group followed by
    ``\left`` or a fraction — kind "times". Each segment comes with the depth of ``\left`` … ``\right``
    open at its start."""
    segs: list[tuple[list, int, str]] = []
    cur: list = []
    depth = 0
    start_depth = 0
    kind = "op"
    prev = None
    i = 0
    while i < len(items):
        it = items[i]
        atom = not _is_group(it)
        if cur and atom and (it in _RELATIONS or it in _BINARY or it == "/") and prev is not None:
            if prev not in _OPENERS and prev not in _RELATIONS and prev not in _BINARY:
                segs.append((cur, start_depth, kind))
                cur, start_depth, kind = [], depth, "op"
        elif cur and ((not atom and prev == ")") or (atom and it in _FACTOR_STARTS and prev in (")", "x"))):
            segs.append((cur, start_depth, kind))
            cur, start_depth, kind = [], depth, "times"
        if atom and it in _ARGS:  # a command and its arguments stay on one line
            take = _ARGS[it]
            cur.append(it)
            i += 1
            while take and i < len(items):
                cur.append(items[i])
                take -= _is_group(items[i])
                i += 1
            prev = "x"
            continue
        if atom and it == r"\left":
            depth += 1
            cur += [it, items[i + 1]]
            prev = items[i + 1]
            i += 2
            continue
        if atom and it == r"\right":
            depth -= 1
            cur += [it, items[i + 1]]
            prev = ")"  # a closing delimiter: an operator after it is binary, a factor after it multiplies
            i += 2
            continue
        cur.append(it)
        if not atom:
            prev = "x"
        elif not it.isspace():
            prev = it
        i += 1
        if atom and it == "," and depth > 0:  # between the arguments of max(…, …): the next line goes on
            segs.append((cur, start_depth, kind))
            cur, start_depth, kind = [], depth, "comma"
    if cur:
        segs.append((cur, start_depth, kind))
    return segs


def _depth_after(items: list) -> int:
    d = 0
    for it in items:
        if not _is_group(it):
            d += (it == r"\left") - (it == r"\right")
    return d


def break_lines(tex: str, width: float = DISPLAY_WIDTH_PT) -> list[str]:
    r"""The display ``tex`` (a math-mode body) as lines of at most ``width`` points (estimated), one line when
    it fits. Lines end before a relation or a binary + / − (the next line starts with it), or between two
    factors of a product (the next line starts with ×) — at the top level or inside ``\left(`` …
    ``\right)``, which a line then closes with ``\right.`` and the next reopens with ``\left.``. Parts a
    line cannot break inside are first opened when too wide (``_open``: a fraction as (a) / (b))."""
    try:
        items = _tree(tex)
    except ValueError:
        return [tex]
    if _width(items) <= width:
        return [tex]
    items = _open(items, width * 0.8)
    segs = [
        (seg, d0, kind, _width(seg) + (_width([r"\times"]) if kind == "times" else 0.0))
        for seg, d0, kind in _segments(items)
    ]
    groups: list[list] = []  # the segments of each line
    cur: list = []
    for sg in segs:
        if cur and sum(x[3] for x in cur) + sg[3] > width:
            # end the line at its last + / − / relation / comma when that keeps it at least half full: a
            # product is split only when no sum is at hand
            cut = len(cur)
            if sg[2] == "times":
                soft = [j for j in range(1, len(cur)) if cur[j][2] != "times"]
                if soft and sum(x[3] for x in cur[: soft[-1]]) >= width / 2:
                    cut = soft[-1]
            groups.append(cur[:cut])
            cur = cur[cut:]
            if cur and sum(x[3] for x in cur) + sg[3] > width:
                groups.append(cur)
                cur = []
        cur.append(sg)
    if cur:
        groups.append(cur)
    lines = [([t for x in g for t in x[0]], g[0][1], g[0][2]) for g in groups]
    out = []
    for n_, (line, d0, kind) in enumerate(lines):
        body = _src(line).strip()
        if n_:
            # "{}" keeps a leading + or = binary (its spacing); a product continues with ×
            body = {"times": "{} \\times ", "comma": ""}.get(kind, "{} ") + body
        still_open = d0 + _depth_after(line)
        out.append((r"\left. " * d0) + body + (r" \right." * still_open))
    return out


def break_display(tex: str, width: float = DISPLAY_WIDTH_PT) -> str:
    r"""``tex`` unchanged when it fits in ``width`` points, else its lines (``break_lines``) in an
    ``aligned`` block (amsmath), continued lines indented by ``\qquad``."""
    lines = break_lines(tex, width)
    if len(lines) == 1:
        return lines[0]
    return (
        "\\begin{aligned}\n"
        + " \\\\\n".join(("& " if n_ == 0 else r"& \qquad ") + ln for n_, ln in enumerate(lines))
        + "\n\\end{aligned}"
    )


def display(tex: str, width: float = DISPLAY_WIDTH_PT) -> str:
    r"""A displayed claim: ``\[ tex \]`` when it fits in ``width`` points, else an ``align*`` (amsmath) of
    its lines (``break_lines``), continued lines indented by ``\qquad``, a page break allowed between
    lines (a long display may be taller than a page)."""
    lines = break_lines(tex, width)
    if len(lines) == 1:
        return rf"\[ {lines[0]} \]"
    body = " \\displaybreak[0] \\\\\n".join(("& " if n_ == 0 else r"& \qquad ") + ln for n_, ln in enumerate(lines))
    return "\\begin{align*}\n" + body + "\n\\end{align*}"
