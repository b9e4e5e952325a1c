"""A rater process killed with SIGKILL at random moments never loses or duplicates a
judgment it reported as submitted (each is committed before submit() returns)."""

from __future__ import annotations

import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rating_helpers import make_session

from core.rating.integrity import verify
from core.rating.returned import read_returned
from core.rating.session_file import RatingSession, effective_judgments

REPO = Path(__file__).resolve().parents[2]

CHILD = r"""
import sys
from core.rating.session_file import RatingSession

s = RatingSession.open(sys.argv[1])
if s.rater is None:
    s.set_rater("Crash Test")
k = 0
while (t := s.next_task()) is not None:
    j = s.submit(t.task_id, {"winner": ("left", "right", "tie")[k % 3]}, time_ms=k)
    print("committed", j.uid, flush=True)
    k += 1
    if k % 7 == 0:  # "change my last answer" now and then
        j = s.submit(t.task_id, {"winner": "left"}, time_ms=k, supersedes=j.uid)
        print("committed", j.uid, flush=True)
print("finished", flush=True)
"""

TRIALS = 16


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """The rater file, and the session's secret (to check the MAC chain after kills)."""
    from rating_helpers import build_project

    from core.rating.integrity import stored_secret

    base = tmp_path_factory.mktemp("kill")
    project = build_project(base / "p.winnow")
    files = make_session(project, base / "out", "side_by_side", raters=1,
                         criteria=("preference", "coherence", "alignment", "overall"))
    secret = stored_secret(project.conn, 1)
    project.close()
    assert secret is not None
    return files[0], secret


def test_sigkill_at_random_moments_loses_and_duplicates_nothing(
        template: tuple[Path, bytes], tmp_path: Path) -> None:
    original, secret = template
    rng = random.Random(20240605)
    total_tasks = len(RatingSession.open(original).tasks)
    for trial in range(TRIALS):
        path = tmp_path / f"t{trial}.winnow-session"
        shutil.copy(original, path)
        reported: list[str] = []
        # a trial may kill the same file several times in a row (crash, reopen, crash)
        for _round in range(2):
            child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], cwd=REPO,
                                     stdout=subprocess.PIPE, text=True)
            wanted = rng.randint(1, 25)
            for _ in range(wanted):
                line = child.stdout.readline()
                if not line.startswith("committed"):
                    break
                reported.append(line.split()[1])
            time.sleep(rng.uniform(0, 0.004))
            child.send_signal(signal.SIGKILL)
            rest = child.stdout.read()  # lines written before the kill still count
            # a line the kill cut short (no newline) is a judgment in flight, not reported
            complete = rest.split("\n")[:-1]
            reported += [ln.split()[1] for ln in complete
                         if ln.startswith("committed ") and len(ln.split()) == 2]
            child.wait()
            assert child.returncode == -signal.SIGKILL or "finished" in rest

        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        uids = [r[0] for r in conn.execute("SELECT uid FROM judgments ORDER BY seq")]
        conn.close()
        assert len(uids) == len(set(uids)), "a judgment was duplicated"
        missing = set(reported) - set(uids)
        assert not missing, f"trial {trial}: {len(missing)} reported judgment(s) lost"
        # at most the one in flight at each kill was committed without being reported
        assert len(uids) - len(reported) <= 2
        session = RatingSession.open(path)
        eff = effective_judgments(session.judgments())
        assert len(eff) == session.progress()[0] <= total_tasks
        # one judgment that counts per answered task; the rater resumes after the last
        answered = {j.task_id for j in session.judgments()}
        assert set(eff) == answered
        nxt = session.next_task()
        assert nxt is None or nxt.position == len(answered)
        session.close()
        # the key chain moved on in the same transaction as each answer: still intact
        found = read_returned(path)
        assert found.problems == []
        assert verify(secret, found.meta["file_uid"], found.document(),
                      found.meta["tasks_mac"], found.entries(), found.chain) == []
