"""A 30,500-sample label statement by statement, for one tree: CPU of the audit
``INSERT … SELECT``, of the ``UPDATE`` and of the ``COMMIT``, and the WAL each label
writes (checkpointed away between labels), on a copy of the project opened — and so
migrated — by that tree.

    .venv/bin/python benchmarks/bench_curate_statements.py --tree /tmp/main-src \\
        --project /tmp/bench-curate/bench.winnow [--labels 4]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

AUDIT = ("INSERT INTO audit_log(at, actor, action, entity, entity_id, field, old, new) "
         "SELECT 'now', 'bench', 'edit', 'sample', s.id, 'quality', json_quote(s.quality), "
         "'x' FROM samples s WHERE s.id IN (SELECT value FROM json_each(?))")
UPDATE = ("UPDATE samples SET quality = ?, modified_at = 'now' "
          "WHERE id IN (SELECT value FROM json_each(?))")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, required=True)
    ap.add_argument("--project", type=Path, required=True)
    ap.add_argument("--labels", type=int, default=4)
    args = ap.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from core.store import Project

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-statements-") as tmp:
        copy = Path(tmp) / "bench.winnow"
        shutil.copyfile(args.project, copy)
        project = Project.open(copy)
        conn = project.conn
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        ids = json.dumps([r[0] for r in conn.execute("SELECT id FROM samples LIMIT 30500")])
        for k in range(args.labels):
            quality = ("Trash", "Benchmark", "Analysis")[k % 3]
            conn.execute("BEGIN IMMEDIATE")
            c0 = time.thread_time()
            conn.execute(AUDIT, (ids,))
            c1 = time.thread_time()
            conn.execute(UPDATE, (quality, ids))
            c2 = time.thread_time()
            conn.execute("COMMIT")
            c3 = time.thread_time()
            wal = os.path.getsize(f"{copy}-wal")
            rows.append({"audit_cpu_ms": round(1000 * (c1 - c0)),
                         "update_cpu_ms": round(1000 * (c2 - c1)),
                         "commit_cpu_ms": round(1000 * (c3 - c2)),
                         "wal_mb": round(wal / 2**20, 1)})
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        project.close()
    print(json.dumps({"tree": str(args.tree), "load_average": os.getloadavg()[:2],
                      "labels": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
