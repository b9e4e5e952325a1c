"""The SIGKILL harness (tests/safety/kill_harness.py) on an import with the read-ahead
parse thread (ADR 029) well ahead of the writer: 3,000 lines in batches of 100, bad
lines among them.  Run as ``python kill_import_readahead.py WORKDIR KILLS SEED``; prints
the harness's JSON line (import-clash item 3)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SAFETY = Path(__file__).resolve().parents[1] / "safety"
sys.path.insert(0, str(SAFETY))

import kill_harness  # noqa: E402
from kill_harness import Op, count, integrity  # noqa: E402

N = 3_000  # posts, and as many samples
BATCH = 100
BAD_EVERY = 97  # a line of invalid JSON after every 97th good line


class ImportReadAhead(kill_harness.Import):
    """The harness's import, on a bigger file in batches of 100 (``reset`` is its own)."""

    def __init__(self, work: Path) -> None:
        Op.__init__(self, work)  # not Import's: its 20-line source is not this one
        from core.store import Project

        work.mkdir(parents=True, exist_ok=True)
        self.jsonl = work / "lines.jsonl"
        good = [{"id": f"p{k}", "text": "a post " * 20} for k in range(N)]
        good += [{"id": f"s{k}", "prompt": f"prompt {k} " * 10, "post_id": f"p{k}",
                  "community_feedback": [{"text": "nice"}], "tags": ["t"]} for k in range(N)]
        lines: list[str] = []
        for k, obj in enumerate(good, 1):
            lines.append(json.dumps(obj))
            if k % BAD_EVERY == 0:
                lines.append('{"id": "bad", ')
        self.jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.pristine = work / "pristine.winnow"
        Project.create(self.pristine).close()
        self.project = work / "import.winnow"

    def run(self) -> None:
        from core.ingest.importer import import_jsonl
        from core.store import Project

        with Project.open(self.project) as project:
            report = import_jsonl(project, self.jsonl, batch_size=BATCH, read_ahead=True,
                                  fetch_images=False)
        assert len(report.errors) == 2 * N // BAD_EVERY, report.errors[:3]

    def _counts(self) -> tuple[int, int]:
        posts = count(self.project, "SELECT count(*) FROM posts")
        samples = count(self.project, "SELECT count(*) FROM samples")
        assert count(self.project, "SELECT count(*) FROM sample_raw") == samples
        assert count(self.project, "SELECT count(*) FROM feedback") == samples
        assert count(self.project, "SELECT count(*) FROM sample_search") == samples
        assert count(self.project, "SELECT count(*) FROM audit_log WHERE action = 'import' "
                                   "AND entity = 'sample'") == samples, "duplicated audit"
        return posts, samples

    def check(self) -> None:
        assert integrity(self.project) == "ok"
        posts, samples = self._counts()
        whole = {(min(BATCH * k, N), max(0, BATCH * k - N)) for k in range(2 * N // BATCH + 1)}
        assert (posts, samples) in whole, f"a batch was half written ({posts}, {samples})"

    def final(self) -> dict[str, Any]:
        assert integrity(self.project) == "ok"
        assert self._counts() == (N, N)
        return {"posts": N, "samples": N}


kill_harness.OPS["import-readahead"] = ImportReadAhead

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "import-readahead", *sys.argv[1:]]
    kill_harness.main()
