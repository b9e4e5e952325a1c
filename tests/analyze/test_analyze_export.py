"""HTML report: embedded images, CSV tables, escaping, atomic folder replacement."""

from __future__ import annotations

import base64
import csv
import re
from pathlib import Path

import analyze_data as data
import pytest

from core.analysis.export import csv_name
from core.analysis.report import AnalysisOptions, analyze, export_html


def _analysis(model: str = "<script>alert(1)</script>"):  # type: ignore[no-untyped-def]
    rows = data.rankings(8, 3, models=(model, "plain-model", "a&b $x$ model"))
    return analyze(rows, "rankings", AnalysisOptions(n_boot=50, seed=2), name="<b>ranks</b>")


def test_report_embeds_pngs_and_writes_every_table_as_csv(tmp_path: Path) -> None:
    analysis = _analysis()
    out = export_html(analysis, tmp_path / "report")
    assert out == tmp_path / "report" / "report.html" and out.is_file()
    text = out.read_text(encoding="utf-8")
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    n_charts = sum(len(s.charts) for s in analysis.sections.values())
    assert n_charts == 3 and len(images) == n_charts
    for b64 in images:
        assert base64.b64decode(b64).startswith(b"\x89PNG\r\n\x1a\n")
    for sec, table in analysis.tables():
        path = tmp_path / "report" / csv_name(sec.key, table)
        assert f'href="{path.name}"' in text
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        assert rows[0] == table.columns and len(rows) == len(table.rows) + 1
        for got, want in zip(rows[1:], table.rows, strict=True):
            for g, w in zip(got, want, strict=True):
                if isinstance(w, float):
                    assert float(g) == pytest.approx(w, rel=1e-15)
                else:
                    assert g == ("" if w is None else str(w))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no temp folder left


def test_user_text_is_escaped(tmp_path: Path) -> None:
    text = export_html(_analysis(), tmp_path / "r").read_text(encoding="utf-8")
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<b>ranks</b>" not in text and "&lt;b&gt;ranks&lt;/b&gt;" in text
    assert "a&amp;b $x$ model" in text


def test_existing_report_is_replaced_but_other_folders_are_refused(tmp_path: Path) -> None:
    analysis = _analysis("m1")
    target = tmp_path / "out"
    export_html(analysis, target)
    first = (target / "report.html").read_bytes()
    export_html(_analysis("m2"), target)  # Winnow's own earlier report: replaced
    assert (target / "report.html").read_bytes() != first
    (target / "notes.txt").write_text("mine now")  # the user adds a file: no longer ours
    with pytest.raises(FileExistsError, match="notes.txt"):
        export_html(analysis, target)
    assert (target / "notes.txt").read_text() == "mine now"
    other = tmp_path / "mine"
    other.mkdir()
    (other / "thesis.docx").write_text("precious")
    with pytest.raises(FileExistsError, match="replaces only a folder it wrote itself"):
        export_html(analysis, other)
    assert (other / "thesis.docx").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "out"]


def test_failed_export_leaves_nothing_behind(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import errno

    from core.export_folder import ExportFolder

    real = ExportFolder.write_text
    calls = []

    def boom(self, rel, text):  # type: ignore[no-untyped-def]
        calls.append(rel)
        if len(calls) == 2:  # the report is written, the first CSV fails
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, rel, text)

    monkeypatch.setattr(ExportFolder, "write_text", boom)
    with pytest.raises(OSError, match="No space left"):
        export_html(_analysis("m"), tmp_path / "r")
    assert list(tmp_path.iterdir()) == []


def test_report_folder_gets_the_usual_permissions_not_private(tmp_path: Path) -> None:
    """The temporary folder is renamed into place: it must not stay 0700 (mkdtemp's mode)."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        out = export_html(_analysis(), tmp_path / "shared")
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.parent.stat().st_mode) == 0o755
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


HOSTILE_KEYWORDS = [("<script>alert(1)</script>", 3), ("colour & tint $x$", 2),
                    ('"face" changed', 1)]


def test_report_ends_with_the_failure_keyword_chart_and_table(tmp_path: Path) -> None:
    from core.analysis.plots import png_bytes
    from core.propose.plots import keyword_figure

    analysis = _analysis(model="m")
    out = export_html(analysis, tmp_path / "report", keywords=HOSTILE_KEYWORDS)
    text = out.read_text(encoding="utf-8")
    assert "<script" not in text  # the keyword is text, never markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "colour &amp; tint $x$" in text and "&quot;face&quot; changed" in text
    section = text[text.index('<h2 id="failure-keywords">Failure keywords</h2>'):]
    found = re.findall(r'<img alt="Failure keywords" src="data:image/png;base64,'
                       r'([A-Za-z0-9+/=]+)"', section)
    assert len(found) == 1  # the same chart as the Analyze tab draws, inline
    assert base64.b64decode(found[0]) == png_bytes(keyword_figure(HOSTILE_KEYWORDS))
    cells = re.findall(r"<tr><td>(.*?)</td><td class=\"num\">(\d+)</td></tr>", section)
    assert cells == [("&lt;script&gt;alert(1)&lt;/script&gt;", "3"),
                     ("colour &amp; tint $x$", "2"), ("&quot;face&quot; changed", "1")]
    assert "6 pieces of community feedback labelled failure, 3 distinct" in section
    with open(tmp_path / "report" / "failure-keywords.csv", newline="",
              encoding="utf-8") as fh:
        assert list(csv.reader(fh)) == [["Keyword", "Feedback"],
                                        *[[k, str(n)] for k, n in HOSTILE_KEYWORDS]]
    assert 'href="failure-keywords.csv"' in section


def test_report_without_keywords_has_no_keyword_section(tmp_path: Path) -> None:
    out = export_html(_analysis(model="m"), tmp_path / "report")
    text = out.read_text(encoding="utf-8")
    assert "failure-keywords" not in text
    assert not (tmp_path / "report" / "failure-keywords.csv").exists()


def test_a_report_of_the_keywords_alone(tmp_path: Path) -> None:
    out = export_html(None, tmp_path / "kw", keywords=HOSTILE_KEYWORDS, title="<i>p</i>")
    text = out.read_text(encoding="utf-8")
    assert "<h1>Analysis: &lt;i&gt;p&lt;/i&gt;</h1>" in text and "<script" not in text
    assert text.count("<h2") == 1 and '<img alt="Failure keywords"' in text
    with pytest.raises(ValueError, match="nothing to report"):
        export_html(None, tmp_path / "none")
    assert not (tmp_path / "none").exists()
