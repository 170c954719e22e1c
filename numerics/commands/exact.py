"""``infonce-bounds exact MODEL.json --k 1-8 [--digits 30] [--json]``: exact finite-model values.

Enumerates the multinomial compositions of the k i.i.d. negatives (``numerics.finite``) and prints
CE, Z(x), R_k, R_std,k, H_k (when defined), the finite-k gap R_k − CE against the expansion terms
and the rigorous bound C(τ)/k of ``derivations.bias``.
"""

from __future__ import annotations

import json
import sys

import mpmath

from ..finite import FiniteModel, parse_k_spec, to_json

HELP = "exact R_k, R_std,k, H_k and the finite-k bias of a finite-state model (enumeration, mpmath)"


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL.json", help="model file with keys tau, pi, M, phi (entries numbers "
                   "or exact strings such as \"3/11\")")
    p.add_argument("--k", default="1-8", help="values of k: a range 1-8, a list 1,2,4 or both (default 1-8)")
    p.add_argument("--digits", type=int, default=30, help="significant digits of the output (default 30)")
    p.add_argument("--json", action="store_true", help="print one JSON object, numbers as decimal strings")
    p.add_argument("--no-search", action="store_true", help="skip H_k (the similarity-search cross-entropy)")


def run(args) -> int:
    if args.digits < 5 or args.digits > 1000:
        raise ValueError(f"--digits must be in [5, 1000], got {args.digits}")
    ks = parse_k_spec(args.k)
    model = FiniteModel.from_json(args.model)
    res = model.evaluate(ks, digits=args.digits, search=not args.no_search)
    if args.json:
        print(json.dumps(to_json(res, args.digits), indent=1))
        return 0
    d = min(args.digits, 12)

    def f(v):
        return "—" if v is None else mpmath.nstr(v, d)

    print(f"model {res['model']}: N = {model.N}, τ = {res['tau']}; exact enumeration at {args.digits} digits")
    print(f"CE = {mpmath.nstr(res['CE'], args.digits)}")
    for i, z_ in enumerate(res["Z"]):
        print(f"Z({i}) = {mpmath.nstr(z_, args.digits)}")
    head = ("k", "R_k", "R_std_k", "H_k", "R_k − CE", "lead1", "lead2", "−C(τ)/k")
    rows = [(str(r["k"]), f(r["R_k"]), f(r["R_std_k"]), f(r["H_k"]), f(r["gap"]), f(r["lead1"]), f(r["lead2"]),
             f(-r["bound"])) for r in res["by_k"]]
    widths = [max(len(x[i]) for x in [head, *rows]) for i in range(len(head))]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for row in rows:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
    if res.get("h_k_note"):
        print(res["h_k_note"], file=sys.stderr)
    return 0
