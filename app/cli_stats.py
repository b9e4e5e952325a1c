"""``winnow stats ...`` subcommands: statistics on CSV files, JSON on stdout (SPEC §6).

Each command reads one CSV (see :mod:`core.stats.tables` for the formats), calls
:mod:`core.stats` and prints exactly the keys SPEC §6 lists.  ``bt``, ``elo`` and
``winrate`` also read arena battle JSON / JSON Lines and pairwise CSV / parquet tables
(:mod:`core.stats.votefiles`, ADRs 022–024), detected or forced with ``--format``.
A malformed file or input the method cannot handle raises ``ValueError``, which
``app.cli`` prints as one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from app.cli import seed_arg
from app.cli_stats_args import elo_k, likert_tau, non_negative_int, probability
from core import stats
from core.stats import tables
from core.stats.battles import (
    BOTHBAD_CHOICES,
    DUPLICATE_CHOICES,
    BattleOptions,
    VoteFile,
    describe_left_out,
    describe_unvoted,
)
from core.stats.bradley_terry import describe_groups
from core.stats.votefiles import (
    FORMAT_HELP,
    FORMATS,
    csv_has_votes,
    read_vote_file,
    resolve_format,
    vote_win_rates,
)
from core.visible_text import listed


def _print(data: object) -> int:
    from app.cli import print_json

    print_json(data)
    return 0


# -- handlers -------------------------------------------------------------------------

#: seconds between two progress lines on a terminal
PROGRESS_EVERY_S = 2.0


def _terminal_progress(what: str, unit: str) -> Callable[[int, int], None] | None:
    """A ``progress(done, total)`` that tells a person at a terminal how far a long
    computation is (stderr, at most every :data:`PROGRESS_EVERY_S`, and at the end); None
    when stderr is not a terminal, so scripts read exactly what they did before."""
    if not sys.stderr.isatty():
        return None
    last = [time.monotonic()]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= PROGRESS_EVERY_S:
            last[0] = now
            print(f"winnow stats: {what}: {done:,} of {total:,} {unit}", file=sys.stderr)

    return show



def _components(out: dict[str, object], groups: tuple[tuple[str, ...], ...],
                consequence: str = "the groups' places relative to each other rest on the "
                                   "prior alone", what: str = "votes") -> dict[str, object]:
    """Add ``"components"`` (and say so on stderr, naming the groups) when the votes or
    scores split into groups of models never compared with each other (ADR 021, 217)."""
    if len(groups) > 1:
        print(f"winnow stats: warning: the {what} split into {describe_groups(groups)}; "
              f'{consequence} (see "components")', file=sys.stderr)
        out["components"] = [list(g) for g in groups]
    return out


#: what a split means for win rates (each model's share of comparisons within its group)
WINRATE_SPLIT = "win rates of different groups are not comparable"


def _vote_file(args: argparse.Namespace) -> VoteFile:
    """The votes of ``args.file`` in any vote format, with what was left out said on stderr."""
    options = BattleOptions(
        bothbad=args.bothbad, anonymous_only=args.anonymous_only, duplicates=args.duplicates
    )
    vf = read_vote_file(args.file, args.format, options)
    dups = vf.duplicates
    if dups is not None:
        other = f", {dups.conflicting:,} of them with another winner" if dups.conflicting else ""
        fate = (
            "left out (--duplicates drop)"
            if dups.dropped
            else "counted, as FastChat does (--duplicates drop leaves them out)"
        )
        many = dups.count > 1
        print(
            f"winnow stats: warning: {dups.count:,} battle{'s' if many else ''} "
            f"repeat{'' if many else 's'} an earlier battle{other}; e.g. {dups.example}; {fate}",
            file=sys.stderr,
        )
    if vf.left_out:
        print(
            f"winnow stats: {vf.records:,} records read ({vf.source}); left out "
            f"{describe_left_out(vf.left_out)}; "
            f"{len(vf.votes):,} votes counted",
            file=sys.stderr,
        )
    if vf.unvoted:
        print(f"winnow stats: warning: {describe_unvoted(vf.unvoted)}: no score, left out",
              file=sys.stderr)
    return vf


def _reading(out: dict[str, object], vf: VoteFile) -> dict[str, object]:
    """Add ``"left_out"`` and ``"duplicates"`` when reading the file left out or found any."""
    if vf.left_out:
        out["left_out"] = dict(vf.left_out)
    if vf.duplicates is not None:
        out["duplicates"] = vf.duplicates.as_dict()
    return out


def cmd_bt(args: argparse.Namespace) -> int:
    vf = _vote_file(args)
    res = stats.fit_votes(vf.votes, method=args.method)
    return _print(
        _reading(
            _components({"scores": res.scores_dict(), "method": res.method}, res.components), vf
        )
    )


def cmd_elo(args: argparse.Namespace) -> int:
    vf = _vote_file(args)
    if args.online:
        from core.stats.online_elo import online_elo_ratings

        if vf.order is None:
            raise ValueError(
                f"{args.file}: a table of vote counts has no battle order; online "
                "Elo replays battles one by one (use the maximum-likelihood Elo)"
            )
        online = online_elo_ratings(
            vf.votes, vf.order, n_boot=args.bootstrap, ci=args.ci, k=args.k, seed=args.seed
        )
        return _print(
            _reading(
                {
                    "ratings": online.ratings_dict(),
                    "ci": online.ci,
                    "bootstrap": online.n_boot,
                    "method": "online",
                    "k": online.k,
                    "order": vf.ordered_by,
                },
                vf,
            )
        )
    res = stats.elo_ratings(vf.votes, n_boot=args.bootstrap, ci=args.ci, seed=args.seed,
                            progress=_terminal_progress("bootstrap", "resamples"))
    if flat := res.zero_width():
        print(
            f"winnow stats: warning: the bootstrap interval of {', '.join(flat)} has zero "
            "width: every resample of the votes gave the same rating — too few or too "
            "uniform votes, not that the rating is certain",
            file=sys.stderr,
        )
    out = {"ratings": res.ratings_dict(), "ci": res.ci, "bootstrap": res.n_boot}
    return _print(_reading(_components(out, res.components), vf))


def cmd_winrate(args: argparse.Namespace) -> int:
    fmt, _ = resolve_format(args.file, args.format)
    if fmt == "csv" and (args.format == "csv" or not csv_has_votes(args.file)):
        rec = tables.read_scores(args.file)  # the command's own CSV: per-output scores
        res = stats.win_rates(rec.sample, rec.model, rec.score, rec.judge)
        if alone := sorted(set(rec.model) - set(res.models)):
            many = len(alone) > 1
            print(f"winnow stats: warning: {len(alone):,} model{'s' if many else ''} "
                  f"({listed(alone)}) "
                  f"share{'' if many else 's'} no sample with another model: no win rate, "
                  "left out", file=sys.stderr)
        return _print(_components({"win_rate": res.win_rate_dict()}, res.components,
                                  WINRATE_SPLIT, "scores"))
    vf = _vote_file(args)
    res = vote_win_rates(vf.votes)
    return _print(_reading(_components({"win_rate": res.win_rate_dict()}, res.components,
                                       WINRATE_SPLIT), vf))


def cmd_kemeny(args: argparse.Namespace) -> int:
    table = tables.read_rankings(args.file)
    res = stats.kemeny_table(table)
    out = _components({"consensus": res.consensus, "score": res.score}, table.components,
                      "their order relative to each other in the consensus is arbitrary",
                      "rankings")
    if not res.exact:
        out["exact"] = False
        print(f"winnow stats: {len(res.consensus):,} models: more than "
              f"{stats.EXACT_MAX_ITEMS} for an exact consensus in reasonable time, so this "
              "is a local search's best order (\"exact\": false); it may not be the "
              "Kemeny-optimal one", file=sys.stderr)
    return _print(out)


def cmd_kendall(args: argparse.Namespace) -> int:
    table = tables.read_rankings(args.file)
    pairs = [{"a": p.a, "b": p.b, "tau_b": p.tau_b, "p": p.p} for p in stats.rater_pairs(table)]
    cons = stats.vs_consensus(table, per_item=args.consensus == "item")
    _kendall_nulls(table.raters, pairs, cons)
    return _print({"pairs": pairs, "vs_consensus": cons})


def _kendall_nulls(raters: tuple[str, ...], pairs: Sequence[Mapping[str, object]],
                   cons: dict[str, float | None]) -> None:
    """Say on stderr why ``pairs`` is empty or a tau-b is null (ADR 013, 212)."""
    why = ("fewer than two shared (item, model) ranks, or one side ranks them all the "
           "same")
    if len(raters) == 1:
        print(f"winnow stats: warning: only one rater ({listed(raters)}): no pair of raters "
              'to compare ("pairs" is empty)', file=sys.stderr)
    if undefined := [f"{p['a']!r} and {p['b']!r}" for p in pairs if p["tau_b"] is None]:
        more = f" and {len(undefined) - 3:,} more" if len(undefined) > 3 else ""
        print(f"winnow stats: warning: tau-b is undefined (null) for {len(undefined):,} of "
              f"{len(pairs):,} pairs of raters ({'; '.join(undefined[:3])}{more}): {why}",
              file=sys.stderr)
    if alone := [r for r, t in cons.items() if t is None]:
        print(f"winnow stats: warning: tau-b is undefined (null) for {len(alone):,} "
              f"rater{'s' if len(alone) > 1 else ''} ({listed(alone)}) against the "
              f"consensus: {why}", file=sys.stderr)


def cmd_friedman(args: argparse.Namespace) -> int:
    res = stats.friedman_table(tables.read_rankings(args.file), posthoc=args.posthoc)
    posthoc = [{"a": p.a, "b": p.b, "p": p.p, "p_adj": p.p_adj} for p in res.posthoc]
    return _print({"statistic": res.statistic, "p": res.p, "posthoc": posthoc})


def cmd_alpha(args: argparse.Namespace) -> int:
    rec = tables.read_ratings(args.file, level=args.level)
    value = stats.alpha_records(rec.rater, rec.unit, rec.value, level=args.level)
    return _print({"alpha": value, "level": args.level})


def cmd_success(args: argparse.Namespace) -> int:
    res = stats.success_rates(tables.read_likert(args.file), tau=args.tau)
    return _print({"success": res.as_dict(), "tau": res.tau})


def cmd_idea(args: argparse.Namespace) -> int:
    rec = tables.read_checklist(args.file)
    res = stats.idea_scores(rec.model, rec.category, rec.subtask, rec.case, rec.answers)
    return _print({"scores": res.as_dict()})


def _memory_guarded(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A handler whose MemoryError becomes one clear line (exit 2), not a traceback, and
    whose every refusal names the file (the statistic's own — "alpha is undefined: …" —
    do not: the reading's do)."""

    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except MemoryError:
            raise ValueError(
                f"{args.file}: not enough memory for this statistic on this "
                "file; use a smaller file or fewer bootstrap resamples"
            ) from None
        except ValueError as exc:
            name = Path(args.file).name
            if str(exc).startswith((name, str(args.file))):
                raise
            raise ValueError(f"{name}: {exc}") from None

    return run


# -- parser ---------------------------------------------------------------------------

#: what each command prints (SPEC §6), for its --help
OUTPUTS = {
    "bt": '{"scores": {model: score}, "method": "ml" | "map"}, scores summing to 100',
    "elo": '{"ratings": {model: {"elo": x, "lo": l, "hi": h}}, "ci": c, "bootstrap": n}',
    "winrate": '{"win_rate": {model: r}}, r from 0 to 1',
    "kemeny": '{"consensus": [models best to worst], "score": agreements}',
    "kendall": '{"pairs": [{"a": rater, "b": rater, "tau_b": t, "p": p}], '
               '"vs_consensus": {rater: tau_b}} (null where tau-b is undefined)',
    "friedman": '{"statistic": s, "p": p, "posthoc": [{"a": m1, "b": m2, "p": raw, '
                '"p_adj": bonferroni}]}',
    "alpha": '{"alpha": x, "level": level}',
    "success": '{"success": {model: {criterion: fraction, "overall": fraction}}, "tau": t}',
    "idea": '{"scores": {model: {category: percent, "overall": percent}}}',
}
EXIT_STATUS = ("Exit status 0 when the result was printed; 2 when the file, an option or "
               "the data cannot give it (one line on stderr naming the file, and the row "
               "and column where one is at fault). Warnings go to stderr.")


def _epilog(name: str) -> str:
    return f"Prints JSON on stdout: {OUTPUTS[name]}. {EXIT_STATUS}"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stats`` command group."""
    stats_parser = subparsers.add_parser(
        "stats",
        help="statistics on CSV files (JSON on stdout)",
        description="Statistics on CSV files; the result is printed as JSON on stdout.",
        epilog=EXIT_STATUS,
    )
    sub = stats_parser.add_subparsers(dest="stats_command", metavar="METHOD")

    def _help(_: argparse.Namespace) -> int:
        stats_parser.print_help()
        return 2

    stats_parser.set_defaults(handler=_help)

    def add(name: str, fn: Callable[[argparse.Namespace], int], help_: str, columns: str):
        p = sub.add_parser(name, help=help_, description=f"{help_}. CSV columns: {columns}.",
                           epilog=_epilog(name))
        p.add_argument("file", metavar="FILE.csv", help=f"CSV with columns {columns}")
        p.set_defaults(handler=_memory_guarded(fn))
        return p

    def add_votes(
        name: str, fn: Callable[[argparse.Namespace], int], help_: str, columns: str
    ) -> argparse.ArgumentParser:
        formats = "; ".join(f"{k}: {v}" for k, v in FORMAT_HELP.items() if k != "csv")
        p = sub.add_parser(
            name,
            help=help_,
            description=(
                f"{help_}. FILE is a CSV with columns {columns}, or arena vote data: {formats}. "
                "The format is detected from the content and the extension (--format forces "
                "it); docs/adr/022-024 give the rules."
            ),
            epilog=_epilog(name),
        )
        p.add_argument(
            "file",
            metavar="FILE",
            help="votes: CSV, battle JSON / JSON Lines, or a pairwise CSV / parquet table",
        )
        p.add_argument(
            "--format",
            choices=("auto", *FORMATS),
            default="auto",
            help="read FILE as this format (default: detect it)",
        )
        p.add_argument(
            "--bothbad",
            choices=BOTHBAD_CHOICES,
            default="tie",
            help="'tie (bothbad)' votes: count as ties (default, as FastChat) or drop them",
        )
        p.add_argument(
            "--anonymous-only",
            action="store_true",
            help="count only battles with anony: true (FastChat's leaderboard)",
        )
        p.add_argument(
            "--duplicates",
            choices=DUPLICATE_CHOICES,
            default="keep",
            help="battles repeating an earlier battle's id: keep (default, as "
            "FastChat) or drop; either way they are reported",
        )
        p.set_defaults(handler=_memory_guarded(fn))
        return p

    p = add_votes(
        "bt", cmd_bt, "Bradley-Terry scores (sum to 100)", "a,b,winner (winner: a, b or tie)"
    )
    p.add_argument(
        "--method",
        choices=("auto", "ml", "map"),
        default="auto",
        help="ml, map (Newman's prior) or auto: ml when it exists (default)",
    )
    p = add_votes("elo", cmd_elo, "Elo ratings with bootstrap intervals", "a,b,winner")
    p.add_argument(
        "--bootstrap", type=non_negative_int, default=1000, help="resamples (default 1000)"
    )
    p.add_argument("--ci", type=probability, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--seed", type=seed_arg, default=None, help="random seed (default: random)")
    p.add_argument(
        "--online",
        action="store_true",
        help="FastChat's online Elo (battles replayed in time order, K per "
        "battle) instead of the maximum-likelihood fit",
    )
    p.add_argument(
        "--k",
        type=elo_k,
        default=4.0,
        help="K of the online Elo (default 4, as FastChat)",
    )
    add_votes(
        "winrate",
        cmd_winrate,
        "ECHO pseudo-pairwise win rate (of per-output scores, "
        "or each model's share of its battles won)",
        "sample,model,score[,judge] (or votes a,b,winner)",
    )
    add("kemeny", cmd_kemeny, "Kemeny-Young consensus ranking", "rater,item,model,rank (1 = best)")
    p = add(
        "kendall",
        cmd_kendall,
        "Kendall tau-b between raters and vs the consensus",
        "rater,item,model,rank",
    )
    p.add_argument(
        "--consensus",
        choices=("global", "item"),
        default="global",
        help="consensus over all rankings (global, default) or one per item",
    )
    p = add(
        "friedman",
        cmd_friedman,
        "Friedman test with pairwise post-hoc (Bonferroni)",
        "rater,item,model,rank",
    )
    p.add_argument(
        "--posthoc",
        choices=stats.POSTHOC_METHODS,
        default="dunn",
        help="dunn (as ECHO, default), siegel, conover or nemenyi (Friedman-specific)",
    )
    p = add("alpha", cmd_alpha, "Krippendorff's alpha", "rater,unit,value")
    p.add_argument(
        "--level",
        choices=stats.LEVELS,
        default="interval",
        help="level of measurement (default interval)",
    )
    p = add("success", cmd_success, "TECCI success rates", "rater,unit,model,criterion,value")
    p.add_argument("--tau", type=likert_tau, default=4.0, help="threshold, 1 to 5 (default 4)")
    add("idea", cmd_idea, "IDEA-Bench hierarchical scores", "model,category,subtask,case,q1..q6")
