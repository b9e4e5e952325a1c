"""Small helpers shared by the proposal tests."""

from __future__ import annotations

from typing import Any

from core.propose.client import ProposeEndpoint

ENDPOINT: dict[str, Any] = {"timeout": 5.0, "attempts": 3, "backoff": 0.01}


def endpoint(url: str, model: str = "good", **kw: Any) -> ProposeEndpoint:
    """An endpoint at the mock server with fast retries."""
    return ProposeEndpoint(url, model, **{**ENDPOINT, **kw})


def run(project: Any, url: str, model: str = "good", kinds: Any = None,
        posts: Any = None, **kw: Any) -> Any:
    """One proposal run over ``posts`` (default: the raw main posts)."""
    from core.propose.job import run_proposals
    from core.propose.kinds import KINDS
    from core.propose.store import select_posts

    ids = posts if posts is not None else select_posts(project, "raw")
    return run_proposals(project, endpoint(url, model, **kw), kinds or KINDS, ids)
