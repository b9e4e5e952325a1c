"""Screenshots of the Anonymize workspace on the demo project, for a person to look at.

Renders Before, After and a portrait photo at 1024×700 and 1440×900 into OUT_DIR:

    xvfb-run -a -s "-screen 0 1440x900x24" .venv/bin/python benchmarks/shots_anonymize.py OUT_DIR
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "shots")
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="winnow-shots-"))
    os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from app.main_window import MainWindow
    from core.demo import create_demo_project

    path = tmp / "demo.winnow"
    create_demo_project(path)[0].close()
    for width, height in ((1024, 700), (1440, 900)):
        window = MainWindow()
        window.show()
        assert window.open_project(path)
        window.nav.setCurrentRow(1)
        QTest.qWait(100)
        window.resize(width, height)  # once the page is shown: its own minimum holds
        QTest.qWait(400)
        page = window.pages["anonymize"]
        window.grab().save(str(out / f"anonymize-{width}-before.png"))
        page.page_actions.act_after.trigger()
        QTest.qWait(400)
        window.grab().save(str(out / f"anonymize-{width}-after.png"))
        page.page_actions.act_after.trigger()
        page.list.setCurrentRow(3)
        QTest.qWait(400)
        window.grab().save(str(out / f"anonymize-{width}-portrait.png"))
        window.close_project()
        window.close()
    app.processEvents()
    print(f"screenshots in {out}")


if __name__ == "__main__":
    main()
