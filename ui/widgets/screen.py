"""Window sizes that fit the screen they open on."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

#: Share of the screen's free area a window may take when it first opens.
SHARE = 0.92


def fitted_size(width: int, height: int) -> tuple[int, int]:
    """``width × height``, shrunk to fit the primary screen's free area (less the window
    frame) where that is smaller: a 1280×720 screen has no room for a 900-pixel window."""
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return width, height
    free = screen.availableGeometry()
    return min(width, int(free.width() * SHARE)), min(height, int(free.height() * SHARE))


#: a message longer than this shows its start, and the whole text under "Show Details…"
#: (14 refused rater files made a warning taller than an 800-pixel screen)
MESSAGE_LINES = 12
MESSAGE_CHARS = 1200


def message_parts(text: str) -> tuple[str, str]:
    """(what a message box shows, its details): a long ``text``'s first lines with a note
    where the rest is, and the whole text; a short one as it is, without details."""
    lines = text.splitlines()
    if len(lines) <= MESSAGE_LINES and len(text) <= MESSAGE_CHARS:
        return text, ""
    head: list[str] = []
    used = 0
    for line in lines[:MESSAGE_LINES]:
        if head and used + len(line) > MESSAGE_CHARS:
            break
        head.append(line[:MESSAGE_CHARS])
        used += len(line)
    rest = sum(1 for line in lines[len(head):] if line.strip())
    note = (f"… {rest:,} more line(s): Show Details… has the whole text" if rest else
            "… Show Details… has the whole text")
    return "\n".join(head).rstrip() + "\n\n" + note, text
