"""FastChat's online Elo on the Analyze leaderboard, beside the maximum-likelihood Elo.

The same computation as ``winnow stats elo FILE --online`` (:mod:`core.stats.online_elo`,
ADR 024): the votes in the data set's row order, replayed in battle order (the file's
``tstamp`` order when the data set carries one, else row order), with the bootstrap over
the votes as listed.  With the same seed the numbers are the command's, to the last digit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from core.analysis.compute import Row, col
from core.analysis.results import EloChart, EloPanel, Table, num
from core.stats.online_elo import online_elo_ratings
from core.stats.votes import encode_votes

ONLINE_TITLE = "Online Elo (FastChat)"
NO_ORDER = "none"  # ``ordered_by`` of a table of vote counts: no battle order to replay
NO_ORDER_TEXT = ("Online Elo: this file is a table of vote counts, with no battle order to "
                 "replay (winnow stats elo --online refuses it too); the maximum-likelihood "
                 "Elo above needs no order.")
FORMATS = {"Elo": ".0f", "CI low": ".0f", "CI high": ".0f"}


def positions(order: Sequence[int] | np.ndarray | None, n: int) -> np.ndarray:
    """Each row's place in battle order, from ``order`` (row indices in battle order;
    None: the rows' own order)."""
    if order is None:
        return np.arange(n)
    seq = np.asarray(order, dtype=np.int64)
    if seq.shape != (n,) or not np.array_equal(np.sort(seq), np.arange(n)):
        raise ValueError(f"battle order must list each of the {n:,} votes once")
    place = np.empty(n, dtype=np.int64)
    place[seq] = np.arange(n)
    return place


def online_leaderboard(rows: list[Row], opt: Any, place: np.ndarray,
                       ordered_by: str = "row", state: Any = None) -> tuple[Table, EloChart]:
    """The online Elo table and chart of vote ``rows`` (per criterion when they have one);
    ``place`` is each row's place in battle order (:func:`positions`); ``state`` (a
    :class:`~core.jobs.JobState`) can cancel the replays."""
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(str(r.get("criterion") or ""), []).append(i)
    groups = dict(sorted(groups.items()))
    many = len(groups) > 1 or "" not in groups
    table_rows: list[list[Any]] = []
    panels = []
    for crit, idx in groups.items():
        sub = [rows[i] for i in idx]
        votes = encode_votes(col(sub, "a"), col(sub, "b"), col(sub, "winner"))
        sequence = np.argsort(place[np.asarray(idx)], kind="stable")
        res = online_elo_ratings(votes, sequence, n_boot=opt.n_boot, ci=opt.ci, k=opt.online_k,
                                 seed=opt.seed, check=state.check if state else None)
        best = np.argsort(-res.elo, kind="stable")
        for rank, i in enumerate(best, 1):
            table_rows.append([*([crit] if many else []), rank, res.models[i], num(res.elo[i]),
                               num(res.lo[i]), num(res.hi[i])])
        panels.append(EloPanel(crit or ONLINE_TITLE, list(res.models),
                               [float(x) for x in res.elo], [float(x) for x in res.lo],
                               [float(x) for x in res.hi]))
    boot = (f"{opt.n_boot:,} bootstrap replays of the votes in random order, {opt.ci:.0%} "
            f"interval, seed {opt.seed}" if opt.n_boot else "no bootstrap")
    where = {"tstamp": "in time order (tstamp)", "file": "in file order"}.get(
        ordered_by, "in the order listed")
    note = (f"FastChat's online Elo: every model starts at 1000 and each vote, {where}, moves "
            f"the two ratings by K = {opt.online_k:g} × (result − expected); {boot}. It "
            "depends on the order of the votes; the maximum-likelihood Elo above does not. "
            "Same numbers as “winnow stats elo FILE --online”.")
    columns = [*(["Criterion"] if many else []), "Rank", "Model", "Elo", "CI low", "CI high"]
    table = Table("online-elo", ONLINE_TITLE, columns, table_rows, note, FORMATS)
    return table, EloChart(panels, opt.ci, opt.n_boot, title=ONLINE_TITLE)
