"""Copies of one post in an import: its own line and the posts samples embed (ADR 182).

A post may reach an import more than once: as a line of its own and as the ``post`` a
sample line embeds (often shorter).  Within one file the copies must agree: an embedded
copy may leave fields out but not change them.  Across imports an embedded copy updates
the fields it gives and keeps every field it leaves out: it never erases.

Fields are the keys of the post object less :data:`CONTEXT_KEYS` (the id, and the
replies, which are stored as posts of their own).  Pure functions: no database.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from core.ingest.records import CONTEXT_KEYS, PostRecord, canonical_json, parse_post, shown_id

#: What an import has said about a post so far, line by line: ``((line, fields), …)``
#: for the embedded copies that gave new fields, or ``((line, None),)`` once a post
#: line gave the whole post.
Given = tuple[tuple[int, "frozenset[str] | None"], ...]


def post_object(raw: str | None) -> dict[str, Any] | None:
    """A stored post's object (its imported JSON), or None when it cannot be read."""
    try:
        obj = json.loads(raw) if raw else None
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def first_difference(copy: dict[str, Any], base: dict[str, Any],
                     keys: Iterable[str]) -> str | None:
    """The first of ``keys`` (sorted) whose value ``copy`` and ``base`` do not share
    (a key one of them lacks differs); None when they agree on all."""
    for key in sorted(keys):
        if (key in copy) != (key in base):
            return key
        if key in copy and canonical_json(copy[key]) != canonical_json(base[key]):
            return key
    return None


def given_keys(given: Given) -> frozenset[str] | None:
    """The fields the file gave so far; None when a post line gave the whole post."""
    if given[-1][1] is None:
        return None
    return frozenset().union(*(keys or () for _line, keys in given))


def checked_keys(copy_fields: frozenset[str], given: Given | None,
                 embedded: bool) -> frozenset[str]:
    """The fields a new copy must agree on with the post as it stands, given what this
    file said before: an embedded copy after a post line, every field it gives; after
    other embedded copies, those they gave too; a post line, every field they gave."""
    if given is None:
        return frozenset()
    keys = given_keys(given)
    if keys is None:  # a post line gave the whole post (a second post line: ADR 001)
        return copy_fields if embedded else frozenset()
    return copy_fields & keys if embedded else keys


def disagreement(pid: str, key: str, given: Given, embedded: bool) -> str:
    """The line error for a copy that contradicts an earlier line of the file (the
    first line that gave ``key``)."""
    line, keys = next(((n, k) for n, k in given if k is None or key in k), given[0])
    here = "embedded here " if embedded else ""
    there = "the post on line" if keys is None else "the copy embedded on line"
    return (f"post '{shown_id(pid)}' {here}differs from {there} {line} in field '{key}' "
            "(copies of one post in a file must agree; a copy embedded in a sample may "
            "leave fields out): line not imported")


def added(given: Given | None, line: int, fields: frozenset[str]) -> Given | None:
    """``given`` after an embedded copy on ``line`` (None when it adds nothing)."""
    if given is None:
        return ((line, fields),)
    keys = given_keys(given)
    if keys is None or fields <= keys:
        return None
    return (*given, (line, fields))


def merged(base: dict[str, Any], copy: dict[str, Any]) -> dict[str, Any]:
    """``base`` with the fields ``copy`` gives (its id and replies are left out)."""
    return {**base, **{k: v for k, v in copy.items() if k not in CONTEXT_KEYS}}


def merged_record(pid: str, obj: dict[str, Any], parent_id: str | None = None) -> PostRecord:
    """The post row for a merged object, under its stored id (an id derived from the
    text must not move when the text is updated), under ``parent_id`` unless the object
    names its parent (a reply's parent is where a line placed it, not a field)."""
    record = parse_post(obj)[0]
    record.id = pid
    record.parent_id = record.parent_id or parent_id
    return record


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The fields whose value ``after`` changed or added."""
    return sorted(k for k in after.keys() - CONTEXT_KEYS
                  if first_difference(after, before, (k,)) is not None)
