"""`check`'s table says what its columns mean (issue 28: a worst ratio of −0.25 was printed with no word on
what a negative ratio means), and an ill-posed claim's point is labelled as the point where a side is
undefined, not as a counterexample."""

from __future__ import annotations

from infonce_bounds.numerics.cli import main


def test_check_table_footer_and_labels(tmp_path, capsys):
    f = tmp_path / "c.toml"
    f.write_text(
        "[[claim]]\nname = 'opposite signs'\nclaim = 'x - 3 \\le x^{2}'\nwhere = { x = [0, 2] }\n\n"
        "[[claim]]\nname = 'log on [-1, 1]'\nclaim = '\\log(x) \\le x'\nwhere = { x = [-1, 1] }\n"
    )
    main(["check", str(f), "--no-cache", "--workers", "1", "--trials", "500"])
    out = capsys.readouterr().out
    rows = {line.split("  ")[0]: line for line in out.splitlines()[2:4]}
    assert "-0.25" in rows["opposite signs"]  # the worst ratio: small side negative wherever big > 0
    assert "UNDEFINED AT x=-1" in rows["log on [-1, 1]"] and "COUNTEREXAMPLE" not in rows["log on [-1, 1]"]
    assert "ill-posed" in rows["log on [-1, 1]"]
    foot = out[out.index("Columns:") :]
    for column in ("claim", "read as", "kind", "verdict", "method", "worst ratio / evidence", "s"):
        assert f"\n  {column} " in foot, column
    assert "Negative: wherever big > 0 the small side was negative" in " ".join(foot.split())
    assert "1 boxes" not in out
