"""The Analyze HTML report and its charts with hostile model, rater and dataset names.

The report is parsed back: the only tags are the report's own, no attribute carries an
event handler or a script URL, every link is a CSV beside the report and every image a
PNG data URI. Charts stay readable with names of thousands of characters.
"""

from __future__ import annotations

import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analyze"))
import analyze_data as data  # noqa: E402

from core.analysis.report import AnalysisOptions, analyze, export_html  # noqa: E402

HOSTILE = ['<script>alert(1)</script>', '</style><script>alert(2)</script>',
           'javascript:alert(3)', '" onerror="alert(4)', "' onload='alert(5)",
           "<img src=x onerror=alert(6)>", "$\\frac{$", "a\x00b\rc"]
TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "dl", "dt",
        "dd", "img", "table", "thead", "tbody", "tr", "th", "td", "a"}


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


@pytest.mark.parametrize("kind", ["rankings"])
def test_report_has_only_its_own_markup(tmp_path: Path, kind: str) -> None:
    rows = data.rankings(8, 3, models=(HOSTILE[0], HOSTILE[3], HOSTILE[5]))
    analysis = analyze(rows, kind, AnalysisOptions(n_boot=20, seed=1), name=HOSTILE[1])
    out = export_html(analysis, tmp_path / "r")
    parser = _Collect()
    parser.feed(out.read_text(encoding="utf-8"))
    assert {t for t, _ in parser.tags} <= TAGS
    assert sum(t == "style" for t, _ in parser.tags) == 1
    for tag, attrs in parser.tags:
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name, value)
            if name == "href":
                assert value and value.endswith(".csv") and "/" not in value and ":" not in value
            if name == "src":
                assert value and value.startswith("data:image/png;base64,")


def test_charts_stay_readable_with_huge_and_control_names(tmp_path: Path) -> None:
    """A 5,000-character model name collapsed the chart's axes to nothing (matplotlib:
    "constrained_layout not applied"), and a NUL drew a missing glyph."""
    rows = data.rankings(8, 3, models=("m" * 5000, HOSTILE[7], HOSTILE[6]))
    analysis = analyze(rows, "rankings", AnalysisOptions(n_boot=20, seed=1), name="n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = export_html(analysis, tmp_path / "r")
    assert out.is_file()


SPOOFS = {"\u202eLX-xulf": "flux-XL", "fl\u200bux-XL": "flux-XL", "flux\u2066-XL": "flux-XL",
          "\u200fflux-XL": "flux-XL", "flux-XL\ufeff": "flux-XL"}


def test_invisible_and_direction_characters_cannot_impersonate_a_model(tmp_path: Path) -> None:
    """``\\u202e`` (right-to-left override) makes "LX-xulf" *display* as "flux-XL", a
    zero-width space hides inside a name: in the report each is shown as ⟨U+XXXX⟩, so two
    models never look the same (ADR 160).  Real right-to-left names and emoji sequences
    (joined with U+200D) are shown as they are."""
    models = ("flux-XL", *SPOOFS, "نموذج", "👩\u200d🎨 gen")
    rows = data.rankings(6, 3, models=models)
    analysis = analyze(rows, "rankings", AnalysisOptions(n_boot=10, seed=1),
                       name="\u202evsc.exe")
    text = export_html(analysis, tmp_path / "r").read_text(encoding="utf-8")
    for ch in "\u202e\u200b\u2066\u200f\ufeff":
        assert ch not in text
    for spoof in SPOOFS:
        hidden = next(c for c in spoof if c in "\u202e\u200b\u2066\u200f\ufeff")
        assert spoof.replace(hidden, f"⟨U+{ord(hidden):04X}⟩") in text
    assert "Analysis: ⟨U+202E⟩vsc.exe" in text
    assert "نموذج" in text and "👩\u200d🎨 gen" in text
    # the CSV beside it keeps every name exactly (ADR 153 round trip)
    board = (tmp_path / "r").glob("*.csv")
    assert any("\u202eLX-xulf" in p.read_text(encoding="utf-8") for p in board)
