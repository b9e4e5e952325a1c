"""Screenshots of Curate and Rate in the real main window at 1024×700 and 1440×900, on
the demo project, for a person to look at (issue 14: "a cramped, empty or confusing
screen is a bug").  Also prints the Prompt column's width and the list/view split.

Usage (a real X server is closer to what users see than offscreen):
    xvfb-run -a -s "-screen 0 1440x900x24" .venv/bin/python benchmarks/screens_curate.py OUT_DIR
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SIZES = ((1024, 700), (1440, 900))


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "screens")
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="winnow-screens-"))
    os.environ.setdefault("WINNOW_LOG_DIR", str(work / "logs"))

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(work))

    from app.main_window import MainWindow
    from core.demo import create_demo_project

    demo = work / "demo.winnow"
    project, _report = create_demo_project(demo)
    project.close()

    def settle() -> None:
        for _ in range(20):
            app.processEvents()

    for width, height in SIZES:
        window = MainWindow()  # a fresh window at this size, as a user would open it
        window.resize(width, height)
        window.show()
        settle()
        window.open_project(demo)
        keys = list(window.pages)
        for key in ("curate", "rate"):
            window.nav.setCurrentRow(keys.index(key))
            settle()
            page = window.pages[key]
            if key == "curate":
                page.select_row(3)
                settle()
                print(f"{width}x{height}: window {window.width()}×{window.height()}, Prompt "
                      f"column {page.table.prompt_width()} px, list/view {page.main.sizes()}")
            window.grab().save(str(out / f"{key}-{width}x{height}.png"))
        window.close_project()
        window.close()
    print(f"screenshots in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
