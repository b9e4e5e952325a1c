"""Read-only summaries of a project for overviews and the ``info`` command."""

from __future__ import annotations

from typing import Any

from core.store.project import Project


def project_summary(project: Project) -> dict[str, Any]:
    """Counts by entity, quality, split and review status, and image problems."""
    conn = project.conn

    def grouped(sql: str) -> dict[str, int]:
        return {("unlabelled" if key is None else str(key)): int(n)
                for key, n in conn.execute(sql)}

    return {
        **project.counts(),
        "quality": grouped("SELECT quality, count(*) FROM samples GROUP BY quality"),
        "split": grouped("SELECT split, count(*) FROM samples GROUP BY split"),
        "review": grouped("SELECT review_status, count(*) FROM samples GROUP BY review_status"),
        "screenshots": int(conn.execute(
            "SELECT count(*) FROM samples WHERE is_screenshot").fetchone()[0]),
        "images_missing": int(conn.execute(
            "SELECT (SELECT count(*) FROM post_images WHERE sha256 IS NULL) + "
            "(SELECT count(*) FROM sample_images WHERE sha256 IS NULL)").fetchone()[0]),
    }
