"""The base install (no extras): the CLI and the app run a rating session end to end, and
every feature that needs an extra says which one and the command that installs it.

The subprocesses run with a ``sitecustomize`` that makes the extras' modules
unimportable (``sys.modules[name] = None``), as in a venv where only ``pip install .``
ran.  The real base-only venv is checked by ``packaging/check-base-install.sh`` in CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core import extras

REPO = Path(__file__).resolve().parent.parent
#: what only the extras bring (torch & co. with [metrics]; the rest with [anonymize])
BLOCKED = ("torch", "transformers", "onnxruntime", "rapidocr", "dlib", "cv2",
           "face_recognition_models")


@pytest.fixture(scope="module")
def base_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for a subprocess in which the extras cannot be imported."""
    site = tmp_path_factory.mktemp("blocker")
    (site / "sitecustomize.py").write_text(
        "import sys\n"
        f"for _name in {BLOCKED!r}:\n"
        "    sys.modules[_name] = None  # 'import x' now raises ModuleNotFoundError\n")
    # module-scoped, so made before the autouse fixture isolates the user's folders:
    # its own, or the app would restore the developer's last workspace and settings
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(REPO)]),
               QT_QPA_PLATFORM="offscreen", WINNOW_USER="tester",
               XDG_CONFIG_HOME=str(site / "config"), WINNOW_LOG_DIR=str(site / "logs"))
    env.pop("CI", None)
    return env


def winnow(env: dict[str, str], *args: str, cwd: Path | None = None
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300)


def python(env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)


def test_the_blocker_really_blocks(base_env: dict[str, str]) -> None:
    out = python(base_env, "import importlib.util, json\n"
                 "from core import extras\n"
                 "print(json.dumps([extras.missing_modules(n) for n in ('anonymize', 'metrics')]))\n"
                 "import torch\n")
    assert "ModuleNotFoundError" in out.stderr and out.returncode == 1
    anonymize, metrics = json.loads(out.stdout)
    assert anonymize == ["onnxruntime", "rapidocr", "dlib", "cv2"]
    assert metrics == ["torch", "transformers", "face_recognition_models", *anonymize]


@pytest.mark.slow
def test_rating_session_end_to_end_without_extras(base_env: dict[str, str],
                                                  tmp_path: Path) -> None:
    done = winnow(base_env, "--version")
    assert done.returncode == 0 and done.stdout.startswith("winnow ")
    demo = tmp_path / "demo.winnow"
    done = winnow(base_env, "demo", str(demo))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    info = json.loads(winnow(base_env, "info", str(demo), "--json").stdout)
    assert info["samples"] > 0
    files = tmp_path / "files"
    done = winnow(base_env, "session", "create", str(demo), "--name", "base",
                  "--protocol", "side_by_side", "--raters", "1", "--gold", "none",
                  "--models", "aurora-xl,pixelforge", "--out", str(files), "--json")
    assert done.returncode == 0, done.stderr
    (session_file,) = json.loads(done.stdout)["files"]
    # the rater's side: answer every task through core, as the rater view does
    rated = python(base_env, "import json, sys\n"
                   "from core.rating.session_file import RatingSession\n"
                   f"s = RatingSession.open({session_file!r})\n"
                   "s.set_rater('Base Rater')\n"
                   "n = 0\n"
                   "while (t := s.next_task()) is not None:\n"
                   "    s.submit(t.task_id, {'winner': 'left'}, time_ms=900)\n"
                   "    n += 1\n"
                   "s.close()\n"
                   "print(json.dumps({'answered': n, 'heavy': sorted(m for m in sys.modules\n"
                   f"    if m.split('.')[0] in {BLOCKED!r} and sys.modules[m] is not None)}}))\n")
    assert rated.returncode == 0, rated.stderr
    answered = json.loads(rated.stdout)
    assert answered["answered"] > 0 and answered["heavy"] == []
    done = winnow(base_env, "session", "merge", str(demo), session_file)
    assert done.returncode == 0, done.stderr
    assert f"{answered['answered']} new judgment(s)" in done.stdout
    votes = tmp_path / "votes.csv"
    done = winnow(base_env, "session", "results", str(demo), "--session", "base",
                  "--out", str(votes))
    assert done.returncode == 0, done.stderr
    assert votes.read_text().splitlines()[0].startswith("a,b,winner")
    done = winnow(base_env, "stats", "bt", str(votes))
    assert done.returncode == 0, done.stderr
    scores = json.loads(done.stdout)["scores"]
    assert set(scores) == {"aurora-xl", "pixelforge"}
    assert sum(scores.values()) == pytest.approx(100)
    # a model metric fails naming the extra; colour shift (numpy only) still runs
    done = winnow(base_env, "metrics", "run", str(demo), "--metric", "clipscore,colour_shift",
                  "--samples", "demo-000,demo-001")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    run = json.loads(done.stdout)
    assert list(run["failed_metrics"]) == ["clipscore"]
    assert run["failed_metrics"]["clipscore"].startswith(
        "The metric 'CLIPScore' needs the optional 'metrics' part of Winnow")
    assert run["stats"]["colour_shift"] and "clipscore failed: The metric" in done.stderr
    # the app opens the same project and gets ready (Curate, Rate, Analyze need no extra)
    done = winnow(base_env, str(demo), "--quit-when-ready")
    assert done.returncode == 0 and "ready: demo.winnow" in done.stdout, done.stderr
    assert "Traceback" not in done.stderr


def _assert_names_the_extra(done: subprocess.CompletedProcess[str], extra: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert f"optional '{extra}' part of Winnow" in done.stderr
    assert f"[{extra}]" in done.stderr and "pip install" in done.stderr


def test_features_needing_an_extra_name_it_and_its_install_command(
        base_env: dict[str, str], tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    rgb = np.random.default_rng(0).integers(0, 255, (64, 96, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(photos / "a.png")
    Image.fromarray(rgb[::-1]).save(tmp_path / "b.png")
    done = winnow(base_env, "anonymize", str(photos), "--out", str(tmp_path / "out"))
    _assert_names_the_extra(done, "anonymize")
    assert not (tmp_path / "out").exists()
    done = winnow(base_env, "metrics", "pair", str(photos / "a.png"), str(tmp_path / "b.png"),
                  "--metric", "clipscore", "--json")
    _assert_names_the_extra(done, "metrics")
    # a metric without a model needs no extra
    done = winnow(base_env, "metrics", "pair", str(photos / "a.png"), str(tmp_path / "b.png"),
                  "--metric", "colour_shift", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "ok"


def test_require_message_and_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "_present", lambda module: module != "dlib")
    assert extras.available("metrics") is False and extras.missing_modules("anonymize") == ["dlib"]
    with pytest.raises(extras.ExtraMissingError) as caught:
        extras.require("anonymize", "Face detection")
    text = str(caught.value)
    assert caught.value.extra == "anonymize"
    assert text.startswith("Face detection needs the optional 'anonymize' part")
    assert "(missing: dlib)" in text
    command = extras.install_command("anonymize")
    assert command in text and sys.executable in command
    assert command.endswith("[anonymize]") or command.endswith("[anonymize]'")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    frozen = extras.missing_message("metrics")
    assert "this build does not include" in frozen and "winnow[metrics]" in frozen
    monkeypatch.setattr(extras, "_present", lambda module: True)
    extras.require("metrics")  # installed: no error


def test_install_command_from_a_checkout_uses_the_constraints(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    checkout = tmp_path / "my winnow"
    (checkout / "packaging").mkdir(parents=True)
    (checkout / "packaging" / "constraints.txt").write_text("numpy==2.4.6\n")
    monkeypatch.setattr(extras, "_installed_from", lambda: (checkout, True))
    command = extras.install_command("metrics")
    assert f"-c '{checkout / 'packaging' / 'constraints.txt'}'" in command
    assert command.endswith(f"-e '{checkout}[metrics]'")
    monkeypatch.setattr(extras, "_installed_from", lambda: (checkout, False))  # pip install DIR
    assert extras.install_command("metrics").endswith(f"txt' '{checkout}[metrics]'")
    wheel = tmp_path / "winnow-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    monkeypatch.setattr(extras, "_installed_from", lambda: (wheel, False))
    assert extras.install_command("anonymize").endswith(f"install '{wheel}[anonymize]'")
    monkeypatch.setattr(extras, "_installed_from", lambda: None)
    assert extras.install_command("metrics").endswith("install 'winnow[metrics]'")


def test_installed_from_reads_pips_record(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    from importlib import metadata

    class Dist:
        def __init__(self, text: str | None) -> None:
            self.text = text

        def read_text(self, name: str) -> str | None:
            assert name == "direct_url.json"
            return self.text

    for text, expected in [
            (json.dumps({"url": f"file://{tmp_path}/src", "dir_info": {"editable": True}}),
             (tmp_path / "src", True)),
            (json.dumps({"url": f"file://{tmp_path}/my%20src", "dir_info": {}}),
             (tmp_path / "my src", False)),
            ("{not json", (REPO, True)),       # unreadable: the checkout running this
            (None, (REPO, True))]:
        monkeypatch.setattr(metadata, "distribution", lambda name, t=text: Dist(t))
        assert extras._installed_from() == expected


@pytest.mark.gui
def test_anonymize_workspace_names_the_missing_extra(main_window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from core.imaging import photos as repo
    from core.store import Project

    Image.fromarray(np.full((40, 60, 3), 128, np.uint8)).save(tmp_path / "p.png")
    with Project.create(tmp_path / "p.winnow") as project:
        repo.import_photo(project, tmp_path / "p.png")
    monkeypatch.setattr(extras, "_present", lambda module: module != "cv2")
    assert main_window.open_project(tmp_path / "p.winnow")
    page = main_window.pages["anonymize"]
    shown: list[str] = []
    main_window.refusal_shown.connect(shown.append)
    page.reload()
    assert page.detector.isVisibleTo(page) and not page.detector.button.isVisibleTo(page)
    assert "optional 'anonymize' part" in page.detector.text.text()
    assert "[anonymize]" in page.detector.text.text()
    assert page.jobs.detect_current() is None
    assert page.jobs.release_current(out_dir=tmp_path / "out") is None
    assert page.jobs.release_all(out_dir=tmp_path / "out") is None
    assert len(shown) == 3 and all("optional 'anonymize' part" in s for s in shown)
    assert "Face and plate detection" in shown[0] and "[anonymize]" in shown[0]
    assert not (tmp_path / "out").exists()

