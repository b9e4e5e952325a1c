"""Curate's proposal workflow: the Posts window, New Sample from Post, Propose…, Accept,
the template editor and the report.  Owned by the workspace; every edit goes through
its ``run`` (the undo stack), every long thing through ``context.start_job``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMenu

from core.propose.commands import AcceptProposals, NewSampleFromPost, SetFeedbackLabel
from core.selection import SampleFilter


class ProposalActions:
    """Works on a :class:`ui.curate.workspace.CurateWorkspace`."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.posts_dialog: Any = None
        self.last_job: Any = None
        ws.context.project_changed.connect(self._project_changed)
        feedback = ws.view.feedback
        feedback.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        feedback.customContextMenuRequested.connect(self._feedback_menu)

    @property
    def context(self) -> Any:
        return self.ws.context

    def _project_changed(self) -> None:
        """Another project (or none): the Posts window belonged to the old one."""
        if self.posts_dialog is not None:
            self.posts_dialog.close()
            self.posts_dialog = None

    # -- posts --------------------------------------------------------------------------
    def open_posts(self) -> Any:
        """Show the Posts window (non-modal)."""
        from ui.curate.posts_view import PostsDialog

        if self.ws.project is None:
            return None
        if self.posts_dialog is None or self.posts_dialog.ws.project is not self.ws.project:
            self.posts_dialog = PostsDialog(self.ws, self.ws)
        else:
            self.posts_dialog.reload()
        self.posts_dialog.show()
        self.posts_dialog.raise_()
        return self.posts_dialog

    def new_sample_from_post(self, post_id: str) -> str | None:
        """Make a sample from ``post_id`` by hand (undoable) and show it."""
        from core.propose.apply import FROM_POSTS_IN_PACKAGE

        if self.context.refuse_in_package("New sample not possible", *FROM_POSTS_IN_PACKAGE):
            return None
        command = NewSampleFromPost(post_id)
        if not self.ws.run(command):
            return None
        self.context.status(f"Made sample {command.new_id} from post {post_id}: assign "
                            "image roles (I / O / U) and fix the prompt", 8000)
        return command.new_id

    def show_post_sample(self, post_id: str) -> None:
        """Show the first sample of ``post_id`` in Curate (clearing filters that hide it)."""
        from core.propose.posts import samples_of

        ids = samples_of(self.ws.project, post_id)
        if not ids:
            self.context.status(f"Post {post_id} has no sample yet.")
            return
        if self.ws.model.row_of(ids[0]) is None:
            self.ws.filters.reset()
            self.ws.apply_filter(SampleFilter())
        row = self.ws.model.row_of(ids[0])
        if row is not None:
            self.ws.select_row(row)

    # -- accept ---------------------------------------------------------------------------
    def accept(self) -> bool:
        """Accept the still-proposed values of the selected samples (Y)."""
        ids = self.ws.selected_ids()
        if not ids:
            return False
        self.ws.view.commit_pending()
        done = self.ws.run(AcceptProposals(ids))
        if not done:
            self.context.status("Nothing to accept: no machine-proposed value waits for "
                                "review here.")
        return done

    # -- feedback labels -------------------------------------------------------------------
    def label_feedback(self, row: int, label: str | None, keyword: str = "") -> bool:
        """Label the ``row``-th piece of feedback of the shown sample (undoable)."""
        d = self.ws.view.detail
        if d is None or not 0 <= row < len(d.feedback) or d.feedback[row][0] is None:
            return False
        try:
            command = SetFeedbackLabel(d.id, d.feedback[row][0] or "", label, keyword)
        except ValueError as exc:
            self.context.message("Label not saved", str(exc))
            return False
        return self.ws.run(command)

    def _feedback_menu(self, pos: Any) -> None:
        view = self.ws.view.feedback
        item = view.itemAt(pos)
        if item is None or self.ws.project is None or self.ws.project.readonly:
            return
        row = view.row(item)
        menu = QMenu(view)
        for label in ("success", "neutral"):
            menu.addAction(f"Label {label.title()}").triggered.connect(
                lambda _=False, lb=label: self.label_feedback(row, lb))
        menu.addAction("Label Failure…").triggered.connect(lambda: self._ask_failure(row))
        menu.addAction("Clear Label").triggered.connect(
            lambda: self.label_feedback(row, None))
        menu.popup(view.viewport().mapToGlobal(pos))

    def _ask_failure(self, row: int) -> None:
        dialog = QInputDialog(self.ws)
        dialog.setWindowTitle("Failure keyword")
        dialog.setLabelText("A short keyword naming what went wrong (e.g. color drift):")
        dialog.textValueSelected.connect(lambda text: self.label_feedback(row, "failure", text))
        self.ws.keep_dialog(dialog)
        dialog.open()

    # -- propose --------------------------------------------------------------------------
    def ask_propose(self, post_ids: list[str] | None = None) -> Any:
        """Open the Propose dialog for ``post_ids`` (default: the raw main posts)."""
        from core.propose.posts import count_posts
        from core.propose.store import select_posts
        from ui.curate.propose_dialog import ProposeDialog

        project = self.ws.project
        if project is None or project.readonly or self.refused():
            return None
        posts = post_ids if post_ids is not None else select_posts(project, "raw")
        if not posts and post_ids is None and count_posts(project) == 0:
            self.context.refuse("Nothing to propose", "The project holds no posts yet: "
                                "import a JSON Lines file of posts first (File → Import "
                                "Posts…, Ctrl+I).")
            return None
        if not posts:
            self.context.refuse("Nothing to propose", "Every main post already has an "
                                "imported sample. Open Posts… to choose posts by hand.")
            return None
        dialog = ProposeDialog(len(posts), self.ws, templates=self.open_templates)
        dialog.accepted.connect(lambda: self.start(dialog.endpoint(), dialog.kinds(), posts))
        self.ws.keep_dialog(dialog)
        dialog.open()
        return dialog

    def refused(self) -> bool:
        """In a curator package, say that it takes no proposals (ADR 228) and return True."""
        from core.propose.job import IN_PACKAGE

        return self.context.refuse_in_package("Propose not possible", *IN_PACKAGE)

    def start(self, endpoint: Any, kinds: list[str], post_ids: list[str]) -> Any:
        """Run the proposal job in the background (progress and Cancel in the Jobs panel)."""
        from core.propose.client import EndpointError
        from core.propose.job import run_proposals

        project = self.ws.project
        if project is None or self.refused():
            return None
        view = project.worker_view()

        def work(state: Any) -> Any:
            try:
                return run_proposals(view, endpoint, kinds, post_ids, state,
                                     posts_label=f"{len(post_ids)} posts (Curate)")
            finally:
                view.close()

        def done(job: Any) -> None:
            if self.ws.project is project:
                self.context.data_changed.emit()  # Curate's list, Analyze's keywords
                if self.posts_dialog is not None and self.posts_dialog.isVisible():
                    self.posts_dialog.model.refresh()
            if job.outcome == "done":
                r = job.future.result()
                text = (f"Proposals: {r.ok:,} new, {r.cached:,} reused, {r.failed:,} failed; "
                        f"{r.applied:,} values written, {r.kept:,} left as curators set them")
                if r.failed:
                    self.context.message("Some proposals failed", text + ".\n\n" + "\n".join(
                        f"post {f['post']} ({f['kind']}): {f['reason']}"
                        for f in r.failures[:8]) + "\n\nSee Curate → How Good Are the "
                        "Proposals? for all of them; the next run retries them.")
                self.context.status(text, 15000)
            elif job.outcome == "cancelled":
                self.context.status("Proposals cancelled: every answer received is saved; "
                                    "run again to go on.", 10000)
            else:
                exc = job.future.exception()
                head = ("The endpoint refused the requests" if isinstance(exc, EndpointError)
                        else "Proposals failed")
                self.context.message(head, job.error or str(exc))

        self.last_job = self.context.start_job(f"Propose ({', '.join(kinds)})", work, done)
        return self.last_job

    # -- templates and report -------------------------------------------------------------
    def open_templates(self) -> Any:
        """The template editor (non-modal)."""
        from ui.curate.template_dialog import TemplateDialog

        if self.ws.project is None:
            return None
        dialog = TemplateDialog(self.ws.project, self.ws, report=self.context.message)
        self.ws.keep_dialog(dialog)
        dialog.show()
        return dialog

    def open_report(self) -> Any:
        """Measure the proposals in the background, then show the report window."""
        from core.propose.report import build
        from ui.curate.proposal_report import ProposalReportDialog

        project = self.ws.project
        if project is None:
            return None
        view = project.worker_view()

        def work(state: Any) -> Any:
            state.set_status("Measuring the proposals")
            try:
                return build(view).to_json()
            finally:
                view.close()

        def done(job: Any) -> None:
            if job.outcome != "done":
                if job.outcome == "failed":
                    self.context.message("Cannot measure the proposals", job.error)
                return
            dialog = ProposalReportDialog(job.future.result(), self.ws)
            self.ws.keep_dialog(dialog)
            dialog.show()
            self.report_dialog = dialog

        self.last_job = self.context.start_job("Proposal report", work, done)
        return self.last_job
