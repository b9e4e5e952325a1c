"""Screenshots of every workspace on the demo project, light and dark, at 1024×700, 1280×720 and
1440×900, taken under a real X server (Xvfb) with real key presses; and how long each
workspace takes to appear (key press → painted), as medians over the runs.

Usage:  .venv/bin/python benchmarks/screenshots.py [--out DIR] [--project DEMO.winnow]
        (re-runs itself under ``xvfb-run`` when no display is set; each run writes a new
        time-stamped folder under DIR, default ``screenshots/``, which is git-ignored: the
        PNGs are review artefacts, never committed, and nothing is ever overwritten)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
SIZES = ((1024, 700), (1280, 720), (1440, 900))
THEMES = ("light", "dark")


def _under_xvfb() -> None:
    """Start again inside ``xvfb-run`` when there is no X display."""
    if os.environ.get("DISPLAY") or os.environ.get("WINNOW_NO_XVFB"):
        return
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        sys.exit("screenshots: no DISPLAY and no xvfb-run (apt-get install xvfb)")
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb"}
    sys.exit(subprocess.call([xvfb, "-a", "-s", "-screen 0 1920x1200x24", sys.executable,
                              *sys.argv], env=env))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "screenshots")
    parser.add_argument("--project", type=Path, help="a demo project to copy (else generated)")
    args = parser.parse_args()
    _under_xvfb()
    os.environ.setdefault("QT_API", "pyside6")
    work = Path(tempfile.mkdtemp(prefix="winnow-shots-"))
    os.environ.setdefault("XDG_CONFIG_HOME", str(work / "config"))
    os.environ.setdefault("WINNOW_LOG_DIR", str(work / "logs"))
    from app.gui import create_application

    app = create_application()
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from app import appearance
    from app import settings as app_settings
    from app.main_window import MainWindow
    from ui.workspaces import WORKSPACES

    template = args.project or _demo(work / "template" / "demo.winnow")
    out = args.out / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True)  # a new folder each run: no earlier screenshot is replaced
    timings: dict[str, list[float]] = {w.key: [] for w in WORKSPACES}

    def settle(window: MainWindow, seconds: float = 0.4) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end or window.runner.active:
            app.processEvents()
            time.sleep(0.01)
            if time.monotonic() > end + 30:
                break

    for theme in THEMES:
        appearance.apply(theme)
        for width, height in SIZES:
            project = _copy(template, work / f"{theme}-{width}")
            app_settings.settings().clear()  # every run starts as a first start
            window = MainWindow()
            window.resize(width, height)
            window.show()
            window.activateWindow()
            QTest.qWaitForWindowExposed(window)
            settle(window)
            save(window, out / f"{theme}-{width}x{height}-0-start.png")
            assert window.open_project(project), project
            settle(window)
            for index, info in enumerate(WORKSPACES):
                t0 = time.perf_counter()
                QTest.keyClick(window, Qt.Key.Key_1 + index, Qt.KeyboardModifier.ControlModifier)
                window.repaint()
                app.processEvents()
                timings[info.key].append(time.perf_counter() - t0)
                _prepare(window, info.key, settle)
                name = f"{theme}-{width}x{height}-{index + 1}-{info.key}.png"
                save(window, out / name)
            if (width, height) == SIZES[-1]:
                _extras(window, theme, out, settle)
            window.runner.shutdown()
            window.close_project()
            window.close()
            window.deleteLater()
            app.processEvents()
    appearance.apply("system")
    print(f"screenshots in {out}:")
    for path in sorted(out.glob("*.png")):
        print(f"  {path.name}")
    print("workspace switch, key press → painted (median of "
          f"{len(THEMES) * len(SIZES)} runs, ms):")
    for key, values in timings.items():
        print(f"  {key:10s} {statistics.median(values) * 1000:7.1f}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


def save(widget, path: Path) -> None:  # type: ignore[no-untyped-def]
    """The widget as a PNG, written the one way Winnow writes files (core/files.py)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    from core.files import write_bytes

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    widget.grab().save(buffer, "PNG")
    write_bytes(path, bytes(data.data()))


def _demo(path: Path) -> Path:
    from core.demo import create_demo_project

    project, _report = create_demo_project(path)
    project.close()
    return path


def _copy(template: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    for item in template.parent.iterdir():
        if item.name.endswith(".lock"):
            continue
        copy = shutil.copytree if item.is_dir() else shutil.copy2
        copy(item, folder / item.name)
    return folder / template.name


def _prepare(window, key: str, settle) -> None:  # type: ignore[no-untyped-def]
    """Put a workspace in the state a user sees after a moment's work."""
    page = window.pages[key]
    if key == "curate" and page.model.rowCount():
        page.select_row(min(3, page.model.rowCount() - 1))
    elif key == "metrics" and page.model.rowCount():
        page.step(1)
    settle(window, 1.5 if key == "analyze" else 0.4)  # its statistics start when shown


def _extras(window, theme: str, out: Path, settle) -> None:  # type: ignore[no-untyped-def]
    """The drill-down, the shortcut sheet and About at the larger size."""
    metrics = window.show_workspace("metrics")
    metrics.tabs.setCurrentWidget(metrics.drill)
    settle(window)
    save(window, out / f"{theme}-extra-metrics-drilldown.png")
    sheet = window.menus.show_shortcuts()
    settle(window)
    save(sheet, out / f"{theme}-extra-shortcuts.png")
    sheet.close()
    about = window.menus.show_about()
    settle(window)
    save(about, out / f"{theme}-extra-about.png")
    about.close()
    window.show_jobs()
    settle(window)
    save(window, out / f"{theme}-extra-jobs.png")


if __name__ == "__main__":
    raise SystemExit(main())
