"""Find and stream the rows of a Hugging Face–style dataset on disk (ADR 102).

Accepted: a folder of parquet shards (``data/<split>-00000-of-00001.parquet``, the Hub
layout Winnow exports), a single parquet file or a folder of them (``to_parquet``), and
a ``save_to_disk`` folder (Arrow stream files listed by ``state.json``, splits by
``dataset_dict.json``).  Rows are read a few at a time, so memory stays bounded by one
row group however large the dataset is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.interop.deps import require_pyarrow

READ_BATCH = 16
_SHARD = re.compile(r"^(?P<split>[A-Za-z0-9_.]+?)-\d{5}-of-\d{5}$")
_SPLIT_WORDS = {"train", "test", "validation", "valid", "dev", "text_to_image",
                "image_to_image"}


class ReadError(ValueError):
    """A data file turned out damaged part way through its rows."""


@dataclass(frozen=True)
class DataFile:
    """One data file and the split its rows belong to."""

    path: Path
    rel: str     # as shown in reports
    split: str
    kind: str    # "parquet" or "arrow"


def discover(source: str | Path) -> list[DataFile]:
    """The data files of ``source`` in the order ``datasets`` reads them."""
    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"{source} does not exist")
    if source.is_file():
        if source.suffix not in (".parquet", ".arrow"):
            raise ValueError(f"{source} is not a parquet or arrow file")
        kind = source.suffix[1:]
        return [DataFile(source, source.name, _split_of(source), kind)]
    if _present(source / "dataset_dict.json"):
        splits = _json(source / "dataset_dict.json", source).get("splits")
        if not isinstance(splits, list):
            raise ValueError(f"{source / 'dataset_dict.json'}: 'splits' must be a list of "
                             "split names")
        if not splits:
            raise ValueError(f"{source / 'dataset_dict.json'} lists no splits")
        for s in splits:  # "..", an absolute path or a linked folder: refused before opened
            if not _inside(source / str(s), source):
                raise ValueError(f"{source / 'dataset_dict.json'}: split {str(s)!r} is not "
                                 f"a folder inside {real(source).name}")
        return [f for s in splits for f in _saved(source / str(s), source, str(s))]
    if _present(source / "state.json"):
        return _saved(source, source, "train")
    files = sorted(p for p in source.rglob("*.parquet") if p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(source).parts))
    if not files:
        raise ValueError(f"{source}: no dataset files found (expected data/<split>-*.parquet "
                         "shards, parquet files written by to_parquet, or a save_to_disk "
                         "folder)")
    found = [DataFile(p, p.relative_to(source).as_posix(), _split_of(p), "parquet")
             for p in files]
    order = list(dict.fromkeys(f.split for f in found))
    return sorted(found, key=lambda f: (order.index(f.split), f.rel))


def _present(path: Path) -> bool:
    """A file, or a link (followed only once checked, :func:`_json`)."""
    return path.is_file() or path.is_symlink()


def real(path: Path) -> Path:
    """``path`` with its links resolved (a symlink loop: as given)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the path as given
        return path


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, links resolved, lies inside ``folder`` (a NUL byte: no)."""
    try:
        return real(folder) in real(path).parents
    except ValueError:
        return False


def check_inside(data: DataFile, source: Path) -> None:
    """ValueError when a data file found in the folder ``source`` is a link leading
    outside it: a downloaded dataset must not make the import read the user's own files
    (a file given by name is the user's choice)."""
    if source.is_dir() and not _inside(data.path, source):
        raise ValueError(f"{data.rel}: a link leading outside {real(source).name}; "
                         "not read")


def _json(path: Path, root: Path | None = None) -> dict[str, Any]:
    """The JSON object in ``path``; one that is a link leading outside the dataset folder
    ``root`` is refused unread (a downloaded dataset must not make the import read the
    user's own files, ADR 208)."""
    if root is not None and path.is_symlink() and not _inside(path, root):
        raise ValueError(f"{path}: a link leading outside {real(root).name}; not read")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read it ({exc})") from exc
    except RecursionError as exc:  # [[[[…]]]]: Python's parser recurses per level
        raise ValueError(f"{path}: cannot read it (its JSON is nested too deeply)") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return data


def _saved(folder: Path, root: Path, split: str) -> list[DataFile]:
    state = _json(folder / "state.json", root)
    out = []
    entries = state.get("_data_files") or []
    if not isinstance(entries, list):
        raise ValueError(f"{folder / 'state.json'}: '_data_files' must be a list")
    for entry in entries:
        path = _data_file(folder, entry)
        out.append(DataFile(path, path.relative_to(root.resolve()).as_posix(), split, "arrow"))
    return out


def _data_file(folder: Path, entry: object) -> Path:
    """The data file a ``state.json`` entry names, links resolved; ValueError naming the
    entry when it is not one: not ``{"filename": …}``, a name no file can have (a NUL
    byte), leading outside the folder, a folder, a pipe or a device, or missing."""
    where = folder / "state.json"
    name = entry.get("filename") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: entry {_short(entry)} is not an object with a "
                         "'filename' (the name of an Arrow file in the folder)")
    if "\0" in name:
        raise ValueError(f"{where}: data file {name!r} is not a file name; not read")
    path = real(folder / name)
    if path == real(folder) or (path.is_dir() and real(folder) in path.parents):
        raise ValueError(f"{where}: data file {name!r} is a folder, not a data file")
    if real(folder) not in path.parents:  # "..", a link out
        raise ValueError(f"{where}: data file {name!r} leads outside "
                         f"{real(folder).name}; not read")
    if not path.exists():
        raise ValueError(f"{where}: data file {name!r} is missing")
    if not path.is_file():
        raise ValueError(f"{where}: data file {name!r} is not a regular file (a pipe or a "
                         "device); not read")
    return path


def _short(value: object) -> str:
    """``value`` as a message quotes it (at most 60 characters)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return repr(text if len(text) <= 60 else f"{text[:57]}...")


def _split_of(path: Path) -> str:
    stem = path.stem
    match = _SHARD.match(stem)
    if match:
        return match["split"]
    if stem in _SPLIT_WORDS:
        return stem
    parent = path.parent.name
    return parent if parent in _SPLIT_WORDS else "train"


def schema(data: DataFile) -> Any:
    """The Arrow schema of a data file."""
    pa, pq = require_pyarrow("Reading a Hugging Face dataset")
    try:
        if data.kind == "parquet":
            return pq.read_schema(data.path)
        with pa.memory_map(str(data.path)) as source:
            return _ipc(pa, source).schema
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(f"{data.rel}: not a readable {data.kind} file ({exc})") from exc


def num_rows(data: DataFile) -> int:
    """How many rows a data file holds (from metadata; nothing is decoded)."""
    pa, pq = require_pyarrow("Reading a Hugging Face dataset")
    try:
        if data.kind == "parquet":
            return int(pq.ParquetFile(data.path).metadata.num_rows)
        with pa.memory_map(str(data.path)) as source:
            return sum(b.num_rows for b in _batches(_ipc(pa, source)))
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(f"{data.rel}: not a readable {data.kind} file ({exc})") from exc


def _ipc(pa: Any, source: Any) -> Any:
    """A reader of an Arrow IPC stream (what ``save_to_disk`` writes) or an Arrow IPC
    file (``ARROW1`` first: pyarrow's ``new_file``, Feather 2), which ``open_stream``
    refused with "Expected to read 1330795073 metadata bytes" (ADR 200)."""
    if source.read(6) == b"ARROW1":
        return pa.ipc.open_file(source)
    source.seek(0)
    return pa.ipc.open_stream(source)


def _batches(reader: Any) -> Iterator[Any]:
    """The record batches of an IPC reader of either kind."""
    if hasattr(reader, "num_record_batches"):  # the file format
        for k in range(reader.num_record_batches):
            yield reader.get_batch(k)
    else:
        yield from reader


@dataclass(frozen=True)
class BadRow:
    """A row holding a cell Python cannot (a timestamp past year 9999), and why."""

    error: str


def iter_rows(data: DataFile) -> Iterator[dict[str, Any] | BadRow]:
    """The rows of a data file as plain Python values, ``READ_BATCH`` at a time."""
    pa, pq = require_pyarrow("Reading a Hugging Face dataset")
    try:
        if data.kind == "parquet":
            # pre_buffer=False: with it, pyarrow keeps every range it read cached until
            # the file is closed, so memory grew with the file (benchmarks/bench_interop.py)
            parquet = pq.ParquetFile(data.path, pre_buffer=False)
            for batch in parquet.iter_batches(batch_size=READ_BATCH):
                yield from _rows(batch)
            return
        with pa.memory_map(str(data.path)) as source:
            for batch in _batches(_ipc(pa, source)):
                for start in range(0, batch.num_rows, READ_BATCH):
                    yield from _rows(batch.slice(start, READ_BATCH))
    except (OSError, pa.ArrowException) as exc:
        raise ReadError(f"{data.rel}: cannot read it ({exc})") from exc


def _rows(batch: Any) -> Iterator[dict[str, Any] | BadRow]:
    """A batch's rows; when one cell cannot become a Python value (OverflowError,
    ValueError), the batch is taken cell by cell so only that row is lost."""
    try:
        rows = batch.to_pylist()
    except (ValueError, OverflowError):
        rows = None
    if rows is not None:
        yield from rows
        return
    for i in range(batch.num_rows):
        row: dict[str, Any] = {}
        for name, column in zip(batch.schema.names, batch.columns, strict=True):
            try:
                row[name] = column[i].as_py()
            except (ValueError, OverflowError) as exc:
                yield BadRow(f"'{name}' holds a value that cannot be read ({exc})")
                break
        else:
            yield row


def is_image_type(arrow_type: Any) -> bool:
    """An ``Image`` feature's storage: ``struct<bytes: binary, path: string>`` (either
    may be ``null``-typed, as pyarrow infers a field that is None in every row); a
    struct of the same names but other types is not one, or its cells would reach the
    importer as numbers or lists."""
    pa, _ = require_pyarrow()
    if not pa.types.is_struct(arrow_type):
        return False
    fields = {arrow_type.field(i).name: arrow_type.field(i).type
              for i in range(arrow_type.num_fields)}
    if set(fields) != {"bytes", "path"}:
        return False
    t = pa.types
    binary = (t.is_binary, t.is_large_binary, t.is_null)
    text = (t.is_string, t.is_large_string, t.is_null)
    return (any(bool(f(fields["bytes"])) for f in binary)
            and any(bool(f(fields["path"])) for f in text))


def image_kind(arrow_type: Any) -> str | None:
    """"one" for an image column, "list" for a list of images, else None."""
    pa, _ = require_pyarrow()
    if is_image_type(arrow_type):
        return "one"
    if (pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type)) and \
            is_image_type(arrow_type.value_type):
        return "list"
    return None
