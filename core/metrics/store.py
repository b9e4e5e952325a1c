"""Metric results in the project (table ``metric_results``, migration m007) and CSV export."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.csv_cells import safe_row
from core.export_files import export_writer
from core.metrics.base import MetricResult
from core.store.project import Project, now_iso


@dataclass(frozen=True)
class CachedRow:
    version: int
    inputs_hash: str
    status: str
    #: a judge did not answer for this item (``details.unanswered``): compute it again
    incomplete: bool = False


@dataclass(frozen=True)
class ResultRow:
    """One stored result, as views and exports read it."""

    sample_id: str
    model: str
    metric: str
    status: str
    value: float | None
    details: dict[str, Any]
    error: str | None
    version: int
    params: dict[str, Any]
    params_hash: str
    computed_at: str
    seconds: float | None


def cached(project: Project, metric: str, params_hash: str) -> dict[tuple[str, str], CachedRow]:
    """``{(sample, model): (version, inputs_hash, status, incomplete)}`` stored for this
    configuration."""
    rows = project.conn.execute(
        "SELECT sample_id, model, version, inputs_hash, status, "
        # json_extract raises on details SQLite cannot parse (NaN): guarded, never read
        "CASE WHEN instr(details, '\"unanswered\"') AND json_valid(details) "
        "THEN json_extract(details, '$.unanswered') IS NOT NULL ELSE 0 END "
        "FROM metric_results WHERE metric = ? AND params_hash = ?", (metric, params_hash))
    return {(s, m): CachedRow(v, h, st, bool(gap)) for s, m, v, h, st, gap in rows}


def save_results(project: Project, metric: str, version: int, params: dict[str, Any],
                 params_hash: str,
                 rows: Iterable[tuple[str, str, str, MetricResult, float | None]]) -> int:
    """Upsert ``(sample, model, inputs_hash, result, seconds)`` rows in one transaction."""
    at = now_iso()
    params_json = json.dumps(params, sort_keys=True, ensure_ascii=False)
    data = [(s, m, metric, params_hash, version, h, r.status, r.value,
             json.dumps(r.details, ensure_ascii=False, default=_jsonable), r.error,
             params_json, at, sec) for s, m, h, r, sec in rows]
    if not data:
        return 0
    with project.transaction() as conn:
        conn.executemany(
            "INSERT INTO metric_results (sample_id, model, metric, params_hash, version, "
            "inputs_hash, status, value, details, error, params, computed_at, seconds) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (sample_id, model, metric, params_hash) DO UPDATE SET "
            "version = excluded.version, inputs_hash = excluded.inputs_hash, "
            "status = excluded.status, value = excluded.value, details = excluded.details, "
            "error = excluded.error, params = excluded.params, "
            "computed_at = excluded.computed_at, seconds = excluded.seconds", data)
    return len(data)


def _jsonable(obj: Any) -> Any:
    try:
        return obj.tolist()
    except AttributeError:
        return str(obj)


def load_results(project: Project, *, metrics: Sequence[str] = (),
                 params_hashes: dict[str, str] | None = None,
                 sample_ids: Sequence[str] | None = None,
                 models: Sequence[str] = ()) -> list[ResultRow]:
    """Stored results, optionally filtered; ``params_hashes`` picks one configuration per metric."""
    where, args = ["1"], []
    if metrics:
        where.append(f"metric IN ({','.join('?' * len(metrics))})")
        args += list(metrics)
    if models:
        where.append(f"model IN ({','.join('?' * len(models))})")
        args += list(models)
    rows = project.conn.execute(
        "SELECT sample_id, model, metric, status, value, details, error, version, params, "
        "params_hash, computed_at, seconds FROM metric_results WHERE " + " AND ".join(where)
        + " ORDER BY metric, sample_id, model", args).fetchall()
    keep = set(sample_ids) if sample_ids is not None else None
    out = []
    for r in rows:
        if keep is not None and r[0] not in keep:
            continue
        if params_hashes and r[2] in params_hashes and params_hashes[r[2]] != r[9]:
            continue
        out.append(ResultRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5] or "{}"), r[6],
                             r[7], json.loads(r[8] or "{}"), r[9], r[10], r[11]))
    return out


def has_results(project: Project, metrics: Sequence[str] = ()) -> bool:
    """Whether any metric result is stored, of ``metrics`` when given (an export of none
    would be a bare header)."""
    where = f" WHERE metric IN ({', '.join('?' * len(metrics))})" if metrics else ""
    return project.conn.execute(f"SELECT 1 FROM metric_results{where} LIMIT 1",
                                tuple(metrics)).fetchone() is not None


def sub_values(row: ResultRow) -> dict[str, float]:
    """Named secondary values worth a column (b* shift, TECCI criteria, cosine...)."""
    d = row.details
    out: dict[str, float] = {}
    for key in ("b_shift", "cosine", "mse"):
        if isinstance(d.get(key), int | float):
            out[key] = float(d[key])
    for crit, v in (d.get("criteria") or {}).items():
        out[crit] = float(v)
    return out


EXPORT_COLUMNS = ("sample_id", "model", "metric", "value", "status", "error", "version",
                  "params", "computed_at", "details")


def export_rows(project: Project, *, metrics: Sequence[str] = ()) -> Iterator[tuple[Any, ...]]:
    """Rows of :data:`EXPORT_COLUMNS` (long format) with Python values (None = missing).

    Secondary values (e.g. ``colour_shift/b_shift``, ``judge_tecci/IF``) get rows of
    their own with the metric name ``<metric>/<name>``.
    """
    for r in load_results(project, metrics=metrics):
        params = json.dumps(r.params, sort_keys=True, ensure_ascii=False)
        details = json.dumps(r.details, sort_keys=True, ensure_ascii=False)
        yield (r.sample_id, r.model, r.metric, r.value, r.status, r.error, r.version, params,
               r.computed_at, details)
        for name, v in sub_values(r).items():
            yield (r.sample_id, r.model, f"{r.metric}/{name}", v, r.status, None, r.version,
                   params, r.computed_at, None)


def export_csv(project: Project, out: str | Path, *, metrics: Sequence[str] = ()) -> int:
    """Write every stored result as CSV (long format, :func:`export_rows`), atomically;
    returns the row count. An existing file is replaced only if Winnow wrote it
    (:func:`export_writer`)."""
    out = Path(out)
    count = 0
    with export_writer(out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(EXPORT_COLUMNS)
        for row in export_rows(project, metrics=metrics):
            writer.writerow(safe_row([*row[:3], _num(row[3]), row[4], row[5] or "",
                                      *row[6:9], row[9] or ""]))
            count += 1
    return count


def _num(v: float | None) -> str:
    return "" if v is None else repr(float(v))


def start_run(project: Project, metrics: Sequence[str], models: Sequence[str], samples: int,
              device: str) -> int:
    """Log the start of a run; returns its id."""
    with project.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO metric_runs (started_at, actor, metrics, models, samples, device) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (now_iso(), project.actor, json.dumps(list(metrics)), json.dumps(list(models)),
             samples, device))
        return int(cur.lastrowid or 0)


def finish_run(project: Project, run_id: int, computed: int, cached_n: int, errors: int,
               outcome: str) -> None:
    """Log how a run ended."""
    with project.transaction() as conn:
        conn.execute("UPDATE metric_runs SET finished_at = ?, computed = ?, cached = ?, "
                     "errors = ?, outcome = ? WHERE id = ?",
                     (now_iso(), computed, cached_n, errors, outcome, run_id))
