"""Issue #11 item 5: a full disk stops an export with a non-zero exit naming the file that
could not be written; nothing that looks complete is left, and "cannot write" is never
reported as "cannot be decoded"."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image
from safety_helpers import (
    FullDisk,
    can_mount,
    mount_tmpfs,
    snapshot,
    store_metric_results,
    unmount,
    winnow,
)

from app.cli import run_cli
from core.files import WriteError


@pytest.mark.parametrize("budget", [0, 2_000, 9_000])
def test_benchmark_export_onto_a_full_disk(project_path: Path, tmp_path: Path, monkeypatch,
                                           capsys, budget: int) -> None:
    out = tmp_path / "exports" / "bench"
    before = snapshot(tmp_path)
    FullDisk(monkeypatch, budget)
    assert run_cli(["export", "benchmark", str(project_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "No space left on device" in err
    assert f"nothing was written to {out}" in err
    assert "decoded" not in err
    assert snapshot(tmp_path) == before  # no folder, no temp, not even "exports/"


def test_overwriting_onto_a_full_disk_keeps_the_earlier_export(project_path: Path,
                                                               tmp_path: Path, monkeypatch,
                                                               capsys) -> None:
    out = tmp_path / "bench"
    assert run_cli(["export", "benchmark", str(project_path), "--out", str(out)]) == 0
    before = snapshot(tmp_path)
    FullDisk(monkeypatch, 5_000)
    assert run_cli(["export", "benchmark", str(project_path), "--out", str(out),
                    "--overwrite"]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_csv_and_report_exports_onto_a_full_disk(project_path: Path, tmp_path: Path,
                                                 monkeypatch, capsys) -> None:
    csv_path = tmp_path / "metrics.csv"
    store_metric_results(project_path)
    capsys.readouterr()
    FullDisk(monkeypatch, 10)
    assert run_cli(["metrics", "export", str(project_path), "--out", str(csv_path)]) == 2
    assert f"cannot write {csv_path}: No space left" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["work"]

    from core.analysis.export import export_html
    from core.analysis.report import AnalysisOptions
    from core.analysis.results import Analysis, Section, Table

    table = Table(key="t", title="T", columns=["a"], rows=[[1]])
    analysis = Analysis(dataset="d", kind="rankings", n_rows=1, options=AnalysisOptions(),
                        sections={"s": Section(key="s", title="S", tables=[table])})
    with pytest.raises(WriteError, match="No space left"):
        export_html(analysis, tmp_path / "report")
    assert sorted(os.listdir(tmp_path)) == ["work"]


def _photos(folder: Path, n: int) -> None:
    """``n`` noisy PNGs (~18 KiB each: noise does not compress)."""
    import numpy as np

    folder.mkdir(parents=True)
    rng = np.random.default_rng(7)
    for k in range(n):
        img = Image.fromarray(rng.integers(0, 256, (64, 96, 3), dtype=np.uint8), "RGB")
        buf = io.BytesIO()
        img.save(buf, "PNG")
        (folder / f"p{k}.png").write_bytes(buf.getvalue())


def test_anonymize_onto_a_full_disk_stops_and_names_what_was_not_written(tmp_path: Path,
                                                                        monkeypatch,
                                                                        capsys) -> None:
    _photos(tmp_path / "in", 5)
    out = tmp_path / "out"
    one = (tmp_path / "in" / "p0.png").stat().st_size  # its output is about as big
    FullDisk(monkeypatch, int(one * 1.5))  # room for one output and its marker line
    code = run_cli(["anonymize", str(tmp_path / "in"), "--out", str(out),
                    "--face-detector", "hog", "--no-plates"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1
    written = [Path(w["output"]).name for w in summary["written"]]
    assert 1 <= len(written) < 5
    assert any("No space left on device" in e["error"] for e in summary["errors"])
    assert len(written) + len(summary["errors"]) + len(summary["not_written"]) == 5
    # what is there is whole and listed; nothing half-written lies around
    for name in written:
        Image.open(out / name).load()
    assert sorted(os.listdir(out)) == sorted([*written, ".winnow-files.jsonl"])


@pytest.mark.skipif(not can_mount(), reason="needs root to mount a small tmpfs (Linux)")
def test_a_real_small_filesystem(project_path: Path, tmp_path: Path) -> None:
    """The same through the real CLI on a real 256 KiB file system filled to the brim."""
    mount = tmp_path / "small"
    if not mount_tmpfs(mount, size="256k"):
        pytest.skip("mounting a tmpfs is not allowed here")
    try:
        filler = mount / "filler.bin"
        with open(filler, "wb") as fh:  # leave ~12 KiB: the export needs ~45 KiB
            while os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize > 12_288:
                fh.write(b"\0" * 4096)
                fh.flush()
        before = snapshot(mount)
        done = winnow("export", "benchmark", project_path, "--out", mount / "bench")
        assert done.returncode == 2, done.stdout
        assert "No space left on device" in done.stderr and "cannot write" in done.stderr
        assert "decoded" not in done.stderr and "Traceback" not in done.stderr
        assert snapshot(mount) == before
        _photos(tmp_path / "in", 6)
        done = winnow("anonymize", tmp_path / "in", "--out", mount / "anon",
                      "--face-detector", "hog", "--no-plates")
        assert done.returncode == 1, done.stderr
        summary = json.loads(done.stdout)
        assert summary["not_written"] or summary["errors"]
        for w in summary["written"]:
            Image.open(w["output"]).load()  # whatever is there is complete
        leftovers = [p for p in (mount / "anon").iterdir() if ".winnow-tmp-" in p.name] \
            if (mount / "anon").exists() else []
        assert leftovers == []
    finally:
        unmount(mount)
