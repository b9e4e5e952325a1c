"""A seeded random walk of real key presses and clicks over the main window.

The walker sends QTest events to whatever a user would be typing into (an open popup
menu, then a modal dialog, then the focused widget of the main window) and clicks random
visible widgets. After every event it reads which tables were written (triggers added to
the test's copy of the project by :func:`instrument`): a table may be written only when
it belongs to the workspace on screen (or to the workspace a still-running job was started
from); every new audit-log entry must name an entity of that workspace. What it finds is
kept in :attr:`Monkey.violations`.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

K, M = Qt.Key, Qt.KeyboardModifier
#: tables each workspace may change (File-menu imports are not reachable: dialogs cancel)
TABLES = {
    "curate": {"samples", "sample_images", "sample_tags", "sample_links", "feedback",
               "audit_log"},
    "anonymize": {"photos", "photo_regions", "images", "audit_log"},
    "rate": {"rating_sessions", "rating_files", "rating_tasks", "rating_blinding",
             "rating_keys", "rating_judgments", "rating_merges", "model_outputs", "images",
             "audit_log", "project_meta"},  # project_meta: archived sessions (ADR 037)
    "metrics": {"metric_results", "metric_runs"},
    "analyze": set(),
}
ENTITIES = {"curate": {"sample"}, "anonymize": {"photo", "photo_region"},
            "rate": {"rating_session"}, "metrics": set(), "analyze": set()}
PLAIN_KEYS = [K.Key_B, K.Key_A, K.Key_T, K.Key_X, K.Key_R, K.Key_N, K.Key_J, K.Key_K, K.Key_E,
              K.Key_I, K.Key_O, K.Key_U, K.Key_D, K.Key_H, K.Key_F, K.Key_V, K.Key_C, K.Key_0,
              K.Key_1, K.Key_2, K.Key_3, K.Key_BracketLeft, K.Key_BracketRight, K.Key_Space,
              K.Key_Return, K.Key_Escape, K.Key_Tab, K.Key_Backtab, K.Key_Up, K.Key_Down,
              K.Key_Left, K.Key_Right, K.Key_PageUp, K.Key_PageDown, K.Key_Home, K.Key_End,
              K.Key_Delete, K.Key_Backspace, K.Key_F5, K.Key_Y, K.Key_S]
CTRL_KEYS = [K.Key_Z, K.Key_Y, K.Key_Return, K.Key_D, K.Key_E, K.Key_F, K.Key_T, K.Key_G,
             K.Key_I, K.Key_J, K.Key_N, K.Key_O, K.Key_R, K.Key_W, K.Key_Slash, K.Key_1,
             K.Key_2, K.Key_3, K.Key_4, K.Key_5, K.Key_Left, K.Key_Right, K.Key_Up]
#: Ctrl+Q would end the walk: a user quitting is not a bug
NEVER = {(K.Key_Q, M.ControlModifier)}
WORDS = ["cat", "@user42", "s00042", "🙂", "blue sky", "", "prompt edit", "ünïcode", "<b>x</b>"]


def instrument(path: Any) -> None:
    """Add triggers to a (copied, closed) project that log every write per table."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE TABLE monkey_writes (id INTEGER PRIMARY KEY, tbl TEXT NOT NULL)")
        tables = [n for (n,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
            "'CREATE VIRTUAL%'") if not n.startswith("sqlite_") and n != "monkey_writes"
            and "_fts" not in n and not n.startswith("sample_search")]
        for table in tables:
            for op in ("INSERT", "UPDATE", "DELETE"):
                conn.execute(f'CREATE TRIGGER "monkey_{table}_{op}" AFTER {op} ON "{table}" '
                             f"BEGIN INSERT INTO monkey_writes(tbl) VALUES ('{table}'); END")
        conn.commit()
    finally:
        conn.close()


@dataclass
class Monkey:
    """Walks ``window`` (a MainWindow with a project open) with a seeded RNG."""

    window: Any
    reopen: Callable[[], None]
    seed: int = 0
    violations: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    _done: set[int] = field(default_factory=set)  # ids of jobs seen finished

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        # a menu opened with exec() (a tool button's menu, the toolbar's » button) runs its
        # own event loop inside our click: this timer is the user's hand inside it
        self._hand = QTimer()
        self._hand.setInterval(30)
        self._hand.timeout.connect(self._inside_nested_loop)
        self._nested = 0
        self.keys = list(self.window.pages)
        self._jobs_seen = 0
        self._job_pages: dict[int, str] = {}
        self._baseline()

    # -- the project's state --------------------------------------------------------------
    def _writes(self) -> list[str]:
        """Tables written since the last look (recorded by :func:`instrument`'s triggers)."""
        rows = self.window.project.conn.execute(
            "SELECT id, tbl FROM monkey_writes WHERE id > ? ORDER BY id",
            (self.seen_write,)).fetchall()
        if rows:
            self.seen_write = rows[-1][0]
        return sorted({tbl for _id, tbl in rows})

    def _audit_top(self) -> int:
        return self.window.project.conn.execute(
            "SELECT coalesce(max(id), 0) FROM audit_log").fetchone()[0]

    def _baseline(self) -> None:
        self.seen_write = self.window.project.conn.execute(
            "SELECT coalesce(max(id), 0) FROM monkey_writes").fetchone()[0]
        self.audit = self._audit_top()

    def page(self) -> str:
        return self.keys[self.window.stack.currentIndex()]

    # -- events ---------------------------------------------------------------------------
    def target(self) -> QWidget:
        """Where a user's input goes now: an open menu, a modal dialog, the window."""
        return (QApplication.activePopupWidget() or QApplication.activeModalWidget()
                or self.window)

    def _focus(self, target: QWidget) -> QWidget:
        focus = QApplication.focusWidget()
        if focus is not None and (focus is target or target.isAncestorOf(focus)):
            return focus
        return target

    def _key(self) -> str:
        target = self.target()
        page = self.window.stack.currentWidget()
        focus = QApplication.focusWidget()
        if target is self.window and (focus is None or not page.isAncestorOf(focus)) \
                and self.rng.random() < 0.5:
            return self._click(within=page, focusable=True)  # click into the page first
        widget = self._focus(target)
        roll = self.rng.random()
        if roll < 0.55:
            key, mods = self.rng.choice(PLAIN_KEYS), M.NoModifier
        elif roll < 0.70:
            key, mods = self.rng.choice(PLAIN_KEYS[:20]), M.ShiftModifier
        elif roll < 0.95:
            key, mods = self.rng.choice(CTRL_KEYS), M.ControlModifier
            if self.rng.random() < 0.25:
                mods |= M.ShiftModifier
        else:
            key, mods = self.rng.choice([K.Key_Up, K.Key_Down]), M.AltModifier
        if (key, mods) in NEVER or self._would_quit(widget, key):
            return "skip"
        if isinstance(target, QWidget) and target.isWindow() and target is not self.window \
                and self.rng.random() < 0.3:
            key, mods = K.Key_Escape, M.NoModifier  # users close what they opened
        QTest.keyClick(widget, key, mods)
        return "key"

    @staticmethod
    def _would_quit(widget: QWidget, key: int) -> bool:
        """Return or Enter on a menu's Quit entry, or Quit's mnemonic in its menu, ends the
        walk as Ctrl+Q would (a user quitting is not a bug)."""
        if not isinstance(widget, QMenu):
            return False
        quits = [a for a in widget.actions()
                 if a.shortcut().matches(QKeySequence(QKeySequence.StandardKey.Quit))
                 == QKeySequence.SequenceMatch.ExactMatch or a.text() == "&Quit"]
        return bool(quits) and (key == K.Key_Q or (key in (K.Key_Return, K.Key_Enter)
                                                   and widget.activeAction() in quits))

    def _type(self) -> str:
        widget = self._focus(self.target())
        if isinstance(widget, QLineEdit | QTextEdit | QPlainTextEdit):
            for char in self.rng.choice(WORDS):
                if char.isascii():
                    QTest.keyClick(widget, char)
                else:  # QTest only maps ASCII: send the text as a keyboard would
                    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                        QApplication.sendEvent(widget, QKeyEvent(kind, 0, M.NoModifier, char))
            return "type"
        return self._key()

    def _click(self, within: QWidget | None = None, focusable: bool = False) -> str:
        target = self.target()
        if within is None and target is self.window and self.rng.random() < 0.75:
            within = self.window.stack.currentWidget()  # mostly the page on screen
        home = (within or target).window()
        # only widgets of the window the input goes to: a separate window a page opened
        # (Curate's adjudication window, parented to the Curate page) acts for that page
        widgets = [w for w in (within or target).findChildren(QWidget)
                   if w.isVisible() and w.isEnabled() and w.width() > 2 and w.height() > 2
                   and not w.isWindow() and w.window() is home
                   and (not focusable or w.focusPolicy() & Qt.FocusPolicy.ClickFocus)]
        if not widgets:
            return "none"
        buttons = [w for w in widgets if isinstance(w, QAbstractButton)]
        pool = buttons if buttons and self.rng.random() < 0.35 else widgets
        widget = self.rng.choice(pool)
        pos = QPoint(self.rng.randrange(widget.width()), self.rng.randrange(widget.height()))
        roll = self.rng.random()
        if roll < 0.75:
            QTest.mouseClick(widget, Qt.MouseButton.LeftButton, M.NoModifier, pos)
            return "click"
        if roll < 0.85:
            QTest.mouseDClick(widget, Qt.MouseButton.LeftButton, M.NoModifier, pos)
            return "double-click"
        if roll < 0.92:
            QTest.mouseClick(widget, Qt.MouseButton.RightButton, M.NoModifier, pos)
            return "right-click"
        end = QPoint(self.rng.randrange(widget.width()), self.rng.randrange(widget.height()))
        QTest.mousePress(widget, Qt.MouseButton.LeftButton, M.NoModifier, pos)
        QTest.mouseMove(widget, (pos + end) / 2)
        QTest.mouseMove(widget, end)
        QTest.mouseRelease(widget, Qt.MouseButton.LeftButton, M.NoModifier, end)
        return "drag"

    def _inside_nested_loop(self) -> None:
        self._nested += 1
        popup = QApplication.activePopupWidget() or QApplication.activeModalWidget()
        if popup is None:  # a drag (QDrag.exec, e.g. of selected text) waits for a release
            if self._nested > 2:  # Escape cancels it (QBasicDrag filters the key)
                QTest.keyClick(QApplication.focusWidget() or self.window, K.Key_Escape)
            return
        key = K.Key_Escape if self._nested > 8 else self.rng.choice(
            [K.Key_Down, K.Key_Down, K.Key_Up, K.Key_Return, K.Key_Escape])
        if self._would_quit(popup, key):
            key = K.Key_Escape
        QTest.keyClick(popup, key)

    def _menu(self) -> str:
        """Click the title of a menu in the menu bar (a user browsing the menus; the keys
        that follow go to the open menu: arrows, mnemonics, Return, Escape)."""
        bar = self.window.menuBar()
        titles = [a for a in bar.actions() if a.isVisible()]
        if not titles:
            return "none"
        rect = bar.actionGeometry(self.rng.choice(titles))
        QTest.mouseClick(bar, Qt.MouseButton.LeftButton, M.NoModifier, rect.center())
        return "menu"

    def step(self, index: int) -> None:
        """One event, then the checks."""
        before = self.page()
        self._nested = 0
        self._hand.start()
        try:
            kind = self._event()
        finally:
            self._hand.stop()
        self.counts[kind] = self.counts.get(kind, 0) + 1
        QApplication.processEvents()
        self._check(index, kind, before)

    def _event(self) -> str:
        roll = self.rng.random()
        if roll < 0.03 and self.target() is self.window:
            kind = "switch"  # as Ctrl+1…5 or a click in the list of workspaces
            row = self.rng.randrange(len(self.keys))
            if self.rng.random() < 0.5:
                QTest.keyClick(self.window, K.Key_1 + row, M.ControlModifier)
            else:
                nav = self.window.nav
                QTest.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton, M.NoModifier,
                                 nav.visualItemRect(nav.item(row)).center())
        elif roll < 0.07 and self.target() is self.window:
            kind = self._menu()
        elif roll < 0.60:
            kind = self._key()
        elif roll < 0.68:
            kind = self._type()
        else:
            kind = self._click()
        return kind

    # -- checks ---------------------------------------------------------------------------
    def _check(self, index: int, kind: str, before: str) -> None:
        jobs = self.window.runner.jobs
        for job in jobs[self._jobs_seen:]:
            self._job_pages[id(job)] = before
        self._jobs_seen = len(jobs)
        if self.window.project is None:  # Ctrl+W: the user opens it again
            self.counts["reopen"] = self.counts.get("reopen", 0) + 1
            self.reopen()
            self._baseline()
            return
        after = self.page()
        pages = {before, after} | {self._job_pages[id(j)] for j in jobs
                                   if id(j) in self._job_pages
                                   and (j.outcome == "running" or id(j) not in self._done)}
        self._done = {id(j) for j in jobs if j.outcome != "running"}
        allowed = set().union(*(TABLES[p] for p in pages))
        for table in self._writes():
            if table not in allowed:
                self.violations.append(f"event {index} ({kind}) on {before}→{after}: "
                                       f"{table} written (allowed: {sorted(allowed)})")
        entities = set().union(*(ENTITIES[p] for p in pages))
        for entity, eid in self.window.project.conn.execute(
                "SELECT entity, entity_id FROM audit_log WHERE id > ?", (self.audit,)):
            if entity not in entities:
                self.violations.append(f"event {index} ({kind}) on {before}→{after}: "
                                       f"audit entry for {entity} {eid}")
        self.audit = self._audit_top()

    def walk(self, events: int, budget_s: float) -> int:
        """Run up to ``events`` events, stopping early after ``budget_s`` seconds."""
        start = time.monotonic()
        for index in range(events):
            self.step(index)
            if time.monotonic() - start > budget_s:
                return index + 1
        return events
