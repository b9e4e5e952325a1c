"""Benchmark statistics (SPEC §6): pure numpy/scipy functions, no Qt, no I/O except ``tables``.

Public API (see each module for details):

* votes / Bradley-Terry / Elo: :func:`encode_votes`, :func:`win_matrix`,
  :func:`fit_strengths`, :func:`bradley_terry`, :func:`fit_votes`, :func:`elo`,
  :func:`elo_ratings`, :func:`elo_from_strengths`
* win rate (ECHO): :func:`win_rates`, :func:`win_rates_from_tensor`
* rankings: :func:`ranking_table`, :func:`pairwise_preferences`, :func:`kemeny`,
  :func:`kemeny_table`, :func:`kemeny_order`, :func:`kemeny_per_item`,
  :func:`kendall_tau_b`, :func:`rater_pairs`, :func:`rater_matrix`,
  :func:`vs_consensus`, :func:`friedman`, :func:`friedman_table`
* agreement and raters: :func:`alpha`, :func:`alpha_records`,
  :func:`correlation_with_others`, :func:`filter_raters`, :func:`rating_matrix`
* Likert / checklists: :func:`likert_means`, :func:`success`, :func:`success_rates`,
  :func:`success_sweep`, :func:`zscore_calibrate`, :func:`calibrate_per_criterion`,
  :func:`case_scores`, :func:`idea_scores`
* CSV files: :mod:`core.stats.tables` (``read_votes`` … ``read_checklist``)
"""

from core.stats.bradley_terry import BTResult, bradley_terry, fit_strengths, fit_votes, ml_exists
from core.stats.calibration import ZParams, calibrate_per_criterion, zscore_calibrate, zscore_params
from core.stats.elo import EloResult, elo, elo_from_strengths, elo_ratings
from core.stats.friedman import POSTHOC_METHODS, FriedmanResult, friedman, friedman_table
from core.stats.idea import IdeaResult, case_scores, idea_scores
from core.stats.kemeny import (
    EXACT_MAX_ITEMS,
    KemenyResult,
    kemeny,
    kemeny_order,
    kemeny_per_item,
    kemeny_table,
)
from core.stats.krippendorff_alpha import LEVELS, AlphaUndefinedError, alpha, alpha_records
from core.stats.rank_correlation import (
    RaterPair,
    kendall_tau_b,
    rater_matrix,
    rater_pairs,
    vs_consensus,
)
from core.stats.rankings import RankingTable, pairwise_preferences, ranking_table
from core.stats.raters import RaterFilter, correlation_with_others, filter_raters, rating_matrix
from core.stats.success import (
    LikertMeans,
    SuccessResult,
    likert_means,
    success,
    success_rates,
    success_sweep,
)
from core.stats.votes import Votes, encode_votes, win_matrix
from core.stats.winrate import WinRateResult, win_rates, win_rates_from_tensor

__all__ = [
    "EXACT_MAX_ITEMS",
    "LEVELS",
    "POSTHOC_METHODS",
    "AlphaUndefinedError",
    "BTResult",
    "EloResult",
    "FriedmanResult",
    "IdeaResult",
    "KemenyResult",
    "LikertMeans",
    "RankingTable",
    "RaterFilter",
    "RaterPair",
    "SuccessResult",
    "Votes",
    "WinRateResult",
    "ZParams",
    "alpha",
    "alpha_records",
    "bradley_terry",
    "calibrate_per_criterion",
    "case_scores",
    "correlation_with_others",
    "elo",
    "elo_from_strengths",
    "elo_ratings",
    "encode_votes",
    "filter_raters",
    "fit_strengths",
    "fit_votes",
    "friedman",
    "friedman_table",
    "idea_scores",
    "kemeny",
    "kemeny_order",
    "kemeny_per_item",
    "kemeny_table",
    "kendall_tau_b",
    "likert_means",
    "ml_exists",
    "pairwise_preferences",
    "ranking_table",
    "rater_matrix",
    "rater_pairs",
    "rating_matrix",
    "success",
    "success_rates",
    "success_sweep",
    "vs_consensus",
    "win_matrix",
    "win_rates",
    "win_rates_from_tensor",
    "zscore_calibrate",
    "zscore_params",
]
