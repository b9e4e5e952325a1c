"""Dark and light themes: no hard-coded chrome colours, and the widgets issue #14 named
stay readable (WCAG contrast ≥ 4.5 measured on rendered pixels)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtGui import QImage, QPalette  # noqa: E402
from PySide6.QtWidgets import QLabel, QWidget  # noqa: E402

from app import appearance  # noqa: E402
from ui.widgets import theme  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
#: modules that paint over photographs or are the photo well itself: their colours are
#: chosen against the image (region outlines, role chips, the dark well), not the theme
PHOTO_CANVASES = {"ui/anonymize/canvas.py", "ui/anonymize/image_item.py",
                  "ui/anonymize/region_items.py", "ui/anonymize/labels.py",
                  "ui/curate/canvas.py", "ui/curate/strip.py", "ui/rate/image_view.py"}
HEX = re.compile(r"#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b|\brgba?\(")
NAMED = re.compile(r"\b(?:white|black|gr[ae]y|lightgr[ae]y|darkgr[ae]y|silver)\b", re.I)


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def colour_literals(path: Path) -> Iterator[tuple[int, str]]:
    """(line, snippet) of every hard-coded colour in a Python module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs and HEX.search(node.value):
            yield node.lineno, node.value[:60]
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "QColor" \
                and node.args and all(isinstance(a, ast.Constant) for a in node.args):
            yield node.lineno, ast.unparse(node)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "GlobalColor":
            yield node.lineno, ast.unparse(node)


def test_no_hard_coded_chrome_colours_in_ui_or_style_sheets() -> None:
    found = []
    for path in sorted((REPO / "ui").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel in PHOTO_CANVASES or rel == "ui/widgets/theme.py":
            continue
        found += [f"{rel}:{line}: {text}" for line, text in colour_literals(path)]
    for path in sorted((REPO / "resources").glob("*.qss")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("/*")[0]
            if HEX.search(code) or NAMED.search(code):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert found == []


def test_the_scan_catches_what_it_is_for(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text('"""Docs may say #444."""\nfrom PySide6.QtGui import QColor\n'
                      'a.setStyleSheet("color:#444")\nb = QColor(250, 250, 250)\n'
                      'c = Qt.GlobalColor.white\n')
    assert sorted(line for line, _ in colour_literals(sample)) == [3, 4, 5]


# -- palettes -------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [theme.light_palette, theme.dark_palette])
def test_every_tone_reads_on_both_palettes(qapp, make) -> None:  # type: ignore[no-untyped-def]
    palette = make()
    role = QPalette.ColorRole
    for tone in theme.TONE_HUES:
        background, text = theme.tone_colours(tone, palette)
        assert theme.contrast(background, text) >= 4.5, tone
        for ground in (role.Window, role.Base, role.AlternateBase):
            colour = theme.tone_text(tone, palette, ground)
            assert theme.contrast(colour, palette.color(ground)) >= 4.5, (tone, ground)
    for ground in (role.Window, role.Base):
        muted = theme.tone_text("muted", palette, ground)
        assert theme.contrast(muted, palette.color(ground)) >= 4.5
    for fg, bg in ((role.WindowText, role.Window), (role.Text, role.Base),
                   (role.ButtonText, role.Button), (role.HighlightedText, role.Highlight)):
        assert theme.contrast(palette.color(fg), palette.color(bg)) >= 4.5, (fg, bg)


def test_contrast_matches_the_wcag_examples() -> None:
    from PySide6.QtGui import QColor

    assert theme.contrast(QColor("black"), QColor("white")) == pytest.approx(21.0)
    assert theme.contrast(QColor("#777777"), QColor("white")) == pytest.approx(4.48, abs=0.01)
    assert theme.contrast(QColor("#767676"), QColor("white")) == pytest.approx(4.54, abs=0.01)


# -- rendered pixels ------------------------------------------------------------------------
def rendered_contrast(widget: QWidget, inset: int = 3) -> tuple[float, tuple[int, int, int]]:
    """(contrast of the strongest text pixel against the dominant ground, that ground)
    read from what the widget actually paints."""
    widget.ensurePolished()
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    raw = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine())
    rgb = raw[:, : w * 4].reshape(h, w, 4)[inset:h - inset, inset:w - inset, 2::-1]
    pixels = rgb.reshape(-1, 3).astype(np.int64)
    keys = pixels[:, 0] << 16 | pixels[:, 1] << 8 | pixels[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    ground = int(values[np.argmax(counts)])
    lin = np.stack([(values >> s) & 255 for s in (16, 8, 0)], 1) / 255.0
    lin = np.where(lin <= 0.04045, lin / 12.92, ((lin + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    g = lum[np.argmax(counts)]
    ratio = (np.maximum(lum, g) + 0.05) / (np.minimum(lum, g) + 0.05)
    ratio[counts < 3] = 1.0  # a stray anti-aliased pixel is not the text colour
    return float(ratio.max()), ((ground >> 16) & 255, (ground >> 8) & 255, ground & 255)


@pytest.fixture(params=["dark", "light"])
def themed(request, qapp):  # type: ignore[no-untyped-def]
    appearance.apply(request.param)
    yield request.param
    appearance.apply("system")


def _label_with(widget: QWidget, text: str) -> QLabel:
    return next(lab for lab in widget.findChildren(QLabel) if text in lab.text())


def test_named_widgets_are_readable_in_each_theme(themed, main_window, demo_path,
                                                  qtbot) -> None:  # type: ignore[no-untyped-def]
    from ui.rate.panels import RankingPanel

    window = main_window
    window.resize(1440, 900)
    # Curate's start page (no project yet)
    start = window.show_workspace("curate").start
    hint = _label_with(start, "keyboard does the work")
    ratio, ground = rendered_contrast(hint)
    assert ratio >= 4.5, (themed, "Curate start page", ratio)
    assert theme.is_dark() == (themed == "dark") and (sum(ground) < 300) == (themed == "dark")

    # the ranking instructions of a rater's full-ranking task
    panel = RankingPanel({"allow_ties": True})
    qtbot.addWidget(panel)
    panel.resize(900, 400)
    panel.show()
    assert rendered_contrast(panel.order_label)[0] >= 4.5, (themed, "ranking instructions")

    assert window.open_project(demo_path)
    # the selected quality button in Curate: readable, and unlike the others
    curate = window.show_workspace("curate")
    row = next(r for r in range(curate.model.rowCount())
               if curate.model.row_data(r).quality == "Benchmark")
    curate.select_row(row)
    buttons = curate.view.quality_buttons
    assert buttons["Benchmark"].isChecked() and not buttons["Trash"].isChecked()
    qtbot.wait(50)
    on, on_ground = rendered_contrast(buttons["Benchmark"], inset=5)
    off, off_ground = rendered_contrast(buttons["Trash"], inset=5)
    assert on >= 4.5 and off >= 4.5, (themed, on, off)
    # a chosen label looks chosen: its ground is far from the others' (hue counts too)
    assert np.linalg.norm(np.subtract(on_ground, off_ground)) >= 80, \
        (themed, on_ground, off_ground)

    # Anonymize: the BEFORE banner over a demo photo, then AFTER
    anonymize = window.show_workspace("anonymize")
    qtbot.waitUntil(lambda: anonymize.photo is not None, timeout=10_000)
    assert anonymize.view_label.text().startswith("BEFORE")
    assert rendered_contrast(anonymize.view_label)[0] >= 4.5, (themed, "BEFORE banner")
    anonymize.viewer.toggle_after()
    assert anonymize.view_label.text().startswith("AFTER")
    assert rendered_contrast(anonymize.view_label)[0] >= 4.5, (themed, "AFTER banner")


def test_an_unchecked_box_is_visible_in_the_dark_theme(qapp, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QCheckBox

    appearance.apply("dark")
    try:
        box = QCheckBox()
        qtbot.addWidget(box)
        box.resize(20, 20)
        box.show()
        image = box.grab().toImage()
        colours = {image.pixelColor(x, y).rgb() for x in range(20) for y in range(20)}
        lums = sorted(theme.luminance(QColor.fromRgb(c)) for c in colours)
        # Fusion outlines a box in a darkened window colour: on a darker Base it vanished
        assert (lums[-1] + 0.05) / (lums[0] + 0.05) >= 1.4
    finally:
        appearance.apply("system")


def test_view_theme_switches_live_and_is_remembered(main_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from app import settings as app_settings

    window = main_window
    hint = _label_with(window.show_workspace("curate").start, "keyboard does the work")
    themes = {a.data(): a for a in window.menus.theme_group.actions()}
    assert set(themes) == set(theme.THEMES) and themes[app_settings.theme()].isChecked()
    try:
        themes["dark"].trigger()
        assert theme.is_dark() and themes["dark"].isChecked()
        assert app_settings.theme() == "dark"
        dark_css = hint.styleSheet()
        assert rendered_contrast(hint)[0] >= 4.5
        themes["light"].trigger()
        assert not theme.is_dark() and hint.styleSheet() != dark_css  # recomputed
        assert rendered_contrast(hint)[0] >= 4.5
    finally:
        themes["system"].trigger()
    assert app_settings.theme() == "system"


def test_a_tampered_theme_setting_falls_back_to_the_system_palette(main_window) -> None:  # type: ignore[no-untyped-def]
    from app import settings as app_settings

    app_settings.settings().setValue("appearance/theme", "purple; rm -rf /")
    assert app_settings.theme() == "system"
    assert appearance.apply() == "system" and not theme.is_dark()
