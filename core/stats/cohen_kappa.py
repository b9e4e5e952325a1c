"""Cohen's kappa: chance-corrected agreement of two raters on nominal labels.

Cohen (1960): with ``p_o`` the share of units both raters labelled alike and ``p_e``
the agreement expected from their marginal label frequencies,
``kappa = (p_o - p_e) / (1 - p_e)``.  Undefined (:class:`KappaUndefinedError`) with no
units, or when both raters used one and the same label throughout (``p_e = 1``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


class KappaUndefinedError(ValueError):
    """Cohen's kappa cannot be computed for these labels."""


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa of two raters' labels on the same units (``a[i]``, ``b[i]``)."""
    if len(a) != len(b):
        raise ValueError("both raters must label the same units")
    n = len(a)
    if n == 0:
        raise KappaUndefinedError("Cohen's kappa is undefined: no unit labelled by both")
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    p_e = sum(count_a[k] * count_b.get(k, 0) for k in count_a) / (n * n)
    if p_e >= 1.0:
        raise KappaUndefinedError("Cohen's kappa is undefined: both raters gave every unit "
                                  "the same label")
    return (p_o - p_e) / (1.0 - p_e)
