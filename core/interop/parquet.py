"""Rating and metric results as parquet tables (ADR 103), beside the CSV exports.

Same columns and rows as the CSV files, with real types: integers for ranks, Likert
values and checklist answers, float64 for metric values, UTC timestamps for times;
JSON text stays text.  Written like the CSV exports (:func:`core.export_files.export_writer`):
a file appears whole or not at all, is recorded in its folder's ownership marker, and
an existing file is replaced only when that marker proves it is Winnow's earlier export
(ADR 005, ADR 187), or when ``replace`` says the user chose to replace it (the app's save
dialog asked).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from core.export_files import export_writer, owned
from core.files import atomic_writer
from core.interop.deps import require_pyarrow
from core.store.project import Project

#: results columns whose values are integers; every other rating column is text
RATING_INTS = {"rank", "value", "q1", "q2", "q3", "q4", "q5", "q6"}
#: the metric export's columns (core.metrics.store.EXPORT_COLUMNS) and their types
METRIC_TYPES = {"sample_id": "string", "model": "string", "metric": "string",
                "value": "float64", "status": "string", "error": "string",
                "version": "int64", "params": "string", "computed_at": "timestamp",
                "details": "string"}
ROWS_PER_GROUP = 50_000


def format_for(path: str | Path, explicit: str | None = None) -> str:
    """``explicit`` if given, else ``parquet`` for a ``.parquet`` name, else ``csv``."""
    if explicit:
        return explicit
    return "parquet" if Path(path).suffix.lower() == ".parquet" else "csv"


def write_table(out: str | Path, columns: Sequence[tuple[str, str]],
                rows: Iterable[Sequence[Any]], *, replace: bool = False) -> int:
    """Write ``rows`` (tuples in ``columns`` order) as one parquet file; returns the count.

    Types: ``string``, ``int64``, ``float64``, ``timestamp`` (ISO-8601 text in, UTC
    milliseconds out).  Rows are converted in groups, so memory stays bounded.
    """
    pa, pq = require_pyarrow("Parquet output")
    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(),
             "timestamp": pa.timestamp("ms", tz="UTC")}
    schema = pa.schema([(name, types[kind]) for name, kind in columns])
    stamps = [k for k, (_, kind) in enumerate(columns) if kind == "timestamp"]
    out = Path(out)
    count = 0
    with _writer(out, replace) as fh:
        writer = pq.ParquetWriter(fh, schema, compression="zstd")
        try:
            group: list[Sequence[Any]] = []
            for row in rows:
                group.append(_stamped(row, stamps, count + len(group) + 1) if stamps else row)
                if len(group) >= ROWS_PER_GROUP:
                    writer.write_table(_table(pa, schema, group))
                    count += len(group)
                    group = []
            if group or not count:
                writer.write_table(_table(pa, schema, group))
                count += len(group)
        finally:
            writer.close()
    return count


def _writer(out: Path, replace: bool) -> AbstractContextManager[IO[bytes]]:
    """:func:`export_writer` for ``out``; a file Winnow cannot prove it wrote is replaced
    only when ``replace`` (the user confirmed it), then not recorded as Winnow's."""
    if replace and os.path.lexists(out) and not owned(out):
        return atomic_writer(out, "wb", replace=True)
    return export_writer(out, "wb")


def _table(pa: Any, schema: Any, rows: list[Sequence[Any]]) -> Any:
    cols: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [[] for _ in schema]
    try:
        return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, schema,
                                                                             strict=True)],
                                    schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise ValueError(f"a value does not fit its column type: {exc}") from exc


def _stamped(row: Sequence[Any], stamps: list[int], number: int) -> list[Any]:
    out = list(row)
    for k in stamps:
        if out[k] in (None, ""):
            out[k] = None
            continue
        try:
            out[k] = datetime.fromisoformat(str(out[k]).replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError(f"row {number}: {out[k]!r} is not an ISO-8601 time") from exc
    return out


def export_results_parquet(project: Project, name: str, out: str | Path,
                           criterion: str | None = None, *, replace: bool = False) -> int:
    """The rating results of session ``name`` (the CSV's columns, ADR 053) as parquet."""
    from core.rating.results import result_rows

    header, rows = result_rows(project, name, criterion)
    if not rows:
        raise ValueError(f"session {name!r} has no merged judgments to export yet "
                         "(merge the raters' files first)")
    columns = [(h, "int64" if h in RATING_INTS else "string") for h in header]
    return write_table(out, columns, rows, replace=replace)


def export_metrics_parquet(project: Project, out: str | Path, *,
                           metrics: Sequence[str] = (), replace: bool = False) -> int:
    """Every stored metric result (the CSV's long format) as parquet."""
    from core.metrics.store import EXPORT_COLUMNS, export_rows

    columns = [(c, METRIC_TYPES[c]) for c in EXPORT_COLUMNS]
    return write_table(out, columns, export_rows(project, metrics=metrics), replace=replace)
