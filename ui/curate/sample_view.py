"""One sample: label bar, prompt editor, notes and tags, thread/feedback/history, images."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.curate.commands import Command, Macro, SetField, SetTag, reset_prompt, set_prompt
from core.curate.derive import has_blank
from core.curate.detail import SampleDetail, load_sample, sample_history
from core.propose.commands import feedback_labels
from core.propose.fields import field_status as proposal_fields
from ui.curate.image_panel import ImagePanel
from ui.curate.images import ImageStore
from ui.curate.label_bar import LabelBar
from ui.curate.post_panel import FeedbackList, HistoryList, PostPanel
from ui.curate.prompt_editor import PromptEditor
from ui.curate.proposal_bar import ProposalBar, mark_feedback


class _NotesEdit(QPlainTextEdit):
    def __init__(self, on_commit: Callable[[], None]) -> None:
        super().__init__()
        self._on_commit = on_commit

    def focusOutEvent(self, event: Any) -> None:  # noqa: N802
        super().focusOutEvent(event)
        self._on_commit()


class SampleView(QWidget):
    """Shows a :class:`SampleDetail`; every change goes through ``run(command)``."""

    def __init__(self, store: ImageStore, run: Callable[[Command], bool],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.project: Any = None
        self.detail: SampleDetail | None = None
        # -- label bar
        self.bar = LabelBar()
        self.title, self.link = self.bar.title, self.bar.link
        self.quality_buttons = self.bar.quality_buttons
        self.reviewed = self.bar.reviewed
        self.split = QComboBox()
        self.split.addItem("no split", None)
        self.split.addItem("text-to-image", "text-to-image")
        self.split.addItem("image-to-image", "image-to-image")
        self.split.setToolTip("Split: text-to-image or image-to-image")
        self.split.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.split.setMinimumContentsLength(5)
        self.read_only_note = self.bar.read_only_note
        for quality, button in self.quality_buttons.items():
            button.clicked.connect(lambda _=False, q=quality: self.set_quality(q))
        self.reviewed.clicked.connect(lambda on: self._run_field(
            "review_status", "reviewed" if on else "unreviewed"))
        self.split.activated.connect(lambda _i: self._run_field("split", self.split.currentData()))
        self.read_only = False
        self.empty_text = "No sample selected"
        # -- text column
        self.prompt = PromptEditor()
        self.prompt.commit_requested.connect(self._commit_prompt)
        self.prompt.reset_requested.connect(self.reset_prompt)
        self.notes = _NotesEdit(self._commit_notes)
        self.notes.setPlaceholderText("Notes for other curators")
        self.notes.setMaximumHeight(54)
        self.notes.setTabChangesFocus(True)
        self.tags = QLineEdit()
        self.tags.setPlaceholderText("tags, comma separated")
        self.tags.editingFinished.connect(self._commit_tags)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Notes:", self.notes)
        form.addRow("Tags:", self.tags)
        form.addRow("Split:", self.split)
        self.post = PostPanel()
        self.feedback = FeedbackList()
        self.history = HistoryList()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.post, "Thread")
        self.tabs.addTab(self.feedback, "Feedback")
        self.tabs.addTab(self.history, "History")
        self.tabs.currentChanged.connect(lambda _i: self._fill_history())
        text_col = QWidget()
        tl = QVBoxLayout(text_col)
        tl.setContentsMargins(0, 0, 4, 0)
        tl.addWidget(self.prompt, 2)
        tl.addLayout(form)
        tl.addWidget(self.tabs, 5)
        self.images = ImagePanel(store)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(text_col)
        split.addWidget(self.images)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 6)
        split.setChildrenCollapsible(True)  # drag, or Ctrl+G, to hide the images
        self.splitter = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        self.proposals = ProposalBar()  # machine-made values of the sample (issue 19)
        layout.addWidget(self.bar)
        layout.addWidget(self.proposals)
        layout.addWidget(split, 1)

    def set_read_only(self, on: bool) -> None:
        """Offer no edits while the project is open read-only (and say so)."""
        self.read_only = on
        self.read_only_note.setVisible(on)
        for widget in (*self.quality_buttons.values(), self.reviewed, self.split):
            widget.setEnabled(not on)
        self.images.set_read_only(on)
        self.prompt.set_read_only(on)
        self.notes.setReadOnly(on)
        self.tags.setReadOnly(on)
        self.notes.setPlaceholderText("" if on else "Notes for other curators")
        self.tags.setPlaceholderText("" if on else "tags, comma separated")

    # -- showing -----------------------------------------------------------------------------
    def show_sample(self, project: Any, sample_id: str | None,
                    empty_text: str = "No sample selected") -> None:
        """Load and show ``sample_id`` (None: nothing, ``empty_text`` as the title)."""
        self.project = project
        self.empty_text = empty_text
        self.detail = load_sample(project, sample_id) if sample_id and project else None
        self.refresh(keep_image=False)

    def reload(self) -> None:
        """Re-read the current sample after an edit, keeping the selected image."""
        if self.detail is None or self.project is None:
            return
        try:
            self.detail = load_sample(self.project, self.detail.id)
        except KeyError:
            self.detail = None
        self.refresh(keep_image=True)

    def refresh(self, keep_image: bool) -> None:
        """Put ``self.detail`` into the widgets."""
        d = self.detail
        self.setEnabled(d is not None)
        if d is None:  # nothing of the last sample may stay on screen
            self.title.setText(self.empty_text)
            self.bar.set_link("")
            for button in self.quality_buttons.values():
                button.setChecked(False)
            self.reviewed.setChecked(False)
            self.split.setCurrentIndex(0)
            self.prompt.set_prompt("", "")
            self.notes.setPlainText("")
            self.tags.setText("")
            self.post.clear_sample()
            self.feedback.clear()
            self.history.clear()
            self.tabs.setTabText(1, "Feedback")
            self.images.set_items(self.project, [], False, empty_text="")
            self.proposals.show_fields([])
            return
        self.title.setText(d.id)
        link = ""
        if d.derived_from:
            link = (f"fill-in-the-blank from {d.derived_from['source_sample_id']} "
                    f"(reply {d.derived_from['completion_post_id']})")
        elif d.derived:
            link = f"template of {len(d.derived)} derived sample(s)"
        self.bar.set_link(link)
        for quality, button in self.quality_buttons.items():
            button.setChecked(d.quality == quality)
        self.reviewed.setChecked(d.review_status == "reviewed")
        self.split.setCurrentIndex(max(0, self.split.findData(d.split)))
        self.prompt.set_prompt(d.prompt, d.original_prompt)
        if not self.notes.hasFocus():
            self.notes.setPlainText(d.notes)
        if not self.tags.hasFocus():
            self.tags.setText(", ".join(d.tags))
            self.tags.setCursorPosition(0)  # show the first tags, not the end
        self.post.show_sample(d, has_blank(d.prompt) or has_blank(d.original_prompt))
        self.feedback.show_feedback(d.feedback)
        mark_feedback(self.feedback, d.feedback, feedback_labels(self.project, d.id))
        self.tabs.setTabText(1, f"Feedback ({len(d.feedback)})")
        self._fill_history()
        self.proposals.show_fields(proposal_fields(self.project, d.id), self.read_only)
        current = self.images.current_item()
        self.images.set_items(self.project, d.images, d.is_screenshot,
                              current.key if (keep_image and current) else None)

    def _fill_history(self) -> None:
        if self.tabs.currentWidget() is self.history and self.detail is not None:
            self.history.show_history(sample_history(self.project, self.detail.id))

    # -- edits -------------------------------------------------------------------------------
    def commit_pending(self) -> None:
        """Save edits still in the text boxes (before leaving the sample)."""
        if self.detail is None:
            return
        self.prompt.commit()
        self._commit_notes()
        self._commit_tags()

    def set_quality(self, quality: str | None) -> None:
        """Label the shown sample (clicking the current label again clears it)."""
        if self.detail is None:
            return
        if quality == self.detail.quality and self.sender() in self.quality_buttons.values():
            quality = None
        self._run_field("quality", quality)

    def _run_field(self, field: str, value: Any) -> None:
        if self.detail is not None:
            self.run(SetField([self.detail.id], field, value))
            self.refresh_labels()

    def refresh_labels(self) -> None:
        """Re-sync the label bar when a command was refused."""
        if self.detail is not None:
            for quality, button in self.quality_buttons.items():
                button.setChecked(self.detail.quality == quality)
            self.reviewed.setChecked(self.detail.review_status == "reviewed")

    def _commit_prompt(self, text: str) -> None:
        if self.detail is not None and text != self.detail.prompt:
            self.run(set_prompt(self.detail.id, text))

    def reset_prompt(self) -> None:
        """Put the original extracted prompt back (undoable)."""
        if self.detail is not None:
            self.prompt.set_prompt(self.detail.prompt, self.detail.original_prompt)
            self.run(reset_prompt(self.project, self.detail.id))

    def _commit_notes(self) -> None:
        d = self.detail
        if d is not None and self.notes.toPlainText() != d.notes:
            self.run(SetField([d.id], "notes", self.notes.toPlainText(), "Edit notes"))

    def _commit_tags(self) -> None:
        d = self.detail
        if d is None:
            return
        wanted = list(dict.fromkeys(t.strip() for t in self.tags.text().split(",") if t.strip()))
        added = [t for t in wanted if t not in d.tags]
        removed = [t for t in d.tags if t not in wanted]
        if not added and not removed:
            return
        commands: list[Command] = [SetTag([d.id], t, True) for t in added]
        commands += [SetTag([d.id], t, False) for t in removed]
        self.run(commands[0] if len(commands) == 1 else Macro("Edit tags", commands))
