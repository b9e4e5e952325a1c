"""The rows of a Hugging Face import waiting to be handed to the JSON Lines importer
(ADR 102): their images on disk in a hidden working folder beside the project, the
importer's report merged back with split and row numbers in place of the chunk's lines.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.files import TEMP_MARK, new_temp_dir, stale_temps, write_bytes, write_text
from core.ingest.importer import MAX_REPORTED_ERRORS, ImportReport, ImportStoppedError
from core.ingest.records import shown_id
from core.jobs import JobState
from core.store.project import Project


@dataclass
class HfImportReport(ImportReport):
    """The JSON Lines import's report, with rows (split, row, file) instead of lines."""

    rows: int = 0

    def row_error(self, where: dict[str, Any], message: str) -> None:
        """Record a failing row (or file, when ``row`` is None)."""
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append({**where, "error": message})
        else:
            self.suppressed_errors += 1

    def to_json(self) -> dict[str, Any]:
        """Machine-readable report (the CLI prints it; the import dialog shows it)."""
        return {"source": self.source, "rows": self.rows, **super().to_json()}

    def summary(self) -> str:
        """One human line."""
        return (f"{self.rows} row(s) read: {self.imported} imported, {self.updated} updated, "
                f"{self.unchanged} unchanged, {len(self.errors) + self.suppressed_errors} "
                f"with errors; images: {self.images_fetched} stored, "
                f"{self.images_failed} failed")


def work_folder(project: Project) -> Path:
    """A new hidden working folder beside the project, after removing those a killed
    import left (only this project's, only of processes that have ended)."""
    name = f"{project.path.name}.hf-import"
    for stale in stale_temps(project.path.parent):
        if stale.name.startswith(f".{name[:80]}{TEMP_MARK}") and stale.is_dir():  # temp_name
            shutil.rmtree(stale, ignore_errors=True)
    return new_temp_dir(project.path.parent, name)


#: the JSON Lines importer naming another line of the chunk, and its endings
_ON_LINE = re.compile(r"\b(on|at) line (\d+)\b")
_LINE_WORDS = (("this line was not imported", "this row was not imported"),
               ("line not imported", "row not imported"))
#: the JSON Lines importer's hint at ``--image-root``, which ``import hf`` does not have
_NO_IMAGE_ROOT = re.compile(r";? *pass --image-root[^)]*")


def _chunk_name(dataset: str, split: str, row: int) -> str:
    """``<dataset>-<split>-from-row-<n>.jsonl`` (the audit log names it) as one file-name
    component: a split may be a nested folder (``sub/train``) and either name may be
    near the 255-byte limit."""
    def part(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80]

    return f"{part(dataset)}-{part(split)}-from-row-{row}.jsonl"


class Chunk:
    """Rows waiting to be handed to the importer, with their images on disk.

    One id, one row: :meth:`offer` takes the first row with an id and refuses a later
    one (the importer would let it silently replace the first) — unless the first is
    still waiting here, whose fate the importer has not told yet: the later row is
    held, and taken in place of the first if the importer refuses it (ADR 200)."""

    def __init__(self, project: Project, work: Path, dataset: str, report: HfImportReport,
                 state: JobState) -> None:
        self.project, self.work, self.dataset = project, work, dataset
        self.report, self.state = report, state
        self.inner = JobState(title=state.title)
        state.subscribe(lambda s: self.inner.cancel()
                        if s.cancelled() and not self.inner.cancelled() else None)
        self.count = 0
        self.seen: dict[str, dict[str, Any]] = {}  # sample id -> the row that holds it
        self.held: list[tuple[dict[str, Any], dict[str, Any], dict[str, list[bytes]]]] = []
        self.held_bytes = 0
        self._reset()

    def offer(self, where: dict[str, Any], obj: dict[str, Any],
              images: dict[str, list[bytes]]) -> None:
        """Add a row, hold it (its id's row waits in this chunk) or report it (its id's
        row was imported)."""
        sid = obj["id"]
        first = self.seen.setdefault(sid, where)
        if first is where:
            self.add(where, obj, images)
        elif sid in self.ids:
            self.held.append((where, obj, images))
            self.held_bytes += sum(len(b) for blobs in images.values() for b in blobs)
        else:
            self.report.row_error(where, f"id '{shown_id(sid)}' is already used by "
                                         f"{first['split']} row {first['row']}")

    def full(self, rows: int, size: int) -> bool:
        """Whether the rows waiting (held ones too) reach ``rows`` or ``size`` bytes."""
        return (self.rows + len(self.held) >= rows
                or self.bytes + self.held_bytes >= size)

    def finish(self) -> None:
        """Import every row still waiting or held."""
        while self.lines or self.held:
            self.flush()

    def _reset(self) -> None:
        self.count += 1
        self.folder = self.work / f"chunk{self.count}"
        self.folder.mkdir()
        self.lines: list[str] = []
        self.where: list[dict[str, Any]] = []
        self.ids: dict[str, int] = {}  # sample id -> its line
        self.image_rows: dict[str, list[tuple[int, str]]] = {}
        self.rows = self.bytes = 0

    def add(self, where: dict[str, Any], obj: dict[str, Any],
            images: dict[str, list[bytes]]) -> None:
        line = len(self.lines) + 1
        for role, blobs in images.items():
            paths = []
            for k, data in enumerate(blobs):
                digest = hashlib.sha256(data).hexdigest()
                ref = f"{self.dataset}/{digest[:32]}"
                target = self.folder / ref
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    write_bytes(target, data)
                    self.bytes += len(data)
                paths.append(ref)
                self.image_rows.setdefault(ref, []).append((line, f"{role}[{k}]"))
            if paths:
                obj[role] = paths
        self.lines.append(json.dumps(obj, ensure_ascii=False))
        self.ids[obj["id"]] = line
        self.where.append(where)
        self.rows += 1

    def flush(self) -> None:
        """Import the waiting rows, then offer the held ones again: a row whose id's
        first row the importer refused takes its place."""
        if self.lines:
            refused = self._import()
            for sid in refused:
                del self.seen[sid]
        held, self.held, self.held_bytes = self.held, [], 0
        for where, obj, images in held:
            self.offer(where, obj, images)

    def _import(self) -> set[str]:
        """Hand the waiting rows to the importer; the ids of the rows it refused."""
        from core.ingest.importer import import_jsonl

        first = self.where[0]
        path = self.folder / _chunk_name(self.dataset, first["split"], first["row"])
        write_text(path, "\n".join(self.lines) + "\n")
        self.state.set_status(f"Importing {first['split']} rows {first['row']}–"
                              f"{self.where[-1]['row']}")
        try:
            result = import_jsonl(self.project, path, state=self.inner)
        except ImportStoppedError as exc:  # "stopped at line 4 … import the file again"
            raise ImportStoppedError(self._in_rows(str(exc)).replace(
                "import the file again", "import the dataset again")) from exc
        self._merge(result)
        by_line = {line: sid for sid, line in self.ids.items()}
        refused = {by_line[err["line"]] for err in result.errors}
        shutil.rmtree(self.folder, ignore_errors=True)
        self._reset()
        return refused

    def _in_rows(self, message: str) -> str:
        """The importer's words for another line of the chunk ("the id on line 3", "this
        line was not imported") as the rows they are: the chunk is a hidden file."""
        def row(match: re.Match[str]) -> str:
            k = int(match[2])
            w = self.where[k - 1] if 1 <= k <= len(self.where) else None
            return match[0] if w is None else f"{match[1]} {w['split']} row {w['row']}"

        message = _ON_LINE.sub(row, message)
        for line, row_words in _LINE_WORDS:
            message = message.replace(line, row_words)
        return message

    def _merge(self, result: Any) -> None:
        r = self.report
        r.imported += result.imported
        r.updated += result.updated
        r.unchanged += result.unchanged
        r.images_fetched += result.images_fetched
        r.images_failed += result.images_failed
        for err in result.errors:
            where = self.where[err["line"] - 1]
            r.row_error({k: where[k] for k in ("split", "row", "file")},
                        self._in_rows(err["error"]))
        for note in result.notes:
            where = self.where[note["line"] - 1]
            r.notes.append({"split": where["split"], "row": where["row"],
                            "note": note["note"]})
        prefix = str(self.folder)
        for err in result.image_errors:
            message = _NO_IMAGE_ROOT.sub("", err["error"])  # an option `import hf` lacks
            if message.startswith((prefix, f"{err['url']}: ")):  # Winnow's names, not theirs
                message = message.split(": ", 1)[-1]
            for line, column in self.image_rows.get(err["url"], []):
                where = self.where[line - 1]
                r.image_errors.append({"split": where["split"], "row": where["row"],
                                       "column": column, "error": message})
