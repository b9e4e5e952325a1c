"""The five workspaces of the main window and their start pages."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from ui.empty_state import EmptyState


@dataclass(frozen=True)
class WorkspaceInfo:
    """Name, shortcut digit and start-page text of a workspace."""

    key: str
    title: str
    purpose: str
    bullets: tuple[str, ...]
    #: "module:Class" of the page, built as ``Class(context)``; None = start page only
    factory: str | None = None


WORKSPACES: tuple[WorkspaceInfo, ...] = (
    WorkspaceInfo(
        "curate", "Curate",
        "Review posts scraped from social media and turn them into clean benchmark samples.",
        ("Read the post, its reply tree and the community feedback",
         "Fix the prompt — the original extracted prompt is always kept",
         "Mark images as inputs, outputs or unused; crop them out of screenshots",
         "Label each sample Benchmark / Analysis / Trash with B, A, T",
         "Export the curated benchmark as JSON Lines plus images"),
        "ui.curate.workspace:CurateWorkspace"),
    WorkspaceInfo(
        "anonymize", "Anonymize",
        "Contributed photos: hide faces and licence plates, fix geometry, release clean files.",
        ("Import a folder of photos; originals are copied and never modified",
         "Faces and plates are detected and outlined; add, move or remove regions",
         "Crop, rotate and straighten paintings with a four-corner keystone fix",
         "Set category, credit and licence; a released file carries no metadata"),
        "ui.anonymize.workspace:AnonymizeWorkspace"),
    WorkspaceInfo(
        "rate", "Rate",
        "Offline expert rating sessions with blinded, randomized model outputs.",
        ("Design a session: full ranking, 1–5 Likert, side-by-side, or checklist",
         "Hand each rater a session file; every answer is saved the moment it is given",
         "Gold tasks and a minimum time per task keep the ratings honest",
         "Merge the returned files without loss or duplication"),
        "ui.rate.workspace:RateWorkspace"),
    WorkspaceInfo(
        "metrics", "Metrics",
        "Run local metrics and VLM judges on a selection of samples and models.",
        ("Colour shift, face identity, DINO structure distance, CLIPScore, text rendering",
         "Runs in the background with progress and Cancel; results are cached",
         "Histograms per metric and a side-by-side drill-down"),
        "ui.metrics.workspace:MetricsWorkspace"),
    WorkspaceInfo(
        "analyze", "Analyze",
        "Turn ratings and metric results into a leaderboard you can defend.",
        ("Win rate, Bradley-Terry, Elo with confidence intervals",
         "Friedman with post-hoc tests, Kendall τ-b, Krippendorff's α",
         "Success rates with a τ sweep, IDEA-Bench hierarchical scores",
         "Export an HTML report with the plots"),
        "ui.analyze.workspace:AnalyzeWorkspace"),
)


class CurateStart(QWidget):
    """Start page of Curate: what the project holds, and how to get data in."""

    def __init__(self, info: WorkspaceInfo, actions: list[QAction],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty = EmptyState(info.title, info.purpose, list(info.bullets), actions)
        self.box = QGroupBox("This project")
        self.form = QFormLayout(self.box)
        self.labels: dict[str, QLabel] = {}
        self.box.setMaximumWidth(720)
        self.empty.extra.addSpacing(16)
        self.empty.extra.addWidget(self.box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty, 1)
        self.show_summary(None)

    def show_summary(self, summary: dict[str, Any] | None) -> None:
        """Fill the project box (None = no project open)."""
        self.box.setVisible(summary is not None)
        if summary is None:
            return
        rows = {
            "Posts": f"{summary['posts']:,}",
            "Samples": f"{summary['samples']:,}  ({_fmt(summary['quality'])})",
            "Splits": _fmt(summary["split"]) or "—",
            "Review": _fmt(summary["review"]) or "—",
            "Screenshots": f"{summary['screenshots']:,}",
            "Images": f"{summary['images']:,} stored, {summary['images_missing']:,} missing",
        }
        for key, value in rows.items():
            if key not in self.labels:
                label = QLabel()
                label.setTextFormat(Qt.TextFormat.PlainText)
                label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self.labels[key] = label
                self.form.addRow(key + ":", label)
            self.labels[key].setText(value)


def build_page(info: WorkspaceInfo, context: Any) -> QWidget | None:
    """Instantiate a workspace's page from its factory, or None if not available yet."""
    if info.factory is None:
        return None
    module_name, _, class_name = info.factory.partition(":")
    try:
        spec = importlib.util.find_spec(module_name)
    except ModuleNotFoundError:  # its package does not exist yet
        spec = None
    if spec is None:
        return None
    module = importlib.import_module(module_name)
    return getattr(module, class_name)(context)


def _fmt(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v:,}" for k, v in sorted(counts.items()))
