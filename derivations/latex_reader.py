r"""The toolkit's own LaTeX reader: a claim's text → the SymPy expression it states, nothing evaluated first.

``read_latex(text, defines={})`` returns an *unevaluated* SymPy tree (``evaluate=False`` throughout) built
from a lark Earley parse of an unambiguous grammar; ``evaluate_tree`` then evaluates it once, bottom-up. No
reading is ever chosen by what it evaluates to: a string the grammar reads two ways raises ``LatexReadError``
showing both readings. The rules, each independent of values:

* ``\log`` and ``\ln`` are natural; ``\log_2 x`` and ``\log_{b} x`` are ``log x / log b``.
* A function's bracketed argument ends at its closing bracket: ``\log(1 + u) - u`` is ``log(1 + u) − u``,
  ``\log(a)(b)`` is ``log(a)·b``. ``\log^{2}(x)`` and ``\cosh^{2}(x)`` are ``log(x)²`` and ``cosh(x)²``;
  ``\log(x)^{2}`` is ``log(x)²`` too.
* An unbracketed argument is the run of *atoms* that follows (numbers, names, constants, ``\frac``,
  ``\sqrt``, ``|…|``, each with its power), up to the next ``+``, ``−``, ``\cdot``, ``\times``, ``/``,
  relation or function: ``\log x^{2}`` is ``log(x²)``, ``\sin 2\pi x`` is ``sin(2πx)``, ``\log x \log y`` is
  ``log(x)·log(y)``, ``\log \log x`` is ``log(log x)``. A bracket group after such a run (``\log x (1 + y)``)
  is refused, showing both readings.
* ``\sum``/``\prod``/``\lim`` apply to the rest of their product: up to the next ``+``, ``−`` or relation.
* Juxtaposition is multiplication (``2 (p - q)^{2}``, ``10^{-12} x^{8}``, ``(1 + u) \log(1 + u)``); single
  letters are separate symbols (``xy`` is ``x·y``). ``a / b c`` is refused (``a/(bc)`` or ``(a/b)c``?);
  ``a / b / c`` is ``(a/b)/c``.
* Numbers are exact: ``0.1`` is 1/10, ``10^{-20}`` is 10⁻²⁰. ``x^23`` is ``x²·3`` (LaTeX takes one
  character after ``^`` or ``_``).
* Names: a letter or a Greek command (``\lambda`` → ``lambda``), with a subscript that is a name or a number
  (``s_1``, ``s_j``, ``s_{j}``, ``\tau_{0}``, ``x_{ij}``) becoming part of the name (``s_j``). A superscript that
  is only a sign or a star cannot be a power and is part of the name: ``z^{+}`` → ``z_plus``, ``z^{-}`` →
  ``z_minus``, ``x^{*}`` → ``x_star`` (in ``\lim_{x \to a^{+}}`` it is the side of the limit).
* ``e`` is the symbol ``e`` (made Euler's number by the claim reader unless ranged), ``\pi`` is π,
  ``\infty`` is ∞; the capital letter ``O`` followed by a bracket is the order symbol ``O(…)``.
* ``\left``/``\right``/``\big``/``\Big``/``\bigg``/``\Bigg`` (and their ``l``/``r`` forms), spacing commands,
  ``\displaystyle``, ``\limits`` and a final ``.`` or ``,`` are dropped.
* Functions the file defines (``defines``: ``{"\\sigma": (("x",), "\\frac{1}{1+e^{-x}}")}``) are expanded
  where they are called, with the argument read first; ``\operatorname{softplus}`` and
  ``\operatorname{sigmoid}`` are predefined.
* Relations ``\le \leq < \ge \geq > =``; ``\ne`` is refused; one relation per claim.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

__all__ = ["LatexReadError", "read_latex", "evaluate_tree", "parse_define_key", "BUILTIN_DEFINES", "FUNCTIONS"]


class LatexReadError(ValueError):
    """The text is not LaTeX this reader understands, or it reads two ways (both are in the message)."""


FUNCTIONS = {
    "log": sp.log,
    "ln": sp.log,
    "exp": sp.exp,
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "cot": sp.cot,
    "sec": sp.sec,
    "csc": sp.csc,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "coth": sp.coth,
    "arcsin": sp.asin,
    "arccos": sp.acos,
    "arctan": sp.atan,
    "max": sp.Max,
    "min": sp.Min,
}
_MULTI = ("max", "min")
GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi rho varrho "
    "sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Sigma Upsilon Phi Psi Omega"
).split()

#: name → (parameters, body): functions every claim file knows (the file's ``[define]`` may add more)
BUILTIN_DEFINES = {
    r"\operatorname{softplus}": (("x",), r"\log(1 + e^{x})"),
    r"\operatorname{sigmoid}": (("x",), r"\frac{1}{1 + e^{-x}}"),
}

_W = r"(?![A-Za-z])"
GRAMMAR = rf"""
start: expr (relop expr)*
relop: REL | EQ
expr: SIGN? term (SIGN term)*
term: item (MULOP? item)*
item: atom sup? BANG?     -> item
    | FUNC fsub? sup?     -> func_head
    | OPNAME sup?         -> op_head
    | BIGOP "_" "{{" name_plain EQ expr "}}" "^" suparg  -> bigop_head
    | LIM "_" "{{" name_plain TO limpoint "}}"            -> lim_head
?atom: NUMBER                   -> number
    | name
    | CONST                     -> const
    | "(" exprlist ")"          -> paren
    | "[" exprlist "]"          -> paren
    | LCURLY exprlist RCURLY    -> paren
    | "{{" expr "}}"              -> brace
    | "|" expr "|"              -> absval
    | LVERT expr RVERT          -> absval
    | NORM expr NORM            -> absval
    | FRAC arg arg              -> frac
    | SQRT ("[" expr "]")? arg  -> sqrt
    | BINOM arg arg             -> binom
exprlist: expr ("," expr)*
arg: "{{" expr "}}" | LETTER | GREEKCMD | NUMBER | CONST
name: name_plain signsup?
name_plain: (LETTER | GREEKCMD) subscr?
subscr: "_" (LETTER | GREEKCMD | "{{" (LETTER | NUMBER | GREEKCMD)+ "}}")
signsup: "^" "{{" (SIGN | MULOP) "}}"
sup: "^" suparg
suparg: "{{" expr "}}" | LETTER | GREEKCMD | CONST
fsub: "_" ("{{" expr "}}" | LETTER | GREEKCMD | NUMBER)
limpoint: SIGN? (NUMBER | CONST | name_plain | FRAC arg arg) limdir?
limdir: "^" "{{" SIGN "}}"

REL: /\\(le|ge|ne){_W}/ | "<" | ">"
EQ: "="
SIGN: "+" | "-"
MULOP: /\\(cdot|times){_W}/ | "/" | "*"
BANG: "!"
TO: /\\to{_W}/
NUMBER: /\d+(\.\d+)?/
LETTER: /[A-Za-z]/
GREEKCMD: /\\({"|".join(GREEK)}){_W}/
CONST: /\\(pi|infty){_W}/
FUNC: /\\({"|".join(FUNCTIONS)}){_W}/
OPNAME: /\\operatorname\{{[A-Za-z]+\}}/
BIGOP: /\\(sum|prod){_W}/
LIM: /\\lim{_W}/
FRAC: /\\frac{_W}/
SQRT: /\\sqrt{_W}/
BINOM: /\\binom{_W}/
LCURLY: "\\{{"
RCURLY: "\\}}"
LVERT: /\\lvert{_W}/
RVERT: /\\rvert{_W}/
NORM: "\\|"
%import common.WS
%ignore WS
"""


@functools.lru_cache(maxsize=1)
def _parser():
    from lark import Lark

    # Earley with explicit ambiguity: a second reading is reported, never chosen between
    return Lark(GRAMMAR, parser="earley", lexer="basic", ambiguity="explicit", propagate_positions=False)


_SIZE = r"\\(?:left|right|bigl|bigr|bigm|big|Bigl|Bigr|Bigm|Big|biggl|biggr|biggm|bigg|Biggl|Biggr|Biggm|Bigg)(?![A-Za-z])\s*"
_DROP = r"\\(?:displaystyle|textstyle|limits|nolimits|quad|qquad)(?![A-Za-z])|\\[,;:! ]|~"
_ALIASES = [
    (r"\\leqslant(?![A-Za-z])", r"\\le "),
    (r"\\geqslant(?![A-Za-z])", r"\\ge "),
    (r"\\leq(?![A-Za-z])", r"\\le "),
    (r"\\geq(?![A-Za-z])", r"\\ge "),
    (r"\\neq(?![A-Za-z])", r"\\ne "),
    (r"\\lt(?![A-Za-z])", "<"),
    (r"\\gt(?![A-Za-z])", ">"),
    (r"\\rightarrow(?![A-Za-z])", r"\\to "),
    (r"\\[dt]frac(?![A-Za-z])", r"\\frac"),
    (r"\\mathrm\{e\}", "e"),
    (r"\\(?:lVert|rVert|Vert)(?![A-Za-z])", r"\\|"),
    (r"\\vert(?![A-Za-z])", "|"),
]


def normalise(text: str, tex_digits: bool = True) -> str:
    """The spelling rules applied before parsing (sizes, spacing, aliases, one character after ^ and _).

    ``tex_digits=False`` leaves ``x^23`` alone (the second reader gets the text so, and reads ``x^{23}``: the
    cross-check then refuses the claim, showing both readings)."""
    t = re.sub(_SIZE, "", text)
    t = re.sub(_DROP, " ", t)
    for pat, rep in _ALIASES:
        t = re.sub(pat, rep, t)
    if tex_digits:
        t = re.sub(r"([\^_])\s*(\d)", r"\1{\2}", t)  # x^23 is x^{2} 3, as TeX reads it
    t = re.sub(r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}", t)
    t = re.sub(r"[.,]\s*$", "", t.strip())  # the full stop or comma that ends a display
    return t


# ----------------------------------------------------------------------------- building blocks


def _add(*terms):
    return sp.Add(*terms, evaluate=False) if len(terms) > 1 else terms[0]


def _neg(x):
    return sp.Mul(sp.S.NegativeOne, x, evaluate=False)


def _mul(*factors):
    return sp.Mul(*factors, evaluate=False) if len(factors) > 1 else factors[0]


def _pow(b, e):
    return sp.Pow(b, e, evaluate=False)


def _div(a, b):
    return _mul(a, _pow(b, sp.S.NegativeOne))


@dataclass
class Item:
    """One factor of a product: ``kind`` is atom | group | call | name | other."""

    kind: str
    value: Any = None  # a SymPy expression, or for a group the tuple of its entries
    sup: Any = None
    bang: bool = False
    fname: str | None = None  # a name that may be called: "O" or a defined function
    text: str = ""

    def expr(self):
        if self.kind == "group":
            if len(self.value) != 1:
                raise LatexReadError(f"a list ({', '.join(map(str, self.value))}) where a value is expected")
            v = self.value[0]
        else:
            v = self.value
        return self._post(v)

    def _post(self, v):
        if self.sup is not None:
            v = _pow(v, self.sup)
        if self.bang:
            v = sp.factorial(v, evaluate=False)
        return v


@dataclass
class Head:
    """A function, big operator or limit waiting for its argument."""

    kind: str  # func | bigop | lim
    name: str = ""
    sub: Any = None
    sup: Any = None
    limits: tuple = ()
    text: str = ""
    extra: dict = field(default_factory=dict)


def parse_define_key(key: str) -> tuple[str, tuple[str, ...]]:
    r"""``"\\sigma(x)"`` → ``("\\sigma", ("x",))``; ``"\\operatorname{sp}(x, y)"``, ``"f(t)"`` likewise."""
    m = re.match(r"^\s*(\\operatorname\{[A-Za-z]+\}|\\[A-Za-z]+|[A-Za-z])\s*\((.*)\)\s*$", key)
    if not m:
        raise LatexReadError(f"{key!r} is not a function head with parameters, e.g. '\\sigma(x)'")
    params = tuple(_norm_name(p_) for p_ in m.group(2).split(","))
    if not params or not all(re.match(r"^[A-Za-z][A-Za-z0-9_]*$", p_) for p_ in params):
        raise LatexReadError(f"{key!r}: parameters must be names, e.g. '\\sigma(x)' or 'f(x, y)'")
    head = m.group(1)
    if head.startswith("\\") and not head.startswith("\\operatorname") and head[1:] not in GREEK:
        raise LatexReadError(f"{key!r}: a defined function is a letter, a Greek letter or \\operatorname{{name}}")
    return head, params


def _norm_name(s: str) -> str:
    return re.sub(r"[\\{}\s]", "", s)


class _Builder:
    """Lark tree → unevaluated SymPy. ``env`` maps parameter names to arguments while a definition expands."""

    def __init__(self, defines: dict[str, tuple[tuple[str, ...], Any]], env: dict[str, Any] | None = None, depth=0):
        self.defines = defines
        self.env = env or {}
        self.depth = depth

    # -- dispatch
    def build(self, t):
        return getattr(self, "t_" + t.data)(t)

    def t_start(self, t):
        sides = [self.build(c) for c in t.children if getattr(c, "data", None) == "expr"]
        ops = [c for c in t.children if getattr(c, "data", None) == "relop"]
        if not ops:
            return sides[0]
        if len(ops) > 1:
            raise LatexReadError("a chain of relations: state one relation per claim (split a ≤ b ≤ c in two)")
        op = str(ops[0].children[0])
        rel = {"\\le": sp.Le, "\\ge": sp.Ge, "<": sp.Lt, ">": sp.Gt, "=": sp.Eq}.get(op)
        if rel is None:
            raise LatexReadError("≠ is not a claim the checkers decide; use =, ≤, <, ≥ or >")
        return rel(sides[0], sides[1], evaluate=False)

    def t_expr(self, t):
        terms, sign = [], "+"
        for c in t.children:
            if isinstance(c, str):  # a SIGN token
                sign = str(c)
                continue
            v = self.build(c)
            terms.append(_neg(v) if sign == "-" else v)
            sign = "+"
        return _add(*terms)

    def t_exprlist(self, t):
        return tuple(self.build(c) for c in t.children)

    # -- atoms
    def t_number(self, t):
        return sp.Rational(str(t.children[0]))  # the decimal as written, exactly

    def t_const(self, t):
        return {"\\pi": sp.pi, "\\infty": sp.oo}[str(t.children[0])]

    def t_name_plain(self, t):
        base = str(t.children[0]).lstrip("\\")
        if len(t.children) > 1:
            sub = "".join(str(c).lstrip("\\") for c in t.children[1].children)
            base += "_" + sub
        return base

    def t_name(self, t):
        name = self.t_name_plain(t.children[0])
        if len(t.children) > 1:
            mark = str(t.children[1].children[0])
            if mark not in ("+", "-", "*"):
                raise LatexReadError(f"^{{{mark}}} after a name: only ^{{+}}, ^{{-}} and ^{{*}} mark a name")
            name += {"+": "_plus", "-": "_minus", "*": "_star"}[mark]
        return name

    def t_arg(self, t):
        c = t.children[0]
        if not isinstance(c, str):
            return self.build(c)
        tok = str(c)
        if c.type == "NUMBER":
            return sp.Rational(tok)
        if c.type == "CONST":
            return {"\\pi": sp.pi, "\\infty": sp.oo}[tok]
        return self._symbol(tok.lstrip("\\"))

    t_suparg = t_arg

    def _symbol(self, name: str):
        return self.env[name] if name in self.env else sp.Symbol(name)

    def _atom(self, t) -> Item:
        kind = t.data
        ch = t.children
        if kind == "number":
            return Item("atom", self.t_number(t))
        if kind == "const":
            return Item("atom", self.t_const(t))
        if kind == "name":
            name = self.t_name(t)
            raw = str(ch[0].children[0])
            plain = len(ch[0].children) == 1 and len(ch) == 1
            callable_ = None
            if plain and raw in self.defines:
                callable_ = raw
            elif plain and raw == "O" and "O" not in self.env:
                callable_ = "O"
            return Item("atom", self._symbol(name), fname=callable_, text=name)
        if kind == "paren":
            return Item("group", self.build(ch[-2] if len(ch) == 3 else ch[0]))
        if kind == "brace":
            return Item("group", (self.build(ch[0]),))
        if kind == "absval":
            inner = [c for c in ch if not isinstance(c, str)][0]
            return Item("atom", sp.Abs(self.build(inner), evaluate=False))
        if kind == "frac":
            a, b = (self.build(c) for c in ch if not isinstance(c, str))
            return Item("atom", _div(a, b))
        if kind == "sqrt":
            parts = [self.build(c) for c in ch if not isinstance(c, str)]
            if len(parts) == 2:
                return Item("atom", _pow(parts[1], _pow(parts[0], sp.S.NegativeOne)))
            return Item("atom", _pow(parts[0], sp.S.Half))
        if kind == "binom":
            a, b = (self.build(c) for c in ch if not isinstance(c, str))
            return Item("atom", sp.binomial(a, b, evaluate=False))
        raise LatexReadError(f"unexpected {kind}")  # pragma: no cover - the grammar has no other atoms

    def _item(self, t):
        if t.data == "item":
            it = self._atom(t.children[0])
            for c in t.children[1:]:
                if isinstance(c, str):
                    it.bang = True
                else:
                    it.sup = self.build(c.children[0])
            if it.kind == "group" and (it.sup is not None or it.bang) and it.fname is None:
                pass  # kept as a group: a function right before it takes it as its argument
            return it
        if t.data == "func_head":
            name = str(t.children[0]).lstrip("\\")
            head = Head("func", name)
            for c in t.children[1:]:
                if c.data == "fsub":
                    head.sub = self.t_arg(c)
                else:
                    head.sup = self.build(c.children[0])
            if head.sub is not None and name != "log":
                raise LatexReadError(f"\\{name}_{{…}}: only \\log takes a base")
            return head
        if t.data == "op_head":
            name = str(t.children[0])
            if name not in self.defines:
                raise LatexReadError(f"unknown function {name}: define it in the file's [define] table")
            head = Head("func", name)
            if len(t.children) > 1:
                head.sup = self.build(t.children[1].children[0])
            return head
        if t.data == "bigop_head":
            op, var, _eq, lo, hi = t.children
            return Head(
                "bigop",
                str(op).lstrip("\\"),
                limits=(sp.Symbol(self.t_name_plain(var)), self.build(lo), self.build(hi)),
            )
        if t.data == "lim_head":
            _lim, var, _to, point = t.children
            return Head("lim", limits=(sp.Symbol(self.t_name_plain(var)),), extra=self._limpoint(point))
        raise LatexReadError(f"unexpected {t.data}")  # pragma: no cover

    def _limpoint(self, t):
        sign, value, direction = "+", None, None
        ch = list(t.children)
        if ch and isinstance(ch[0], str) and ch[0].type == "SIGN":
            sign = str(ch.pop(0))
        if ch and getattr(ch[-1], "data", None) == "limdir":
            direction = str(ch.pop().children[0])
        first = ch[0]
        if isinstance(first, str) and first.type == "NUMBER":
            value = sp.Rational(str(first))
        elif isinstance(first, str) and first.type == "CONST":
            value = {"\\pi": sp.pi, "\\infty": sp.oo}[str(first)]
        elif isinstance(first, str) and first.type == "FRAC":
            value = _div(self.build(ch[1]), self.build(ch[2]))
        else:
            value = self._symbol(self.t_name_plain(first))
        if sign == "-":
            value = _neg(value)
        return {"point": value, "dir": direction}

    # -- products
    def t_term(self, t):
        seq = []
        for c in t.children:
            if isinstance(c, str):  # MULOP
                seq.append(str(c))
            else:
                seq.append(self._item(c))
        return self.fold(seq)

    def fold(self, seq: list) -> Any:
        if not seq or isinstance(seq[0], str):
            raise LatexReadError("an operator with nothing before it")
        # 1. a big operator or a limit applies to the rest of its product
        for i, x in enumerate(seq):
            if isinstance(x, Head) and x.kind in ("bigop", "lim"):
                rest = seq[i + 1 :]
                if not rest or isinstance(rest[0], str):
                    raise LatexReadError(f"\\{x.name or 'lim'} has nothing to apply to")
                body = self.fold(rest)
                if x.kind == "bigop":
                    cls = sp.Sum if x.name == "sum" else sp.Product
                    value = cls(body, x.limits)
                else:
                    value = self._limit(body, x)
                seq = seq[:i] + [Item("other", value)]
                break
        # 2. functions, right to left, so that \log \log x is log(log x)
        i = len(seq) - 1
        while i >= 0:
            x = seq[i]
            if isinstance(x, Head) and x.kind == "func":
                seq[i : self._apply_end(seq, i)] = [Item("call", self._apply(seq, i))]
            elif isinstance(x, Item) and x.fname is not None and x.sup is None and not x.bang:
                nxt = seq[i + 1] if i + 1 < len(seq) else None
                if isinstance(nxt, Item) and nxt.kind == "group":
                    if x.fname == "O":
                        value = sp.Function("O")(*nxt.value)
                    else:
                        value = self._call_defined(x.fname, nxt.value)
                    seq[i : i + 2] = [Item("call", nxt._post(value))]
                elif x.fname != "O":
                    raise LatexReadError(f"{x.fname} is a function defined in the file: write {x.fname}(…)")
            i -= 1
        # 3. the product, left to right
        out = None
        i = 0
        while i < len(seq):
            x = seq[i]
            if isinstance(x, str):
                if i + 1 >= len(seq) or isinstance(seq[i + 1], str):
                    raise LatexReadError(f"{x} with nothing after it")
                y = seq[i + 1]
                if x == "/" and i + 2 < len(seq) and not isinstance(seq[i + 2], str):
                    z = seq[i + 2]
                    one = _div(out, _mul(y.expr(), z.expr()))
                    two = _mul(_div(out, y.expr()), z.expr())
                    raise LatexReadError(
                        f"a / b c reads two ways: {_show(one)} or {_show(two)}; write \\frac{{…}}{{…}} or brackets"
                    )
                out = _div(out, y.expr()) if x == "/" else _mul(out, y.expr())
                i += 2
                continue
            out = x.expr() if out is None else _mul(out, x.expr())
            i += 1
        return out

    def _apply_end(self, seq, i):
        return self._arg_span(seq, i)[1]

    def _arg_span(self, seq, i):
        """(kind, end): the items seq[i+1:end] are the argument of the function at seq[i]."""
        head = seq[i]
        nxt = seq[i + 1] if i + 1 < len(seq) else None
        if isinstance(nxt, Item) and nxt.kind == "group":
            return "group", i + 2
        if head.name in _MULTI:
            raise LatexReadError(f"\\{head.name} needs its arguments in brackets: \\{head.name}(a, b)")
        if isinstance(nxt, Item) and nxt.kind in ("call", "other"):  # \log \log x, \log \sum_j …
            return "call", i + 2
        if not (isinstance(nxt, Item) and nxt.kind == "atom"):
            raise LatexReadError(f"{_head_text(head)} has no argument")
        j = i + 1
        while j < len(seq) and isinstance(seq[j], Item) and seq[j].kind == "atom" and seq[j].fname is None:
            j += 1
        if j < len(seq) and isinstance(seq[j], Item) and seq[j].kind == "group":
            arg = _mul(*[s_.expr() for s_ in seq[i + 1 : j]])
            grp = seq[j].expr()
            f = self._fn(head)
            raise LatexReadError(
                f"{_head_text(head)} without brackets before a bracket reads two ways: "
                f"{_show(f(_mul(arg, grp)))} or {_show(_mul(f(arg), grp))}; put the argument in brackets"
            )
        return "atoms", j

    def _fn(self, head):
        if head.name in self.defines:
            return lambda a: self._call_defined(head.name, (a,))
        f = FUNCTIONS[head.name]
        if head.name == "log" and head.sub is not None:
            return lambda a: _div(sp.log(a, evaluate=False), sp.log(head.sub, evaluate=False))
        return lambda a: f(a, evaluate=False)

    def _apply(self, seq, i):
        head = seq[i]
        if head.sup is not None and head.sup.is_number and evaluate_tree(head.sup) == -1:
            raise LatexReadError(
                f"{_head_text(head)}^{{-1}} reads two ways: the inverse function or 1/{_head_text(head)}; "
                f"write \\frac{{1}}{{{_head_text(head)}(…)}} or the inverse by name"
            )
        kind, end = self._arg_span(seq, i)
        if kind == "group":
            grp = seq[i + 1]
            args = grp.value
            if head.name in self.defines:
                value = self._call_defined(head.name, args)
            elif head.name in _MULTI:
                value = FUNCTIONS[head.name](*args, evaluate=False)
            else:
                if len(args) != 1:
                    raise LatexReadError(f"{_head_text(head)} takes one argument, got {len(args)}")
                value = self._fn(head)(args[0])
            if head.sup is not None and grp.sup is not None:
                raise LatexReadError(f"{_head_text(head)} has two powers")
            return grp._post(_pow(value, head.sup) if head.sup is not None else value)
        arg = seq[i + 1].expr() if kind == "call" else _mul(*[s_.expr() for s_ in seq[i + 1 : end]])
        value = self._fn(head)(arg)
        return _pow(value, head.sup) if head.sup is not None else value

    def _call_defined(self, name, args):
        params, body = self.defines[name]
        if len(args) != len(params):
            raise LatexReadError(f"{name} takes {len(params)} argument(s), got {len(args)}")
        if self.depth > 20:
            raise LatexReadError(f"{name}: definitions nested more than 20 deep (a definition that calls itself?)")
        inner = _Builder(self.defines, dict(zip(params, args)), self.depth + 1)
        return inner.build(body.children[0]) if body.data == "start" else inner.build(body)

    def _limit(self, body, head):
        var = head.limits[0]
        point, d = head.extra["point"], head.extra["dir"]
        if point == sp.oo:
            direction = "-"
        elif point == -sp.oo:
            direction = "+"
        else:
            direction = d or "+-"
        return sp.Limit(body, var, point, direction)


def _head_text(head: Head) -> str:
    return head.name if head.name.startswith("\\") else "\\" + head.name


def _show(e) -> str:
    try:
        return str(evaluate_tree(e))
    except Exception:  # a reading that fails to evaluate is shown as built
        return str(e)


def _collect_ambiguities(tree, out):
    from lark import Tree

    if isinstance(tree, Tree):
        if tree.data == "_ambig":
            out.append(tree)
        for c in tree.children:
            _collect_ambiguities(c, out)


def _choose(tree, pick: int):
    """A copy of the tree with every ambiguity resolved to alternative ``pick`` (0 or 1): for the message only."""
    from lark import Tree

    if not isinstance(tree, Tree):
        return tree
    if tree.data == "_ambig":
        return _choose(tree.children[min(pick, len(tree.children) - 1)], pick)
    return Tree(tree.data, [_choose(c, pick) for c in tree.children])


def parse_tree(text: str):
    """The lark tree of one text (after ``normalise``); ``LatexReadError`` on a syntax error."""
    from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput

    src = normalise(text)
    bare = re.search(r"\\(sum|prod)(?![A-Za-z])(?!\s*_\s*\{[^{}]*=[^{}]*\}\s*\^)", src)
    if bare:  # the checkers need the index and both ends: the vector's length is the upper one
        raise LatexReadError(f"\\{bare.group(1)} needs its bounds: \\{bare.group(1)}_{{j=1}}^{{k}}")
    try:
        return _parser().parse(src)
    except UnexpectedCharacters as exc:
        bad = src[exc.pos_in_stream :].split()[0] if src[exc.pos_in_stream :].split() else src[exc.pos_in_stream :]
        cmd = re.match(r"\\[A-Za-z]+", src[exc.pos_in_stream :])
        what = f"unknown command {cmd.group(0)}" if cmd else f"unexpected {bad[:12]!r}"
        raise LatexReadError(f"{what} at column {exc.column}") from None
    except UnexpectedInput as exc:
        tok = getattr(exc, "token", None)
        if tok is None or not str(tok) or getattr(exc, "column", -1) in (-1, None):
            raise LatexReadError("unexpected end of the formula (an unclosed bracket?)") from None
        raise LatexReadError(f"unexpected {str(tok)!r} at column {exc.column}") from None
    except LarkError as exc:  # pragma: no cover - any other parser failure, one line
        raise LatexReadError(str(exc).strip().splitlines()[0]) from None


def compile_defines(defines: dict[str, str] | None) -> dict[str, tuple[tuple[str, ...], Any]]:
    """``{"\\sigma(x)": "body"}`` → ``{"\\sigma": (("x",), tree)}``, the built-ins included; bodies parsed once."""
    out: dict[str, tuple[tuple[str, ...], Any]] = {}
    for key, (params, body) in BUILTIN_DEFINES.items():
        out[key] = (params, parse_tree(body))
    for key, body in (defines or {}).items():
        head, params = parse_define_key(key)
        if not isinstance(body, str) or not body.strip():
            raise LatexReadError(f"{key!r}: the body must be a non-empty LaTeX string")
        out[head] = (params, parse_tree(body))
        amb: list = []
        _collect_ambiguities(out[head][1], amb)
        if amb:
            raise LatexReadError(f"{key!r}: the body reads two ways")
    return out


def read_latex(text: str, defines: dict[str, tuple[tuple[str, ...], Any]] | None = None) -> sp.Basic:
    """The unevaluated SymPy tree of ``text``; ``defines`` from ``compile_defines`` (default: the built-ins)."""
    if defines is None:
        defines = compile_defines(None)
    tree = parse_tree(text)
    amb: list = []
    _collect_ambiguities(tree, amb)
    if amb:
        readings = []
        for pick in (0, 1):
            try:
                readings.append(_show(_Builder(defines).build(_choose(tree, pick))))
            except LatexReadError as exc:
                readings.append(f"(not a formula: {exc})")
        raise LatexReadError(f"reads two ways: {readings[0]} or {readings[1]}; add brackets")
    try:
        return _Builder(defines).build(tree)
    except LatexReadError:
        raise
    except Exception as exc:  # a shape the builder does not expect: refused, never a traceback
        raise LatexReadError(f"not understood ({exc.__class__.__name__}: {' '.join(str(exc).split())})") from None


def evaluate_tree(e: sp.Basic) -> sp.Basic:
    """Evaluate an unevaluated tree once, bottom-up; a relation keeps its two sides (``x² ≥ 0`` stays a claim)."""
    if isinstance(e, sp.core.relational.Relational):
        return type(e)(evaluate_tree(e.lhs), evaluate_tree(e.rhs), evaluate=False)
    if not e.args or isinstance(e, (sp.Symbol, sp.Number, sp.NumberSymbol)):
        return e
    args = [evaluate_tree(a) if isinstance(a, sp.Basic) else a for a in e.args]
    if isinstance(e, (sp.Sum, sp.Product, sp.Limit)):
        return type(e)(*args)
    return e.func(*args)
