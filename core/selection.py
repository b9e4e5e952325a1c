"""A selection of samples: the Curate filter that other workspaces (Rate, Metrics) take."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.curate.search import text_clause
from core.store.project import Project

PROPOSAL_STATES = ("any", "proposed", "accepted", "corrected")


@dataclass(frozen=True)
class SampleFilter:
    """Which samples are selected.  Empty fields mean "any".

    ``ids`` (when given) restricts to an explicit list, e.g. a multi-selection.
    ``text`` is a full-text query (each word prefix-matched, all words required) over
    one document per sample: its prompts (edited and original), its post's text, its
    community feedback, its id, post id and author (:mod:`core.curate.search`).
    """

    quality: tuple[str | None, ...] = ()
    review_status: str | None = None
    split: str | None = None
    is_screenshot: bool | None = None
    modified: bool | None = None
    tag: str | None = None
    text: str = ""
    ids: tuple[str, ...] = field(default=())
    #: machine-made fields: "any" (has some), "proposed" (some still to review),
    #: "accepted" or "corrected" (some so decided) — see core.propose.fields
    proposal: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """SQL WHERE clause (over ``samples s``) and its parameters."""
        clauses: list[str] = []
        params: list[Any] = []
        if self.quality:
            named = [q for q in self.quality if q is not None]
            parts = []
            if named:
                parts.append(f"s.quality IN ({','.join('?' * len(named))})")
                params.extend(named)
            if None in self.quality:
                parts.append("s.quality IS NULL")
            clauses.append("(" + " OR ".join(parts) + ")")
        if self.review_status:
            clauses.append("s.review_status = ?")
            params.append(self.review_status)
        if self.split:
            clauses.append("s.split = ?")
            params.append(self.split)
        if self.is_screenshot is not None:
            clauses.append("s.is_screenshot = ?")
            params.append(int(self.is_screenshot))
        if self.modified is not None:
            clauses.append("s.prompt " + ("!=" if self.modified else "=") + " s.original_prompt")
        if self.tag:
            clauses.append("EXISTS (SELECT 1 FROM sample_tags t WHERE t.sample_id = s.id "
                           "AND t.tag = ?)")
            params.append(self.tag)
        text = text_clause(self.text)
        if text is not None:
            clauses.append(text[0])
            params.extend(text[1])
        if self.proposal:
            if self.proposal not in PROPOSAL_STATES:
                raise ValueError(f"proposal filter must be one of {', '.join(PROPOSAL_STATES)}")
            status = "" if self.proposal == "any" else " AND v.status = ?"
            clauses.append("EXISTS (SELECT 1 FROM proposal_field_status v WHERE "
                           f"v.sample_id = s.id{status})")
            params.extend([] if self.proposal == "any" else [self.proposal])
        if self.ids:
            clauses.append(f"s.id IN ({','.join('?' * len(self.ids))})")
            params.extend(self.ids)
        return (" AND ".join(clauses) or "1"), params

    def sample_ids(self, project: Project) -> list[str]:
        """The selected sample ids, in id order."""
        where, params = self.where()
        return [row[0] for row in project.conn.execute(
            f"SELECT s.id FROM samples s WHERE {where} ORDER BY s.id", params)]
