"""A curator package in the real main window: File → Import Posts… and Import Hugging
Face Dataset… are refused before any file is asked for, naming the package and the
project to import into (they failed after the work with "IntegrityError: a curator
package cannot take new images", or a report saying "everything valid was imported")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from tests.teamwork.team_helpers import make_project, package_path, split  # noqa: E402


def _package(tmp_path: Path) -> Path:
    project = make_project(tmp_path)
    report = split(project, tmp_path / "packages")
    project.close()
    return package_path(report, "Alice")


def _open_collecting_refusals(main_window: Any, package: Path) -> list[str]:
    """Open ``package`` in the window; the list fills with every refusal it shows."""
    assert main_window.open_project(package)
    shown: list[str] = []
    main_window.refusal_shown.connect(shown.append)
    return shown


def _counts(path: Path) -> tuple[int, int]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        return (conn.execute("SELECT count(*) FROM posts").fetchone()[0],
                conn.execute("SELECT count(*) FROM samples").fetchone()[0])


def test_imports_into_a_package_are_refused_up_front_with_the_reason(
        main_window: Any, qtbot: Any, tmp_path: Path, monkeypatch: Any) -> None:
    from PySide6.QtWidgets import QFileDialog

    from core.interop.hf_import import import_hf

    package = _package(tmp_path)
    before = _counts(package)
    shown = _open_collecting_refusals(main_window, package)
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: asked.append("file") or ("", ""))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda *a, **k: asked.append("folder") or "")
    main_window.menus.act_import.trigger()
    main_window.menus.act_import_hf.trigger()
    assert asked == []  # no file is asked for only to fail afterwards
    jsonl = tmp_path / "src" / next(p.name for p in (tmp_path / "src").glob("*.jsonl"))
    assert main_window.import_file(jsonl) is None
    assert main_window.import_file(tmp_path, importer=import_hf) is None
    assert len(shown) == 4
    for text in shown:
        assert "lead-alice.winnow is Alice's curator package" in text
        assert "takes no imports" in text and "lead.winnow" in text  # where to import
    assert not main_window.runner.active
    main_window.close_project()
    assert _counts(package) == before


def test_every_other_action_a_package_refuses_is_refused_up_front(
        main_window: Any, qtbot: Any, tmp_path: Path, monkeypatch: Any) -> None:
    """ADR 222: Rate → Import Model Outputs… and Anonymize → Import Photo Folder… asked
    for a folder, started, then failed with "IntegrityError: a curator package cannot take
    new images"; New Session, Merge Returned Files and Metrics → Run wrote rows the
    package's triggers refuse too.  Each is refused before anything is asked for, in the
    wording File → Import uses, naming the package and the project to use."""
    from PySide6.QtWidgets import QFileDialog

    package = _package(tmp_path)
    before = _counts(package)
    shown = _open_collecting_refusals(main_window, package)
    asked: list[str] = []
    for name in ("getOpenFileName", "getOpenFileNames", "getExistingDirectory"):
        monkeypatch.setattr(QFileDialog, name, lambda *a, n=name, **k: asked.append(n) or "")
    outputs = tmp_path / "outputs" / "model-a"
    outputs.mkdir(parents=True)
    rate = main_window.show_workspace("rate")
    rate.act_outputs.trigger()
    assert rate.import_outputs(outputs.parent) is None
    assert rate.new_session() is None
    rate.act_merge.trigger()
    assert rate.merge([tmp_path / "x.winnow-session"]) is None
    anonymize = main_window.show_workspace("anonymize")
    anonymize.page_actions.act_import.trigger()
    assert anonymize.jobs.import_folder(tmp_path) is None
    metrics = main_window.show_workspace("metrics")
    metrics.sample_ids = ["s1"]
    assert metrics.run() is None
    assert asked == []  # no file or folder is asked for only to fail afterwards
    assert len(shown) == 8, shown
    for text in shown:
        assert text.startswith("lead-alice.winnow is Alice's curator package: it holds only "
                               "the samples shared with them and takes no "), text
        assert "the project it was split from (lead.winnow)" in text
        assert "IntegrityError" not in text
    assert "takes no model outputs" in shown[0] and "takes no photos" in shown[5]
    assert "takes no rating sessions" in shown[2] and "metric results" in shown[7]
    assert not main_window.runner.active
    main_window.close_project()
    assert _counts(package) == before


def test_propose_is_refused_in_a_package_by_the_gui_the_core_and_the_cli(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    """ADR 228: Curate → Propose… in a package opened its dialog and wrote proposed
    samples and a run; the merge then refuses the whole package ("a change Winnow's Curate
    does not make").  The menu, the posts window's Propose, the job itself and ``winnow
    propose`` refuse it up front, in ADR 222's one wording, writing nothing."""
    import os
    import sqlite3
    import subprocess
    import sys

    from core.propose.client import ProposeEndpoint
    from core.propose.job import run_proposals
    from core.store import Project

    package = _package(tmp_path)
    with sqlite3.connect(package) as conn:
        audits = conn.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    before = (_counts(package), audits)
    shown = _open_collecting_refusals(main_window, package)
    curate = main_window.show_workspace("curate")
    curate.page_actions.propose.trigger()
    assert curate.proposals.ask_propose(["p1"]) is None  # the posts window's Propose
    assert curate.proposals.start(object(), ["prompt"], ["p1"]) is None
    assert len(shown) == 3, shown
    for text in shown:
        assert text == ("lead-alice.winnow is Alice's curator package: it holds only the "
                        "samples shared with them and takes no proposals. Propose in the "
                        "project it was split from (lead.winnow) and share again.")
    assert not main_window.runner.active
    main_window.close_project()

    from core.teamwork.package import PackageRefusal

    endpoint = ProposeEndpoint("http://127.0.0.1:9/v1", "m", "")
    project = Project.open(package)
    try:
        with pytest.raises(PackageRefusal) as refused:
            run_proposals(project, endpoint, ["prompt"], ["p1"])
    finally:
        project.close()
    assert str(refused.value) == shown[0]
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "app", "propose", str(package), "--url",
         "http://127.0.0.1:9/v1", "--model", "m", "--posts", "all"],
        capture_output=True, text=True, timeout=120, cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo), "WINNOW_PROPOSE_API_KEY": "k"})
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert shown[0] in done.stderr and "Traceback" not in done.stderr
    with sqlite3.connect(package) as conn:
        audits = conn.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    assert (_counts(package), audits) == before


def test_a_sample_made_from_a_post_is_refused_in_a_package(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    """ADR 228: the posts window's New Sample made a sample from a post in a package; the
    merge then refused the whole package ("it creates sample 'ctx' from a template the
    package lacks").  Refused up front in the GUI and by the command itself."""
    from core.propose.commands import NewSampleFromPost
    from core.store import Project

    package = _package(tmp_path)
    before = _counts(package)
    shown = _open_collecting_refusals(main_window, package)
    curate = main_window.show_workspace("curate")
    assert curate.proposals.new_sample_from_post("ctx") is None
    assert shown == ["lead-alice.winnow is Alice's curator package: it holds only the "
                     "samples shared with them and takes no samples made from posts. Make "
                     "them in the project it was split from (lead.winnow) and share again."]
    main_window.close_project()
    from core.teamwork.package import PackageRefusal

    project = Project.open(package)
    try:
        with pytest.raises(PackageRefusal, match="takes no samples made from posts"):
            NewSampleFromPost("ctx").do(project)
    finally:
        project.close()
    assert _counts(package) == before
