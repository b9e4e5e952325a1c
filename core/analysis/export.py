"""HTML report of an analysis: plots embedded as PNG data URIs, every table as CSV beside it.

The folder is written atomically (:class:`core.export_files.ExportFolder`): everything
goes to a temporary folder next to the target, which is renamed into place at the end.
An earlier report Winnow wrote at the target is replaced (its marker lists every file in
it, unchanged); any other existing non-empty folder is refused, naming what is in it, so
nothing of the user's is overwritten.  Every piece of text is escaped with
:func:`html.escape`.  The project's failure keywords of community feedback (ECHO §3.2,
Figure 4; the Analyze workspace's "Failure keywords" tab) close the report when given.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core import __version__
from core.analysis.results import Analysis, Table
from core.csv_cells import safe_row
from core.export_folder import ExportFolder, check_folder_target
from core.visible_text import cut_name, visible

REPORT_NAME = "report.html"
KEYWORDS_KEY = "failure-keywords"

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #1d2733; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccd3dc; padding-bottom: .2em;
       margin-top: 2em; } h3 { font-size: 1.05em; margin-bottom: .3em; }
table { border-collapse: collapse; margin: .4em 0 1em; font-size: .9em; }
th, td { border: 1px solid #d5dbe3; padding: .25em .6em; white-space: pre-wrap;
         overflow-wrap: anywhere; }
h1, h2, h3, p, dd { overflow-wrap: anywhere; }
th { background: #eef2f6; text-align: left; } td.num { text-align: right;
       font-variant-numeric: tabular-nums; }
.note, .message { color: #4a5563; font-size: .9em; } .message { font-style: italic; }
img { max-width: 100%; height: auto; border: 1px solid #e3e7ec; margin: .5em 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: .1em 1em; }
dt { font-weight: 600; } dd { margin: 0; }
"""


def _shown(text: str) -> str:
    """User text for the report: invisible and direction characters spelt out (ADR 160),
    then HTML-escaped."""
    return html.escape(visible(text))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower() or "table"


def csv_name(section_key: str, table: Table) -> str:
    """File name of a table's CSV inside the report folder."""
    return f"{_slug(section_key)}-{_slug(table.key)}.csv"


def table_csv(table: Table) -> str:
    """A table as CSV text: numbers at full precision, empty for "nothing to count"."""
    out = io.StringIO()
    writer = csv.writer(out)  # RFC 4180 rows (\r\n), so a cell holding a bare CR is quoted
    writer.writerow(safe_row(table.columns))
    for row in table.rows:
        writer.writerow(safe_row("" if v is None else (repr(float(v)) if isinstance(v, float)
                                                       else v) for v in row))
    return out.getvalue()


def _title(full: str, shown: str) -> str:
    """A ``title`` attribute holding ``full`` when the cell shows less of it."""
    return "" if full == shown else f' title="{html.escape(full, quote=True)}"'


def _table_html(table: Table, href: str) -> str:
    e = _shown
    # header() and short() have spelt hidden characters out (ADR 160, 215) and short()
    # has cut a long name (ADR 217): escape only; a cut text is whole in its title
    head = "".join(f"<th{_title(table.header(j), cut_name(table.header(j), c))}>"
                   f"{html.escape(cut_name(table.header(j), c))}</th>"
                   for j, c in enumerate(table.columns))
    body = []
    for i, row in enumerate(table.rows):
        cells = []
        for j, value in enumerate(row):
            cls = ' class="num"' if isinstance(value, int | float) else ""
            short = table.short(i, j)
            title = _title(table.display(i, j), short)
            cells.append(f"<td{cls}{title}>{html.escape(short)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    note = f'<p class="note">{e(table.note)}</p>' if table.note else ""
    return (f"<h3>{e(table.title)}</h3><table><thead><tr>{head}</tr></thead><tbody>"
            f"{''.join(body)}</tbody></table>{note}"
            f'<p class="note">Data: <a href="{e(href)}">{e(href)}</a></p>')


def _options_text(analysis: Analysis) -> list[tuple[str, str]]:
    o = analysis.options
    out = [("Bootstrap", f"{o.n_boot:,} resamples, {o.ci:.0%} interval, seed {o.seed}"),
           ("Threshold τ", f"{o.tau:g}"), ("Post-hoc", str(o.posthoc)),
           ("Rater filter", f"on, r ≥ {o.threshold:g}" if o.rater_filter else "off")]
    if o.group_by:
        out.append(("Breakdown by", str(o.group_by)))
    return out


def keyword_table(counts: Sequence[tuple[str, int]]) -> Table:
    """The failure keywords, most frequent first, as a report table."""
    total = sum(n for _k, n in counts)
    note = (f"{total:,} pieces of community feedback labelled failure, {len(counts):,} "
            "distinct keywords, as curators left them (ECHO §3.2, Figure 4).")
    return Table(KEYWORDS_KEY, "Failure keywords", ["Keyword", "Feedback"],
                 [[k, int(n)] for k, n in counts], note, {"Feedback": "d"})


def _keywords_html(counts: Sequence[tuple[str, int]], png: bytes | None,
                   files: dict[str, str]) -> list[str]:
    e = _shown
    table = keyword_table(counts)
    parts = [f'<h2 id="{KEYWORDS_KEY}">Failure keywords</h2>',
             '<p class="note">What users said went wrong in the community feedback of the '
             "project's samples.</p>"]
    if png:
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<img alt="{e(table.title)}" src="data:image/png;base64,{data}">')
    name = f"{KEYWORDS_KEY}.csv"
    files[name] = table_csv(table)
    parts.append(_table_html(table, name))
    return parts


def render_html(analysis: Analysis | None, images: dict[int, bytes],
                keywords: Sequence[tuple[str, int]] = (),
                keyword_png: bytes | None = None, title: str = "") -> tuple[str, dict[str, str]]:
    """``(html, {csv file name: csv text})``; ``images`` maps ``id(chart)`` to PNG bytes;
    ``keywords`` (keyword, count) with their chart ``keyword_png`` end the report.  With no
    ``analysis`` (a project with failure keywords but nothing to rank) the report holds
    the keywords alone, under ``title``."""
    e = _shown
    files: dict[str, str] = {}
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    name = analysis.dataset if analysis is not None else title or "failure keywords"
    facts = [*(analysis.facts + _options_text(analysis) if analysis is not None else []),
             ("Generated", f"{when}, Winnow {__version__}")]
    parts = [f"<h1>Analysis: {e(name)}</h1>", "<dl>"]
    parts += [f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts]
    parts.append("</dl>")
    for sec in analysis.sections.values() if analysis is not None else ():
        parts.append(f'<h2 id="{e(_slug(sec.key))}">{e(sec.title)}</h2>')
        if sec.message:
            parts.append(f'<p class="message">{e(sec.message)}</p>')
        parts += [f"<p>{e(line)}</p>" for line in sec.summary]
        for chart in sec.charts:
            png = images.get(id(chart))
            if png:
                data = base64.b64encode(png).decode("ascii")
                alt = getattr(chart, "title", "") or sec.title
                parts.append(f'<img alt="{e(alt)}" src="data:image/png;base64,{data}">')
        for table in sec.tables:
            name = csv_name(sec.key, table)
            files[name] = table_csv(table)
            parts.append(_table_html(table, name))
    if keywords:
        parts += _keywords_html(keywords, keyword_png, files)
    doc = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           f"<title>{e(name)} — Winnow analysis</title><style>{_CSS}</style>"
           f"</head><body>{''.join(parts)}</body></html>\n")
    return doc, files


def render_images(analysis: Analysis, state: Any = None) -> dict[int, bytes]:
    """PNG bytes of every chart, keyed by ``id(chart)`` (Agg backend)."""
    from core.analysis.plots import figure_for, png_bytes

    out = {}
    for sec in analysis.sections.values():
        for chart in sec.charts:
            if state is not None:
                state.check()
            out[id(chart)] = png_bytes(figure_for(chart))
    return out


def export_html(analysis: Analysis | None, out_dir: str | Path, state: Any = None,
                keywords: Sequence[tuple[str, int]] = (), title: str = "") -> Path:
    """Write ``out_dir/report.html`` plus one CSV per table; returns the report's path.

    ``keywords``: the project's failure keywords with their counts (most frequent first),
    drawn as the Analyze workspace draws them; none, no such section.  ``analysis`` None:
    the keywords alone, titled ``title``."""
    if analysis is None and not keywords:
        raise ValueError("nothing to report: no analysis and no failure keywords")
    target = Path(out_dir)
    check_folder_target(target, True, "analysis report")  # before the (slow) charts are drawn
    images = render_images(analysis, state) if analysis is not None else {}
    keyword_png = None
    if keywords:
        from core.analysis.plots import png_bytes
        from core.propose.plots import keyword_figure

        keyword_png = png_bytes(keyword_figure(list(keywords)))
    doc, files = render_html(analysis, images, keywords, keyword_png, title)
    with ExportFolder(target, "analysis report", overwrite=True) as folder:
        folder.write_text(REPORT_NAME, doc)
        for name, text in files.items():
            folder.write_text(name, text)
        folder.publish({"dataset": analysis.dataset if analysis is not None else title})
    return target / REPORT_NAME
