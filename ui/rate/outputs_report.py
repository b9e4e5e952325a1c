"""What Import Model Outputs… tells the user about an import (a plain-text message)."""

from __future__ import annotations

from typing import Any


def outputs_report(report: dict[str, Any], folder: str) -> tuple[str, str, str]:
    """``(title, text, details)`` for the JSON report of ``core.ingest.outputs``.

    A folder with no model folders in it (the usual slip: one model's folder, or a folder
    of loose images, was picked) says what to pick instead, rather than "0 imported,
    Models: none" under the title "Model outputs imported".
    """
    if not report["models"] and not report["extra"] and not report["errors"]:
        return ("No model outputs found",
                f"{folder} holds no model folders, so nothing was imported. Pick the folder "
                "that holds one subfolder per model, each with one image per sample named "
                "by the sample's id: OUTPUTS/my-model/demo-001.png.", "")
    lines = [f"{report['imported']} imported, {report['updated']} updated, "
             f"{report['unchanged']} unchanged.",
             "Models: " + (", ".join(f"{m} ({n})" for m, n in report["models"].items())
                           or "none")]
    details = [f"{m}: missing {len(v)}: {', '.join(v[:20])}"
               for m, v in report["missing"].items()]
    if report["extra"]:
        details.append("Extra files (no such sample): " + ", ".join(report["extra"][:50]))
    details += [f"{e['file']}: {e['error']}" for e in report["errors"]]
    if details:
        lines.append(f"{len(details)} problem line(s): see details.")
    stored = report["imported"] + report["updated"] + report["unchanged"]
    title = "Model outputs imported" if stored else "No model outputs imported"
    return title, "\n".join(lines), "\n".join(details)
