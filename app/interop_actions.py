"""File → Import Hugging Face Dataset…: the background job and its report (ADR 102)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ui.import_report import ImportReportDialog


def start_hf_import(window: Any, source: str | Path) -> Any:
    """Import the dataset at ``source`` into ``window``'s open project as a job with
    progress and Cancel; the report opens when it ends."""
    from core.interop.hf_import import import_hf

    if window.project is None:
        return None
    source = Path(source)
    view = window.project.worker_view()

    def work(state: Any) -> dict[str, Any]:
        try:
            return import_hf(view, source, state=state).to_json()
        finally:
            view.close()

    def done(job: Any) -> None:
        window.refresh_summary()
        window.context.data_changed.emit()
        if job.outcome == "done":
            dialog = ImportReportDialog(source.name, job.future.result(), window)
            window._keep(dialog)
            dialog.open()
            window.statusBar().showMessage(f"Imported {source.name}", 8000)
        elif job.outcome == "cancelled":
            window.statusBar().showMessage(
                f"Import of {source.name} cancelled; rows already imported are kept", 8000)
        else:
            window._message("Import failed", f"{source.name}: {job.error}")

    return window.start_job(f"Import {source.name}", work, done)
