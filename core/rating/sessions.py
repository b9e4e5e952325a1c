"""Create rating sessions in a project and write each rater's session file.

The project keeps the design (with its seed), the session's secret (ADR 058), the plan
(task order, option order, left/right), the blinding map token → model and the gold
answers.  Session files get only what a rater needs to see: the tasks and the images
as Winnow re-encoded them (ADR 057), signed with keys derived from the secret.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import __version__
from core.files import (
    MADE_MEANWHILE,
    KeptError,
    WriteError,
    atomic_writer,
    clean_stale_temps,
    new_temp_dir,
)
from core.jobs import JobState
from core.rating import file_build, integrity
from core.rating import session_file as sf
from core.rating.design import (
    GOLD_UNIT,
    Catalog,
    Plan,
    SampleInfo,
    SessionDesign,
    slot_name,
)
from core.rating.images import decode, degrade
from core.rating.planning import plan_session
from core.rating.session_images import SessionImages
from core.store.project import Project, now_iso


@dataclass(frozen=True)
class SessionRow:
    """A session as listed in the Rate workspace."""

    id: int
    uid: str
    name: str
    protocol: str
    design: SessionDesign
    created_at: str
    raters: int
    tasks: int
    judgments: int


def load_catalog(project: Project, sample_ids: list[str] | tuple[str, ...],
                 models: list[str] | tuple[str, ...]) -> Catalog:
    """Samples (prompt, split, input images with crop boxes) and their model outputs."""
    samples: dict[str, SampleInfo] = {}
    wanted = set(models)
    for chunk in _chunks(list(sample_ids), 500):
        marks = ",".join("?" * len(chunk))
        rows = project.conn.execute(
            f"SELECT id, prompt, split FROM samples WHERE id IN ({marks})", chunk).fetchall()
        inputs: dict[str, list[tuple[str, list[int] | None]]] = {}
        for sid, sha, x, y, w, h in project.conn.execute(
                f"SELECT sample_id, sha256, bbox_x, bbox_y, bbox_w, bbox_h FROM sample_images "
                f"WHERE role = 'input' AND sha256 IS NOT NULL AND sample_id IN ({marks}) "
                f"ORDER BY sample_id, position", chunk):
            box = [x, y, w, h] if None not in (x, y, w, h) and w and h else None
            inputs.setdefault(sid, []).append((sha, box))
        outputs: dict[str, dict[str, str]] = {}
        for sid, model, sha in project.conn.execute(
                f"SELECT sample_id, model, sha256 FROM model_outputs WHERE sample_id IN ({marks})",
                chunk):
            if model in wanted:
                outputs.setdefault(sid, {})[model] = sha
        for sid, prompt, split in rows:
            samples[sid] = SampleInfo(sid, prompt or "", split,
                                      tuple(json.dumps(i) for i in inputs.get(sid, [])),
                                      outputs.get(sid, {}))
    return Catalog(samples)


def create_session(project: Project, design: SessionDesign, *,
                   state: JobState | None = None, secret: bytes | None = None) -> int:
    """Plan the session and record it (one transaction); returns its id.

    ``secret`` (32 random bytes by default) keys the plan and the rater files' MACs
    (ADR 058); only a demo passes one, to be rebuilt the same from its seed.
    """
    state = state or JobState(title=f"Create session {design.name}")
    design.validate()
    if project.conn.execute("SELECT 1 FROM rating_sessions WHERE name = ?",
                            (design.name,)).fetchone():
        raise ValueError(f"a session named {design.name!r} already exists")
    catalog = load_catalog(project, design.sample_ids, design.models)
    secret = secret or integrity.new_secret()
    plan = plan_session(design, catalog, integrity.plan_key(secret))
    degraded = _make_degraded(project, plan, state)
    with project.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO rating_sessions(uid, name, protocol, design, seed, created_at, "
            "created_by) VALUES (?,?,?,?,?,?,?)",
            (uuid.uuid4().hex, design.name, design.protocol,
             json.dumps(design.to_json(), ensure_ascii=False), design.seed, now_iso(),
             project.actor))
        assert cur.lastrowid is not None  # set by the INSERT
        sid = int(cur.lastrowid)
        conn.execute("INSERT INTO rating_keys(session_id, secret, created_at) VALUES (?,?,?)",
                     (sid, secret, now_iso()))
        for slot in range(design.raters):
            conn.execute("INSERT INTO rating_files(session_id, slot, file_uid) VALUES (?,?,?)",
                         (sid, slot_name(slot), uuid.uuid4().hex))
        for t in plan.tasks:
            info = catalog.samples[t.sample_id]
            conn.execute(
                "INSERT INTO rating_tasks(session_id, task_id, slot, position, sample_id, unit, "
                "criterion, prompt, inputs, gold) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (sid, t.task_id, slot_name(t.slot), t.position, t.sample_id, t.unit,
                 t.criterion, info.prompt, json.dumps([json.loads(i) for i in info.inputs]),
                 None if t.gold is None else json.dumps(t.gold, sort_keys=True)))
            for k, o in enumerate(t.options):
                shown = degraded[o.sha256] if o.degraded else o.sha256
                conn.execute(
                    "INSERT INTO rating_blinding(session_id, token, task_id, position, model, "
                    "sha256, source_sha256, degraded) VALUES (?,?,?,?,?,?,?,?)",
                    (sid, o.token, t.task_id, k, o.model, shown, o.sha256, int(o.degraded)))
        project.audit("create", "rating_session", design.name, None, None,
                      {"protocol": design.protocol, "seed": design.seed,
                       "tasks": len(plan.tasks), "raters": design.raters})
    return sid


def _make_degraded(project: Project, plan: Plan, state: JobState) -> dict[str, str]:
    """Degraded copies of the outputs gold tasks need, made on upright sRGB pixels and
    kept losslessly (PNG, no metadata) in the assets: source sha -> copy sha."""
    from core.imaging.release import encode_clean

    samples = {o.sha256: t.sample_id for t in plan.tasks for o in t.options if o.degraded}
    state.set_total(len(samples))
    out: dict[str, str] = {}
    for sha in sorted(samples):
        state.check()
        name = f"{sha[:12]} (an output of sample {samples[sha]})"
        copy = encode_clean(degrade(decode(_asset_bytes(project, sha), name)), "png")
        digest, _ = project.assets.put(copy, "png")
        with project.transaction() as conn:
            conn.execute("INSERT OR IGNORE INTO images(sha256, ext, mime, bytes, created_at) "
                         "VALUES (?, 'png', 'image/png', ?, ?)", (digest, len(copy), now_iso()))
        out[sha] = digest
        state.advance()
    return out


def _asset_bytes(project: Project, sha: str) -> bytes:
    path = project.assets.find(sha)
    if path is None:
        raise FileNotFoundError(f"image {sha[:12]} is missing from {project.assets.root}")
    return path.read_bytes()


def get_session(project: Project, name: str) -> SessionRow:
    """The session called ``name`` (ValueError listing the known names if none)."""
    for row in list_sessions(project):
        if row.name == name:
            return row
    names = ", ".join(r.name for r in list_sessions(project)) or "none yet"
    raise ValueError(f"no rating session named {name!r} (sessions: {names})")


def list_sessions(project: Project) -> list[SessionRow]:
    """All sessions, newest first, with task and judgment counts."""
    rows = project.conn.execute(
        "SELECT s.id, s.uid, s.name, s.protocol, s.design, s.created_at, "
        "(SELECT count(*) FROM rating_files f WHERE f.session_id = s.id), "
        "(SELECT count(*) FROM rating_tasks t WHERE t.session_id = s.id), "
        "(SELECT count(*) FROM rating_judgments j WHERE j.session_id = s.id) "
        "FROM rating_sessions s ORDER BY s.id DESC").fetchall()
    return [SessionRow(r[0], r[1], r[2], r[3], SessionDesign.from_json(json.loads(r[4])),
                       r[5], r[6], r[7], r[8]) for r in rows]


def write_session_files(project: Project, name: str, out_dir: str | Path, *,
                        state: JobState | None = None) -> list[Path]:
    """Write one ``<name>-R<k>.winnow-session`` per rater into ``out_dir``.

    Each file is built in a hidden temporary folder and moved into place by
    :mod:`core.files` (never replacing a file: one may hold a rater's answers).  If one
    fails, the files this call already wrote are removed again and nothing is recorded.
    """
    created_at = now_iso()  # once, before any work: every file of this call carries it
    session = get_session(project, name)
    out_dir = Path(out_dir)
    check_out_dir(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(out_dir, exc, _NONE_WRITTEN) from exc
    clean_stale_temps(out_dir)
    state = state or JobState(title=f"Write session files for {name}")
    slots = [r[0] for r in project.conn.execute(
        "SELECT slot FROM rating_files WHERE session_id = ? ORDER BY rowid", (session.id,))]
    targets = {slot: out_dir / f"{_safe(name)}-{slot}{sf.SUFFIX}" for slot in slots}
    for target in targets.values():
        busy = _occupied(target)
        if busy:
            raise KeptError(busy[0], advice="choose another session name or an empty folder")
    total = project.conn.execute("SELECT count(*) FROM rating_tasks WHERE session_id = ?",
                                 (session.id,)).fetchone()[0]
    state.set_total(total)
    with project.transaction() as conn:
        secret = integrity.ensure_secret(conn, session.id, now_iso())
    images = SessionImages(project, session.id, secret)
    macs: dict[str, str] = {}
    written: list[Path] = []
    try:
        for slot, target in targets.items():
            macs[slot] = _write_one(project, session, slot, target, images, secret, state,
                                    created_at)
            written.append(target)
    except BaseException:
        for path in written:  # written by this call a moment ago: safe to take back
            with contextlib.suppress(OSError):
                path.unlink()
        raise
    _same_times(written)
    with project.transaction() as conn:
        for slot, target in targets.items():
            conn.execute("UPDATE rating_files SET path = ?, tasks_mac = ? WHERE "
                         "session_id = ? AND slot = ?", (str(target), macs[slot], session.id,
                                                        slot))
    return written


def _same_times(paths: list[Path]) -> None:
    """Give the files of one creation one access and modification time: written one
    after another, their times would differ by the work done for each (ADR 216)."""
    stamp = time.time()
    for path in paths:
        with contextlib.suppress(OSError):  # a time left as it was hides no answer
            os.utime(path, (stamp, stamp))


def _write_one(project: Project, session: SessionRow, slot: str, target: Path,
               images: SessionImages, secret: bytes, state: JobState,
               created_at: str) -> str:
    """Build one rater file beside ``target`` and move it into place; its tasks MAC.

    ``created_at`` is the same for every file of one creation: a stamp taken per file
    would grow with the work done for the files before it, and so tell a rater how many
    (gold) tasks another rater's file got (ADR 216)."""
    file_uid = project.conn.execute(
        "SELECT file_uid FROM rating_files WHERE session_id = ? AND slot = ?",
        (session.id, slot)).fetchone()[0]
    design = session.design
    settings = {"min_time_s": design.min_time_s, "penalty_s": design.penalty_s,
                "allow_ties": design.allow_ties, "allow_tie": design.allow_tie,
                "questions": list(design.questions), "criteria": list(design.criteria),
                "instructions": design.instructions}
    meta = {"format": sf.FORMAT, "format_version": str(sf.FORMAT_VERSION),
            "session_uid": session.uid, "session_name": session.name, "file_uid": file_uid,
            "slot": slot, "protocol": session.protocol, "settings": json.dumps(settings),
            "created_at": created_at, "winnow_version": __version__}
    try:
        folder = new_temp_dir(target.parent, target.name)
    except OSError as exc:  # a read-only folder: name the file, not a temporary name
        raise WriteError(target, exc, _NONE_WRITTEN) from exc
    try:
        build = folder / "session.sqlite"
        conn = file_build.new_file(build, meta)
        try:
            _add_tasks(project, session, slot, conn, images, state)
        except BaseException:
            conn.close()
            raise
        tasks_mac = file_build.seal(conn, integrity.tasks_key(secret, file_uid),
                                    integrity.chain_start(secret, file_uid))
        try:
            with open(build, "rb") as src, atomic_writer(target) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        except FileExistsError:  # it was free when this creation began (checked above)
            raise KeptError(target, MADE_MEANWHILE, "choose another session name or an "
                            "empty folder") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return tasks_mac


def _add_tasks(project: Project, session: SessionRow, slot: str, conn: sqlite3.Connection,
               images: SessionImages, state: JobState) -> None:
    for task_id, position, sample, prompt, criterion, inputs, unit in project.conn.execute(
            "SELECT task_id, position, sample_id, prompt, criterion, inputs, unit "
            "FROM rating_tasks WHERE session_id = ? AND slot = ? ORDER BY position",
            (session.id, slot)):
        state.check()
        shown_inputs = []
        for sha, box in json.loads(inputs):
            digest, data = images.input(sha, box)
            shown_inputs.append(digest)
            file_build.add_image(conn, digest, "jpg", data)
        rows = project.conn.execute(
            "SELECT token, sha256, source_sha256, degraded FROM rating_blinding WHERE "
            "session_id = ? AND task_id = ? ORDER BY position", (session.id, task_id)).fetchall()
        regular = [src for _tok, _sha, src, deg in rows if not deg]
        options = []
        for token, sha, _src, deg in rows:
            # a shared gold unit's copy is the same in every file (ADR 184)
            seed = unit if str(unit).startswith(GOLD_UNIT) else token
            digest, data = (images.gold_copy(sample, seed, sha, regular) if deg
                            else images.output(sample, sha))
            options.append([token, digest])
            file_build.add_image(conn, digest, "jpg", data)
        file_build.add_task(conn, task_id, position, prompt, criterion, shown_inputs, options)
        state.advance()


def create_and_write(project: Project, design: SessionDesign, out_dir: str | Path, *,
                     state: JobState | None = None) -> list[Path]:
    """:func:`create_session` then :func:`write_session_files`, as one step: files in the
    way are refused before anything is recorded, and a session whose files could not be
    written is removed again (so its name stays free for the next try).

    Run again with the same design after a crash (the process killed), it resumes: the
    session the killed run recorded is written now, replacing only rater files that
    provably are that run's own and unrated; if the killed run had finished, its files
    are returned as they are.
    """
    check_out_dir(Path(out_dir))
    found = _earlier_attempt(project, design, Path(out_dir))
    if isinstance(found, list):
        return found
    if found is None:
        clash = session_files_in_the_way(design.name, design.raters, out_dir)
        if clash:
            raise in_the_way(clash)
        create_session(project, design, state=state)
    try:
        return write_session_files(project, design.name, out_dir, state=state)
    except BaseException:
        discard_unwritten(project, design.name)  # the files were taken back already
        raise


def _earlier_attempt(project: Project, design: SessionDesign,
                     out_dir: Path) -> list[Path] | bool | None:
    """What a killed ``create_and_write`` of the same design left: its finished files
    (list), True when its session is recorded but unwritten (its leftovers in
    ``out_dir`` removed), None when there is none (or a different session has the name:
    :func:`create_session` then says so)."""
    from core.rating.returned import untouched_leftover

    row = project.conn.execute("SELECT id, uid, design FROM rating_sessions WHERE name = ?",
                               (design.name,)).fetchone()
    if row is None or SessionDesign.from_json(json.loads(row[2])) != design:
        return None
    sid, uid = int(row[0]), str(row[1])
    files = project.conn.execute("SELECT slot, path, file_uid FROM rating_files WHERE "
                                 "session_id = ? ORDER BY rowid", (sid,)).fetchall()
    targets = {slot: out_dir / f"{_safe(design.name)}-{slot}{sf.SUFFIX}" for slot, _, _ in files}
    if all(path is not None for _s, path, _f in files):
        done = [targets[slot] for slot, path, _f in files
                if Path(path) == targets[slot] and targets[slot].exists()]
        return done if len(done) == len(files) else None
    merged = project.conn.execute("SELECT count(*) FROM rating_merges WHERE session_id = ?",
                                  (sid,)).fetchone()[0]
    secret = integrity.stored_secret(project.conn, sid)
    if merged or secret is None:
        return None
    leftovers = [t for t in targets.values() if t.exists()]
    for slot, _path, file_uid in files:
        target = targets[slot]
        if target.exists() and not untouched_leftover(target, uid, file_uid, secret):
            raise KeptError(target, "is in the way and is not an unrated file of session "
                            f"{design.name!r}", "move it away yourself, or choose an empty "
                            "folder")
    for target in leftovers:  # written for this session by the killed run, never rated
        target.unlink()
    return True


def discard_unwritten(project: Project, name: str) -> bool:
    """Delete session ``name`` if none of its rater files was written and nothing was
    merged into it (what a failed creation leaves behind); True when it was deleted."""
    row = project.conn.execute("SELECT id FROM rating_sessions WHERE name = ?",
                               (name,)).fetchone()
    if row is None:
        return False
    sid = int(row[0])
    with project.transaction() as conn:
        written = conn.execute(
            "SELECT count(*) FROM rating_files WHERE session_id = ? AND path IS NOT NULL",
            (sid,)).fetchone()[0]
        merged = conn.execute(
            "SELECT (SELECT count(*) FROM rating_judgments WHERE session_id = ?) + "
            "(SELECT count(*) FROM rating_merges WHERE session_id = ?)", (sid, sid)).fetchone()[0]
        if written or merged:
            return False
        conn.execute("DELETE FROM rating_sessions WHERE id = ?", (sid,))  # cascades
        project.audit("delete", "rating_session", str(sid), None,
                      {"name": name, "reason": "rater files not written"}, None)
    return True


def session_files_in_the_way(name: str, raters: int, out_dir: str | Path) -> list[Path]:
    """Files already at the paths :func:`write_session_files` would write for a new
    session ``name`` with ``raters`` raters (it refuses to overwrite them)."""
    return [p for target in _session_paths(name, raters, out_dir) for p in _occupied(target)]


#: what a failed creation leaves: the files it wrote are taken back, its session removed
_NONE_WRITTEN = "no rater file of this session was written"


def in_the_way(clash: list[Path]) -> KeptError:
    """Why a new session's rater files are not written: ``clash`` (from
    :func:`session_files_in_the_way`) is already there (the CLI and the dialog say it
    alike)."""
    return KeptError(clash[0].parent, f"already holds {', '.join(p.name for p in clash)}",
                     "choose another session name or an empty folder")


def check_out_dir(out_dir: Path) -> None:
    """Refuse a folder for rater files that is a file or a link to nothing (it is left as
    it is); a missing folder is made when the files are written."""
    if os.path.lexists(out_dir) and not out_dir.is_dir():
        why = ("is a link to nothing" if out_dir.is_symlink() and not out_dir.exists()
               else "is a file, not a folder")
        raise KeptError(out_dir, why, "give a folder for the rater files")


#: what SQLite keeps beside a database: another file's, beside a new rater file, would be
#: read into it when the rater opens it, so neither is ever written there (ADR 204)
_LOGS = ("-wal", "-journal")


def _occupied(target: Path) -> list[Path]:
    """``target`` and the SQLite logs under its name that are already there (a dangling
    link too): a new rater file is never written where one of them is."""
    return [p for p in (target, *(Path(f"{target}{log}") for log in _LOGS))
            if p.exists() or p.is_symlink()]


def _session_paths(name: str, raters: int, out_dir: str | Path) -> list[Path]:
    return [Path(out_dir) / f"{_safe(name)}-{slot_name(k)}{sf.SUFFIX}" for k in range(raters)]


def _safe(name: str) -> str:
    """A file-name part for a session name, at most 100 characters (a 300-character name
    made every rater file's name too long for the file system)."""
    keep = "".join(c if c.isalnum() or c in "-_." else "-" for c in name.strip())
    return keep.strip("-.")[:100].strip("-.") or "session"


def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]
