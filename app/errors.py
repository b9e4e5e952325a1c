"""One sink for every error: slots, threads, asyncio tasks → log file + the user's screen.

Pattern after napari's ``notifications``: ``sys.excepthook``, ``threading.excepthook``
and the event loop's exception handler all call :meth:`ErrorRouter.report`.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import traceback
from collections.abc import Callable
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import TracebackType
from typing import Any

log = logging.getLogger("winnow")


def log_dir() -> Path:
    """Folder of the log file (``WINNOW_LOG_DIR`` overrides, e.g. in tests)."""
    env = os.environ.get("WINNOW_LOG_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(base) / "winnow"


def setup_logging() -> Path:
    """Log to a rotating file; returns its path."""
    folder = log_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "winnow.log"
    if not any(isinstance(h, RotatingFileHandler) for h in log.handlers):
        handler = RotatingFileHandler(path, maxBytes=2_000_000, backupCount=3,
                                      encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    return path


Listener = Callable[[str, str], None]


class ErrorRouter:
    """Collects unhandled exceptions from everywhere and hands them to listeners."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []
        self.history: list[tuple[str, str]] = []
        self._installed = False
        self._old_hooks: tuple[Any, Any] | None = None

    def report(self, title: str, details: str) -> None:
        """Log an error and show it (listeners decide how)."""
        log.error("%s\n%s", title, details)
        self.history.append((title, details))
        for listener in list(self.listeners):
            try:
                listener(title, details)
            except Exception:  # a broken listener must not hide the error
                log.exception("error listener failed")

    def report_exception(self, exc: BaseException, context: str = "") -> None:
        """Report an exception object with its traceback."""
        details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        title = f"{context + ': ' if context else ''}{type(exc).__name__}: {exc}"
        self.report(title, details)

    # -- hooks -----------------------------------------------------------------------------
    def install(self) -> None:
        """Route ``sys.excepthook`` and ``threading.excepthook`` here."""
        if self._installed:
            return
        self._old_hooks = (sys.excepthook, threading.excepthook)
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_hook
        self._installed = True

    def uninstall(self) -> None:
        """Restore the previous hooks."""
        if self._installed and self._old_hooks:
            sys.excepthook, threading.excepthook = self._old_hooks
            self._installed = False

    def loop_handler(self, loop: Any, context: dict[str, Any]) -> None:
        """``loop.set_exception_handler`` target for asyncio errors."""
        exc = context.get("exception")
        message = context.get("message", "asyncio error")
        if exc is not None:
            self.report_exception(exc, message)
        else:
            self.report(message, repr(context))

    def _excepthook(self, etype: type[BaseException], value: BaseException,
                    tb: TracebackType | None) -> None:
        if issubclass(etype, KeyboardInterrupt):
            sys.__excepthook__(etype, value, tb)
            return
        value.__traceback__ = tb
        self.report_exception(value)

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            name = args.thread.name if args.thread else "thread"
            self.report_exception(args.exc_value, f"in {name}")


#: The application's router (one per process).
router = ErrorRouter()
