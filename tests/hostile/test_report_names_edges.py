"""Names in the HTML report, charts and tables: white space at the ends, very long names
(ADR 217).

A browser shows no trailing space, so models ``"A"`` and ``"A "`` (a project's folder, a
hand-built data set) looked like one model; a 10,000-character name widened the report's
table far past the page; and two long names differing only in the part a chart label
cut away drew the same label.
"""

from __future__ import annotations

import html
import re

import pytest

from core.analysis.export import render_html, table_csv
from core.analysis.plots import LABEL_MAX, elo_figure, plain
from core.analysis.report import AnalysisOptions, analyze
from core.analysis.results import EloChart, EloPanel, Table, format_cell
from core.visible_text import NAME_MAX, cut_name, short_name, shown_name

LONG_1 = "x" * 5_000 + "1" + "x" * 5_000
LONG_2 = "x" * 5_000 + "2" + "x" * 5_000
SCRIPT = '<script>alert("n")</script>\'&'
EDGE_TWINS = [("A", "A "), ("A", " A"), ("A", "A\u00a0"), ("A", "\u3000A"), ("A", "A  "),
              ("a b", "a\u00a0b"), ("a b", "a\u2009b"), ("模型 甲", "模型\u3000甲"),
              ("a b", "a  b"), ("model a b", "model a   b")]


@pytest.mark.parametrize(("name", "twin"), EDGE_TWINS)
def test_edge_white_space_is_spelt(name: str, twin: str) -> None:
    assert format_cell(name) == name
    assert format_cell(twin) != name and "⟨U+" in format_cell(twin)
    assert plain(twin) != plain(name)


def test_names_of_spaces_only_show_every_space() -> None:
    assert shown_name(" ") == "⟨U+0020⟩"
    assert shown_name("  ") == "⟨U+0020⟩⟨U+0020⟩"
    assert shown_name("a b") == "a b"  # a space inside a name is not touched
    # ADR 228: but a run of them is, each space spelt: "a  b" drew like "a b"
    assert shown_name("a  b") == "a⟨U+0020⟩⟨U+0020⟩b"
    assert shown_name(" a   b ") == "⟨U+0020⟩a⟨U+0020⟩⟨U+0020⟩⟨U+0020⟩b⟨U+0020⟩"
    assert shown_name("a \u00a0 b") == "a ⟨U+00A0⟩ b"


def test_long_names_are_cut_and_stay_apart() -> None:
    one, two = short_name(LONG_1), short_name(LONG_2)
    assert len(one) <= NAME_MAX and len(two) <= NAME_MAX
    assert one != two  # they differ only in the middle, which the cut drops
    assert one.startswith("x" * 20) and one.endswith("x" * 10) and "⟨…" in one
    assert len(plain(LONG_1)) <= LABEL_MAX and plain(LONG_1) != plain(LONG_2)
    assert short_name("short") == "short"


def test_a_short_name_cannot_write_the_cut_marker() -> None:
    cut = short_name(LONG_1)
    assert shown_name(cut) != cut  # its own ⟨ is spelt ⟨U+27E8⟩
    assert "⟨U+27E8⟩" in shown_name(cut)


def test_a_cut_never_splits_a_spelt_character() -> None:
    for name in ("\x07" * 500, "a\u200b" * 500, " " * 300):
        cut = cut_name(shown_name(name), name)
        outside = re.sub(r"⟨U\+[0-9A-F]{4}⟩|⟨…[0-9a-f]{8}⟩", "", cut)
        assert "⟨" not in outside and "⟩" not in outside, cut


def _report(names: list[str]) -> tuple[str, dict[str, str]]:
    rows = [{"a": names[i], "b": names[(i + 1) % len(names)], "winner": "a"}
            for i in range(len(names))]
    rows += [{"a": b, "b": a, "winner": "tie"} for a, b in zip(names, names[1:], strict=False)]
    analysis = analyze(rows, "votes", AnalysisOptions(n_boot=5))
    return render_html(analysis, {})


def test_report_cells_cut_long_names_and_keep_them_in_a_title() -> None:
    doc, files = _report(["A", "A ", LONG_1, LONG_2, SCRIPT])
    cells = re.findall(r"<td( title=\"[^\"]*\")?>([^<]*)</td>", doc)
    shown = [html.unescape(text) for _title, text in cells]
    assert "A" in shown and "A⟨U+0020⟩" in shown
    assert short_name(LONG_1) in shown and short_name(LONG_2) in shown
    assert max(len(t) for t in shown) <= NAME_MAX
    titles = {html.unescape(t[len(' title="'):-1]) for t, _ in cells if t}
    assert titles == {LONG_1, LONG_2}  # the whole name, once per cut cell kind
    assert "<script>" not in doc and html.escape(SCRIPT) in doc
    assert "overflow-wrap: anywhere" in doc  # nothing unbreakable widens a table
    assert any(LONG_1 in text for text in files.values())  # the CSV keeps every character


def test_a_long_name_heading_a_column_is_cut_with_a_title() -> None:
    from core.analysis.export import _table_html

    table = Table("sweep", "Sweep", ["τ", LONG_1, "A "], [[1.0, 0.5, 0.25]])
    out = _table_html(table, "sweep.csv")
    assert f'<th title="{LONG_1}">{html.escape(short_name(LONG_1))}</th>' in out
    assert "<th>A⟨U+0020⟩</th>" in out
    assert LONG_1 in table_csv(table)


def test_charts_draw_long_and_twin_names_apart() -> None:
    names = ["A", "A ", LONG_1, LONG_2]
    chart = EloChart([EloPanel("Elo", names, [1000.0, 1001.0, 999.0, 998.0],
                               [990.0, 991.0, 989.0, 988.0], [1010.0] * 4)], 0.95, 10)
    fig = elo_figure(chart)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(set(labels)) == 4 and max(map(len, labels)) <= LABEL_MAX + 2
    assert fig.get_size_inches()[0] < 20  # the figure does not grow with the name


def test_markup_direction_and_zero_width_in_long_names_stay_inert() -> None:
    markup = '"><img src=x onerror=alert(1)>' * 200
    hidden = "\u202e" + "mo\u200bdel" * 200
    doc, _files = _report(["A", markup, hidden])
    assert "<img" not in doc and "onerror=alert(1)>" not in doc
    titles = [html.unescape(t) for t in re.findall(r' title="([^"]*)"', doc)]
    assert markup in titles  # whole, and escaped: no quote closes the attribute early
    assert any(t.startswith("⟨U+202E⟩mo⟨U+200B⟩del") for t in titles)
    assert "\u202e" not in doc and "\u200b" not in doc
