"""The ids ``import hf`` makes for rows without one: ``<prefix>/<split>/<row>`` (ADR 200).

The prefix was the dataset folder's name alone, so two datasets in folders of one name
(``data``, ``train``) made the same ids and the second import replaced the first's
samples.  Now the project remembers which dataset each prefix belongs to
(``project_meta`` key ``hf_import_ids:<prefix>``): the folder's name for the first
dataset that makes ids under it, ``<name>-2``, ``<name>-3``… for another.  A dataset is
known again by its folder (resolved path) or by its files (names, splits, row counts
and sizes: the same dataset moved or copied), so a re-import makes the same ids.  Only
hashes are kept, never the path itself (a project file is shared).

A project made before this record adopts its plain ``<name>`` prefix for the first
dataset that imports under it again — as earlier versions did, so their re-imports
still find their rows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from itertools import count
from pathlib import Path
from typing import Any

from core.store.project import Project

KEY = "hf_import_ids:"


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value).encode()).hexdigest()[:32]


def identity(source: Path, files: Sequence[Any]) -> dict[str, str]:
    """What tells a dataset again: its resolved folder and its data files."""
    try:
        real = str(source.resolve())
    except (OSError, RuntimeError):  # a symlink loop: the path as given
        real = str(source)
    listed = []
    for data, _, rows in files:
        try:
            size = data.path.stat().st_size
        except OSError:
            size = None
        listed.append([data.rel, data.split, rows, size])
    return {"path": _digest(real), "files": _digest(listed)}


class GeneratedIds:
    """Makes ``<prefix>/<split>/<row>`` ids; the first one made records the prefix as
    this dataset's in the project."""

    def __init__(self, project: Project, name: str, ident: dict[str, str]) -> None:
        self.project, self.ident = project, ident
        self.prefix = _prefix(project, name, ident)
        self._claimed = False

    def make(self, split: str, row: int) -> str:
        """The id of ``row`` of ``split``."""
        if not self._claimed:
            with self.project.transaction() as conn:
                conn.execute("INSERT OR REPLACE INTO project_meta(key, value) VALUES (?, ?)",
                             (KEY + self.prefix, json.dumps(self.ident)))
            self._claimed = True
        return f"{self.prefix}/{split}/{row}"


def _prefix(project: Project, name: str, ident: dict[str, str]) -> str:
    """This dataset's prefix: the one recorded for it, else the first free one."""
    owners: dict[str, dict[str, Any]] = {}
    for key, value in project.conn.execute(
            "SELECT key, value FROM project_meta WHERE key > ? AND key < ? ORDER BY key",
            (KEY, KEY[:-1] + ";")):
        try:
            owner = json.loads(value)
        except (TypeError, ValueError):
            owner = {}
        owners[key[len(KEY):]] = owner if isinstance(owner, dict) else {}
    for field in ("path", "files"):  # the same folder first, then the same files
        for prefix, owner in owners.items():
            if owner.get(field) == ident[field]:
                return prefix
    for k in count(1):
        prefix = name if k == 1 else f"{name}-{k}"
        if prefix in owners:
            continue
        if k == 1 or not _has_ids_under(project, prefix):  # k == 1: an older project's
            return prefix
    raise AssertionError("unreachable")


def _has_ids_under(project: Project, prefix: str) -> bool:
    """Whether a sample id starts with ``<prefix>/`` (made by an import before ADR 200)."""
    return project.conn.execute("SELECT 1 FROM samples WHERE id >= ? AND id < ? LIMIT 1",
                                (prefix + "/", prefix + "0")).fetchone() is not None
