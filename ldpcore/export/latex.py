"""The report table as a LaTeX table environment: user text escaped, this project's identifiers in
math mode, each defined cell's reconstruction included as a graphic."""

from __future__ import annotations

import re
import unicodedata

from ldpcore.export.table import TableInfo, native_line, one_line, table_grid, table_rows

_LATEX_SPECIAL = {c: "\\" + c for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def latex_text(text: str) -> str:
    r"""Plain text for LaTeX: special characters escaped, then this project's identifiers and operators in
    math mode (tau=4 -> $\tau=4$, eps_c -> $\varepsilon_{c}$, eps_l -> $\varepsilon_\ell$, eps_inf and eps_1 ->
    $\varepsilon_{\ell^\infty}$ and $\varepsilon_{\ell^1}$ (as the table's cells), ln(tau) ->
    $\ln\tau$, ln(4) -> $\ln 4$, a minus between blanks -> $-$, 2 eps -> $2\varepsilon$, 2 delta ->
    $2\delta$, <= -> $\le$)."""
    out = "".join(_LATEX_SPECIAL.get(c, c) for c in text)
    out = re.sub(r"\btau=(\d+)", r"$\\tau=\1$", out)
    out = re.sub(r"\beps\\_l\b", r"$\\varepsilon_\\ell$", out)
    out = re.sub(r"\beps\\_inf\b", r"$\\varepsilon_{\\ell^\\infty}$", out)
    out = re.sub(r"\beps\\_1\b", r"$\\varepsilon_{\\ell^1}$", out)
    out = re.sub(r"\beps\\_([a-z0-9]+)\b", r"$\\varepsilon_{\1}$", out)
    out = re.sub(r"\bln\(tau\)", r"$\\ln\\tau$", out)
    out = re.sub(r"\bln\((\d+)\)", r"$\\ln \1$", out)
    out = re.sub(r"\b(\d+) (eps|delta)\b", lambda m: f"${m[1]}\\{'varepsilon' if m[2] == 'eps' else 'delta'}$", out)
    out = out.replace(" - ", " $-$ ")
    return out.replace("<=", r"$\le$").replace(">=", r"$\ge$")


def latex_user_text(text: str) -> str:
    r"""A user's text (the data's file name) as inert LaTeX that compiles in any pdflatex document: on one
    line and shortened (export.table.one_line: a blank line would end the caption's paragraph), accents
    dropped and other characters outside ASCII shown as ? (pdflatex stops at a character its input encoding
    does not define), <, > and | as text symbols, the special characters escaped; never a command."""
    folded = unicodedata.normalize("NFKD", one_line(text))
    ascii_text = "".join(c if c.isascii() else "?" for c in folded if not unicodedata.combining(c))
    symbols = {"<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
    return "".join(symbols.get(c) or _LATEX_SPECIAL.get(c, c) for c in ascii_text)


def _latex_number(value: str) -> str:
    """A displayed number in math mode: thousands separators as {,}, inf as infinity."""
    return r"\infty" if value == "inf" else value.replace(",", "{,}")


def _latex_delta(delta: float) -> str:
    """delta in math mode: 5e-08 -> 5\times10^{-8}."""
    mantissa, _, exponent = f"{delta:g}".partition("e")
    return mantissa if not exponent else rf"{mantissa}\times10^{{{int(exponent)}}}"


def _latex_cell(row: dict, image: str | None, width: str) -> str:
    if row["note"]:
        return rf"\parbox[t]{{{width}}}{{\footnotesize\raggedright not defined: {latex_text(row['note'])}}}"
    lines = [rf"\includegraphics[width={width}]{{{image}}}"] if image else []
    if row["sigma"]:
        lines.append(rf"$\sigma={row['sigma']}$, $\varepsilon_\ell=\infty$")
    else:
        lines.append(
            rf"$\varepsilon_{{\ell^\infty}}={_latex_number(row['eps_l_inf'])}$, "
            rf"$\varepsilon_{{\ell^1}}={_latex_number(row['eps_l_1'])}$"
        )
    lines.append(rf"clipped RMSE $={_latex_number(row['rmse'])}$")
    if row["messages"]:
        lines.append(rf"messages $={_latex_number(row['messages'])}$")
    lines += [latex_text(line) for line in native_line(row)]
    return r"\begin{tabular}[t]{@{}c@{}}" + r"\\ ".join(lines) + r"\end{tabular}"


def table_latex(cells, info: TableInfo | None = None, images: dict | None = None, label: str = "tab:ldp") -> str:
    r"""The table as a complete LaTeX `table` environment (needs graphicx when images are given): a caption
    naming the data, n, delta, seed and accountant, epsilon in math mode, each defined cell's reconstruction
    as \includegraphics of images[(eps_c, method)] (file names, as in table_zip) and its numbers beneath,
    each undefined cell with its reason."""
    rows = table_rows(cells)
    eps, methods, at = table_grid(rows)
    width = f"{0.9 / max(len(methods), 1):.3f}\\linewidth"
    caption = (
        "Reconstructions at several central $\\varepsilon_c$ with the local guarantees "
        "$\\varepsilon_{\\ell^\\infty}$ (all of one respondent's messages) and $\\varepsilon_{\\ell^1}$ "
        "(one message), the RMSE per bin of the estimate clipped to the input's range, and the expected messages "
        "per respondent"
    )
    if info is not None:
        caption += (
            f" ({latex_user_text(info.dataset)}, $n={_latex_number(f'{info.n:,}')}$, "
            f"$\\delta={_latex_delta(info.delta)}$, seed {info.seed}, accountant {latex_text(info.accountant)})"
        )
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{caption}.}}",
        rf"\label{{{label}}}",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{2pt}",
        r"\begin{tabular}{l" + "c" * len(methods) + "}",
        r"\hline",
        r"$\varepsilon_c$ & "
        + " & ".join(rf"\parbox[b]{{{width}}}{{\centering {latex_text(m)}}}" for m in methods)
        + r" \\",
        r"\hline",
    ]
    for e in eps:
        cells_tex = [_latex_cell(at[(e, m)], (images or {}).get((e, m)), width) for m in methods]
        lines.append(f"${e}$ & " + " & ".join(cells_tex) + r" \\")
    lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


LATEX_DOCUMENT = r"""\documentclass{article}
\usepackage[margin=1.5cm]{geometry}
\usepackage{graphicx}
\begin{document}
\input{report_table}
\end{document}
"""
