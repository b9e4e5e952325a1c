"""Merge returned curator packages into the project, field by field (ADR 132).

Each package is read read-only, checked whole (:mod:`core.teamwork.verify`), then merged
in one transaction or refused with its name and every reason; the next package goes on
either way (:func:`core.per_file.merge_each`).

Per sample and field, with P the package's value, C the project's and E the base (the
package's value at its last merge, else the value the package was given):

- P = E: the curator did not change it: nothing;
- C = E: only the curator changed it: C becomes P, audited under the curator's name;
- C = P: the same change arrived already: nothing;
- otherwise a **conflict** (two curators changed it differently, or the project
  changed it since the split): C stays, the conflict is recorded with both values.

Tags merge as sets (the curator's additions and removals are applied to C), so they
never conflict.  Merging the same package again changes nothing; when its bytes are the
ones last merged and verified (``team_packages.merged_digest``, ADR 144) it is not read
or verified again.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.curate.commands import SetField
from core.curate.derive import DeriveFromTemplate
from core.curate.image_edits import ROLES
from core.jobs import JobState
from core.per_file import merge_each
from core.store.project import Project, now_iso
from core.teamwork.apply import (
    acting_as,
    apply_images,
    apply_scalars,
    apply_tags,
    unknown_images,
)
from core.teamwork.package import PackageError, PackageFile, package_digest, read_package
from core.teamwork.values import (
    FIELDS,
    SCALARS,
    Values,
    comparable,
    dumps,
    loads,
    read_values,
)
from core.teamwork.verify import Replayed, check

_MISSING = object()


class TeamMergeError(ValueError):
    """A package cannot be merged; nothing from it was written."""


@dataclass(frozen=True)
class PackageMergeResult:
    """What merging one package did."""

    path: str
    curator: str
    package: str
    applied: int
    conflicts: int
    created: int
    already: bool
    warnings: tuple[str, ...] = field(default=())

    def summary(self) -> str:
        name = Path(self.path).name
        if self.already:
            text = f"{name} ({self.curator}): already merged, nothing new"
        else:
            text = (f"{name} ({self.curator}): {self.applied} change(s) merged, "
                    f"{self.conflicts} conflict(s) to resolve, {self.created} sample(s) "
                    "created")
        return text + "".join(f"; warning: {w}" for w in self.warnings)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.path, "curator": self.curator, "package": self.package,
                "applied": self.applied, "conflicts": self.conflicts,
                "created": self.created, "already_merged": self.already,
                "warnings": list(self.warnings)}


def merge_packages(project: Project, paths: list[str | Path], *,
                   state: JobState | None = None
                   ) -> tuple[list[PackageMergeResult], list[str]]:
    """Merge each package; returns (results, refusals), one bad package never stops the
    rest.  Each refusal is one line naming the file and why."""
    state = state or JobState(title="Merge returned work")
    return merge_each(paths, lambda path: merge_package(project, path),
                      (TeamMergeError, PackageError), state, items=True)


def merge_package(project: Project, path: str | Path) -> PackageMergeResult:
    """Merge one returned package (one transaction); merging it again changes nothing."""
    path = Path(path)
    digest = package_digest(path)
    known = _merged_before(project, path, digest)
    if known is not None:
        return known
    found = read_package(path)
    if digest is not None and package_digest(path) != digest:
        digest = None  # it changed while it was read: what was verified has no digest
    name = path.name
    split = project.conn.execute("SELECT id, name, secret FROM team_splits WHERE uid = ?",
                                 (found.meta.get("split_uid"),)).fetchone()
    row = None if split is None else project.conn.execute(
        "SELECT curator, base_mac, merged_position, merged_mac, merged_at FROM team_packages "
        "WHERE package_uid = ? AND split_id = ?", (found.uid, split[0])).fetchone()
    if row is None:
        origin = str(found.meta.get("project", "?"))[:80]
        raise TeamMergeError(f"{name} was not split from this project: no split of this "
                             f"project made it (it names a project called {origin!r}, "
                             "perhaps another copy or another project of that name); "
                             "nothing merged")
    curator, base_mac, merged_position, merged_mac, merged_at = row
    problems, replayed = check(found, bytes(split[2]), base_mac)
    if problems:
        raise TeamMergeError(f"{name}: edited outside Winnow's Curate, nothing merged: "
                             + "; ".join(problems))
    _check_copy(found, name, merged_position, merged_mac, merged_at)
    _check_values(found, name)
    missing = unknown_images(project, found.current)
    if missing:
        sid, sha = next(iter(missing.items()))
        raise TeamMergeError(f"{name}: sample {sid} uses image {sha[:12]}…, which the project "
                             "does not have; nothing merged")
    return _merge(project, found, replayed, curator, split[1], merged_position, digest)


def _merged_before(project: Project, path: Path, digest: str | None
                   ) -> PackageMergeResult | None:
    """"Already merged" for the very bytes last merged and verified, when merging them
    again would change nothing in the project: none of the package's samples has left it
    and no merge of it derived samples (a derived sample deleted since would be made
    again).  None: read and verify the package."""
    if digest is None:
        return None
    row = project.conn.execute(
        "SELECT p.package_uid, p.curator FROM team_packages p WHERE p.merged_digest = ? "
        "AND p.merged_position IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM team_assignments a LEFT JOIN samples s ON s.id = "
        "a.sample_id WHERE a.package_uid = p.package_uid AND s.id IS NULL) "
        "AND NOT EXISTS (SELECT 1 FROM team_merges m WHERE m.package_uid = p.package_uid "
        "AND m.created > 0)", (digest,)).fetchone()
    if row is None:
        return None
    return PackageMergeResult(str(path), row[1], row[0], 0, 0, 0, True)


def _check_copy(found: PackageFile, name: str, position: int | None, last: str | None,
                when: str | None) -> None:
    """Refuse another copy of a package already merged (two people curated one file)."""
    if position is None:
        return
    have = len(found.audit)
    if have < position or (position and found.macs.get(found.audit[position - 1][0]) != last):
        raise TeamMergeError(
            f"{name} is another copy of {found.curator}'s package than the one merged on "
            f"{str(when)[:19]} (its history differs: two people curated the same package, "
            "or an earlier copy was sent again); nothing merged")


def _check_values(found: PackageFile, name: str) -> None:
    """Values the project would refuse, named (a package Winnow did not write)."""
    seen: set[tuple[str, Any]] = set()
    for sid, values in found.current.items():
        for key in SCALARS:
            item = (key, values[key] if key not in ("prompt", "notes") else type(values[key]))
            if item in seen:
                continue
            seen.add(item)
            try:
                SetField([sid], key, values[key])
            except ValueError as exc:
                raise TeamMergeError(f"{name}: sample {sid}: {exc}; nothing merged") from None
        for tag in values["tags"]:
            if not isinstance(tag, str) or not tag.strip() or len(tag) > 100:
                raise TeamMergeError(f"{name}: sample {sid} has a tag Winnow does not make "
                                     f"({str(tag)[:40]!r}); nothing merged")
        for r in values["images"]["rows"]:
            box = r[4:8]
            if r[0] not in ROLES or not isinstance(r[1], int) or not (
                    all(v is None for v in box) or (all(isinstance(v, int) for v in box)
                                                    and box[2] >= 1 and box[3] >= 1)):
                raise TeamMergeError(f"{name}: sample {sid} has an image row Winnow does not "
                                     "make; nothing merged")


@dataclass
class _Plan:
    scalars: dict[str, dict[str, Any]] = field(default_factory=dict)
    tags: dict[str, list[str]] = field(default_factory=dict)
    images: dict[str, dict[str, Any]] = field(default_factory=dict)
    conflicts: list[tuple[str, str, Any, Any, Any]] = field(default_factory=list)
    values: list[tuple[str, str, str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def changes(self) -> int:
        return (sum(len(v) for v in self.scalars.values()) + len(self.tags)
                + len(self.images))

    def empty(self) -> bool:
        return not (self.changes() or self.conflicts or self.values)


def _plan(found: PackageFile, replayed: Replayed, current: dict[str, Values],
          stored: dict[tuple[str, str], Any], overlap: set[str], ids: list[str],
          created_now: set[str]) -> _Plan:
    plan = _Plan()
    for sid in ids:
        theirs, ours = found.current[sid], current[sid]
        for name in FIELDS:
            p, c = theirs[name], ours[name]
            e = stored.get((sid, name), _MISSING)
            if e is _MISSING:
                if sid in created_now:
                    e = c
                elif sid in found.base:
                    e = found.base[sid][name]
                else:
                    e = replayed.initial[sid][name]
            cp, ce = comparable(name, p), comparable(name, e)
            if (sid in overlap or cp != ce) and stored.get((sid, name), _MISSING) != p:
                given = found.base[sid][name] if sid in found.base else e
                plan.values.append((sid, name, dumps(p), dumps(given)))
            if cp == ce:
                continue
            cc = comparable(name, c)
            if name == "tags":
                wanted = sorted((set(c) | (set(p) - set(e))) - (set(e) - set(p)))
                if wanted != sorted(c):
                    plan.tags[sid] = wanted
            elif cc == ce:
                if name == "images":
                    plan.images[sid] = p
                else:
                    plan.scalars.setdefault(name, {})[sid] = p
            elif cc != cp:
                plan.conflicts.append((sid, name, e, c, p))
    return plan


def _merge(project: Project, found: PackageFile, replayed: Replayed, curator: str,
           split_name: str, merged_position: int | None,
           digest: str | None) -> PackageMergeResult:
    uid = found.uid
    present = read_values(project.conn, list(found.current))
    warnings = [f"sample {sid} is no longer in the project; its edits were not merged"
                for sid in sorted(found.base) if sid not in present][:10]
    to_create = [sid for sid in replayed.created if sid not in present]
    stored = {(s, f): loads(v) for s, f, v in project.conn.execute(
        "SELECT sample_id, field, value FROM team_values WHERE package_uid = ?", (uid,))}
    overlap = {r[0] for r in project.conn.execute(
        "SELECT sample_id FROM team_assignments WHERE package_uid = ? AND overlap = 1",
        (uid,))}
    ids = sorted(sid for sid in found.current if sid in present)
    plan = _plan(found, replayed, present, stored, overlap, ids, set())
    position = len(found.audit)
    if plan.empty() and not to_create and merged_position == position:
        if digest is not None and not warnings:
            _remember(project, uid, digest)
        return PackageMergeResult(str(found.path), curator, uid, 0, 0, 0, True,
                                  tuple(warnings))
    at = now_iso()
    created: list[str] = []
    with project.transaction() as conn:
        with acting_as(project, curator):
            for sid in to_create:
                template, reply, prompt = replayed.created[sid]
                try:
                    DeriveFromTemplate(template, reply, prompt).do(project)
                except KeyError as exc:
                    warnings.append(f"sample {sid} was not created: {exc.args[0]}")
                    continue
                created.append(sid)
            if created:
                fresh = read_values(conn, created)
                more = _plan(found, replayed, fresh, stored, overlap, created, set(created))
                _absorb(plan, more)
            applied = _apply(project, plan)
        for sid, name, e, c, p in plan.conflicts:
            _record_conflict(project, uid, curator, sid, name, e, c, p, at)
        conn.executemany("INSERT OR REPLACE INTO team_values(package_uid, sample_id, field, "
                         "value, base) VALUES (?, ?, ?, ?, ?)", [(uid, *v) for v in plan.values])
        conn.execute("UPDATE team_packages SET merged_position = ?, merged_mac = ?, "
                     "merged_at = ?, merged_digest = ? WHERE package_uid = ?",
                     (position, found.chain[2] if found.chain else None, at,
                      None if warnings else digest, uid))
        conn.execute("INSERT INTO team_merges(package_uid, path, applied, conflicts, created, "
                     "merged_at, actor) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (uid, str(found.path), applied, len(plan.conflicts), len(created), at,
                      project.actor))
        project.audit("merge", "team_package", uid, None, None,
                      {"file": str(found.path), "curator": curator, "split": split_name,
                       "applied": applied, "conflicts": len(plan.conflicts),
                       "created": len(created), "warnings": warnings})
    return PackageMergeResult(str(found.path), curator, uid, applied, len(plan.conflicts),
                              len(created), False, tuple(warnings))


def _remember(project: Project, uid: str, digest: str) -> None:
    """Record the digest of bytes found already merged, so the next re-merge skips them;
    best effort (a full disk must not fail a merge that had nothing to write)."""
    try:
        with project.transaction() as conn:
            conn.execute("UPDATE team_packages SET merged_digest = ? WHERE package_uid = ?",
                         (digest, uid))
    except sqlite3.Error:
        pass


def _absorb(plan: _Plan, more: _Plan) -> None:
    for name, values in more.scalars.items():
        plan.scalars.setdefault(name, {}).update(values)
    plan.tags.update(more.tags)
    plan.images.update(more.images)
    plan.conflicts += more.conflicts
    plan.values += more.values


def _apply(project: Project, plan: _Plan) -> int:
    applied = 0
    for name, values in plan.scalars.items():
        applied += apply_scalars(project, name, values)
    for sid, wanted in plan.tags.items():
        applied += int(apply_tags(project, sid, wanted))
    for sid, value in plan.images.items():
        applied += int(apply_images(project, sid, value))
    return applied


def _record_conflict(project: Project, uid: str, curator: str, sid: str, name: str,
                     base: Any, ours: Any, theirs: Any, at: str) -> None:
    fields = ("images", "is_screenshot") if name == "images" else (name,)
    row = project.conn.execute(
        f"SELECT actor FROM audit_log WHERE entity = 'sample' AND entity_id = ? AND field IN "
        f"({','.join('?' * len(fields))}) ORDER BY id DESC LIMIT 1", (sid, *fields)).fetchone()
    conn = project.conn
    conn.execute("UPDATE team_conflicts SET status = 'superseded' WHERE package_uid = ? AND "
                 "sample_id = ? AND field = ? AND status = 'open'", (uid, sid, name))
    conn.execute("INSERT INTO team_conflicts(package_uid, curator, sample_id, field, base, "
                 "ours, ours_by, theirs, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (uid, curator, sid, name, json.dumps(base, ensure_ascii=False),
                  dumps(ours), row[0] if row else "the project", dumps(theirs), at))
