"""Reference values and timings from dp_accounting, prv_accountant and Gymnasium for dprl's cross-checks.

Usage: python ref.py MODE < cases.json > results.json, MODE one of rdp, pld, env, bench. The Go side
(crosscheck/*_test.go and crosscheck/cmd/bench) writes the cases and compares; this script only computes
what the reference libraries say, one JSON object per case, in the order given.
"""

import json
import math
import sys
import time
import warnings

from absl import logging as absl_logging

import numpy as np

warnings.filterwarnings("ignore")
absl_logging.set_verbosity(absl_logging.ERROR)


def fin(x):
    """A float for JSON: non-finite values as the strings "inf", "-inf", "nan" (crosscheck.Num reads them)."""
    x = float(x)
    return x if math.isfinite(x) else str(x)


def rdp_quadrature(q, sigma, alpha, dps=50):
    """RDP of one Poisson-subsampled Gaussian step at order alpha by mpmath quadrature (Mironov et al. 2019:
    log E_{x~N(0,σ²)}[(1 − q + q·exp((2x − 1)/(2σ²)))^α] / (α − 1)), independent of both implementations."""
    import mpmath as mp

    with mp.workdps(dps):
        q, s, a = mp.mpf(q), mp.mpf(sigma), mp.mpf(alpha)
        f = lambda x: mp.npdf(x, 0, s) * (1 - q + q * mp.exp((2 * x - 1) / (2 * s * s))) ** a
        # log A is tiny when q/σ is small: integrate A − 1 for the precision (E[·] of 1 is 1).
        g = lambda x: f(x) - mp.npdf(x, 0, s)
        pts = [-mp.inf, -20 * s, -5 * s, 0, mp.mpf(0.5), 5 * s, 20 * s + 1, mp.inf]
        am1 = mp.quad(g, pts)
        return float(mp.log1p(am1) / (a - 1))


def rdp_one(c):
    from dp_accounting.rdp import rdp_privacy_accountant as r

    orders = np.asarray(c["orders"], dtype=float)
    if c["kind"] == "poisson":
        one = r._compute_rdp_poisson_subsampled_gaussian(c["q"], c["sigma"], orders)
    else:
        one = r._compute_rdp_sample_wor_gaussian(c["q"], c["sigma"], orders)
    # RdpAccountant.compose multiplies by the count and get_epsilon calls compute_epsilon: the same here.
    total = np.atleast_1d(one) * c["steps"]
    eps, _ = r.compute_epsilon(orders, total, c["delta"])
    eps_ours, _ = r.compute_epsilon(orders, np.asarray(c["ours"], dtype=float), c["delta"])
    quad = [fin(rdp_quadrature(c["q"], c["sigma"], a) * c["steps"]) for a in c.get("quad_orders", [])]
    return {"rdp": [fin(v) for v in total], "epsilon": fin(eps), "epsilon_of_ours": fin(eps_ours), "quad": quad}


def rdp(cases):
    import multiprocessing as mpr

    with mpr.Pool(2) as pool:
        return pool.map(rdp_one, cases, chunksize=4)


def dpa_pld_epsilon(q, sigma, steps, delta, h):
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant as p

    acc = p.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=h)
    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
    return float(acc.get_epsilon(delta))


def prv_epsilon(q, sigma, steps, delta, eps_error):
    from prv_accountant import Accountant

    acc = Accountant(noise_multiplier=sigma, sampling_probability=q, delta=delta, eps_error=eps_error,
                     max_compositions=steps)
    lo, est, hi = acc.compute_epsilon(num_compositions=steps)
    return float(lo), float(est), float(hi)


def pld_one(c):
    r = {}
    if c.get("dpa", True):
        r["dpa"] = fin(dpa_pld_epsilon(c["q"], c["sigma"], c["steps"], c["delta"], c["h"]))
    lo, est, hi = prv_epsilon(c["q"], c["sigma"], c["steps"], c["delta"], c["eps_error"])
    r.update({"prv_lower": fin(lo), "prv_estimate": fin(est), "prv_upper": fin(hi)})
    return r


def pld(cases):
    import multiprocessing as mpr

    with mpr.Pool(2) as pool:
        return pool.map(pld_one, cases, chunksize=1)


GYM_IDS = {"cartpole": "CartPole-v1", "mountaincar": "MountainCar-v0", "acrobot": "Acrobot-v1",
           "taxi": "Taxi-v4", "lunarlander": "LunarLander-v3"}


class RecordingRNG:
    """Wraps a numpy Generator and records every uniform draw, flattened, in call order."""

    def __init__(self, g):
        self.g, self.draws = g, []

    def uniform(self, low=0.0, high=1.0, size=None):
        v = self.g.uniform(low, high, size)
        self.draws.extend(float(x) for x in np.ravel(v))
        return v

    def __getattr__(self, name):
        return getattr(self.g, name)


def env_case(c):
    import gymnasium as gym

    env = gym.make(GYM_IDS[c["env"]])
    u = env.unwrapped
    if c["env"] == "lunarlander":
        env.reset(seed=c["seed"])  # creates the generator; the recorded episode is the next one
        rec = RecordingRNG(np.random.default_rng(c["seed"]))
        u._np_random = rec
        obs, _ = env.reset()
        states = [[float(x) for x in obs]]
    else:
        env.reset(seed=c["seed"])
        if c["env"] == "taxi":
            u.s = int(c["state"][0])
        else:
            u.state = np.array(c["state"], dtype=np.float64)
        states = []
    rows = []
    for a in c["actions"]:
        obs, rew, term, trunc, _ = env.step(a)
        if c["env"] == "taxi":
            st = [float(u.s)]
        elif c["env"] == "lunarlander":
            st = [float(x) for x in obs]
        else:
            st = [float(x) for x in u.state]
        rows.append({"state": st, "obs": [float(x) for x in np.ravel(obs)], "reward": float(rew),
                     "terminated": bool(term), "truncated": bool(trunc)})
        if term or trunc:
            break
    r = {"steps": rows}
    if c["env"] == "lunarlander":
        r["draws"] = rec.draws
        r["reset_obs"] = states[0]
    env.close()
    return r


def env(cases):
    return [env_case(c) for c in cases]


def timeit(f, min_time=0.5, min_reps=3):
    """Median seconds per call of f over at least min_reps calls and min_time seconds."""
    f()
    times = []
    t_end = time.perf_counter() + min_time
    while len(times) < min_reps or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), len(times)


def bench(cases):
    import gymnasium as gym
    import dp_accounting
    from dp_accounting.pld import common, privacy_loss_mechanism as plm
    from dp_accounting.rdp import rdp_privacy_accountant as r

    out = []
    for c in cases:
        w = c["workload"]
        val = None
        if w == "pld_dpa":
            f = lambda: dpa_pld_epsilon(c["q"], c["sigma"], c["steps"], c["delta"], c["h"])
        elif w == "pld_prv":
            f = lambda: prv_epsilon(c["q"], c["sigma"], c["steps"], c["delta"], c["eps_error"])[1]
        elif w == "rdp":
            def f():
                acc = r.RdpAccountant(c["orders"], dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE)
                acc.compose(dp_accounting.PoissonSampledDpEvent(c["q"], dp_accounting.GaussianDpEvent(c["sigma"])),
                            c["steps"])
                return float(acc.get_epsilon(c["delta"]))
        elif w == "analytic_gaussian_sigma":
            def f():
                g = plm.GaussianPrivacyLoss.from_privacy_guarantee(
                    common.DifferentialPrivacyParameters(c["epsilon"], c["delta"]), sensitivity=1.0)
                return float(g.standard_deviation)
        elif w.startswith("env_"):
            name = w[4:]
            e = gym.make(GYM_IDS[name])
            e.reset(seed=1)
            n_act = e.action_space.n
            k = [0]

            def f():
                for _ in range(1000):
                    a = (k[0] // 3) % n_act
                    k[0] += 1
                    _, _, term, trunc, _ = e.step(a)
                    if term or trunc:
                        e.reset()
            sec, reps = timeit(f, c.get("min_time", 0.5))
            out.append({"seconds": sec / 1000, "reps": reps * 1000})
            e.close()
            continue
        else:
            raise ValueError("unknown workload " + w)
        sec, reps = timeit(f, c.get("min_time", 0.5))
        out.append({"seconds": sec, "reps": reps, "value": fin(f())})
    return out


def main():
    mode = sys.argv[1]
    cases = json.load(sys.stdin)
    res = {"rdp": rdp, "pld": pld, "env": env, "bench": bench}[mode](cases)
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
