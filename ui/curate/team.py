"""Curate → Share Work…, Merge Returned Work… and Resolve Conflicts… (issue #20, ADRs
130–133).  The work runs in core (:mod:`core.teamwork`) as background jobs; this module
only asks, starts and reports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.export_files import NotOwnedError
from core.export_folder import check_folder_target
from core.files import kept_message, named_once
from core.teamwork import DEFAULT_OVERLAP
from core.teamwork.conflicts import count_open
from core.teamwork.package import package_of
from ui.widgets.dialog_buttons import confirm_cancel

SUFFIX = ".winnow"


def folder_refusal(folder: Path) -> str | None:
    """Why the packages cannot go into ``folder`` (Share never overwrites), or None."""
    try:
        check_folder_target(folder, overwrite=False, kind="package")
    except NotOwnedError as exc:  # a symbolic link: the message names it
        return str(exc)
    except FileExistsError:
        if folder.is_dir():
            return kept_message(folder, "already holds files (packages go into a new or "
                                "empty folder)",
                                "choose another folder")
        return kept_message(folder, "is a file, not a folder",
                            "choose a new folder for the packages")
    except OSError as exc:  # an unreadable folder
        return f"{folder}: {exc.strerror or exc}"
    return None


class ShareWorkDialog(QDialog):
    """Who curates (one name a line), how much they share, which samples, where to."""

    def __init__(self, default_dir: Path, filter_text: str, parent: QWidget | None = None
                 ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Share work")
        self.names = QPlainTextEdit("Curator 1\nCurator 2")
        self.names.setPlaceholderText("One curator's name a line")
        self.names.setMinimumHeight(110)
        self.overlap = QDoubleSpinBox()
        self.overlap.setRange(0, 100)
        self.overlap.setDecimals(0)
        self.overlap.setSuffix(" %")
        self.overlap.setValue(round(100 * DEFAULT_OVERLAP))
        self.overlap.setToolTip("The share of samples given to two curators, to measure "
                                "agreement (Analyze → Curator Agreement…)")
        self.use_filter = QCheckBox(f"Only the samples the current filter shows ({filter_text})")
        self.folder = QLineEdit(str(default_dir))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Curators:", self.names)
        form.addRow("Shared by two:", self.overlap)
        form.addRow("", self.use_filter)
        form.addRow("New folder:", row)
        note = QLabel("Writes one package per curator into a new folder: a .winnow file with "
                      "the curator's samples, their posts, replies and images. Curators open "
                      "it in Winnow, curate, and send it back; Merge Returned Work brings it in.")
        note.setWordWrap(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        buttons = confirm_cancel(self, "Share", self._accept)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(560, 360)

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder for the packages",
                                                self.folder.text())
        if path:
            self.folder.setText(str(Path(path) / "packages"))

    def curator_names(self) -> list[str]:
        return [n.strip() for n in self.names.toPlainText().splitlines() if n.strip()]

    def _accept(self) -> None:
        if not self.curator_names():
            self.error.setText("Name at least one curator.")
        elif not self.folder.text().strip():
            self.error.setText("Choose a folder for the packages.")
        elif self.overlap.value() > 0 and len(self.curator_names()) < 2:
            self.error.setText("Sharing samples needs at least two curators.")
        elif problem := folder_refusal(Path(self.folder.text().strip())):
            self.error.setText(problem)  # here, not after the job: the names stay typed
        else:
            self.accept()

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :meth:`TeamWork.share`."""
        return {"out_dir": Path(self.folder.text().strip()), "names": self.curator_names(),
                "overlap": self.overlap.value() / 100, "use_filter": self.use_filter.isChecked()}


class TeamWork:
    """The Curate workspace's team actions (``ws`` is the CurateWorkspace)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.last_job: Any = None
        self.dialog: Any = None

    def install(self, actions: Any, menu: QMenu) -> None:
        """Add the team entries to the Curate menu (``actions`` is CurateActions)."""
        menu.addSeparator()
        team = menu.addMenu("&Team")
        self.share_action = actions._add(team, "&Share Work…", self.ask_share, None,
                                         "Write one curator package per person")
        self.merge_action = actions._add(team, "&Merge Returned Work…", self.choose_merge,
                                         None, "Merge curator packages sent back")
        self.resolve_action = actions._add(team, "&Resolve Conflicts…", self.show_conflicts,
                                           "Ctrl+Shift+J", "Decide each conflicting change")
        actions.edits += [self.share_action, self.merge_action, self.resolve_action]

    @property
    def project(self) -> Any:
        return self.ws.project

    def on_project_changed(self) -> None:
        """In a curator package: no sharing or merging there, and say whose it is. The
        conflicts window belongs to the project it listed: it closes, so a choice made
        there can never be applied to the project opened next."""
        if self.dialog is not None:
            dialog, self.dialog = self.dialog, None
            dialog.close()
        meta = package_of(self.project) if self.project is not None else None
        for action in (self.share_action, self.merge_action, self.resolve_action):
            action.setVisible(meta is None)
        if meta is not None:
            self.ws.context.status(  # Curate saves each edit: there is no Save to find
                f"{meta.get('curator', '?')}'s curator package from "
                f"{meta.get('project', '?')}: each edit is saved as you make it; when done, "
                f"close it and send back {self.project.path}", 30000)

    # -- share ------------------------------------------------------------------------------
    def ask_share(self) -> ShareWorkDialog | None:
        """Open the Share Work dialog (non-blocking); Share starts a background job."""
        if self.project is None or self.ws.context.refuse_in_package(
                "Share work", "shares", "Share work from {project}"):
            return None
        default = self.project.path.with_name(self.project.path.stem + "-packages")
        dialog = ShareWorkDialog(default, self.ws.filters.count.text(), self.ws)
        dialog.accepted.connect(lambda: self.share(**dialog.options()))
        self.ws.keep_dialog(dialog)
        dialog.open()
        return dialog

    def share(self, out_dir: Path, names: list[str], overlap: float = 0.0,
              use_filter: bool = False) -> Any:
        """Split in the background; the packages written, or why not, come after."""
        from core.teamwork.split import split_project

        if self.project is None:
            return None
        self.ws.view.commit_pending()
        view = self.project.worker_view()
        selection = self.ws.model.selection if use_filter else None

        def work(state: Any) -> Any:
            try:
                return split_project(view, out_dir, names, overlap=overlap,
                                     selection=selection, state=state)
            finally:
                view.close()

        def done(job: Any) -> None:
            if job.outcome == "done":
                r = job.future.result()
                lines = [f"{p['file']}: {p['curator']}, {p['samples']:,} samples "
                         f"({p['shared']:,} shared)" for p in r.packages]
                skipped = "".join(f"\n{d['sample']}: {d['reason']}" for d in r.skipped)
                if skipped:
                    skipped = f"\n\nNot shared ({len(r.skipped):,}):{skipped}"
                self.ws.context.inform(
                    "Work shared", f"{r.samples:,} samples into {len(r.packages)} package(s) "
                    f"in {r.out}:\n" + "\n".join(lines) + "\n\nSend each curator their file; "
                    "merge them back with Curate → Team → Merge Returned Work…" + skipped)
            elif job.outcome == "failed":
                self.ws.context.message("Work not shared", named_once(out_dir, job.error))
            else:
                self.ws.context.status("Share work cancelled; nothing was written", 10000)

        self.last_job = self.ws.context.start_job("Share work", work, done)
        return self.last_job

    # -- merge ------------------------------------------------------------------------------
    def choose_merge(self) -> None:
        if self.project is None or self.ws.context.refuse_in_package(
                "Merge returned work", "merges", "Merge returned work into {project}"):
            return
        paths, _ = QFileDialog.getOpenFileNames(self.ws, "Returned curator packages",
                                                str(self.project.path.parent),
                                                f"Curator packages (*{SUFFIX})")
        if paths:
            self.merge(paths)

    def merge(self, paths: Sequence[str | Path]) -> Any:
        """Merge packages in the background: a report per file; refused ones say why."""
        from core.teamwork.merge import merge_packages

        if self.project is None:
            return None
        self.ws.view.commit_pending()
        view = self.project.worker_view()

        def work(state: Any) -> tuple[list[str], list[str]]:
            try:
                results, refused = merge_packages(view, list(paths), state=state)
                return [r.summary() for r in results], refused
            finally:
                view.close()

        def done(job: Any) -> None:
            self.ws.context.data_changed.emit()
            if job.outcome == "cancelled":  # asked for: no warning, but what now
                self.ws.context.status(
                    "Merge cancelled: each package is merged whole or not at all, so those "
                    "merged before the cancel stay merged; merge them all again to finish "
                    "(a package already merged is skipped)", 20000)
                return
            if job.outcome != "done":
                self.ws.context.message("Merge failed", str(job.error))
                return
            merged, refused = job.future.result()
            text = "\n".join(merged) or "Nothing merged."
            waiting = count_open(self.project) if self.project is not None else 0
            if refused:
                text = "\n\n".join(refused) + "\n\nMerged:\n" + text
            if waiting:  # the report goes in the conflicts window: a message box would
                # be window-modal and block that window until dismissed; its list says
                # what still waits, so the report holds only what the merge did
                self.show_conflicts().show_report(
                    "Some packages were refused:\n" + text if refused else "Merged:\n" + text,
                    warn=bool(refused))
                self.ws.context.status(f"Work merged; {waiting} conflict(s) wait for a "
                                       "decision", 10000)
            elif refused:
                self.ws.context.message("Some packages were refused", text)
            else:
                self.ws.context.inform("Work merged", text)

        self.last_job = self.ws.context.start_job("Merge returned work", work, done)
        return self.last_job

    # -- adjudication -----------------------------------------------------------------------
    def show_conflicts(self) -> Any:
        """Open (or raise) the adjudication window."""
        from ui.curate.adjudicate import AdjudicationWindow

        if self.project is None:
            return None
        if self.dialog is None:
            self.dialog = AdjudicationWindow(self.ws)
            self.dialog.finished.connect(lambda *_: setattr(self, "dialog", None))
        self.dialog.reload()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog
