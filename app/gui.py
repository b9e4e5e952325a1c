"""Start the GUI: QApplication, qasync event loop, error routing, main window."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path


def create_application():  # type: ignore[no-untyped-def]
    """The QApplication with Winnow's identity (for QSettings) and icon."""
    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
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


def run_gui(args: list[str]) -> int:
    """Open the main window (``--demo [PATH]`` opens a fresh demo project; a path opens it)."""
    if not has_display():
        print("winnow: no display found (DISPLAY/WAYLAND_DISPLAY unset). Run the app on a "
              "desktop, under `xvfb-run -a winnow ...`, or set QT_QPA_PLATFORM=offscreen; "
              "headless commands are listed by `winnow --help`.", file=sys.stderr)
        return 2
    app = create_application()
    app.setQuitOnLastWindowClosed(False)  # main() ends when the main window closes
    import qasync  # after PySide6 so qasync binds to it

    from app import appearance
    from app.errors import router, setup_logging
    from app.main_window import MainWindow

    log_path = setup_logging()
    router.install()
    appearance.apply()  # the saved theme and Winnow's style sheet, before any widget
    # --quit-when-ready: close once the project is open and no job runs (scripted checks)
    quit_when_ready = "--quit-when-ready" in args
    args = [a for a in args if a != "--quit-when-ready"]
    demo_path: Path | None = None
    project_path: Path | None = None
    if args and args[0] == "--demo":
        demo_path = Path(args[1]) if len(args) > 1 else Path("demo") / "demo.winnow"
    elif args:
        project_path = Path(args[0])

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(router.loop_handler)
        closed = asyncio.Event()
        window = MainWindow()
        window.closed.connect(closed.set)
        window.statusBar().showMessage(f"Log file: {log_path}", 5000)
        window.show()
        if demo_path is not None:
            demo_path.parent.mkdir(parents=True, exist_ok=True)
            window.create_demo(demo_path)
        elif project_path is not None:
            window.open_path(project_path)
        if quit_when_ready:
            while window.project is None or window.runner.active:
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.2)
            print(f"ready: {window.project.path.name}", flush=True)
            window.close()
        await closed.wait()

    try:
        qasync.run(main())
    finally:
        router.uninstall()
    return 0
