"""Parquet shards written incrementally, one split at a time or several interleaved.

Rows are buffered into a row group of at most ``group_rows`` rows or ``group_bytes``
bytes of images, then written; a shard is closed after ``shard_rows`` rows.  Memory is
therefore bounded by one row group per open split, whatever the dataset's size.  Each
shard goes through :func:`core.files.atomic_writer` (fsynced, normal permissions) under
a provisional name; :meth:`ShardWriter.finish` gives the shards their Hub names
``data/<split>-00000-of-00003.parquet`` once their number is known.  A shard that
cannot be written (a full disk) raises :class:`core.files.WriteError` naming it under
the export's destination, not the hidden folder it is built in, and saying that nothing
was written there (ADR 187).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.files import WRITE_ERRNOS, WriteError, atomic_writer, fsync_dir
from core.interop.deps import require_pyarrow

SHARD_ROWS = 1000
GROUP_ROWS = 64
GROUP_BYTES = 32 * 2**20


@dataclass
class SplitInfo:
    """What was written for one split."""

    name: str
    num_examples: int = 0
    num_bytes: int = 0
    files: list[str] = field(default_factory=list)  # relative to the dataset root


@dataclass
class _Open:
    index: int
    context: Any
    writer: Any
    rows: int = 0
    buffer: list[dict[str, Any]] = field(default_factory=list)
    buffer_bytes: int = 0


class ShardWriter:
    """Write rows of one schema into ``root/data/<split>-*.parquet``."""

    def __init__(self, root: Path, schema: Any, *, shard_rows: int = SHARD_ROWS,
                 group_rows: int = GROUP_ROWS, group_bytes: int = GROUP_BYTES,
                 target: Path | None = None) -> None:
        """``root``: where the shards are built; ``target``: where the export is published
        (named in errors; default ``root``)."""
        self.pa, self.pq = require_pyarrow()
        self.root = Path(root)
        self.target = Path(target) if target is not None else self.root
        self.data = self.root / "data"
        self.data.mkdir(exist_ok=True)
        self.schema = schema
        self.shard_rows, self.group_rows, self.group_bytes = shard_rows, group_rows, group_bytes
        self.splits: dict[str, SplitInfo] = {}
        self._open: dict[str, _Open] = {}
        self._shards: dict[str, int] = {}

    def add(self, split: str, row: dict[str, Any], nbytes: int = 0) -> None:
        """Queue one row of ``split``; ``nbytes`` is the size of its images."""
        info = self.splits.setdefault(split, SplitInfo(split))
        with self._writing(split, self._shards.get(split, 0)):
            current = self._open.get(split) or self._start(split)
        current.buffer.append(row)
        current.buffer_bytes += nbytes
        current.rows += 1
        info.num_examples += 1
        with self._writing(split, current.index):
            if len(current.buffer) >= self.group_rows or \
                    current.buffer_bytes >= self.group_bytes:
                self._flush(current)
            if current.rows >= self.shard_rows:
                self._close(split)

    def finish(self) -> dict[str, SplitInfo]:
        """Close every shard and rename them ``<split>-<k>-of-<n>.parquet``."""
        for split in list(self._open):
            with self._writing(split, self._open[split].index):
                self._close(split)
        for split, info in self.splits.items():
            n = self._shards[split]
            for k in range(n):
                final = f"{split}-{k:05d}-of-{n:05d}.parquet"
                os.rename(self.data / self._provisional(split, k), self.data / final)
                info.files.append(f"data/{final}")
                info.num_bytes += (self.data / final).stat().st_size
        fsync_dir(self.data)
        return self.splits

    def abort(self) -> None:
        """Drop the open shards (their temporary files are removed)."""
        for current in self._open.values():
            with contextlib.suppress(Exception):
                current.writer.close()
            with contextlib.suppress(Exception):
                current.context.__exit__(RuntimeError, RuntimeError("aborted"), None)
        self._open.clear()

    # -- internals -------------------------------------------------------------------------
    @contextlib.contextmanager
    def _writing(self, split: str, index: int) -> Iterator[None]:
        """A write error of shard ``index`` of ``split`` as a :class:`WriteError` naming
        it under :attr:`target` (the user never sees the temporary folder)."""
        try:
            yield
        except OSError as exc:
            if not isinstance(exc, WriteError) and exc.errno not in WRITE_ERRNOS:
                raise
            shown = self.target / "data" / self._provisional(split, index)
            raise WriteError(shown, exc, f"nothing was written to {self.target}") from exc

    @staticmethod
    def _provisional(split: str, index: int) -> str:
        return f"{split}-{index:05d}.parquet"

    def _start(self, split: str) -> _Open:
        index = self._shards.get(split, 0)
        self._shards[split] = index + 1
        context = atomic_writer(self.data / self._provisional(split, index), "wb")
        fh = context.__enter__()
        try:
            writer = self.pq.ParquetWriter(fh, self.schema, compression="zstd")
        except BaseException as exc:
            context.__exit__(type(exc), exc, exc.__traceback__)
            raise
        current = _Open(index, context, writer)
        self._open[split] = current
        return current

    def _flush(self, current: _Open) -> None:
        if current.buffer:
            table = self.pa.Table.from_pylist(current.buffer, schema=self.schema)
            current.writer.write_table(table, row_group_size=len(current.buffer))
        current.buffer, current.buffer_bytes = [], 0

    def _close(self, split: str) -> None:
        current = self._open.pop(split)
        try:
            self._flush(current)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                current.writer.close()
            current.context.__exit__(type(exc), exc, exc.__traceback__)
            raise
        try:
            current.writer.close()
        except BaseException as exc:
            current.context.__exit__(type(exc), exc, exc.__traceback__)
            raise
        current.context.__exit__(None, None, None)
