"""Background work of the Anonymize workspace: detection, folder intake and release.

A mixin of :class:`ui.anonymize.workspace.AnonymizeWorkspace`; the heavy lifting runs
in ``core`` on a worker thread (see :mod:`ui.anonymize.jobs`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from core import extras
from core.imaging import faces
from core.imaging import photos as repo
from ui.anonymize.jobs import detect_job, import_job, release_all_job, release_job
from ui.anonymize.settings_dialog import DetectSettingsDialog, save_settings


class WorkspaceJobs:
    """Detection, intake and release for the workspace (expects its attributes)."""

    context: Any
    settings: Any
    photo: Any
    banner: Any
    banner_text: Any
    banner_button: Any
    undo: Any
    _box: QMessageBox | None
    last_refusal: dict[str, Any] | None
    last_bulk: Any
    _act: Any

    def _writable(self, what: str) -> bool:
        """False (and a message naming the project) while it is open read-only."""
        project = self.context.project
        if project is not None and project.readonly:
            self.context.message("Project is read-only",
                                 f"{what}: {project.path.name} is open read-only, so "
                                 "nothing in it can change. Reopen it for writing "
                                 "(File → Open) once no other Winnow holds it.")
            return False
        return True

    # -- detection ------------------------------------------------------------------------
    def _extra_ready(self, what: str) -> bool:
        """False (and the install command) when the ``anonymize`` extra is missing."""
        if extras.available("anonymize"):
            return True
        self.context.message("Anonymization is not installed",
                             extras.missing_message("anonymize", what))
        return False

    def _update_banner(self) -> None:
        if not extras.available("anonymize"):
            self.banner.setVisible(True)
            self.banner_text.setText(extras.missing_message("anonymize"))
            self.banner_button.hide()
            return
        missing = not faces.centerface_available()
        self.banner.setVisible(missing)
        if not missing:
            return
        if self.settings.face_detector == "hog":
            self.banner_text.setText(
                "The CenterFace face model is not installed, so faces are found with the "
                "fallback detector (dlib HOG): it finds frontal faces only and misses turned "
                "heads — check every photo carefully. " + faces.SETUP_HINT)
            self.banner_button.hide()
        else:
            self.banner_text.setText(
                "The CenterFace face model is not installed: automatic face detection is "
                "off until you choose the fallback detector (frontal faces only). "
                + faces.SETUP_HINT)
            self.banner_button.show()

    def use_fallback(self) -> None:
        """Switch face detection to dlib HOG (from the banner)."""
        self.settings.face_detector = "hog"
        save_settings(self.settings)
        self._update_banner()

    def edit_settings(self) -> None:
        """Open the detection settings dialog."""
        dialog = DetectSettingsDialog(self.settings, self)
        dialog.finished.connect(lambda code: self._settings_done(dialog, code))
        dialog.open()

    def _settings_done(self, dialog: DetectSettingsDialog, code: int) -> None:
        if code:
            self.settings = dialog.result_settings()
            save_settings(self.settings)
            self._update_banner()

    def _detector_ready(self) -> bool:
        if not self._extra_ready("Face and plate detection"):
            return False
        if "centerface" in self.settings.face_detector and not faces.centerface_available():
            self.context.message("Face model missing", self.banner_text.text())
            return False
        return True

    def detect_current(self) -> Any:
        """Detect faces and plates in the current photo (background job)."""
        if self.photo is None or not self._writable("Detect") or not self._detector_ready():
            return None
        return self._detect([self.photo.id], f"Detect in {self.photo.file_name}")

    def detect_all(self) -> Any:
        """Detect in every photo with status new."""
        if self.project is None or not self._writable("Detect all") or \
                not self._detector_ready():
            return None
        ids = [p.id for p in repo.list_photos(self.project) if p.status == "new"]
        if not ids:
            self.context.status("No new photos to detect in")
            return None
        return self._detect(ids, f"Detect faces and plates in {len(ids)} photos")

    def _detect(self, ids: list[int], title: str) -> Any:
        view = self.project.worker_view()

        def done(job: Any) -> None:
            self.undo.clear()  # detection replaced regions outside the undo history
            self.reload()
            if job.outcome == "failed":
                self.context.message("Detection failed", str(job.error))
            elif job.outcome == "done":
                self.context.status(f"Detection finished: {job.future.result()} regions")

        return self.context.start_job(title, detect_job(view, ids, self.settings), done)

    # -- intake --------------------------------------------------------------------------
    def choose_folder(self) -> None:
        """Ask for a folder and import it."""
        if self.project is None:
            self.context.message("No project", "Open or create a project first.")
            return
        if not self._writable("Import photo folder"):
            return
        folder = QFileDialog.getExistingDirectory(self, "Import photo folder")
        if folder:
            self.import_folder(folder)

    def import_folder(self, folder: str | Path) -> Any:
        """Import photos from ``folder`` in the background."""
        view = self.project.worker_view()

        def done(job: Any) -> None:
            self.reload()
            if job.outcome == "failed":
                self.context.message("Import failed", str(job.error))
                return
            if job.outcome != "done":
                return
            report = job.future.result()
            text = f"Imported {len(report.imported)} photos"
            if report.duplicates:
                text += f", {len(report.duplicates)} already in the project"
            self.context.status(text)
            if report.errors:
                self.context.message("Some photos could not be imported", "\n".join(
                    msg for _name, msg in report.errors[:20]))

        return self.context.start_job(f"Import photos from {Path(folder).name}",
                                      import_job(view, folder), done)

    # -- release ---------------------------------------------------------------------------
    def _release_actions(self) -> None:
        # a lambda, not the bound method: triggered(checked) would arrive as ``out_dir``
        self.act_release = self._act("Release…", lambda: self.release_current(), "Ctrl+R",
                                     "Release this reviewed photo into a folder")
        self.act_release_all = self._act(
            "Release All Reviewed…", lambda: self.release_all(), "Ctrl+Shift+R",
            "Release every photo marked reviewed into one folder (a background job; "
            "photos not reviewed are skipped)")
        self.act_export_dataset = self._act(
            "Export Released as Dataset…", lambda: self.export_released_dataset(), None,
            "Write the released photos, with caption, category, credit and licence, as a "
            "Hugging Face dataset folder (a new or empty folder)")

    def release_current(self, out_dir: str | Path | None = None,
                        accept_unhidden: bool = False) -> Any:
        """Release the current (reviewed) photo into ``out_dir`` (asked when None)."""
        if self.photo is None or not self._writable(f"Release {self.photo.file_name}") \
                or not self._extra_ready("Releasing an anonymized photo"):
            return None
        if self.photo.status not in ("reviewed", "released"):
            self.context.message("Not reviewed", f"{self.photo.file_name}: only a reviewed "
                                 "photo can be released. Check every region, then press "
                                 "Mark reviewed (Ctrl+Return).")
            return None
        if out_dir is None:
            out_dir = self._ask_out_dir("Release into folder")
            if out_dir is None:
                return None
        QSettings().setValue("anonymize/release_dir", str(out_dir))
        view = self.project.worker_view()
        photo_id, name = self.photo.id, self.photo.file_name

        def done(job: Any) -> None:
            from core.imaging.release import ReleaseRefused

            self._refresh()
            self._fill_list(self.photo.id if self.photo else None)
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

        return self.context.start_job(f"Release {name}", release_job(
            view, photo_id, out_dir, self.settings, accept_unhidden), done)

    def _ask_release_anyway(self, text: str, out_dir: Any) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, "Face outside every region", text,
                          QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText("Add a region over it (Before view), or release anyway if "
                               "it is not a real face.")
        anyway = box.addButton("Release anyway", QMessageBox.ButtonRole.AcceptRole)
        box.finished.connect(lambda _c: self.release_current(out_dir, True)
                             if box.clickedButton() is anyway else None)
        self._box = box
        box.open()


    def _ask_out_dir(self, title: str) -> str | None:
        start = str(QSettings().value("anonymize/release_dir", "") or "")
        out_dir = QFileDialog.getExistingDirectory(self, title, start)  # type: ignore[arg-type]
        return out_dir or None

    def export_released_dataset(self, out_dir: str | Path | None = None) -> Any:
        """Export the released photos as a Hugging Face dataset folder (ADR 101), as a job."""
        from core.interop.hf_export import export_photos_hf

        if self.project is None:
            return None
        if out_dir is None:
            out_dir = self._ask_out_dir("Export released photos into a new or empty folder")
            if out_dir is None:
                return None
        view = self.project.worker_view()

        def work(state: Any) -> Any:
            try:
                return export_photos_hf(view, out_dir, state=state)
            finally:
                view.close()

        def done(job: Any) -> None:
            if job.outcome == "done":
                r = job.future.result()
                text = f"Exported {r.exported} released photo(s) to {r.out}"
                if r.skipped:
                    text += f"; {len(r.skipped)} left out: " + "; ".join(
                        f"{s['photo']}: {s['reason']}" for s in r.skipped[:5])
                self._show_result("Export released photos", text, warning=bool(r.skipped))
                self.context.status(text, 10000)
            elif job.outcome == "failed":
                self._show_result("Export released photos", f"{out_dir}: {job.error}", True)

        return self.context.start_job(f"Export released photos to {Path(out_dir).name}",
                                      work, done)

    def release_all(self, out_dir: str | Path | None = None) -> Any:
        """Release every reviewed photo into ``out_dir`` (asked when None) as one job."""
        from core.imaging.release_all import BulkRelease

        if self.project is None or not self._writable("Release all reviewed") \
                or not self._extra_ready("Releasing anonymized photos"):
            return None
        photos = repo.list_photos(self.project)
        if not any(p.status == "reviewed" for p in photos):
            waiting = sum(p.status == "new" for p in photos)
            self.context.message("Nothing to release", "No photo is marked reviewed"
                                 + (f" ({waiting} still to review)." if waiting else ".")
                                 + " Check every region, then press Mark reviewed "
                                 "(Ctrl+Return).")
            return None
        if out_dir is None:
            out_dir = self._ask_out_dir("Release all reviewed photos into folder")
            if out_dir is None:
                return None
        QSettings().setValue("anonymize/release_dir", str(out_dir))
        report = BulkRelease(str(out_dir))

        def done(job: Any) -> None:
            self.reload()
            self.last_bulk = report
            text = report.summary()
            if job.outcome == "failed":
                text = f"The release stopped: {job.error}\n\n{text}"
            self.context.status(text.splitlines()[0], 10000)
            trouble = job.outcome == "failed" or report.failed
            self._show_result("Release all reviewed", text, warning=bool(trouble))

        return self.context.start_job(
            f"Release reviewed photos into {Path(out_dir).name}",
            release_all_job(self.project.worker_view(), out_dir, self.settings, report), done)

    def _show_result(self, title: str, text: str, warning: bool) -> None:
        icon = QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Information
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)  # type: ignore[arg-type]
        box.setTextFormat(Qt.TextFormat.PlainText)
        self._box = box
        box.open()
