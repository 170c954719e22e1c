"""The soundness suite (issue 25): every claim checked on its own, and no claim may get a verdict that lies.

Three files: the two benchmark files of ``../shared/claims-bench`` (``soundness.toml``: the verdict each
must get; ``public.toml``: steps of standard proofs) and ``tests/data/soundness_adversarial.toml`` (63
claims of the same kinds, written here). The rules, for every claim:

* a false claim (``expect = "refuted"``) is refuted, never proved or verified;
* a true claim (``"proved"`` or ``"holds"``) is never refuted or called ill-posed, and does not crash;
  ``soundness.toml``'s ``"proved"`` claims must be proved;
* a claim undefined somewhere in its domain (``"ill-posed"``) is reported ill-posed;
* every counterexample replays: its point lies in the stated domain.

The truth of each adversarial false or ill-posed claim is decided here without the engine: its ``truth``
field, a Python expression in mpmath, must hold at its exact ``witness`` point at 400 digits.
"""

from __future__ import annotations

import pathlib
import re

import mpmath
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, as a package (the [check] extra)
    import tomli as tomllib

from infonce_bounds.derivations import userclaims

ROOT = pathlib.Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "claims-bench"
ADVERSARIAL = ROOT / "tests" / "data" / "soundness_adversarial.toml"
#: fields of the suite's own files that are not claim fields
EXTRA = ("expect", "witness", "why", "truth")


def _claims(path: pathlib.Path) -> list[tuple[str, dict, str]]:
    """``(id, raw TOML block, expect)`` per claim; the raw block keeps decimals exactly as written."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    out = []
    for block in re.split(r"(?m)^\[\[claim\]\]\s*$", text)[1:]:
        meta = tomllib.loads(block)
        out.append((f"{path.stem}: {meta['name']}", block, meta))
    return out


CASES = [*_claims(BENCH / "soundness.toml"), *_claims(BENCH / "public.toml"), *_claims(ADVERSARIAL)]


def _strip(block: str) -> str:
    """The claim block without the suite's own fields (each is one line)."""
    return "\n".join(ln for ln in block.splitlines() if not re.match(rf"^\s*({'|'.join(EXTRA)})\s*=", ln))


def test_the_suite_is_complete():
    if not BENCH.exists():
        pytest.skip(f"{BENCH} is absent (CI lays ../shared beside the clone)")
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names))
    assert sum(1 for c in CASES if c[0].startswith("soundness_adversarial")) >= 60


@pytest.mark.parametrize(
    ("cid", "block", "meta"), [c for c in CASES if "truth" in c[2]], ids=[c[0] for c in CASES if "truth" in c[2]]
)
def test_truth_is_decided_independently(cid, block, meta):
    """The adversarial file's false and ill-posed claims are false (undefined) at their witness, in mpmath."""
    with mpmath.workdps(400):
        env = {"mp": mpmath.mp, "mpf": mpmath.mpf}
        for name, val in meta["witness"].items():
            env["lam" if name == "lambda" else name] = mpmath.e if val == "E" else mpmath.mpf(mpmath.fraction(*_q(val)))
        assert eval(meta["truth"], env), cid  # noqa: S307 - the suite's own expressions


def _q(val: str) -> tuple[int, int]:
    num, _, den = val.partition("/")
    return int(num), int(den or 1)


@pytest.mark.parametrize(("cid", "block", "meta"), CASES, ids=[c[0] for c in CASES])
def test_no_verdict_lies(cid, block, meta):
    out = userclaims.check("[[claim]]\n" + _strip(block))
    (row,) = out["claims"]
    verdict, expect = row["verdict"], meta["expect"]
    shown = f"{cid}: {verdict} ({row.get('method', '')[:200]}; {str(row.get('evidence', ''))[:200]})"
    assert verdict not in ("error",), shown
    if expect == "refuted":
        assert verdict == "refuted", shown
        assert row["counterexample"], shown
    elif expect == "ill-posed":
        assert verdict == "ill-posed", shown
    elif expect == "refuted-or-undecided":
        assert verdict in ("refuted", "undecided"), shown
    else:
        assert verdict not in ("refuted", "ill-posed"), shown
        if expect == "proved" and cid.startswith("soundness:"):
            assert verdict == "proved", shown
