"""LaTeX out of the toolkit: run ``pdflatex`` on a document, and turn the report's Markdown into LaTeX.

``pdflatex(tex, pdf_path)`` compiles in a temporary directory (images referenced by the document are
looked up in ``resources``) and raises ``LatexError`` with the first error line of the log when the
compile fails or no ``pdflatex`` is on PATH. ``markdown_to_latex`` covers the Markdown the report
writes (headings, paragraphs, lists, pipe tables, images, ``code`` and **bold**), nothing more.
"""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import tempfile

from infonce_bounds.derivations.render import latex_document, tex_code, tex_text

#: seconds a single pdflatex run may take before it is stopped
TIMEOUT = 120


class LatexError(ValueError):
    """pdflatex is missing or rejected the document (one line: the first ``!`` error of the log)."""


def have_pdflatex() -> bool:
    return shutil.which("pdflatex") is not None


def pdflatex(tex: str, pdf_path: pathlib.Path, resources: pathlib.Path | None = None, runs: int = 1) -> pathlib.Path:
    """Compile ``tex`` with ``pdflatex -halt-on-error`` and write the PDF to ``pdf_path``."""
    exe = shutil.which("pdflatex")
    if exe is None:
        raise LatexError(
            "pdflatex is not on PATH (Debian: apt-get install texlive-latex-base texlive-latex-recommended)"
        )
    pdf_path = pathlib.Path(pdf_path)
    with tempfile.TemporaryDirectory(prefix="infonce-tex-") as tmp:
        work = pathlib.Path(tmp)
        (work / "doc.tex").write_text(tex, encoding="utf-8")
        if resources is not None:
            for f in pathlib.Path(resources).rglob("*.png"):
                dest = work / f.relative_to(resources)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(f, dest)
        for _ in range(runs):
            try:
                proc = subprocess.run(
                    [exe, "-halt-on-error", "-interaction=nonstopmode", "doc.tex"],
                    cwd=work,
                    capture_output=True,
                    text=True,
                    errors="replace",
                    timeout=TIMEOUT,
                )
            except subprocess.TimeoutExpired:
                raise LatexError(f"pdflatex did not finish within {TIMEOUT} s") from None
            if proc.returncode != 0:
                raise LatexError(f"pdflatex failed: {first_error(proc.stdout)}")
        pdf_path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(work / "doc.pdf", pdf_path)
    return pdf_path


def first_error(log: str) -> str:
    """The first ``! …`` line of a TeX log with the line it points at (``l.12 …``)."""
    lines = log.splitlines()
    for n, line in enumerate(lines):
        if line.startswith("!"):
            where = next((x for x in lines[n + 1 : n + 12] if x.startswith("l.")), "")
            return f"{line[1:].strip()} {where.strip()}".strip()
    return "no error line in the log (see pdflatex output)"


# ----------------------------------------------------------------------------- Markdown → LaTeX

_INLINE = re.compile(
    r"`(?P<code>[^`]+)`|\*\*(?P<bold>[^*]+)\*\*|\*(?P<em>[^*\s][^*]*)\*|(?<!\w)_(?P<em2>[^_]+)_(?!\w)"
    r"|\[(?P<text>[^\]]+)\]\((?P<url>[^)]+)\)"
)


def _inline(s: str) -> str:
    out, pos = [], 0
    for m in _INLINE.finditer(s):
        out.append(tex_text(s[pos : m.start()]))
        if m["code"] is not None:
            out.append(rf"\texttt{{{tex_code(m['code'])}}}")
        elif m["bold"] is not None:
            out.append(rf"\textbf{{{tex_text(m['bold'])}}}")
        elif m["em"] is not None or m["em2"] is not None:
            out.append(rf"\emph{{{tex_text(m['em'] or m['em2'])}}}")
        else:
            out.append(tex_text(m["text"]))
        pos = m.end()
    out.append(tex_text(s[pos:]))
    return "".join(out)


def _table(rows: list[str]) -> str:
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    head, body = cells[0], [c for c in cells[2:]]
    ncol = len(head)
    spec = "l" * ncol
    out = [r"{\scriptsize", rf"\begin{{longtable}}{{{spec}}}", r"\toprule"]
    out.append(" & ".join(rf"\textbf{{{_inline(h)}}}" for h in head) + r" \\ \midrule")
    for c in body:
        c = (c + [""] * ncol)[:ncol]
        out.append(" & ".join(_inline(x) for x in c) + r" \\")
    out += [r"\bottomrule", r"\end{longtable}", "}"]
    return "\n".join(out)


def markdown_to_latex(md: str) -> tuple[str, str]:
    """``(title, body)`` of the report's Markdown as LaTeX (its first level-1 heading is the title)."""
    title, out, para, lines = "", [], [], md.splitlines()

    def flush() -> None:
        if para:
            out.append(_inline(" ".join(para)))
            out.append("")
            para.clear()

    n = 0
    in_list = False
    while n < len(lines):
        line = lines[n]
        img = re.fullmatch(r"\s*!\[(?P<alt>[^\]]*)\]\((?P<src>[^)]+)\)\s*", line)
        if line.startswith("#"):
            flush()
            level = len(line) - len(line.lstrip("#"))
            text = line[level:].strip()
            if level == 1 and not title:
                title = text
            else:
                cmd = {1: "section", 2: "section", 3: "subsection"}.get(level, "subsubsection")
                out.append(rf"\{cmd}*{{{_inline(text)}}}")
        elif line.lstrip().startswith("|"):
            flush()
            rows = []
            while n < len(lines) and lines[n].lstrip().startswith("|"):
                rows.append(lines[n])
                n += 1
            out.append(_table(rows))
            continue
        elif img:
            flush()
            out.append(
                r"\begin{center}"
                + rf"\includegraphics[width=0.95\linewidth]{{{img['src']}}}\\ \small {tex_text(img['alt'])}"
                + r"\end{center}"
            )
        elif re.match(r"\s*[-*] ", line):
            flush()
            if not in_list:
                out.append(r"\begin{itemize}")
                in_list = True
            out.append(r"\item " + _inline(re.sub(r"^\s*[-*] ", "", line)))
            n += 1
            if n >= len(lines) or not re.match(r"\s*[-*] ", lines[n]):
                out.append(r"\end{itemize}")
                in_list = False
            continue
        elif line.startswith("```"):
            flush()
            n += 1
            block = []
            while n < len(lines) and not lines[n].startswith("```"):
                block.append(lines[n])
                n += 1
            out.append(r"{\small\begin{verbatim}" + "\n" + "\n".join(block) + "\n" + r"\end{verbatim}}")
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
        n += 1
    flush()
    return title, "\n".join(out)


def markdown_document(md: str) -> str:
    """A complete LaTeX document for the report's Markdown."""
    title, body = markdown_to_latex(md)
    return latex_document(title or "infonce-bounds report", body)
