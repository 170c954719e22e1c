"""``infonce-bounds compare``: Theorem-1 components and the prior bounds against k, with a log-log plot.

For each k: our three components (sample variability, complexity penalty from the averaging γ
family of the DCL loss, finite-k bias) and their sum; the max-type complexity penalty (ℓ∞ continuity bound) for
contrast; and the prior bounds as we reconstruct them (``derivations.prior``: the O(k^{-1/2})
large-k deviation, the k-linear and the log-k complexity penalties). Every number is the upper end
of a certified interval. The closing note quotes both complexity penalties at k = 1, 64, 4096.
"""

from __future__ import annotations

import pathlib
import sys

import mpmath
import sympy as sp

from infonce_bounds.derivations.symbols import gamma, k, tau

from ..certify import certify, exact_str, short_str
from ..klist import SYNTAX, parse_k_list
from .constants import LOSS_LABELS, add_parameter_arguments, auto_gamma, loss_name, validate_params

HELP = "Theorem-1 components and prior bounds against k (certified), with a log-log PNG plot"

DEFAULT_K = "1,2,4,...,4096"
#: compare's default τ: 0.5 (SimCLR's range is 0.1–0.5). At τ = 0.1 the averaging only pays once
#: k ≫ e^{20}, so the flattening the paper describes is invisible on k ≤ 4096; use --tau 0.1 to see that.
DEFAULT_TAU = "0.5"
NOTE_K = (1, 64, 4096)

#: column key → (header, provenance, where to ``show`` it, builder name)
COLUMNS = {
    "sample_variability": ("sample var.", "ours"),
    "complexity_avg": ("2Rad averaged", "ours"),
    "complexity_max": ("2Rad max-type", "ours"),
    "complexity_direct": ("2Rad direct (k-free)", "ours"),
    "finite_k_bias": ("bias min(C/k, D)", "ours"),
    "bound": ("Theorem 1", "ours"),
    "trivial": ("trivial cap", "ours"),
    "capped": ("min(bound, trivial)", "ours"),
    "large_k_deviation": ("prior: k^-1/2 deviation", "ours (reconstruction)"),
    "complexity_klinear": ("prior: k-linear", "ours (reconstruction)"),
    "complexity_logk": ("prior: log-k (const=1)", "ours (reconstruction)"),
}


def add_arguments(p) -> None:
    add_parameter_arguments(p, k_default=None, tau_default=DEFAULT_TAU)
    p.add_argument(
        "--k",
        default=DEFAULT_K,
        help=f"k values: {SYNTAX} (default {DEFAULT_K})",
    )
    p.add_argument("--plot", default="compare.png", help="PNG file for the log-log plot (default compare.png)")
    p.add_argument("--no-plot", action="store_true", help="do not write the plot")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _exprs(loss: str) -> dict[str, sp.Expr | None]:
    from infonce_bounds.derivations import prior, theorem

    out: dict[str, sp.Expr | None] = {"sample_variability": theorem.sample_variability(loss)}
    for key, fn in (
        ("complexity_avg", theorem.complexity_term),
        ("complexity_max", theorem.complexity_max_term),
        ("complexity_direct", theorem.complexity_direct_term),
        ("finite_k_bias", theorem.bias_term),
    ):
        try:
            out[key] = fn()
        except (ImportError, AttributeError):
            out[key] = None
    parts = [out["sample_variability"], out["complexity_avg"], out["finite_k_bias"]]
    out["bound"] = sp.Add(*parts) if all(x is not None for x in parts) else None
    out["trivial"] = theorem.trivial_bound(loss)  # data-free cap on CE − R̂_n (issue 13)
    out["capped"] = sp.Min(out["bound"], out["trivial"]) if out["bound"] is not None else None
    out.update(prior.prior_terms())
    return out


def table(values: dict, ks: list[int], gamma_mode: str, loss: str, digits: int = 4) -> list[dict]:
    """One dict per k: ``{"k", "gamma", key: {"upper", "lo", "log10"} | None}`` for every column."""
    exprs = _exprs(loss)
    rows = []
    for kv in ks:
        vals = dict(values)
        vals[k] = sp.Integer(kv)
        if gamma_mode == "auto":
            vals[gamma] = auto_gamma(vals[tau], vals[k]).value
        row = {"k": kv, "gamma": str(vals[gamma])}
        for key, expr in exprs.items():
            if expr is None:
                row[key] = None
                continue
            c = certify(expr, {s: v for s, v in vals.items() if s in expr.free_symbols}, name=key)
            row[key] = {
                "upper": c.upper_str(digits),
                "lo": c.lower_str(digits),
                "log10": float(mpmath.log10(c.hi)) if c.hi > 0 else None,
                "float_in_interval": c.float_in_interval,
                "interval": [c.lower_str(digits), c.upper_str(digits)],
            }
        if row.get("bound") and row.get("trivial"):  # which term attains min(bound, trivial)
            from .constants import active_term

            row["active"] = active_term(row["bound"], row["trivial"])
        rows.append(row)
    return rows


def closing_note(values: dict, gamma_mode: str, loss: str, rows: list[dict] | None = None) -> tuple[str, dict]:
    """The averaged vs max-type complexity penalties at k = 1, 64, 4096 (certified upper ends).

    ``rows``: rows of ``table`` at the same values, γ mode, loss and the default 4 digits, whose k in ``NOTE_K``
    are used as they are (the default k grid has all three) instead of being certified a second time."""
    have = {r["k"]: r for r in rows or ()}
    if not all(kv in have for kv in NOTE_K):
        have.update({r["k"]: r for r in table(values, [kv for kv in NOTE_K if kv not in have], gamma_mode, loss)})
    rows = [have[kv] for kv in NOTE_K]
    got = {r["k"]: (r["complexity_avg"], r["complexity_max"]) for r in rows}
    if any(a is None or m is None for a, m in got.values()):
        return "complexity terms unavailable (derivations.rademacher missing)", {}
    avg = ", ".join(f"k = {kv}: {got[kv][0]['upper']}" for kv in NOTE_K)
    mx = ", ".join(f"k = {kv}: {got[kv][1]['upper']}" for kv in NOTE_K)
    ra = 10 ** (got[4096][0]["log10"] - got[64][0]["log10"])
    rm = 10 ** (got[4096][1]["log10"] - got[64][1]["log10"])
    text = (
        f"Averaged complexity penalty 2·Rad (ours, γ family): {avg}; max-type penalty: {mx}. "
        f"From k = 64 to 4096 the averaged term grows by a factor {ra:.3g}, the max-type term by {rm:.3g} "
        "(√64 = 8 would be pure √k growth). "
    )
    if ra < 1.5 and rm > 4:
        text += "The averaged term flattens in k while the max-type term keeps growing like √k."
    else:
        text += (
            f"At τ = {exact_str(values[tau])} the averaged term has not flattened yet by k = 4096: its ℓ2 constant "
            f"saturates only once k ≫ e^{{2/τ}} ≈ {float(mpmath.exp(2 / mpmath.mpf(str(sp.Float(values[tau], 20))))):.3g}."
        )
    return text, {
        str(kv): {"complexity_avg": got[kv][0]["upper"], "complexity_max": got[kv][1]["upper"]} for kv in NOTE_K
    }


#: column key → (legend label in words and mathtext, whose curve: a key of ``plotstyle.STYLES``)
PLOT_LABELS = {
    "bound": ("Theorem 1 bound: sum of the three terms", "ours"),
    "trivial": (r"trivial cap ($4/\tau$ or $2/\tau - \log(1/k + e^{-2/\tau})$)", "ours"),
    "sample_variability": ("sample variability", "ours"),
    "complexity_avg": (r"complexity $2\,\mathrm{Rad}_n$, averaged form", "ours"),
    "complexity_max": (r"complexity $2\,\mathrm{Rad}_n$, max-type form", "ours"),
    "complexity_direct": (r"complexity, direct $k$-free route", "ours"),
    "finite_k_bias": (r"finite-$k$ bias $\min(C(\tau)/k,\ D(\tau))$", "ours"),
    "large_k_deviation": (r"$O(k^{-1/2})$ large-$k$ deviation", "prior"),
    "complexity_klinear": (r"complexity penalty linear in $k$", "prior"),
    "complexity_logk": (r"complexity penalty in $\log k$ (constant set to 1)", "prior"),
}
_MARKERS = {"complexity_avg": "o", "complexity_max": "s", "large_k_deviation": "x", "complexity_klinear": "^"}
_MARKERS["complexity_logk"] = "v"


def plot(rows: list[dict], path: pathlib.Path, title: str) -> pathlib.Path:
    """Log-log plot of every column against k (``numerics.plotstyle``: ours solid, earlier bounds
    dash-dotted, legend below the axes); log10 values on a linear axis if a value exceeds the float range."""
    from .. import plotstyle

    ks = [float(r["k"]) for r in rows]  # floats: matplotlib cannot convert an int past int64 (k = 1e300)
    fig, (ax,) = plotstyle.figure(1, width=7.5, height=4.6)
    huge = any(
        r[key] is not None and r[key]["log10"] is not None and r[key]["log10"] > 300 for r in rows for key in COLUMNS
    )
    for key, (label, kind) in PLOT_LABELS.items():
        pts = [(r["k"], r[key]["log10"]) for r in rows if r[key] is not None and r[key]["log10"] is not None]
        if not pts:
            continue
        xs = [float(x) for x, _ in pts]
        ys = [y for _, y in pts] if huge else [10**y for _, y in pts]
        kw = plotstyle.style(kind, marker=_MARKERS.get(key, ""), markersize=4)
        if key == "bound":
            kw.update(linewidth=2.4, color="k")
        ax.plot(xs, ys, label=plotstyle.label(label, kind), **kw)
    ax.set_xscale("log", base=2)
    if huge:
        ax.set_ylabel(r"$\log_{10}$ of the certified upper bound (bound in nats)")
    else:
        ax.set_yscale("log")
        ax.set_ylabel("certified upper bound (nats)")
    ax.set_xlabel(r"number of negatives $k$")
    # one k: an octave either side (equal limits make a singular axis)
    ax.set_xlim(min(ks) / (1 if len(set(ks)) > 1 else 2), max(ks) * (1 if len(set(ks)) > 1 else 2))
    ax.set_title(title, fontsize=8)
    plotstyle.legend(ax, ncol=2)
    return plotstyle.save(fig, path)


def _format_table(rows: list[dict]) -> str:
    head = ["k", "γ"] + [v[0] for v in COLUMNS.values()] + ["active"]
    body = [
        [short_str(r["k"]), r["gamma"]]
        + [r[key]["upper"] if r[key] else "—" for key in COLUMNS]
        + [r.get("active", "—")]
        for r in rows
    ]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    fmt = lambda vals: "  ".join(v.rjust(w) for v, w in zip(vals, widths))
    return "\n".join([fmt(head), "  ".join("-" * w for w in widths)] + [fmt(b) for b in body])


def compute(args) -> dict:
    import argparse

    from .. import params as P

    # every k of the list in the one range of k that `constants --k` has (numerics.params)
    ks = parse_k_list(args.k, max_values=200, max_k=P.integer_token(P.PARAMETERS["k"].hi)).tolist()
    values = validate_params(argparse.Namespace(**{**vars(args), "k": None}))
    gamma_mode = "given" if gamma in values else "auto"
    loss = loss_name(args)
    digits = min(int(P.read("digits", args.digits, "--digits")), 6)
    rows = table(values, ks, gamma_mode, loss, digits=digits)
    # the note quotes 4 digits: the table's rows serve it when they have 4 digits too
    note, quoted = closing_note(values, gamma_mode, loss, rows if digits == 4 else None)
    return {
        "ks": ks,
        "values": values,
        "gamma_mode": gamma_mode,
        "loss": loss,
        "rows": rows,
        "note": note,
        "quoted": quoted,
    }


def _title(values: dict, loss: str, gamma_mode: str) -> str:
    from infonce_bounds.derivations.symbols import L, R, delta, n, p

    return (
        f"τ = {short_str(values[tau])}, n = {short_str(values[n])}, δ = {short_str(values[delta])}, "
        f"L = {short_str(values[L])}, p = {short_str(values[p])}, R = {short_str(values[R])}, γ = {gamma_mode}, "
        f"{LOSS_LABELS[loss]}"
    )


def plot_path(text: str) -> pathlib.Path:
    """The PNG file ``--plot`` names: DIR (existing, or ending in /) → DIR/compare.png; a name without the
    .png suffix gets it (matplotlib would add it silently, and the path reported would be wrong). A parent
    that is a file is refused here, with its name (the OS says only "File exists" or "Not a directory")."""
    s = str(text)
    if not s.strip():
        raise ValueError("--plot is empty; allowed: a PNG file name or a directory")
    path = pathlib.Path(s)
    if path.is_dir() or s.endswith(("/", "\\")):
        path = path / "compare.png"
    elif path.suffix.lower() != ".png":
        path = path.with_name(path.name + ".png")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"--plot {s!r} cannot be written: {str(parent)!r} is a file, not a directory")
            break
    return path


def run(args) -> int:
    from ..jsonout import compare_json
    from ..report import render_json

    target = None if args.no_plot else plot_path(args.plot)  # before the work
    data = compute(args)
    title = _title(data["values"], data["loss"], data["gamma_mode"])
    written = None
    if target is not None:
        try:
            written = plot(data["rows"], target, title)
        except OSError as exc:
            raise ValueError(
                f"--plot {args.plot!r} cannot be written ({str(target)!r}): {exc.strerror or exc}"
            ) from None
    if args.json:
        print(
            render_json(
                {
                    "parameters": title,
                    "columns": {k_: v[0] for k_, v in COLUMNS.items()},
                    "rows": compare_json(data["rows"]),
                    "note": data["note"],
                    "quoted": data["quoted"],
                    "plot": str(written) if written else None,
                }
            )
        )
    else:
        print("Parameters: " + title)
        print(_format_table(data["rows"]))
        print()
        print(
            "Every number is the upper end of a certified interval. Prior bounds are our reconstructions "
            "(derivations.prior; the log-k constant is set to 1, a shape only)."
        )
        print(data["note"])
        if written:
            print(f"plot: {written}")
    if written:
        print(f"wrote {written}", file=sys.stderr)
    return 0


def section_compare(out: pathlib.Path, args) -> str:
    """Report section: components and prior bounds against k (k = 1 … 4096), with the plot."""
    import argparse

    from .constants import DEFAULTS

    ks = "1,4,16,64,256,1024,4096" if getattr(args, "quick", False) else DEFAULT_K
    ns = argparse.Namespace(**{**DEFAULTS, "k": ks, "tau": DEFAULT_TAU}, loss="dcl", digits=4)
    data = compute(ns)
    title = _title(data["values"], "dcl", data["gamma_mode"])
    png = plot(data["rows"], out / "compare.png", title)
    head = "| k | γ | " + " | ".join(v[0] for v in COLUMNS.values()) + " |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 2)]
    for r in data["rows"]:
        lines.append(
            f"| {r['k']} | {r['gamma']} | " + " | ".join(r[key]["upper"] if r[key] else "—" for key in COLUMNS) + " |"
        )
    return (
        f"Parameters: {title} (compare's default τ = {DEFAULT_TAU}: at τ = 0.1 the averaging pays only once "
        "k ≫ e^20). Command: `infonce-bounds compare`.\n\n"
        + "\n".join(lines)
        + f"\n\n![components and prior bounds against k]({png.name})\n\n{data['note']}\n\n"
        "Prior bounds are our reconstructions (`infonce-bounds show prior_large_k`, `prior_klinear`, "
        "`prior_logk`); the log-k curve has its unknown absolute constant set to 1.\n"
    )
