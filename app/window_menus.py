"""The main window's actions and menus: File, the shown workspace's menu, View, Help.

Workspace menus and actions live only while their page is shown (ADR 080, see
:mod:`ui.widgets.actions`); Help → Keyboard Shortcuts is generated from the actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from app import appearance
from app import settings as app_settings
from ui.widgets.actions import (
    add_shortcut_to_tooltip,
    make_action,
    menu_actions,
    show_workspace,
    update_workspace,
    workspace_actions,
)
from ui.widgets.shortcut_sheet import ShortcutSheet, shortcut_rows
from ui.widgets.theme import THEMES
from ui.workspaces import WORKSPACES

if TYPE_CHECKING:
    from app.main_window import MainWindow


class WindowMenus(QObject):
    """Builds the window's actions and menu bar and keeps them in step with the page."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.workspace_menus: dict[str, QMenu | None] = {}
        self.sheet: ShortcutSheet | None = None
        self._build_actions()

    def _action(self, text: str, slot: Callable[[], Any], shortcut: Any = None,
                tip: str = "") -> QAction:
        return make_action(self.window, text, slot, shortcut, tip)

    def _build_actions(self) -> None:
        w, p = self.window, self.window.projects
        self.act_new = self._action("&New Project…", p.new_project,
                                    QKeySequence.StandardKey.New,
                                    "Create an empty project file and open it")
        self.act_new_demo = self._action("New &Demo Project…", p.new_demo,
                                         tip="Generate a demo project with posts, samples "
                                             "and images, and open it")
        self.act_open = self._action("&Open Project…", p.choose_project,
                                     QKeySequence.StandardKey.Open,
                                     "Open a project (or a rater's session file)")
        self.act_import = self._action("&Import Posts…", p.choose_import, "Ctrl+I",
                                       "Import a JSON Lines file of posts or samples")
        self.act_import_hf = self._action(
            "Import &Hugging Face Dataset…", p.choose_import_hf,
            tip="Import the samples of a Hugging Face dataset folder (parquet or "
                "save_to_disk) to re-curate them")
        self.act_private_net = self._action(
            "Allow Image URLs on &Private Networks", self._toggle_private_network,
            tip="Let imports fetch images from this computer or the local network "
                "(localhost, 192.168.x.x …), e.g. a local mirror. Off by default: a file "
                "from a stranger could otherwise reach your router or services.")
        self.act_private_net.setCheckable(True)
        self.act_private_net.setChecked(app_settings.allow_private_network())
        self.act_close = self._action("&Close Project", p.close_project, "Ctrl+W",
                                      "Close the open project (the window stays open)")
        self.act_quit = self._action("&Quit", w.close, QKeySequence.StandardKey.Quit)
        self.act_jobs = self._action("Show &Jobs", w.jobs.show_panel, "Ctrl+J",
                                     "Show the background jobs with their progress")
        self.act_shortcuts = self._action("&Keyboard Shortcuts", self.show_shortcuts, "F1",
                                          "Every keyboard shortcut, by workspace")
        self.act_shortcuts.setShortcuts([QKeySequence("F1"), QKeySequence("Ctrl+/")])
        self.act_about = self._action("&About Winnow", self.show_about,
                                      tip="Version and licences of the bundled models and "
                                          "libraries")

    def build_menus(self) -> None:
        """The menu bar: File, one menu per workspace (only the shown one visible), View,
        Help. Call once the pages exist."""
        w = self.window
        bar = w.menuBar()
        file_menu = bar.addMenu("&File")
        for action in (self.act_new, self.act_new_demo, self.act_open):
            file_menu.addAction(action)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(
            lambda: w.projects.fill_recent(self.recent_menu))
        file_menu.addAction(self.act_close)
        file_menu.addSeparator()
        file_menu.addAction(self.act_import)
        file_menu.addAction(self.act_import_hf)
        file_menu.addAction(self.act_private_net)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        for info in WORKSPACES:
            page = w.pages[info.key]
            factory = getattr(page, "workspace_menu", None)
            menu = factory() if callable(factory) else None
            self.workspace_menus[info.key] = menu
            if menu is not None:
                bar.addMenu(menu)
        view_menu = bar.addMenu("&View")
        spaces = view_menu.addMenu("&Workspace")
        self.switch_group = QActionGroup(self)
        for index, info in enumerate(WORKSPACES):
            def show_page(_checked: bool = False, i: int = index) -> None:
                w.nav.setCurrentRow(i)
                w.focus_page()

            switch = self._action(info.title, show_page, f"Ctrl+{index + 1}", info.purpose)
            switch.setCheckable(True)
            self.switch_group.addAction(switch)
            spaces.addAction(switch)
        view_menu.addAction(self.act_jobs)
        themes = view_menu.addMenu("&Theme")
        self.theme_group = QActionGroup(self)
        current = app_settings.theme()
        for name in THEMES:
            def use_theme(_checked: bool = False, n: str = name) -> None:
                self.set_theme(n)

            act = themes.addAction(name.title(), use_theme)
            act.setCheckable(True)
            act.setChecked(name == current)
            act.setData(name)
            self.theme_group.addAction(act)
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.act_shortcuts)
        help_menu.addAction(self.act_about)
        self.application_menus = [file_menu, view_menu, help_menu]
        for action in self.application_actions():
            add_shortcut_to_tooltip(action)
        self.update_enabled()

    # -- state ---------------------------------------------------------------------------
    def page_shown(self, index: int) -> None:
        """Make workspace ``index``'s menu and actions live and every other's unreachable."""
        for k, info in enumerate(WORKSPACES):
            page, menu = self.window.pages[info.key], self.workspace_menus.get(info.key)
            show_workspace(page, menu, k == index)
            if k == index:
                for action in workspace_actions(page, menu):
                    add_shortcut_to_tooltip(action)
        switches = self.switch_group.actions()
        if 0 <= index < len(switches):
            switches[index].setChecked(True)

    def update_enabled(self) -> None:
        """Enable the window's actions for the project state, then the shown page's."""
        project = self.window.project
        self.act_import.setEnabled(project is None or not project.readonly)
        self.act_import_hf.setEnabled(project is None or not project.readonly)
        self.act_close.setEnabled(project is not None)
        update_workspace(self.window.stack.currentWidget())

    @Slot()
    def _toggle_private_network(self) -> None:
        app_settings.set_allow_private_network(self.act_private_net.isChecked())

    @Slot()
    def set_theme(self, name: str) -> None:
        """Switch the theme now and remember it."""
        app_settings.set_theme(name)
        appearance.apply(name)
        for act in self.theme_group.actions():
            act.setChecked(act.data() == name)

    # -- help ------------------------------------------------------------------------------
    def application_actions(self) -> list[QAction]:
        """Actions of the File, View and Help menus (they work on every page)."""
        found: list[QAction] = []
        for menu in self.application_menus:
            found += [a for a in menu_actions(menu) if a not in found]
        return found

    def shortcut_groups(self) -> list[tuple[str, list[QAction]]]:
        """("Application", …) then one group per workspace, for the shortcut sheet."""
        groups = [("Application", self.application_actions())]
        for info in WORKSPACES:
            page = self.window.pages[info.key]
            groups.append((info.title, workspace_actions(
                page, self.workspace_menus.get(info.key))))
        return groups

    @Slot()
    def show_shortcuts(self) -> ShortcutSheet:
        """Help → Keyboard Shortcuts (non-modal; a second request raises it)."""
        if self.sheet is not None and self.sheet.isVisible():
            self.sheet.raise_()
            self.sheet.activateWindow()
            return self.sheet
        self.sheet = ShortcutSheet(shortcut_rows(self.shortcut_groups()), self.window)
        self.window.keep(self.sheet)
        self.sheet.show()
        return self.sheet

    @Slot()
    def show_about(self) -> Any:
        """Help → About Winnow."""
        from app.about import notices_markdown, runtime_summary
        from core import __version__
        from ui.widgets.about import AboutDialog

        dialog = AboutDialog(__version__, runtime_summary(), notices_markdown(), self.window)
        self.window.keep(dialog)
        dialog.open()
        return dialog
