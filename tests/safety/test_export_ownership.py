"""Issue #11 items 1, 8, 10: exports replace only what Winnow can prove it wrote.

Every case runs the real CLI and compares the bytes of every file that was there before.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from safety_helpers import snapshot, store_metric_results, winnow

from app.cli import run_cli
from core import files
from core.export_files import MARKER_NAME, Marker, export_text
from core.export_folder import foreign_entries


def _export(project: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    done = winnow("export", "benchmark", project, "--out", out, "--quality", "Benchmark",
                  *extra)
    return done.returncode, done.stdout, done.stderr


def test_overwrite_never_replaces_the_folder_that_holds_the_project(project_path: Path):
    """The reported bug: --out = the project's own folder, with a notes file, exit 0 and
    everything gone. Now: refused, naming the project, and not one byte changes."""
    work = project_path.parent
    (work / "notes.txt").write_text("my notes")
    (work / "samples.jsonl").write_text('{"id": "s1"}\n')  # what the old check looked for
    (work / "report.html").write_text("<p>my report</p>")  # ... and the old report check
    lock = work / "other.winnow.lock"
    lock.write_text("")
    before = snapshot(work)
    code, out, err = _export(project_path, work, "--overwrite")
    assert code == 2, (out, err)
    assert "a Winnow project: p.assets, p.winnow" in err, err
    assert "a lock file: other.winnow.lock;" in err and "notes.txt" in err
    assert snapshot(work) == before
    assert sorted(os.listdir(work.parent)) == ["work"]  # no temp folder beside it either
    # the Analyze report export obeys the same rule
    from core.analysis.export import export_html

    with pytest.raises(FileExistsError, match="a Winnow project: p.assets, p.winnow"):
        export_html(_tiny_analysis(), work)
    assert snapshot(work) == before


def _tiny_analysis():  # type: ignore[no-untyped-def]
    from core.analysis.report import AnalysisOptions
    from core.analysis.results import Analysis, Section, Table

    table = Table(key="t", title="T", columns=["a"], rows=[[1]])
    return Analysis(dataset="d", kind="rankings", n_rows=1, options=AnalysisOptions(),
                    sections={"s": Section(key="s", title="S", tables=[table])})


def test_overwrite_replaces_an_earlier_export_and_nothing_else(project_path: Path,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "bench"
    code, report, err = _export(project_path, out)
    assert code == 0, err
    assert json.loads(report)["exported"] == 12
    marker = Marker(out)
    assert marker.export is not None and marker.export["export"] == "benchmark export"
    assert "samples.jsonl" in marker.files and len(marker.files) == 1 + 24
    assert foreign_entries(out) == []

    # a second export without --overwrite: refused, nothing touched
    before = snapshot(out)
    code, _, err = _export(project_path, out)
    assert code == 2 and "already exists" in err and snapshot(out) == before

    # the user adds a file: --overwrite now refuses, naming it
    (out / "images" / "my-crop.png").write_bytes(b"user's")
    before = snapshot(out)
    code, _, err = _export(project_path, out, "--overwrite")
    assert code == 2 and "images/my-crop.png" in err and snapshot(out) == before
    (out / "images" / "my-crop.png").unlink()

    # the user edits an exported file: refused too (it is no longer what Winnow wrote)
    edited = (out / "samples.jsonl").read_text().replace("brighter 0", "BRIGHTER 0")
    (out / "samples.jsonl").write_text(edited)
    before = snapshot(out)
    assert run_cli(["export", "benchmark", str(project_path), "--out", str(out),
                    "--overwrite"]) == 2
    assert snapshot(out) == before
    (out / "samples.jsonl").write_text(edited.replace("BRIGHTER 0", "brighter 0"))

    # untouched again: replaced, and the new folder is listed whole in its marker
    assert run_cli(["export", "benchmark", str(project_path), "--out", str(out),
                    "--overwrite", "--split", "i2i"]) == 0
    assert foreign_entries(out) == []
    assert sorted(os.listdir(tmp_path)) == ["bench", "work"]


def test_refusals_for_foreign_marker_links_and_files(project_path: Path, tmp_path: Path,
                                                     capsys) -> None:
    args = ["export", "benchmark", str(project_path), "--overwrite", "--out"]
    # a folder with a forged or foreign marker name
    forged = tmp_path / "forged"
    forged.mkdir()
    (forged / MARKER_NAME).write_text("not ours\n")
    (forged / "a.txt").write_text("a")
    assert run_cli([*args, str(forged)]) == 2
    assert "was not written by Winnow" in capsys.readouterr().err
    # an earlier export reached through a symbolic link: the link is refused
    real = tmp_path / "real-export"
    assert run_cli(["export", "benchmark", str(project_path), "--out", str(real)]) == 0
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    before = snapshot(tmp_path)
    capsys.readouterr()
    assert run_cli([*args, str(link)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    # a symbolic link planted inside an export is never followed or counted as Winnow's
    (real / "images" / "escape").symlink_to(project_path.parent, target_is_directory=True)
    assert foreign_entries(real) == ["images/escape"]
    assert run_cli([*args, str(real)]) == 2
    after = snapshot(tmp_path)
    del after["real-export/images/escape"]
    assert after == before
    # a plain file where the folder should go
    plain = tmp_path / "plain"
    plain.write_text("x")
    assert run_cli([*args, str(plain)]) == 2
    assert plain.read_text() == "x"


def test_an_empty_existing_folder_is_used(project_path: Path, tmp_path: Path) -> None:
    """A folder just made in a file dialog is not "in the way"."""
    out = tmp_path / "empty"
    out.mkdir()
    assert run_cli(["export", "benchmark", str(project_path), "--out", str(out)]) == 0
    assert (out / "samples.jsonl").is_file()


def test_single_file_exports_replace_only_their_own_file(project_path: Path,
                                                        tmp_path: Path) -> None:
    """metrics export (and every CSV/JSON export) through the marker of its folder."""
    store_metric_results(project_path)
    csv_path = tmp_path / "results.csv"
    csv_path.write_text("someone else's spreadsheet")
    done = winnow("metrics", "export", project_path, "--out", csv_path)
    assert done.returncode == 2 and "Winnow cannot prove it wrote it" in done.stderr
    assert csv_path.read_text() == "someone else's spreadsheet"
    assert not (tmp_path / MARKER_NAME).exists()

    mine = tmp_path / "mine.csv"
    assert run_cli(["metrics", "export", str(project_path), "--out", str(mine)]) == 0
    first = mine.read_bytes()
    assert run_cli(["metrics", "export", str(project_path), "--out", str(mine)]) == 0
    assert mine.read_bytes() == first  # its own earlier export: replaced
    mine.write_text(first.decode() + "my note\n")  # edited by the user: kept from now on
    assert run_cli(["metrics", "export", str(project_path), "--out", str(mine)]) == 2
    assert mine.read_text().endswith("my note\n")
    assert sorted(os.listdir(tmp_path)) == [MARKER_NAME, "mine.csv", "results.csv", "work"]


def test_a_marker_line_torn_by_a_kill_only_makes_winnow_refuse_more(tmp_path: Path) -> None:
    target = tmp_path / "r.csv"
    export_text(target, "a\n")
    with open(tmp_path / MARKER_NAME, "ab") as fh:
        fh.write(b'{"file": "r.csv", "si')  # killed mid-append
    export_text(target, "b\n")  # still Winnow's: the torn line is skipped, a new one begins
    assert target.read_text() == "b\n"
    lines = (tmp_path / MARKER_NAME).read_bytes().splitlines()
    assert lines[-1].startswith(b'{"at"') and json.loads(lines[-1])["file"] == "r.csv"


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_stale_temps_of_a_killed_export_are_cleaned_by_the_next_run(project_path: Path,
                                                                    tmp_path: Path) -> None:
    """Item 8: what a SIGKILLed run left (named with its pid and host) goes; nothing else."""
    dead, host = _dead_pid(), files._host_tag()
    stale = tmp_path / f".bench{files.TEMP_MARK}{dead}-{host}-0badf00d"
    (stale / "images").mkdir(parents=True)
    (stale / "samples.jsonl").write_text("half")
    stale_csv = tmp_path / f".r.csv{files.TEMP_MARK}{dead}-{host}-12345678"
    stale_csv.write_text("half")
    other_host = tmp_path / f".bench{files.TEMP_MARK}{dead}-elsewhere-0badf00d"
    other_host.mkdir()
    users = tmp_path / ".bench.tmp-123"
    users.mkdir()
    code, _, err = _export(project_path, tmp_path / "bench")
    assert code == 0, err
    assert not stale.exists() and not stale_csv.exists()
    assert other_host.is_dir() and users.is_dir()


UMASK_SCRIPT = r"""
import os, sys
from types import SimpleNamespace
from pathlib import Path
os.umask(int(sys.argv[1], 8))
project, out = sys.argv[2], Path(sys.argv[3])
from app.cli import run_cli
codes = [run_cli(["export", "benchmark", project, "--out", str(out / "bench")]),
         run_cli(["metrics", "export", project, "--out", str(out / "csv" / "metrics.csv")])]
from core.analysis.export import export_html
from core.analysis.report import AnalysisOptions
from core.analysis.results import Analysis, Section, Table
table = Table(key="t", title="T", columns=["a"], rows=[[1]])
export_html(Analysis(dataset="d", kind="rankings", n_rows=1, options=AnalysisOptions(),
                     sections={"s": Section(key="s", title="S", tables=[table])}),
            out / "report")
import core.rating.results as results
results.result_rows = lambda *a, **k: (["rater", "unit"], [["r1", "u1"]])
results.export_results(None, "s", out / "results" / "r.csv")
from core.imaging.release import write_release
photo = SimpleNamespace(file_name="x.jpg", id=1, released_path=None)
write_release(out / "released", photo, "jpg", b"\xff\xd8 not really")
sys.exit(max(codes))
"""


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_every_export_honours_the_umask(project_path: Path, tmp_path: Path, mask: int):
    """Item 10: every file an export writes is 0o666 & ~umask, every folder 0o777 & ~umask
    (benchmark, metrics CSV, HTML report, rating results CSV, released photo)."""
    store_metric_results(project_path)
    (tmp_path / "out" / "released").mkdir(parents=True)
    os.chmod(tmp_path / "out", 0o777 & ~mask)
    os.chmod(tmp_path / "out" / "released", 0o777 & ~mask)
    done = subprocess.run([sys.executable, "-c", UMASK_SCRIPT, oct(mask)[2:],
                           str(project_path), str(tmp_path / "out")], capture_output=True,
                          text=True, env={**os.environ,
                                          "PYTHONPATH": str(Path(files.__file__).parents[1])})
    assert done.returncode == 0, done.stderr
    _check_modes(tmp_path / "out", mask)


def _check_modes(root: Path, mask: int) -> None:
    seen = 0
    for top, dirs, names in os.walk(root):
        for name in dirs:
            assert stat.S_IMODE((Path(top) / name).stat().st_mode) == 0o777 & ~mask, name
        for name in names:
            mode = stat.S_IMODE((Path(top) / name).stat().st_mode)
            assert mode == 0o666 & ~mask, (name, oct(mode))
            seen += 1
    assert seen >= 30  # 25 benchmark files + marker, CSVs, report, release


def test_a_foreign_folder_is_refused_in_plain_words(tmp_path: Path) -> None:
    """'is not a analysis report Winnow wrote', 'is not a curator packages Winnow wrote'."""
    from core.export_folder import folder_problem

    (tmp_path / "keep.txt").write_text("mine")
    for kind in ("analysis report", "curator packages"):
        problem = folder_problem(tmp_path, kind=kind)
        assert problem is not None
        assert problem.startswith(f"{tmp_path} is not a Winnow {kind} folder (there is no")
        assert "keep.txt" in problem
