"""Start-up times (issue 15 item 6): each measured in a fresh process, medians of repeats.

    .venv/bin/python benchmarks/bench_startup.py [--repeats 7] [--demo DEMO.winnow]

Prints a Markdown table for docs/performance.md: ``python -c pass``, a bare PySide6
window, ``winnow --version``, ``winnow stats bt`` on a three-vote file (its whole time is
overhead), and the app ready on the demo project (``--quit-when-ready`` prints "ready"
once the project is open and no job runs), with ratios to the bare window measured in
the same run; then a ``python -X importtime`` summary of the app's start: the self
time of every module, summed per top-level package.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BARE_WINDOW = """
import sys
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv[:1])
w = QMainWindow(); w.setWindowTitle("bare"); w.resize(1200, 800); w.show()
app.processEvents()
print("ready", flush=True)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_to_line(cmd: list[str], marker: str) -> float:
    """Seconds from starting ``cmd`` until it prints a line starting with ``marker``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=_env(), cwd=REPO)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(marker):
            elapsed = time.perf_counter() - t0
            break
    else:
        proc.wait()
        raise RuntimeError(f"{cmd} never printed {marker!r} (exit {proc.returncode})")
    proc.stdout.read()
    if proc.wait() != 0:
        raise RuntimeError(f"{cmd} exited {proc.returncode}")
    return elapsed


def median_of(repeats: int, cmd: list[str], marker: str) -> float:
    time_to_line(cmd, marker)  # warm the file cache
    return statistics.median(time_to_line(cmd, marker) for _ in range(repeats))


def importtime_summary(cmd: list[str], top: int = 12) -> list[tuple[str, float]]:
    """Self import time per top-level package (seconds), largest first."""
    out = subprocess.run([sys.executable, "-X", "importtime", *cmd], capture_output=True,
                         text=True, env=_env(), cwd=REPO, check=True)
    per: dict[str, float] = defaultdict(float)
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, self_us, _cum, name = (part.strip() for part in
                                  line.replace("import time:", "|").split("|"))
        per[name.split(".")[0]] += int(self_us) / 1e6
    return sorted(per.items(), key=lambda kv: -kv[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--demo", type=Path, help="an existing demo project (default: "
                        "write one to a temporary folder)")
    args = parser.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        demo = args.demo
        if demo is None:
            demo = Path(tmp) / "demo.winnow"
            subprocess.run([py, "-m", "app", "demo", str(demo)], env=_env(), cwd=REPO,
                           check=True, stdout=subprocess.DEVNULL)
        votes = Path(tmp) / "votes.csv"
        votes.write_text("a,b,winner\nx,y,a\ny,z,a\nz,x,tie\n")
        rows = {
            "python -c pass": median_of(args.repeats, [py, "-c", "print('ready')"], "ready"),
            "bare PySide6 window": median_of(args.repeats, [py, "-c", BARE_WINDOW], "ready"),
            "winnow --version": median_of(args.repeats, [py, "-m", "app", "--version"],
                                          "winnow"),
            "winnow stats bt (3 votes)": median_of(
                args.repeats, [py, "-m", "app", "stats", "bt", str(votes)], "{"),
            "app ready on the demo": median_of(
                args.repeats, [py, "-m", "app", str(demo), "--quit-when-ready"], "ready"),
        }
        imports = importtime_summary(["-m", "app", str(demo), "--quit-when-ready"])
    bare = rows["bare PySide6 window"]
    targets = {"winnow --version": "≤ 0.3 s", "winnow stats bt (3 votes)": "≤ 0.4 s",
               "app ready on the demo": "≤ 1 s and ≤ 8× bare"}
    print(f"repeats: {args.repeats}; load average: {os.getloadavg()[0]:.1f}\n")
    print("| what | target | median | × bare window |\n|---|---|---|---|")
    for name, seconds in rows.items():
        print(f"| {name} | {targets.get(name, '—')} | {seconds:.3f} s | {seconds / bare:.1f} |")
    total = sum(s for _, s in imports)
    print(f"\nImport time of the app's start (self time per top-level package, top "
          f"{len(imports)}, {total:.2f} s together):\n")
    print("| package | seconds |\n|---|---|")
    for name, seconds in imports:
        print(f"| {name} | {seconds:.3f} |")


if __name__ == "__main__":
    main()
