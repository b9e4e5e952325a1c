"""Dates in the user's locale or relative, never raw ISO (issue #14 item 10)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import QLocale  # noqa: E402

from ui.widgets.dates import format_when, parse_when, when_tooltip  # noqa: E402

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
GERMAN = QLocale(QLocale.Language.German, QLocale.Country.Germany)
US = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
RAW_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


@pytest.fixture(autouse=True)
def _utc(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def test_recent_moments_read_as_relative() -> None:
    assert format_when(NOW - timedelta(seconds=20), NOW) == "just now"
    assert format_when("2026-03-10T11:17:00.000+00:00", NOW) == "43 min ago"
    assert format_when("2026-03-10T08:05:00Z", NOW, US) == "today 8:05\u202fAM"
    assert format_when("2026-03-10T08:05:00Z", NOW, GERMAN) == "today 08:05"
    assert format_when("2026-03-09T21:30:00", NOW, GERMAN) == "yesterday 21:30"
    assert format_when("2026-03-06T08:00:00Z", NOW, GERMAN) == "Fr. 08:00"


def test_older_moments_use_the_locale_and_never_iso() -> None:
    assert format_when("2024-01-02T18:00:00Z", NOW, GERMAN) == "02.01.24 18:00"
    assert format_when("2024-01-02T18:00:00Z", NOW, US) == "1/2/24 6:00\u202fPM"
    c = QLocale(QLocale.Language.C)  # no LANG: ISO order, but no "T", zone or seconds
    assert format_when("2024-01-02T18:00:07.123+00:00", NOW, c) == "2024-01-02 18:00"
    assert format_when("2024-01-02", NOW, GERMAN) == "02.01.24"  # a bare date stays a date
    assert format_when(date(2024, 1, 2), NOW, GERMAN) == "02.01.24"
    assert not RAW_ISO.search(format_when("2020-05-05T05:05:05Z", NOW))


def test_what_cannot_be_read_is_shown_as_it_is() -> None:
    assert format_when(None, NOW) == "" and format_when("", NOW) == ""
    assert format_when("last Tuesday", NOW) == "last Tuesday"
    assert parse_when("2026-13-40") is None
    assert when_tooltip("not a date") == "not a date"


def test_the_tooltip_has_the_exact_moment() -> None:
    tip = when_tooltip("2024-01-02T18:00:00Z", US)
    assert "January 2, 2024" in tip and "6:00:00" in tip and "2024-01-02T18:00:00Z" in tip


def test_rate_lists_sessions_with_readable_dates(main_window, demo_path: Path) -> None:
    assert main_window.open_project(demo_path)
    page = main_window.show_workspace("rate")
    column = ["Session", "Protocol", "Raters", "Tasks", "Judgments merged", "Seed",
              "Created"].index("Created")
    cells = [page.sessions.item(r, column) for r in range(page.sessions.rowCount())]
    assert cells and all(c.text() and not RAW_ISO.search(c.text()) for c in cells)
    assert all(RAW_ISO.search(c.toolTip()) for c in cells)  # the exact value on hover


def test_curate_history_and_thread_show_readable_dates(main_window, demo_path: Path) -> None:
    assert main_window.open_project(demo_path)
    curate = main_window.show_workspace("curate")
    curate.select_row(0)
    curate.review.label("Trash")
    view = curate.view
    view.tabs.setCurrentWidget(view.history)
    history = view.history
    assert history.topLevelItemCount() >= 1
    when = history.topLevelItem(0).text(0)
    assert when in ("just now",) or when.endswith("min ago"), when
    tree = view.post.tree
    stamps = [tree.topLevelItem(k).text(2) for k in range(tree.topLevelItemCount())]
    assert stamps and not any(RAW_ISO.search(s) for s in stamps)
