"""Split a project's samples into one curator package per person (ADR 130).

``split_project`` chooses who gets what (:func:`assign`: a seeded shuffle dealt round
robin; a fraction of the samples also goes to a second curator, partners rotating so
every pair shares some), writes the packages into a new folder
(:class:`core.export_folder.ExportFolder`: built hidden, published whole, never into a
folder that holds anything), and records the split, its secret and its assignments in
the project.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import sqlite3
import unicodedata
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.curate.detail import load_sample
from core.export_folder import ExportFolder
from core.files import WRITE_ERRNOS, WriteError
from core.jobs import JobState
from core.mac_chain import new_secret
from core.selection import SampleFilter
from core.store.assets import sha256_bytes
from core.store.errors import ProjectError, as_project_error
from core.store.project import Project, now_iso
from core.teamwork import package
from core.teamwork.values import read_values

MAX_NAME = 200
MAX_CURATORS = 100


class SplitError(ValueError):
    """The split cannot be made as asked (says why); nothing was written."""


@dataclass(frozen=True)
class PackagePlan:
    """One curator's package: who, which samples, which of them are shared."""

    curator: str
    file_name: str
    package_uid: str
    samples: tuple[str, ...]
    overlap: frozenset[str]


@dataclass
class SplitReport:
    """What a split wrote."""

    split: str
    out: Path
    packages: list[dict[str, Any]] = field(default_factory=list)
    samples: int = 0
    overlap: int = 0
    #: samples left out, with binary data in a text field (ADR 157):
    #: ``{"sample", "fields", "reason"}``
    skipped: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"split": self.split, "out": str(self.out), "samples": self.samples,
                "overlap_samples": self.overlap, "packages": self.packages,
                "skipped": self.skipped}


def clean_names(names: list[str]) -> list[str]:
    """Curators' names with spaces normalised; SplitError for an empty, overlong or
    repeated name (case-insensitively)."""
    out: list[str] = []
    for raw in names:
        name = " ".join(str(raw).split())
        if not name:
            raise SplitError("a curator's name cannot be empty")
        if len(name) > MAX_NAME:
            raise SplitError(f"a curator's name is at most {MAX_NAME} characters "
                             f"({name[:40]}… has {len(name)})")
        if name.casefold() in {n.casefold() for n in out}:
            raise SplitError(f"two curators are both called {name!r}; give each their own "
                             "name")
        out.append(name)
    if not 1 <= len(out) <= MAX_CURATORS:
        raise SplitError(f"a split needs 1 to {MAX_CURATORS} curators, not {len(out)}")
    return out


def file_stem(name: str) -> str:
    """A portable file-name part for a curator's name (``Zoë O'Brien`` → ``zoe-o-brien``)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    stem = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:40]
    return stem or "curator"


def assign(ids: list[str], curators: int, overlap: float, seed: int) -> list[tuple[list[str],
                                                                                 set[str]]]:
    """Per curator: (sample ids, the shared ones).  Each sample goes to one curator (round
    robin over a seeded shuffle); ``round(overlap × n)`` of them also to a second, the
    partner rotating so that every pair of curators shares samples."""
    if not 0 <= overlap <= 1:
        raise SplitError(f"the overlap is a fraction between 0 and 1, not {overlap}")
    if overlap > 0 and curators < 2:
        raise SplitError("an overlap needs at least two curators")
    order = list(ids)
    random.Random(seed).shuffle(order)
    shared = round(overlap * len(order))
    out: list[tuple[list[str], set[str]]] = [([], set()) for _ in range(curators)]
    for i, sid in enumerate(order):
        first = i % curators
        out[first][0].append(sid)
        if i < shared:
            second = (first + 1 + (i // curators) % (curators - 1)) % curators
            out[second][0].append(sid)
            out[first][1].add(sid)
            out[second][1].add(sid)
    for samples, _shared in out:
        samples.sort()
    return out


def split_project(project: Project, out_dir: str | Path, curators: list[str], *,
                  overlap: float = 0.0, selection: SampleFilter | None = None,
                  seed: int | None = None, name: str | None = None,
                  state: JobState | None = None) -> SplitReport:
    """Write one curator package per name into the new folder ``out_dir`` and record the
    split in the project.  Raises SplitError (nothing written) for a bad request,
    WriteError naming the file when a package cannot be written."""
    state = state or JobState(title="Share work")
    if project.readonly:
        raise SplitError(f"{project.path.name} is open read-only; open it for writing to "
                         "share work")
    if package.is_package(project.conn):
        raise SplitError(f"{project.path.name} is a curator package: {package.PACKAGE_REFUSAL}"
                         " be split again (split the project instead)")
    names = clean_names(curators)
    _refuse_an_earlier_split(project, Path(out_dir))
    ids = (selection or SampleFilter()).sample_ids(project)
    if not ids:
        raise SplitError("no sample matches the filter: there is nothing to share")
    skipped = damaged_samples(project, ids)
    if skipped:
        left_out = {d["sample"] for d in skipped}
        ids = [sid for sid in ids if sid not in left_out]
        if not ids:
            raise SplitError("no sample can be shared: every one holds binary data instead "
                             f"of text (e.g. {skipped[0]['sample']}: {skipped[0]['reason']})")
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    stamp = now_iso()
    split_name = name or f"{project.path.stem} {stamp[:16].replace('T', ' ')}"
    split_uid = uuid.uuid4().hex
    secret = new_secret()
    stems: dict[str, int] = {}
    plans = []
    for who, (samples, shared) in zip(names, assign(ids, len(names), overlap, seed),
                                      strict=True):
        stem = file_stem(who)
        stems[stem] = stems.get(stem, 0) + 1
        suffix = f"-{stems[stem]}" if stems[stem] > 1 else ""
        plans.append(PackagePlan(who, f"{project.path.stem}-{stem}{suffix}.winnow",
                                 uuid.uuid4().hex, tuple(samples), frozenset(shared)))
    settings = {"curators": names, "overlap": overlap, "seed": seed, "samples": len(ids),
                "filter": _filter_text(selection), "out": str(out_dir)}
    report = SplitReport(split_name, Path(out_dir), samples=len(ids),
                         overlap=len(set().union(*(p.overlap for p in plans))),
                         skipped=skipped)
    state.set_total(len(plans) + 1)
    with ExportFolder(out_dir, "curator packages", overwritable=False) as folder:
        template = _template(folder)
        for plan in plans:
            state.check()
            state.set_status(f"{plan.curator}: {len(plan.samples):,} samples")
            meta = {"format": package.FORMAT, "format_version": package.FORMAT_VERSION,
                    "split_uid": split_uid, "split_name": split_name,
                    "package_uid": plan.package_uid, "curator": plan.curator,
                    "project": project.path.name, "created_at": stamp,
                    "created_by": project.actor, "samples": len(plan.samples)}
            base_mac = build_package(project, template, folder.path(plan.file_name), meta,
                                     list(plan.samples), secret)
            folder.adopt(plan.file_name)
            report.packages.append({"curator": plan.curator, "file": plan.file_name,
                                    "samples": len(plan.samples),
                                    "shared": len(plan.overlap), "base_mac": base_mac})
            state.advance()
        _remove_template(template)
        _record(project, split_uid, split_name, secret, settings, stamp, plans, report)
        try:
            folder.publish({"split": split_name, "curators": len(plans)})
        except BaseException:
            _forget(project, split_uid)
            raise
    state.advance()
    for entry in report.packages:
        entry.pop("base_mac")
    return report


_BLOB_ROWS = """
SELECT id FROM samples WHERE id IN (SELECT value FROM json_each(:ids)) AND ({samples})
UNION SELECT sample_id FROM sample_tags WHERE typeof(tag) = 'blob'
  AND sample_id IN (SELECT value FROM json_each(:ids))
UNION SELECT sample_id FROM feedback WHERE ({feedback})
  AND sample_id IN (SELECT value FROM json_each(:ids))
UNION SELECT sample_id FROM sample_images WHERE ({images})
  AND sample_id IN (SELECT value FROM json_each(:ids))
UNION SELECT s.id FROM samples s JOIN posts p ON p.id = s.post_id
  WHERE s.id IN (SELECT value FROM json_each(:ids)) AND ({posts})
"""


def damaged_samples(project: Project, ids: list[str]) -> list[dict[str, Any]]:
    """The samples of ``ids`` with binary data in a text field (stored with sqlite3), each
    with the fields Curate names (ADR 154) and why it is not shared (ADR 157)."""
    conn = project.conn

    def any_blob(table: str, alias: str = "") -> str:
        cols = [r[1] for r in conn.execute(f"PRAGMA main.table_info({table})")]
        return " OR ".join(f"typeof({alias}{c}) = 'blob'" for c in cols) or "0"

    sql = _BLOB_ROWS.format(samples=any_blob("samples"), feedback=any_blob("feedback"),
                            images=any_blob("sample_images"), posts=any_blob("posts", "p."))
    found = sorted(r[0] for r in conn.execute(sql, {"ids": json.dumps(ids)}))
    out = []
    for sid in found:
        fields = list(load_sample(project, sid).damaged)
        if conn.execute("SELECT 1 FROM sample_images WHERE sample_id = ? AND ("
                        f"{any_blob('sample_images')})", (sid,)).fetchone():
            fields.append("images")
        fields = fields or ["a field Curate does not show"]
        out.append({"sample": sid, "fields": fields,
                    "reason": f"binary data instead of text in: {', '.join(fields)} "
                              "(changed outside Winnow, e.g. with sqlite3); not shared: "
                              "correct it in Curate, then share it"})
    return out


def _filter_text(selection: SampleFilter | None) -> str:
    if selection is None:
        return "all samples"
    where, params = selection.where()
    return where if not params else f"{where} {json.dumps(params, ensure_ascii=False)}"


def _template(folder: ExportFolder) -> Path:
    """An empty project at the current schema, copied for each package."""
    path = folder.path(".template.winnow")
    Project.create(path).close()
    return path


def _remove_template(path: Path) -> None:
    for extra in ("", "-wal", "-shm", "-journal", ".lock"):
        Path(f"{path}{extra}").unlink(missing_ok=True)


def build_package(project: Project, template: Path, target: Path, meta: dict[str, Any],
                  sample_ids: list[str], secret: bytes) -> str:
    """Write the package ``target`` holding ``sample_ids`` with their posts (the thread
    above and every reply below), feedback, tags, links and images; returns its base MAC."""
    try:
        shutil.copyfile(template, target)
    except OSError as exc:
        raise WriteError(target, exc, "nothing was written") from exc
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("ATTACH DATABASE ? AS src", (project.path.as_uri() + "?mode=ro",))
        conn.execute("BEGIN IMMEDIATE")
        _copy_rows(conn, sample_ids)
        _copy_images(conn, project)
        base = read_values(conn, sample_ids)
        base_mac = package.install(conn, meta, base, secret)
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE src")
    except sqlite3.Error as exc:
        if "disk is full" in str(exc) or getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL":
            raise WriteError(target, OSError(28, "No space left on device"),
                             "nothing was written") from exc
        raise as_project_error(exc, target.name) or exc from exc
    finally:
        conn.close()
    return base_mac


_NEEDED_POSTS = """
WITH RECURSIVE
  roots(id) AS (
    SELECT post_id FROM src.samples WHERE id IN (SELECT value FROM json_each(:ids))
      AND post_id IS NOT NULL
    UNION SELECT post_id FROM src.feedback WHERE sample_id IN
      (SELECT value FROM json_each(:ids)) AND post_id IS NOT NULL
    UNION SELECT completion_post_id FROM src.sample_links WHERE sample_id IN
      (SELECT value FROM json_each(:ids)) AND completion_post_id IS NOT NULL),
  down(id) AS (SELECT id FROM roots
    UNION SELECT p.id FROM src.posts p JOIN down ON p.parent_id = down.id),
  up(id) AS (SELECT id FROM roots
    UNION SELECT p.parent_id FROM src.posts p JOIN up ON p.id = up.id
      WHERE p.parent_id IS NOT NULL)
SELECT id FROM down UNION SELECT id FROM up
"""


def _columns(conn: sqlite3.Connection, table: str) -> str:
    return ", ".join(r[1] for r in conn.execute(f"PRAGMA main.table_info({table})"))


def _copy_rows(conn: sqlite3.Connection, sample_ids: list[str]) -> None:
    ids = json.dumps(sample_ids, ensure_ascii=False)
    conn.execute("CREATE TEMP TABLE need_posts(id TEXT PRIMARY KEY) WITHOUT ROWID")
    conn.execute(f"INSERT INTO need_posts {_NEEDED_POSTS}", {"ids": ids})
    conn.execute("CREATE TEMP TABLE need_samples(id TEXT PRIMARY KEY) WITHOUT ROWID")
    conn.execute("INSERT INTO need_samples SELECT value FROM json_each(?)", (ids,))
    cols = {t: _columns(conn, t) for t in ("posts", "post_images", "images", "samples",
                                           "sample_raw", "sample_images", "sample_tags",
                                           "feedback", "sample_links")}
    conn.execute(f"INSERT INTO main.images({cols['images']}) SELECT {cols['images']} FROM "
                 "src.images WHERE sha256 IN (SELECT sha256 FROM src.post_images WHERE "
                 "post_id IN (SELECT id FROM need_posts) UNION SELECT sha256 FROM "
                 "src.sample_images WHERE sample_id IN (SELECT id FROM need_samples))")
    conn.execute(f"INSERT INTO main.posts({cols['posts']}) SELECT {cols['posts']} FROM "
                 "src.posts WHERE id IN (SELECT id FROM need_posts)")
    conn.execute(f"INSERT INTO main.post_images({cols['post_images']}) SELECT "
                 f"{cols['post_images']} FROM src.post_images WHERE post_id IN "
                 "(SELECT id FROM need_posts)")
    # feedback before its samples: the search index's feedback trigger then finds no
    # sample to re-index per row, and each sample's row is indexed once, complete
    for table in ("feedback", "samples", "sample_raw", "sample_images", "sample_tags"):
        key = "id" if table == "samples" else "sample_id"
        conn.execute(f"INSERT INTO main.{table}({cols[table]}) SELECT {cols[table]} FROM "
                     f"src.{table} WHERE {key} IN (SELECT id FROM need_samples)")
    conn.execute("INSERT INTO main.sample_links(sample_id, kind, source_sample_id, "
                 "template_post_id, completion_post_id, created_at) SELECT sample_id, kind, "
                 "CASE WHEN source_sample_id IN (SELECT id FROM need_samples) THEN "
                 "source_sample_id END, template_post_id, completion_post_id, created_at "
                 "FROM src.sample_links WHERE sample_id IN (SELECT id FROM need_samples)")
    conn.execute("DROP TABLE temp.need_posts")
    conn.execute("DROP TABLE temp.need_samples")


def _copy_images(conn: sqlite3.Connection, project: Project) -> None:
    """Each image the package shows, once, by its SHA-256 (a missing asset stays missing,
    as it is in the project; so does one whose bytes no longer match, ADR 176)."""
    for sha, ext in conn.execute("SELECT sha256, ext FROM main.images").fetchall():
        path = project.assets.path(sha, ext)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            continue
        except OSError as exc:
            if exc.errno in WRITE_ERRNOS:
                raise
            continue
        if sha256_bytes(data) != sha:  # edited by hand, or a link to another file
            continue
        conn.execute("INSERT INTO team_image_data(sha256, data) VALUES (?, ?)", (sha, data))


def _refuse_an_earlier_split(project: Project, out_dir: Path) -> None:
    """Refuse a folder that holds a published split, naming it: a split killed while the
    project closed is complete, and running it again meets its own folder (ADR 213).
    `curate split` has no overwrite, so the generic refusal's "overwrite" would mislead."""
    from core.export_files import Marker
    from core.files import KeptError

    if out_dir.is_symlink() or not out_dir.is_dir():
        return
    try:
        head = Marker(out_dir).export
    except (OSError, ValueError):
        return  # not a folder of Winnow's: ExportFolder says what is in the way
    if not head or head.get("export") != "curator packages" or \
            not isinstance(head.get("split"), str):
        return
    name = head["split"]
    known = project.conn.execute("SELECT 1 FROM team_splits WHERE name = ?",
                                 (name,)).fetchone() is not None
    whose = "this project's" if known else "another project's"
    raise KeptError(out_dir, f"already holds the packages of split {name!r} ({whose}, "
                    f"made {head.get('at', '?')}); a split is never redone into its folder",
                    "choose another folder")


def _record(project: Project, split_uid: str, split_name: str, secret: bytes,
            settings: dict[str, Any], stamp: str, plans: list[PackagePlan],
            report: SplitReport) -> None:
    bases = {p["file"]: p["base_mac"] for p in report.packages}
    try:
        with project.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO team_splits(uid, name, secret, settings, created_at, created_by) "
                "VALUES (?, ?, ?, ?, ?, ?)", (split_uid, split_name, secret,
                                             json.dumps(settings, ensure_ascii=False), stamp,
                                             project.actor))
            split_id = cur.lastrowid
            for plan in plans:
                conn.execute("INSERT INTO team_packages(package_uid, split_id, curator, "
                             "file_name, base_mac, samples) VALUES (?, ?, ?, ?, ?, ?)",
                             (plan.package_uid, split_id, plan.curator, plan.file_name,
                              bases[plan.file_name], len(plan.samples)))
                conn.executemany("INSERT INTO team_assignments(package_uid, sample_id, "
                                 "overlap) VALUES (?, ?, ?)",
                                 [(plan.package_uid, sid, int(sid in plan.overlap))
                                  for sid in plan.samples])
            project.audit("split", "team_split", split_uid, None, None,
                          {"name": split_name, **{k: v for k, v in settings.items()
                                                  if k != "seed"}})
    except sqlite3.Error as exc:
        raise as_project_error(exc, project.path.name) or exc from exc


def _forget(project: Project, split_uid: str) -> None:
    """Remove a split whose packages could not be published (nothing can refer to it)."""
    try:
        with project.transaction() as conn:
            conn.execute("DELETE FROM team_splits WHERE uid = ?", (split_uid,))
            project.audit("split-abandoned", "team_split", split_uid, None, None,
                          {"reason": "its packages could not be written"})
    except (sqlite3.Error, ProjectError):
        pass
