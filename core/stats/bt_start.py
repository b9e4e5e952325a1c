"""A starting point for Newman's Bradley-Terry iteration: Newton's method on the same
(penalized) log-likelihood, batched.

Newman's iteration (:mod:`core.stats.bradley_terry`) is the definition of the estimate
(SPEC §6, ADR 010), but from ``pi = 1`` it needs tens of thousands of sweeps when the
comparison graph is sparse and wide (1,000 models each compared with a few neighbours),
each sweep a Python loop over the models. Its fixed points are exactly the stationary
points of the log-likelihood in ``theta = log pi``,

    L(theta) = sum_ij W_ij log s(theta_i - theta_j)   [+ sum_i log s(theta_i) + log s(-theta_i)]

(``s`` the logistic function; the bracket is eq. 26's prior: one virtual win and one
virtual loss against a player of strength 1). ``L`` is concave, so damped Newton steps
reach its maximum in a handful of K × K solves; the Newman sweeps that follow only
confirm it (their change is then below the tolerance at once).
"""

from __future__ import annotations

import numpy as np

_ARMIJO = 1e-4
_MAX_HALVINGS = 40
_FULL_STEP = 1e-6  # steps this small are taken whole (quadratic convergence)


def _loglik(theta: np.ndarray, w: np.ndarray, prior: np.ndarray) -> np.ndarray:
    d = theta[:, :, None] - theta[:, None, :]
    value: np.ndarray = -np.einsum("bij,bij->b", w, np.logaddexp(0.0, -d))
    value -= prior * (np.logaddexp(0.0, -theta) + np.logaddexp(0.0, theta)).sum(axis=1)
    return value


def newton_start(w: np.ndarray, use_prior: np.ndarray, tol: float = 1e-12,
                 max_iter: int = 100, start: np.ndarray | None = None) -> np.ndarray:
    """Log-strengths maximizing the (penalized) likelihood of each ``w`` in ``(B, K, K)``.

    ML rows (``use_prior`` False) must have an ML estimate (strongly connected); their
    result has mean 0. ``start`` (``(K,)`` or ``(B, K)`` log-strengths) is where the steps
    begin — a nearby point, such as the full-data fit for a bootstrap resample, saves
    most of them. Returns ``theta`` of shape ``(B, K)``.
    """
    b, k, _ = w.shape
    n = w + np.swapaxes(w, -1, -2)  # comparisons per pair
    wins = w.sum(axis=2)
    prior = use_prior.astype(float)
    ml = ~use_prior
    theta = np.zeros((b, k)) if start is None else np.broadcast_to(
        np.nan_to_num(np.asarray(start, dtype=float)), (b, k)).copy()
    active = np.arange(b)
    eye = np.eye(k, dtype=bool)
    for _ in range(max_iter):
        th, wa, na, pr = theta[active], w[active], n[active], prior[active]
        p = 1.0 / (1.0 + np.exp(th[:, None, :] - th[:, :, None]))  # P(i beats j)
        grad = wins[active] - np.einsum("bij,bij->bi", na, p)
        s = 1.0 / (1.0 + np.exp(-th))
        grad += pr[:, None] * (1.0 - 2.0 * s)
        h = na * p * (1.0 - p)  # minus the Hessian, off the diagonal negated
        h *= -1.0
        diag = -h.sum(axis=2) + pr[:, None] * 2.0 * s * (1.0 - s)
        h[:, eye] = diag
        h[ml[active]] += 1.0 / k  # fixes the free scale of ML: steps sum to zero
        try:
            step = np.linalg.solve(h, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            break  # leave the rest to Newman's iteration
        base = _loglik(th, wa, pr)
        slope = np.einsum("bi,bi->b", grad, step)
        small = np.max(np.abs(step), axis=1) < _FULL_STEP  # near the top: no rounding games
        t = np.ones(active.size)
        new = th + step
        for _ in range(_MAX_HALVINGS):
            ok = small | (_loglik(new, wa, pr) >= base + _ARMIJO * t * slope)
            if ok.all():
                break
            t = np.where(ok, t, t / 2.0)
            new = th + t[:, None] * step
        theta[active] = new
        moved = np.max(np.abs(t[:, None] * step), axis=1)
        active = active[moved >= tol]
        if active.size == 0:
            break
    theta[ml] -= theta[ml].mean(axis=1, keepdims=True)
    return theta
