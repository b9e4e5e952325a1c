"""Curate at scale, for bench_curate.py: search-as-you-type and bulk labelling on the
31k-sample project, each against the code it replaced ("before"), in the same run,
quiet and with CPU hogs running (issue 18).

"Before" is kept here as it was, so the ratio is measured, not remembered:
- search: ``samples.rowid IN (SELECT rowid FROM sample_search WHERE … MATCH …) ORDER BY``
  on every keystroke (the m004 query), each word quoted and prefix-matched;
- labelling: ``selectedRows()`` for the ids, three statements per sample (UPDATE, touch,
  audit INSERT) on the GUI thread, one ``dataChanged`` per row.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from core.selection import SampleFilter

ROWS_TO_LABEL = 30_500


def stats(times: list[float]) -> dict[str, float]:
    """Median, p95 and max in milliseconds."""
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return {"median_ms": round(statistics.median(ms), 2), "p95_ms": round(p95, 2),
            "max_ms": round(ms[-1], 2), "n": len(ms)}


def ratio(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """after / before for the median and the p95."""
    return {"median": round(after["median_ms"] / before["median_ms"], 3),
            "p95": round(after["p95_ms"] / before["p95_ms"], 3)}


class Hogs:
    """``n`` processes spinning on the CPU (killed, by pid, on exit)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Hogs:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                      for _ in range(self.n)]
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()


# -- search ------------------------------------------------------------------------------------
class LegacyLister:
    """The list query before this change: the FTS hits joined back and sorted each time."""

    def __init__(self, project: Any) -> None:
        self.project = project

    def ordered_ids(self, selection: SampleFilter, sort: str = "id",
                    descending: bool = False) -> list[str]:
        words = [w.replace('"', '""') for w in selection.text.split() if w.strip()]
        order = " ORDER BY s.id " + ("DESC" if descending else "ASC")
        if not words:
            return [r[0] for r in self.project.conn.execute("SELECT s.id FROM samples s" + order)]
        sql = ("SELECT s.id FROM samples s WHERE s.rowid IN (SELECT rowid FROM sample_search "
               "WHERE sample_search MATCH ?)" + order)
        return [r[0] for r in self.project.conn.execute(
            sql, (" ".join(f'"{w}"*' for w in words),))]


def search_queries(words: list[str], rng: Any) -> list[str]:
    """The 61 queries of the Curate section: words, 3-letter prefixes, pairs, a miss."""
    return ([rng.choice(words) for _ in range(30)] + [w[:3] for w in rng.sample(words, 10)]
            + [f"{rng.choice(words)} {rng.choice(words)}" for _ in range(20)] + ["zzzqx"])


def measure_search(app: Any, ws: Any, queries: list[str], rounds: int = 3) -> dict[str, Any]:
    """Model-level (query + model reset + a full paint of the list viewport) and
    workspace-level (the search box's whole path: list, the current sample shown when it
    changes, the window's own repaint) latency, before and after, interleaved."""
    new_lister = ws.model.lister
    legacy = LegacyLister(ws.project)
    times: dict[str, list[float]] = {"model_before": [], "model_after": [],
                                     "workspace_before": [], "workspace_after": []}

    def model_level(text: str) -> float:
        t = time.perf_counter()
        ws.model.set_filter(SampleFilter(text=text))
        ws.table.viewport().grab()
        return time.perf_counter() - t

    def workspace_level(text: str) -> float:  # what the window repaints by itself
        t = time.perf_counter()
        ws.apply_filter(SampleFilter(text=text))
        app.processEvents()
        return time.perf_counter() - t

    for _ in range(rounds):
        for text in queries:
            for name, lister in (("before", legacy), ("after", new_lister)):
                ws.model.lister = lister
                times[f"model_{name}"].append(model_level(text))
                ws.model.set_filter(SampleFilter())
                times[f"workspace_{name}"].append(workspace_level(text))
                ws.apply_filter(SampleFilter())
    ws.model.lister = new_lister
    out: dict[str, Any] = {k: stats(v) for k, v in times.items()}
    out["ratio_model"] = ratio(out["model_before"], out["model_after"])
    out["ratio_workspace"] = ratio(out["workspace_before"], out["workspace_after"])
    return out


# -- bulk labelling -------------------------------------------------------------------------------
class LegacySetField:
    """SetField before this change: per sample an UPDATE, a touch and an audit INSERT."""

    label = "legacy label"
    merge_key = None

    def __init__(self, ids: list[str], field: str, value: Any) -> None:
        self.sample_ids, self.field, self.value = tuple(ids), field, value
        self.old: dict[str, Any] = {}

    @property
    def changed(self) -> bool:
        return bool(self.old)

    def _current(self, project: Any) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for start in range(0, len(self.sample_ids), 900):
            chunk = self.sample_ids[start:start + 900]
            marks = ",".join("?" * len(chunk))
            values.update(project.conn.execute(
                f"SELECT id, {self.field} FROM samples WHERE id IN ({marks})", chunk).fetchall())
        return values

    def _write(self, project: Any, sid: str, old: Any, new: Any) -> None:
        from core.store.project import now_iso

        project.conn.execute(f"UPDATE samples SET {self.field} = ? WHERE id = ?", (new, sid))
        project.conn.execute("UPDATE samples SET modified_at = ? WHERE id = ?", (now_iso(), sid))
        project.audit("edit", "sample", sid, self.field, old, new)

    def do(self, project: Any) -> None:
        with project.transaction():
            current = self._current(project)
            self.old = {sid: v for sid, v in current.items() if v != self.value}
            for sid, old in self.old.items():
                self._write(project, sid, old, self.value)

    def undo(self, project: Any) -> None:
        with project.transaction():
            for sid, old in self.old.items():
                self._write(project, sid, self.value, old)


def _select_rows(ws: Any, n: int) -> None:
    from PySide6.QtCore import QItemSelection, QItemSelectionModel

    model = ws.model
    ws.select_row(0)
    selection = QItemSelection(model.index(0, 0), model.index(n - 1, model.columnCount() - 1))
    ws.table.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.Select)


def _wait(app: Any, ws: Any, t0: float) -> tuple[float, float]:
    """Process events until no edit runs; (total seconds, longest event-loop stall)."""
    from PySide6.QtCore import QEventLoop

    stamps = [t0]
    while True:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        stamps.append(time.perf_counter())
        if not ws.editor.busy:
            break
        time.sleep(0.001)
    app.processEvents()
    ws.table.viewport().grab()
    stamps.append(time.perf_counter())
    stall = max(b - a for a, b in zip(stamps, stamps[1:], strict=False))
    return stamps[-1] - t0, stall


def measure_labelling(app: Any, ws: Any, rounds: int = 3) -> dict[str, Any]:
    """Label 30,500 selected rows (and undo it) through the workspace, background job and
    all, against the legacy per-row command run the way it was (GUI thread)."""
    ws.apply_filter(SampleFilter())
    n = min(ROWS_TO_LABEL, ws.model.rowCount())
    out: dict[str, list[float]] = {"label_total": [], "label_stall": [], "undo_total": [],
                                   "undo_stall": [], "legacy_label": [], "legacy_undo": []}
    audit0 = ws.project.counts()["audit_entries"]
    for k in range(rounds):
        quality = ("Trash", "Benchmark", "Analysis")[k % 3]
        _select_rows(ws, n)
        t0 = time.perf_counter()
        ws.review.label(quality)
        total, stall = _wait(app, ws, t0)
        out["label_total"].append(total)
        out["label_stall"].append(stall)
        t0 = time.perf_counter()
        ws.undo()
        total, stall = _wait(app, ws, t0)
        out["undo_total"].append(total)
        out["undo_stall"].append(stall)
        # before: the same edit the old way, on the GUI thread
        _select_rows(ws, n)
        t0 = time.perf_counter()
        rows = sorted({i.row() for i in ws.table.selectionModel().selectedRows()})
        legacy = LegacySetField([ws.model.ids[r] for r in rows], "quality", quality)
        legacy.do(ws.project)
        _emit_rows(ws, legacy.sample_ids)
        out["legacy_label"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        legacy.undo(ws.project)
        _emit_rows(ws, legacy.sample_ids)
        out["legacy_undo"].append(time.perf_counter() - t0)
    result: dict[str, Any] = {k: stats(v) for k, v in out.items()}
    result["rows"] = n
    result["audit_rows_written"] = ws.project.counts()["audit_entries"] - audit0
    result["ratio_label"] = ratio(result["legacy_label"], result["label_total"])
    result["ratio_undo"] = ratio(result["legacy_undo"], result["undo_total"])
    return result


def _emit_rows(ws: Any, ids: tuple[str, ...]) -> None:
    model = ws.model
    model._pages.clear()
    last = model.columnCount() - 1
    for sid in ids:
        row = model.row_of(sid)
        if row is not None:
            model.dataChanged.emit(model.index(row, 0), model.index(row, last))


def show_workspace(context: Any, project: Any) -> Any:
    """A Curate workspace at 1400×900 showing ``project``, painted once."""
    from ui.curate.workspace import CurateWorkspace

    ws = CurateWorkspace(context)
    ws.resize(1400, 900)
    ws.show()
    context.project = project
    context.project_changed.emit()
    ws.grab()
    return ws


def background_jobs(context: Any) -> Callable[[], None]:
    """Bind ``context`` to a real job runner whose results come back queued to the GUI
    thread, as the main window does; returns its shutdown."""
    from PySide6.QtCore import QObject, Qt, Signal

    from app.jobs import JobRunner

    class Bridge(QObject):
        finished = Signal(object)

    runner = JobRunner()
    bridge = Bridge()
    callbacks: dict[int, Callable[[Any], None]] = {}

    def start_job(title: str, fn: Callable[..., Any], on_done: Any = None) -> Any:
        job = runner.submit(title, fn, on_finished=bridge.finished.emit)
        if on_done is not None:
            callbacks[id(job)] = on_done
        return job

    def finished(job: Any) -> None:
        callback = callbacks.pop(id(job), None)
        if callback is not None:
            callback(job)

    bridge.finished.connect(finished, Qt.ConnectionType.QueuedConnection)
    context.bind(start_job, lambda t, m: print("message:", t, m, file=sys.stderr),
                 lambda t, ms: None)
    context._bridge = bridge  # keep it alive
    return lambda: runner.executor.shutdown(wait=True)


def dump(results: dict[str, Any]) -> str:
    """Pretty JSON."""
    return json.dumps(results, indent=2)
