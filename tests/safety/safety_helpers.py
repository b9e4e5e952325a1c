"""Helpers for the data-safety suite: small real projects, the real CLI, byte snapshots."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MODELS = ("m-alpha", "m-beta", "m-gamma")


def png(seed: int, size: tuple[int, int] = (40, 32)) -> bytes:
    """A small PNG that differs for every seed."""
    from PIL import Image

    img = Image.new("RGB", size, ((seed * 53) % 256, (seed * 97) % 256, (seed * 31) % 256))
    for x in range(0, size[0], 3):
        img.putpixel((x, (x * 7 + seed) % size[1]), (255, 255, 255))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def write_sources(root: Path, n: int = 12) -> tuple[Path, Path]:
    """``(posts.jsonl, outputs folder)``: ``n`` posts with a sample each (one input and one
    output image as local files), and outputs of :data:`MODELS` for every sample."""
    img = root / "img"
    img.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = []
    for k in range(n):
        (img / f"in{k}.png").write_bytes(png(k))
        (img / f"out{k}.png").write_bytes(png(1000 + k))
        lines.append({"id": f"p{k}", "text": f"post {k}: make it brighter", "author": "@a",
                      "timestamp": "2025-03-26T10:00:00Z",
                      "image_urls": [f"img/in{k}.png", f"img/out{k}.png"]})
        lines.append({"id": f"s{k:03d}", "post_id": f"p{k}", "prompt": f"brighter {k}",
                      "quality": "Benchmark", "split": "i2i", "input_images": [0],
                      "output_images": [1]})
    jsonl = root / "posts.jsonl"
    jsonl.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    outputs = root / "outputs"
    for m, model in enumerate(MODELS):
        (outputs / model).mkdir(parents=True, exist_ok=True)
        for k in range(n):
            (outputs / model / f"s{k:03d}.png").write_bytes(png(5000 + 100 * m + k))
    return jsonl, outputs


def build_project(path: Path, n: int = 12) -> Path:
    """A closed project at ``path`` with ``n`` samples (images fetched) and model outputs."""
    from core.ingest.importer import import_jsonl
    from core.ingest.outputs import import_outputs
    from core.store import Project

    jsonl, outputs = write_sources(path.parent / f"{path.stem}-src", n)
    with Project.create(path) as project:
        import_jsonl(project, jsonl)
        import_outputs(project, outputs)
    return path


def copy_project(src: Path, dst: Path) -> Path:
    """A copy of a closed project (file and asset folder) at ``dst``."""
    from core.store.project import assets_dir_for

    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)
    shutil.copytree(assets_dir_for(src), assets_dir_for(dst))
    return dst


def store_metric_results(path: Path) -> Path:
    """Run one cheap metric on the project at ``path`` (closed), so that `metrics export`
    has results to write: with none it refuses before writing anything (ADR 228)."""
    from app.cli import run_cli

    assert run_cli(["metrics", "run", str(path), "--metric", "colour_shift", "--device",
                    "cpu"]) == 0
    return path


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` (hidden ones too) → SHA-256 of its bytes, 'dir', or
    'link -> target'. Comparing two snapshots shows any byte created, changed or removed."""
    out: dict[str, str] = {}
    for top, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = Path(top) / name
            rel = path.relative_to(folder).as_posix()
            if path.is_symlink():
                out[rel] = f"link -> {os.readlink(path)}"
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def winnow(*args: str | os.PathLike[str], timeout: float = 240,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real CLI (``python -m app ...``) from this worktree."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen",
                **(env or {})}
    return subprocess.run([sys.executable, "-m", "app", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=full_env)


def journal_mode_bytes(path: Path) -> bytes:
    """Header bytes 18-19 of an SQLite file (1 = rollback journal, 2 = WAL)."""
    with open(path, "rb") as fh:
        fh.seek(18)
        return fh.read(2)


class FullDisk:
    """Make every file Winnow writes through core.files fail with ENOSPC once ``budget``
    bytes have been written in all (what a disk filling up mid-export looks like)."""

    def __init__(self, monkeypatch: Any, budget: int) -> None:
        from core import files

        self.left = budget
        real = files.open_new

        def opener(path: Path, mode: str, encoding: str | None, newline: str | None,
                   perms: int) -> Any:
            return _Budgeted(real(path, mode, encoding, newline, perms), self)

        monkeypatch.setattr(files, "open_new", opener)


class _Budgeted:
    def __init__(self, fh: Any, disk: FullDisk) -> None:
        self._fh = fh
        self._disk = disk

    def write(self, data: Any) -> int:
        size = len(data.encode() if isinstance(data, str) else data)
        if size > self._disk.left:
            self._disk.left = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._disk.left -= size
        return int(self._fh.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fh, name)

    def __enter__(self) -> _Budgeted:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


def can_mount() -> bool:
    """Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, Linux)."""
    return sys.platform.startswith("linux") and os.geteuid() == 0 and shutil.which("mount") \
        is not None


def mount_tmpfs(where: Path, size: str = "1m", readonly: bool = False) -> bool:
    """Mount a small tmpfs at ``where``; False if this machine does not allow it."""
    where.mkdir(parents=True, exist_ok=True)
    if not can_mount():
        return False
    opts = f"size={size},mode=0777" + (",ro" if readonly else "")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)],
                          capture_output=True)
    return done.returncode == 0


def remount_readonly(where: Path) -> None:
    """Make a mounted tmpfs read-only (its files stay as they are)."""
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True, capture_output=True)


def unmount(where: Path) -> None:
    """Undo :func:`mount_tmpfs` (lazily, so a file still open cannot block it)."""
    subprocess.run(["umount", "-l", str(where)], capture_output=True)
