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


def run_gui(args: list[str]) -> int:
    """Open the main window (``--demo [PATH]`` opens a fresh demo project; a path opens it)."""
    app = create_application()
    import qasync  # after PySide6 so qasync binds to it

    from app.errors import router, setup_logging
    from app.main_window import MainWindow

    log_path = setup_logging()
    router.install()
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
        window.destroyed.connect(lambda *_: closed.set())
        app.lastWindowClosed.connect(closed.set)
        window.statusBar().showMessage(f"Log file: {log_path}", 5000)
        window.show()
        if demo_path is not None:
            demo_path.parent.mkdir(parents=True, exist_ok=True)
            window.create_demo(demo_path)
        elif project_path is not None:
            window.open_path(project_path)
        await closed.wait()

    try:
        qasync.run(main())
    finally:
        router.uninstall()
    return 0
