"""``winnow stats ...`` subcommands: statistics on CSV files, JSON on stdout (SPEC §6).

Each command reads one CSV (see :mod:`core.stats.tables` for the formats), calls
:mod:`core.stats` and prints exactly the keys SPEC §6 lists.  A malformed file or
input the method cannot handle raises ``ValueError``, which ``app.cli`` prints as
one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from core import stats
from core.stats import tables


def _print(data: object) -> int:
    from app.cli import print_json

    print_json(data)
    return 0


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number between 0 and 1, got {text!r}"
        ) from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(
            f"expected a number between 0 and 1 (exclusive), got {text!r}"
        )
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def _finite_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _likert_tau(text: str) -> float:
    value = _finite_float(text)
    lo, hi = tables.LIKERT_RANGE
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"expected a threshold from {lo:g} to {hi:g}, got {text!r}")
    return value


# -- handlers -------------------------------------------------------------------------


def _components(out: dict[str, object], groups: tuple[tuple[str, ...], ...]) -> dict[str, object]:
    """Add ``"components"`` (and say so on stderr) when the votes split into groups."""
    if len(groups) > 1:
        sizes = ", ".join(str(len(g)) for g in groups)
        print(
            f"winnow stats: warning: the votes split into {len(groups)} groups of models that "
            f"are never compared with each other (sizes {sizes}); the groups' places relative "
            "to each other rest on the prior alone (see \"components\")",
            file=sys.stderr,
        )
        out["components"] = [list(g) for g in groups]
    return out


def cmd_bt(args: argparse.Namespace) -> int:
    res = stats.fit_votes(tables.read_votes(args.file), method=args.method)
    return _print(_components({"scores": res.scores_dict(), "method": res.method},
                              res.components))


def cmd_elo(args: argparse.Namespace) -> int:
    votes = tables.read_votes(args.file)
    res = stats.elo_ratings(votes, n_boot=args.bootstrap, ci=args.ci, seed=args.seed)
    out = {"ratings": res.ratings_dict(), "ci": res.ci, "bootstrap": res.n_boot}
    return _print(_components(out, res.components))


def cmd_winrate(args: argparse.Namespace) -> int:
    rec = tables.read_scores(args.file)
    res = stats.win_rates(rec.sample, rec.model, rec.score, rec.judge)
    return _print({"win_rate": res.win_rate_dict()})


def cmd_kemeny(args: argparse.Namespace) -> int:
    res = stats.kemeny_table(tables.read_rankings(args.file))
    out: dict[str, object] = {"consensus": res.consensus, "score": res.score}
    if not res.exact:
        out["exact"] = False
    return _print(out)


def cmd_kendall(args: argparse.Namespace) -> int:
    table = tables.read_rankings(args.file)
    pairs = [{"a": p.a, "b": p.b, "tau_b": p.tau_b, "p": p.p} for p in stats.rater_pairs(table)]
    cons = stats.vs_consensus(table, per_item=args.consensus == "item")
    return _print({"pairs": pairs, "vs_consensus": cons})


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
    """A handler whose MemoryError becomes one clear line (exit 2), not a traceback."""

    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except MemoryError:
            raise ValueError(f"{args.file}: not enough memory for this statistic on this "
                             "file; use a smaller file or fewer bootstrap resamples") from None

    return run


# -- parser ---------------------------------------------------------------------------


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stats`` command group."""
    stats_parser = subparsers.add_parser(
        "stats",
        help="statistics on CSV files (JSON on stdout)",
        description="Statistics on CSV files; the result is printed as JSON on stdout.",
    )
    sub = stats_parser.add_subparsers(dest="stats_command", metavar="METHOD")

    def _help(_: argparse.Namespace) -> int:
        stats_parser.print_help()
        return 2

    stats_parser.set_defaults(handler=_help)

    def add(name: str, fn: Callable[[argparse.Namespace], int], help_: str, columns: str):
        p = sub.add_parser(name, help=help_, description=f"{help_}. CSV columns: {columns}.")
        p.add_argument("file", metavar="FILE.csv", help=f"CSV with columns {columns}")
        p.set_defaults(handler=_memory_guarded(fn))
        return p

    p = add("bt", cmd_bt, "Bradley-Terry scores (sum to 100)", "a,b,winner (winner: a, b or tie)")
    p.add_argument(
        "--method",
        choices=("auto", "ml", "map"),
        default="auto",
        help="ml, map (Newman's prior) or auto: ml when it exists (default)",
    )
    p = add("elo", cmd_elo, "Elo ratings with bootstrap intervals", "a,b,winner")
    p.add_argument(
        "--bootstrap", type=_non_negative_int, default=1000, help="resamples (default 1000)"
    )
    p.add_argument("--ci", type=_probability, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    add("winrate", cmd_winrate, "ECHO pseudo-pairwise win rate", "sample,model,score[,judge]")
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
    p.add_argument("--tau", type=_likert_tau, default=4.0, help="threshold, 1 to 5 (default 4)")
    add("idea", cmd_idea, "IDEA-Bench hierarchical scores", "model,category,subtask,case,q1..q6")
