"""Work on the project that runs in the background: photo intake, detection, release.

The heavy lifting runs in ``core`` on a worker thread (:mod:`ui.anonymize.workers`); the
results come back here on the GUI thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from core.files import named_once
from core.imaging import photos as repo
from core.imaging.loading import accepted_suffixes
from core.imaging.photo_edits import EDIT_ERRORS, Detect, UndoStack
from core.jobs import Job, JobState
from core.store.project import Project
from ui.anonymize.detector import DetectorBanner
from ui.anonymize.editor import PhotoEditor, writable
from ui.anonymize.viewer import PhotoViewer
from ui.anonymize.workers import detect_job, import_job, release_all_job, release_job
from ui.context import AppContext

if TYPE_CHECKING:
    from core.imaging.release_all import BulkRelease


class _DetectBridge(QObject):
    """Carries what a detection changed from the worker thread to ours (queued)."""

    detected = Signal(object, object)  # the undo stack it is for, a Redetection


class PhotoJobs(QObject):
    """Import, Detect, Release and Release All Reviewed for the Anonymize page."""

    #: photos or regions changed outside the undo history: reload the page
    reload_needed = Signal()

    def __init__(self, context: AppContext, page: QWidget, viewer: PhotoViewer,
                 editor: PhotoEditor, detector: DetectorBanner) -> None:
        super().__init__(page)
        self.context, self.page, self.viewer, self.editor, self.detector = \
            context, page, viewer, editor, detector
        self.last_refusal: dict[str, Any] | None = None
        self.last_bulk: BulkRelease | None = None
        self._box: QMessageBox | None = None
        self._bridge = _DetectBridge(self)
        self._bridge.detected.connect(self._detected)

    @property
    def project(self) -> Project | None:
        """The open project."""
        project: Project | None = self.context.project
        return project

    # -- detection ------------------------------------------------------------------------
    def detect_current(self) -> Job | None:
        """Detect faces and plates in the photo on screen."""
        photo = self.viewer.photo
        if photo is None or not writable(self.context, "Detect") or not self.detector.ready():
            return None
        return self._detect([photo.id], f"Detect in {photo.file_name}")

    def detect_all(self) -> Job | None:
        """Detect in every photo with status new."""
        if self.project is None or not writable(self.context, "Detect all") or \
                not self.detector.ready():
            return None
        photos = repo.list_photos(self.project)
        ids = [p.id for p in photos if p.status == "new"]
        if not photos:  # an empty result says what is missing (ADR 207, 211)
            self.context.refuse("No photos to detect in", (
                "This project has no photos yet. Import a folder of photos first "
                "(Anonymize → Import Photo Folder…, Ctrl+Shift+I), then Detect All."))
            return None
        if not ids:
            self.context.refuse("No new photos to detect in", (
                ("The photo is" if len(photos) == 1 else f"All {len(photos)} photos are")
                + " reviewed or released, and Detect All "
                "looks only at new ones. To detect again in one, select it and press "
                "Detect (Ctrl+D): your own regions stay as they are."))
            return None
        return self._detect(ids, f"Detect faces and plates in {len(ids)} photos")

    def _detect(self, ids: list[int], title: str) -> Job:
        """Detect in ``ids`` as a job; each photo's detection becomes one undo step as
        it is written, and the user's regions are never replaced (ADR 189)."""
        assert self.project is not None
        stack, kept, declined = self.editor.stack, [0], [0]

        def deliver(change: repo.Redetection) -> None:  # on the worker thread
            kept[0] += change.kept
            declined[0] += change.declined
            self._bridge.detected.emit(stack, change)

        def done(job: Job) -> None:
            self.reload_needed.emit()
            if job.outcome == "failed":
                self.context.message("Detection failed", job.error)
            elif job.outcome == "done":
                found = int(job.future.result())
                text = f"Detection finished: {found} found"
                if declined[0]:
                    text += f"; {declined[0]} you rejected left out"
                if kept[0]:
                    text += f"; {kept[0]} of your regions kept as they were"
                n, some = job.state.items_failed, job.state.items_ok
                if n:
                    photos = f"{n} photo{'s' if n != 1 else ''}"
                    text += f"; {photos} could not be read"
                    self.context.message(
                        "Detection failed for some photos" if some else "Detection failed",
                        _listed(f"{photos} could not be detected in (the others were):"
                                if some else f"{photos} could not be read:",
                                job.state.failures))
                self.context.status(text)

        job: Job = self.context.start_job(title, detect_job(
            self.project.worker_view(), ids, self.detector.settings, deliver), done)
        return job

    def _detected(self, stack: UndoStack | None, change: repo.Redetection) -> None:
        """One photo's detection was written: book it for undo, redraw it if shown."""
        if stack is None or stack is not self.editor.stack or self.project is None:
            return  # the project was closed or switched meanwhile
        try:
            name = repo.get_photo(self.project, change.photo_id).file_name
        except EDIT_ERRORS:
            return
        self.editor.record(Detect(change, name))
        if self.viewer.photo is not None and self.viewer.photo.id == change.photo_id:
            self.viewer.refresh()

    # -- intake ------------------------------------------------------------------------------
    def _refused(self) -> bool:
        """A curator package takes no photos (ADR 130): said before a folder is asked
        for (ADR 222)."""
        return self.context.refuse_in_package(
            "Import not possible", "photos", "Import and anonymize photos in {project}")

    def choose_folder(self) -> None:
        """Ask for a folder and import it."""
        if self.project is None:
            self.context.refuse("No project", "Open or create a project first.")
            return
        if not writable(self.context, "Import photo folder") or self._refused():
            return
        folder = QFileDialog.getExistingDirectory(self.page, "Import photo folder")
        if folder:
            self.import_folder(folder)

    def import_folder(self, folder: str | Path) -> Job | None:
        """Import photos from ``folder`` in the background."""
        if self.project is None or self._refused():
            return None

        def done(job: Job) -> None:
            self.reload_needed.emit()
            if job.outcome == "failed":
                self.context.message("Import failed", job.error)
                return
            if job.outcome != "done":
                return
            report: repo.IntakeReport = job.future.result()
            text = f"Imported {len(report.imported)} photos"
            if report.duplicates:
                text += f", {len(report.duplicates)} already in the project"
            self.context.status(text)
            if not (report.imported or report.duplicates or report.errors or report.skipped):
                kinds = ", ".join(s.lstrip(".").upper() for s in accepted_suffixes())
                self.context.refuse("No photos found", (
                    f"{Path(folder).name} holds no photos, so nothing was imported. Import "
                    f"Photo Folder reads the {kinds} files in the folder you pick and in its "
                    "subfolders."))
            if report.errors:  # every one counted, the first 20 named
                noun = "photo" if len(report.errors) == 1 else "photos"
                self.context.message("Some photos could not be imported", _listed(
                    f"{len(report.errors)} {noun} could not be imported:",
                    [msg for _name, msg in report.errors]))
            if report.skipped:
                noun = "file was" if len(report.skipped) == 1 else "files were"
                self.context.message("Some files were not imported", _listed(
                    f"{len(report.skipped)} {noun} left out (not photos Winnow reads):",
                    [f"{name}: {why}" for name, why in report.skipped]))

        job: Job = self.context.start_job(
            f"Import photos from {Path(folder).name}",
            import_job(self.project.worker_view(), folder), done)
        return job

    # -- release -------------------------------------------------------------------------------
    def release_current(self, out_dir: str | Path | None = None,
                        accept_unhidden: bool = False) -> Job | None:
        """Release the photo on screen (reviewed) into ``out_dir`` (asked when None)."""
        photo = self.viewer.photo
        if photo is None or self.project is None or \
                not writable(self.context, f"Release {photo.file_name}") or \
                not self.detector.extra_ready("Releasing an anonymized photo"):
            return None
        if photo.status not in ("reviewed", "released"):
            self.context.refuse("Not reviewed", f"{photo.file_name}: only a reviewed "
                                "photo can be released. Check every region, then press "
                                "Mark reviewed (Ctrl+Return).")
            return None
        out_dir = self._out_dir(out_dir, "Release into folder")
        if out_dir is None:
            return None
        name = photo.file_name

        def done(job: Job) -> None:
            from core.imaging.release import ReleaseRefused

            self.reload_needed.emit()
            if job.outcome != "done":
                if job.outcome == "failed":
                    self.context.message("Release failed", f"{name}: {job.error}")
                return
            outcome = job.future.result()
            if isinstance(outcome, ReleaseRefused):
                self.last_refusal = outcome.verification
                if outcome.verification.get("outside") and not outcome.verification.get(
                        "inside"):
                    self._ask_release_anyway(str(outcome), out_dir)
                else:
                    self.context.message("Release refused", str(outcome))
                return
            path, _result = outcome
            self.context.status(f"Released {name} → {path}", 10000)

        job: Job = self.context.start_job(f"Release {name}", release_job(
            self.project.worker_view(), photo.id, out_dir, self.detector.settings,
            accept_unhidden), done)
        return job

    def _ask_release_anyway(self, text: str, out_dir: str | Path) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, "Face outside every region", text,
                          QMessageBox.StandardButton.Cancel, self.page)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText("Add a region over it (Before view), or release anyway if "
                               "it is not a real face.")
        anyway = box.addButton("Release anyway", QMessageBox.ButtonRole.AcceptRole)
        box.finished.connect(lambda _c: self.release_current(out_dir, True)
                             if box.clickedButton() is anyway else None)
        self._box = box
        box.open()

    def _out_dir(self, out_dir: str | Path | None, title: str) -> str | Path | None:
        """``out_dir``, or the folder the user picks (None: cancelled); remembered."""
        if out_dir is None:
            start = str(QSettings().value("anonymize/release_dir", "") or "")
            out_dir = QFileDialog.getExistingDirectory(self.page, title, start) or None
        if out_dir is not None:
            QSettings().setValue("anonymize/release_dir", str(out_dir))
        return out_dir

    def release_all(self, out_dir: str | Path | None = None) -> Job | None:
        """Release every reviewed photo into ``out_dir`` (asked when None) as one job."""
        from core.imaging.release_all import BulkRelease

        if self.project is None or not writable(self.context, "Release all reviewed") or \
                not self.detector.extra_ready("Releasing anonymized photos"):
            return None
        photos = repo.list_photos(self.project)
        if not any(p.status == "reviewed" for p in photos):
            waiting = sum(p.status == "new" for p in photos)
            self.context.refuse("Nothing to release", "No photo is marked reviewed"
                                + (f" ({waiting} still to review)." if waiting else ".")
                                + " Check every region, then press Mark reviewed "
                                "(Ctrl+Return).")
            return None
        out_dir = self._out_dir(out_dir, "Release all reviewed photos into folder")
        if out_dir is None:
            return None
        report = BulkRelease(str(out_dir))

        def done(job: Job) -> None:
            self.reload_needed.emit()
            self.last_bulk = report
            text = report.summary()
            if job.outcome == "failed":
                text = f"The release stopped: {job.error}\n\n{text}"
            self.context.status(text.splitlines()[0], 10000)
            trouble = job.outcome == "failed" or report.failed
            self._show_result("Release all reviewed", text, warning=bool(trouble))

        job: Job = self.context.start_job(
            f"Release reviewed photos into {Path(out_dir).name}",
            release_all_job(self.project.worker_view(), out_dir, self.detector.settings,
                            report), done)
        return job

    def export_released_dataset(self, out_dir: str | Path | None = None) -> Job | None:
        """Export the released photos as a Hugging Face dataset folder (ADR 101), as a job."""
        from core.interop.hf_export import export_photos_hf

        if self.project is None:
            return None
        out_dir = self._out_dir(out_dir, "Export released photos into a new or empty folder")
        if out_dir is None:
            return None
        view = self.project.worker_view()

        def work(state: JobState) -> Any:
            try:
                return export_photos_hf(view, out_dir, state=state)
            finally:
                view.close()

        def done(job: Job) -> None:
            if job.outcome == "done":
                r = job.future.result()
                text = f"Exported {r.exported} released photo(s) to {r.out}"
                if r.skipped:
                    text += f"; {len(r.skipped)} left out: " + "; ".join(
                        f"{s['photo']}: {s['reason']}" for s in r.skipped[:5])
                self._show_result("Export released photos", text, warning=bool(r.skipped))
                self.context.status(text, 10000)
            elif job.outcome == "failed":
                self._show_result("Export released photos", named_once(out_dir, job.error), True)

        job: Job = self.context.start_job(
            f"Export released photos to {Path(out_dir).name}", work, done)
        return job

    def _show_result(self, title: str, text: str, warning: bool) -> None:
        icon = QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Information
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self.page)
        box.setTextFormat(Qt.TextFormat.PlainText)
        self._box = box
        box.open()


def _listed(head: str, lines: list[str], most: int = 20) -> str:
    """``head``, then the first ``most`` lines and how many more there are."""
    more = [f"… and {len(lines) - most} more"] if len(lines) > most else []
    return "\n".join([head, *lines[:most], *more])
