"""`check --json` gives numbers as JSON numbers (issue 28): a refuted claim's counterexample (its point, both
sides and the gate's Arb enclosures ``[lo, hi]``) as numbers, the exact texts beside it in
``counterexample_text``, as ``verify --json`` gives them."""

from __future__ import annotations

import json
import re

from infonce_bounds.numerics.cli import main

NUMBER = re.compile(r"^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$")


def _numeric_strings(x, path=""):
    """Paths of string values that read as a number, outside a ``…_text`` field."""
    if isinstance(x, dict):
        return [p for k, v in x.items() if not str(k).endswith("_text") for p in _numeric_strings(v, f"{path}.{k}")]
    if isinstance(x, list):
        return [p for i, v in enumerate(x) for p in _numeric_strings(v, f"{path}[{i}]")]
    return [path] if isinstance(x, str) and NUMBER.match(x) else []


def test_check_json_counterexample_is_numbers_with_texts_beside(tmp_path, capsys):
    f = tmp_path / "c.toml"
    f.write_text(
        "[[claim]]\nname = 'tanh cubic'\nclaim = '\\tanh(x) \\le x - \\frac{x^{3}}{4}'\nwhere = { x = [0, 1] }\n\n"
        "[[claim]]\nname = 'two vars'\nclaim = 'x y \\le 1 + \\frac{1}{3}'\nwhere = { x = [0, 2], y = [0, 2] }\n\n"
        "[[claim]]\nname = 'true'\nclaim = 'x^{2} + 1 \\ge 2 x'\nwhere = { x = [-3, 3] }\n"
    )
    assert main(["check", str(f), "--json", "--no-cache", "--workers", "1", "--trials", "500"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert _numeric_strings(out) == []
    by = {c["name"]: c for c in out["claims"]}
    for name in ("tanh cubic", "two vars"):
        cx, text = by[name]["counterexample"], by[name]["counterexample_text"]
        assert by[name]["verdict"] == "refuted"
        for key in ("lhs", "rhs", *(s for s in ("x", "y") if s in cx)):
            assert isinstance(cx[key], float), (key, cx[key])
            assert isinstance(text[key], str) and float(text[key]) == cx[key]
        for key in ("lhs_enclosure", "rhs_enclosure"):
            lo, hi = cx[key]
            assert isinstance(lo, float) and isinstance(hi, float) and lo <= hi
        # the numbers say what the verdict says: lhs above rhs for a claim lhs ≤ rhs
        assert cx["lhs_enclosure"][0] > cx["rhs_enclosure"][1]
        assert cx["relation"] == "<=" and isinstance(cx["bits"], int)
    assert by["true"]["counterexample"] is None and "counterexample_text" not in by["true"]
