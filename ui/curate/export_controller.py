"""Curate → Export Benchmark…: the dialog, and the export as a background job."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.files import named_once
from core.jobs import Job, JobState
from ui.curate.dialogs import ExportDialog

if TYPE_CHECKING:
    from ui.curate.workspace import CurateWorkspace


class ExportController:
    """Asks where and what to export, runs the export as a job, reports what it did."""

    def __init__(self, ws: CurateWorkspace) -> None:
        self.ws = ws

    def ask(self) -> ExportDialog | None:
        """Open the export dialog (non-blocking); Export starts a background job."""
        project = self.ws.project
        if project is None:
            return None
        from core.interop.deps import pyarrow_available, pyarrow_missing_message

        default = project.path.with_name(project.path.stem + "-benchmark")
        missing = "" if pyarrow_available() else pyarrow_missing_message(
            "The Hugging Face format")
        dialog = ExportDialog(default, self.ws.filters.count.text(), self.ws,
                              hf_missing=missing)
        dialog.accepted.connect(lambda: self.start(**dialog.options()))
        self.ws.keep_dialog(dialog)
        dialog.open()
        return dialog

    def start(self, out_dir: Path, qualities: tuple[str, ...] = ("Benchmark",),
              splits: tuple[str, ...] = (), use_filter: bool = False,
              overwrite: bool = False, fmt: str = "jsonl") -> Any:
        """Export in the background with progress; a report or the error comes after.

        ``fmt`` "hf" writes a Hugging Face dataset folder (core.interop.hf_export)."""
        from core.curate.export import export_benchmark
        from core.interop.hf_export import export_benchmark_hf

        ws = self.ws
        if ws.project is None:
            return None
        ws.view.commit_pending()
        view = ws.project.worker_view()
        selection = ws.model.selection if use_filter else None

        def work(state: JobState) -> Any:
            try:
                if fmt == "hf":
                    return export_benchmark_hf(view, out_dir, qualities=qualities,
                                               splits=splits, selection=selection, state=state,
                                               overwrite=overwrite)
                return export_benchmark(view, out_dir, qualities=qualities, splits=splits,
                                        selection=selection, overwrite=overwrite, state=state)
            finally:
                view.close()

        def done(job: Job) -> None:
            if job.outcome == "done":
                r = job.future.result()
                text = f"Exported {r.exported} sample(s), {r.images} image(s) to {r.out}"
                if r.skipped:
                    text += (f"; {len(r.skipped)} left out: " + "; ".join(
                        f"{s['sample']}: {s['reason']}" for s in r.skipped[:5]))
                    ws.context.message("Export finished with samples left out", text)
                ws.context.status(text, 10000)
            elif job.outcome == "failed":
                ws.context.message("Export failed", named_once(out_dir, job.error))
            elif job.outcome == "cancelled":
                ws.context.status(f"Export to {out_dir} cancelled; nothing was written",
                                  10000)

        return ws.context.start_job("Export benchmark", work, done)
