"""Start the GUI: QApplication, qasync event loop, error routing, main window."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from core.store import Project

#: what ``winnow`` (and ``winnow rate``) say when Qt has no display to open windows on
NO_DISPLAY = ("winnow: no display found (DISPLAY/WAYLAND_DISPLAY unset). Run the app on a "
              "desktop, under `xvfb-run -a winnow ...`, or set QT_QPA_PLATFORM=offscreen; "
              "headless commands are listed by `winnow --help`.")


def create_application() -> QApplication:
    """The QApplication with Winnow's identity (for QSettings) and icon."""
    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)  # Winnow only ever makes a QApplication
    app.setOrganizationName("Winnow")
    app.setApplicationName("Winnow")
    from core import __version__

    app.setApplicationVersion(__version__)
    icon = Path(__file__).resolve().parent.parent / "resources" / "winnow.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    return app


def has_display() -> bool:
    """Whether Qt can open windows here (or was told to render offscreen)."""
    if sys.platform != "linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or os.environ.get("QT_QPA_PLATFORM"))


async def _until_idle(window: MainWindow) -> Project:
    """Until a project is open and no job runs, twice in a row 0.1 s apart: work queued
    by "project opened" (the workspace shown at start computing its first view) begins
    a moment after the project is open, and a close then would wait on a question."""
    quiet = 0
    while quiet < 2:
        await asyncio.sleep(0.05 if quiet == 0 else 0.1)
        busy = window.project is None or window.runner.active
        quiet = 0 if busy else quiet + 1
    assert window.project is not None  # not busy: open
    return window.project


def run_gui(args: list[str]) -> int:
    """Open the main window (``--demo [PATH]`` opens a fresh demo project, or the one
    already at PATH; a path opens it)."""
    if not has_display():
        print(NO_DISPLAY, file=sys.stderr)
        return 2
    keys = None
    if "--keys" in args:  # --keys TEXT: type TEXT once ready, then quit (app/scripted.py)
        at = args.index("--keys")
        if at + 1 >= len(args):
            print("winnow: --keys needs the keys to type", file=sys.stderr)
            return 2
        from app.scripted import parse_keys

        try:
            keys = parse_keys(args[at + 1])
        except ValueError as exc:
            print(f"winnow: {exc}", file=sys.stderr)
            return 2
        args = args[:at] + args[at + 2:]
    app = create_application()
    from PySide6.QtWidgets import QApplication

    app.setQuitOnLastWindowClosed(False)  # main() ends when the main window closes
    import qasync  # after PySide6 so qasync binds to it

    from app import appearance
    from app.errors import router, setup_logging
    from app.main_window import MainWindow

    log_path = setup_logging()
    router.install()
    appearance.apply()  # the saved theme and Winnow's style sheet, before any widget
    # --quit-when-ready: close once the project is open and no job runs, or at once with
    # status 1 when it could not be opened (scripted checks)
    quit_when_ready = "--quit-when-ready" in args
    args = [a for a in args if a != "--quit-when-ready"]
    demo_path: Path | None = None
    project_path: Path | None = None
    if args and args[0] == "--demo":
        demo_path = Path(args[1]) if len(args) > 1 else Path("demo") / "demo.winnow"
    elif args:
        project_path = Path(args[0])
    failed: list[Path] = []
    from core.demo.project import remove_killed_demo  # a demo killed half-way is rebuilt

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(router.loop_handler)
        closed = asyncio.Event()
        window = MainWindow()
        window.closed.connect(closed.set)
        window.statusBar().showMessage(f"Log file: {log_path}", 5000)
        window.show()
        if demo_path is not None and demo_path.exists() \
                and not remove_killed_demo(demo_path):  # never replaced: open it
            window.open_path(demo_path)
            window.statusBar().showMessage(
                f"{demo_path} already exists, so it was opened (Winnow never replaces a "
                "project; delete it yourself for a fresh demo)", 15000)
        elif demo_path is not None:
            demo_path.parent.mkdir(parents=True, exist_ok=True)
            window.create_demo(demo_path)
        elif project_path is not None and not window.open_path(project_path) \
                and (quit_when_ready or keys is not None):  # refused: nothing to wait for
            print(f"not opened: {project_path.name}", flush=True)
            failed.append(project_path)
            window.close()
        if failed:
            pass
        elif keys is not None:
            from app.scripted import type_keys, wait_for_other_window

            if project_path is not None and project_path.suffix != ".winnow":
                await wait_for_other_window(window)  # a file a workspace opens in a window
            else:
                while window.project is None or window.runner.active:
                    await asyncio.sleep(0.02)
            await type_keys(window, keys)
            print("keys typed", flush=True)
            QApplication.closeAllWindows()
        elif quit_when_ready:
            project = await _until_idle(window)
            print(f"ready: {project.path.name}", flush=True)
            await asyncio.sleep(0.2)
            await _until_idle(window)  # a job begun meanwhile would ask before quitting
            window.close()
        await closed.wait()

    from app.gui_gc import GuiThreadCollector

    collector = GuiThreadCollector(app).install()  # cycles freed on this thread (ADR 167)
    try:
        qasync.run(main())
    finally:
        collector.uninstall()
        router.uninstall()
    return 1 if failed else 0
