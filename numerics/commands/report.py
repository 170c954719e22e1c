"""``infonce-bounds report [--out DIR]``: the main job; one Markdown report with plots beside it.

Sections are registered in ``SECTIONS`` (title → "module:function"); each function takes
``(out_dir: pathlib.Path, args)`` and returns Markdown. Defaults are realistic and stated:
τ = 0.1, k = 256, n = 50 000, δ = 0.05.
"""

from __future__ import annotations

import importlib
import pathlib
import platform
import sys
import time

HELP = "the main job: verify every derivation and write a Markdown report (default ./report)"

#: section title → "module:function"; order is the order in the report
SECTIONS: dict[str, str] = {
    "Verified derivations": "infonce_bounds.numerics.commands.report:section_derivations",
    "Bound constants (certified)": "infonce_bounds.numerics.commands.constants:section_constants",
    "Finite-k bias on the example model": "infonce_bounds.numerics.commands.exact:section_finite_bias",
    "Theorem-1 components and prior bounds against k": "infonce_bounds.numerics.commands.compare:section_compare",
    "Experiments (quick forms)": "infonce_bounds.numerics.commands.experiment:report_section",
}

DEFAULTS = {"tau": 0.1, "k": 256, "n": 50_000, "delta": 0.05}


def add_arguments(p) -> None:
    p.add_argument("--out", default="report", help="output directory (default ./report)")
    # the same default budget as `verify`: the report's verify pass is then answered by the cache a
    # `verify` run left (and the budget it runs is the one the tests exercise, see tests/test_cache.py)
    p.add_argument(
        "--trials",
        type=int,
        default=None,
        help="falsifier trials per inequality in the report's verify pass (default: the same as `verify`, "
        "100000, so that both share the verify cache)",
    )
    p.add_argument("--quick", action="store_true", help="smallest sizes everywhere (used by the tests)")
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="check the report's verify pass on the Dask cluster at ADDRESS (as `verify --scheduler`)",
    )
    p.add_argument("--pdf", action="store_true", help="also write REPORT.pdf beside REPORT.md (needs pdflatex)")


#: the report's derivations table: (column head, what it means), the meanings printed under the table
DERIVATION_COLUMNS = (
    ("result", "the derivation (`infonce-bounds show RESULT` prints it step by step)"),
    ("source", "paper (a result the paper prints), ours (this toolkit's own) or classical (a textbook fact)"),
    ("steps", "how many steps the derivation has, definitions included"),
    (
        "proved (symbolic / interval)",
        "steps proved, and how: by SymPy (symbolic reduction) / by certified interval arithmetic over the whole "
        "stated domain (a step can be both)",
    ),
    ("verified numerically", "steps with no proof where the falsifier found no violation"),
    ("refuted", "steps shown false by an exact counterexample (for the paper: its printed steps, as expected)"),
    ("worst ratio", "the largest worst ratio over the result's steps (below); — when none of them has one"),
)


def errata_counts() -> dict:
    """The paper's errata as ``infonce-bounds errata`` lists them (``derivations.paper.errata()``, the function
    that command runs): how many, and how many of them a printed step shows false. Read from the list, never
    typed, so the report's prose cannot drift from the command."""
    from infonce_bounds.derivations import paper

    rows = paper.errata()
    with_step = sum(bool(e.printed_step) for e in rows)
    return {"count": len(rows), "printed_step": with_step, "textual": len(rows) - with_step}


def derivations_footer() -> str:
    """What each column of the report's derivations table means, with the worst ratio's sign convention."""
    from .verify import WORST_RATIO_MEANING

    return "\n".join(
        ["Columns:", ""] + [f"- **{c}**: {text}" for c, text in DERIVATION_COLUMNS] + ["", f"The {WORST_RATIO_MEANING}"]
    )


def section_derivations(out: pathlib.Path, args) -> str:
    from .verify import verify_all

    summary = verify_all([], args.trials, None, progress=True, scheduler=getattr(args, "scheduler", None))
    trials = summary.get("options", {}).get("trials", args.trials)
    lines = ["| " + " | ".join(c for c, _ in DERIVATION_COLUMNS) + " |", "|" + "---|" * len(DERIVATION_COLUMNS)]
    by: dict[str, list] = {}
    for r in summary["results"]:
        by.setdefault(r["result"], []).append(r)
    for name, rows in by.items():
        ratios = [r["worst_ratio"] for r in rows if r["worst_ratio"] is not None]
        lines.append(
            f"| `{name}` | {rows[0]['source']} | {len(rows)} | "
            f"{sum(r['verdict'] == 'proved' for r in rows)} ({sum(r['symbolic'] for r in rows)} / "
            f"{sum(r['certified'] for r in rows)}) | {sum(r['verdict'] == 'verified numerically' for r in rows)} | "
            f"{sum(r['verdict'] == 'refuted' for r in rows)} | {f'{max(ratios):.4g}' if ratios else '—'} |"
        )
    # a printed step false as expected is an erratum of the paper, not a failure of the toolkit
    expected_false = "printed steps of the paper false, as expected"
    c: dict[str, int] = {}
    for r in summary["results"]:
        key = expected_false if r.get("expected") and r.get("as_expected") else r["verdict"]
        c[key] = c.get(key, 0) + 1
    er = errata_counts()
    errata = (
        f"The paper's errata (`infonce-bounds errata`): {er['count']}, {er['printed_step']} of them shown false "
        f"by a printed step checked here, {er['textual']} textual (a misprint, an undefined symbol or an unstated "
        "constant, with no step to check)."
    )
    args.summary.append(
        f"**Derivations:** {len(summary['results'])} steps of {len(by)} results checked: "
        + ", ".join(f"{v} {k}" for k, v in c.items())
        + f" ({summary['symbolic']} by SymPy, {summary['certified']} by certified interval arithmetic). "
        + errata
    )
    cache = summary.get("cache") or {}
    how = (
        f"answered from the verify cache in {summary['seconds']:.1f} s (catalogue unchanged)"
        if cache.get("catalogue_hit")
        else f"checked in {summary['seconds']:.1f} s ({cache.get('cached', 0)} from the verify cache)"
    )
    head = (
        f"{len(summary['results'])} steps {how}, {trials} falsifier trials per inequality: "
        + ", ".join(f"{v} {k}" for k, v in c.items())
        + ". "
        + errata
    )
    return (
        head
        + "\n\n"
        + "\n".join(lines)
        + "\n\n"
        + derivations_footer()
        + "\n\nRun `infonce-bounds verify` for the step-by-step table "
        "and `infonce-bounds show RESULT` for a derivation.\n"
    )


def _experiment_findings(out: pathlib.Path) -> list[str]:
    """The headline numbers of the experiments' quick forms, read back from their JSON files."""
    import json

    lines = []
    rate = out / "experiments" / "rate.json"
    if rate.exists():
        con = json.loads(rate.read_text())["conclusion"]
        slopes = ", ".join(f"{m} {v:.3f}" for m, v in con["slopes"].items())
        lines.append(
            f"**Rate (quick form):** log-log slope of R̃ − CE (the DCL risk R̃ with k negatives): {slopes} (the paper: −1; earlier work: −1/2)."
        )
    gen = out / "experiments" / "generalisation.json"
    if gen.exists():
        note = json.loads(gen.read_text())["note"]
        lines.append(f"**Generalisation (quick form, digits):** {note}")
    return lines


def run(args) -> int:
    if args.trials is not None and args.trials < 1:
        raise ValueError(f"--trials must be ≥ 1, got {args.trials}")
    if getattr(args, "scheduler", None) is not None:  # a bad address: one line, exit 2, before the long run
        from infonce_bounds.derivations.run.dask_backend import connect

        connect(args.scheduler).close()
    if getattr(args, "pdf", False):
        from ..latex import LatexError, have_pdflatex

        if not have_pdflatex():  # say so before the long run, not after it
            raise LatexError("--pdf needs pdflatex on PATH (Debian: texlive-latex-base texlive-latex-recommended)")
    out = pathlib.Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"--out {str(out)!r} cannot be written: {exc.strerror or exc}") from None
    t0 = time.perf_counter()
    args.summary = []  # one-line findings that sections add for the report's opening summary
    args.quick_lane = None  # the second process of quick experiments (commands.experiment.QuickLane), once started
    parts = []
    try:
        from .experiment import prepare_quick_lane, start_quick_lane

        prepare_quick_lane(args)
        for title, target in SECTIONS.items():
            mod_name, fn_name = target.split(":")
            fn = getattr(importlib.import_module(mod_name), fn_name)
            t1 = time.perf_counter()
            body = fn(out, args)
            parts.append(f"## {title}\n\n{body}\n_(section built in {time.perf_counter() - t1:.1f} s)_\n")
            if target == SECTIONS["Verified derivations"]:
                # after the verify pass (which keeps both cores busy when it checks), not before: the second
                # lane of quick experiments then runs beside the sections that follow
                start_quick_lane(out, args)
    except BaseException:
        lane = getattr(args, "quick_lane", None)
        if lane is not None:
            lane.close(failed=True)
        raise
    took = time.perf_counter() - t0
    header = (
        f"# infonce-bounds report\n\nBuilt in {took:.1f} s on {platform.node() or 'this machine'} "
        f"(Python {platform.python_version()}). Defaults: τ = {DEFAULTS['tau']}, k = {DEFAULTS['k']}, "
        f"n = {DEFAULTS['n']}, δ = {DEFAULTS['delta']}.\n\n"
        "Paper: N. Whiteley, *Similarity search generalisation in contrastive learning with InfoNCE loss*, "
        "arXiv 2607.09405. Statements marked *paper* are the paper's, as printed (with its numbers); "
        "constants marked *ours* are this toolkit's own derivations.\n"
    )
    findings = args.summary + _experiment_findings(out)
    opening = "## Summary\n\n" + "\n".join(f"- {x}" for x in findings) + "\n" if findings else ""
    path = out / "REPORT.md"
    tmp = out / "REPORT.md.partial"
    tmp.write_text(header + "\n" + opening + "\n" + "\n".join(parts))
    tmp.replace(path)  # never leave a partial report looking complete
    print(f"wrote {path} in {took:.1f} s", file=sys.stderr)
    print(path)
    if getattr(args, "pdf", False):
        from ..latex import markdown_document, pdflatex

        pdf = pdflatex(markdown_document(path.read_text()), out / "REPORT.pdf", resources=out)
        print(f"wrote {pdf}", file=sys.stderr)
        print(pdf)
    return 0
