"""Reference values and timings from dp_accounting, prv_accountant, Gymnasium, PyTorch, Opacus and
dp-accelerator for dprl's cross-checks and `make bench`.

Usage: python ref.py MODE < cases.json > results.json, MODE one of rdp, pld, env, train, dpacc_orders,
bench. The Go side (crosscheck/*_test.go and crosscheck/cmd/bench) writes the cases and compares; this
script only computes what the reference libraries say, one JSON object per case, in the order given.
PyTorch, Opacus and dp-accelerator are imported only by the modes that use them: train and bench's MLP
workloads need the performance-anchor environment (requirements-perf.lock), the rest run in either.
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


def log_a_poisson_frac_signed(q, sigma, alpha):
    """ln A_α of one Poisson-subsampled Gaussian step at a fractional order α: dp_accounting 0.6.0's series
    (_compute_log_a_frac, Mironov, Talwar and Zhang 2019 §3.3) term for term, but with the sign of each
    binomial coefficient C(α, i) kept. dp_accounting adds |C(α, i)|·(…) for every i, which for i > α + 1
    (where the signs alternate) gives a valid but looser upper bound; the signed sum is the value itself.
    Positive and negative terms are summed separately in log space and subtracted once at the end. Returns
    None when the series has not converged after 10⁵ terms."""
    from scipy import special
    from dp_accounting.rdp import rdp_privacy_accountant as r

    z0 = sigma**2 * math.log(1 / q - 1) + 0.5
    lq, l1q, rs = math.log(q), math.log1p(-q), math.sqrt(2) * sigma
    pos = neg = -math.inf
    for i in range(100000):
        lc, j = r._log_comb(alpha, i), alpha - i
        s0 = lc + i * lq + j * l1q + (i * i - i) / (2 * sigma**2) + math.log(0.5) + r._log_erfc((i - z0) / rs)
        s1 = lc + j * lq + i * l1q + (j * j - j) / (2 * sigma**2) + math.log(0.5) + r._log_erfc((z0 - j) / rs)
        if special.binom(alpha, i) >= 0:
            pos = r._log_add(pos, r._log_add(s0, s1))
        else:
            neg = r._log_add(neg, r._log_add(s0, s1))
        if i > alpha + 1 and max(s0, s1) < pos - 40:
            return pos + math.log1p(-math.exp(neg - pos))
    return None


def log_a_poisson_int_exact(q, sigma, alpha):
    """ln A_α of one Poisson-subsampled Gaussian step at an integer order α, from the binomial expansion
    A = Σ_k C(α, k) (1 − q)^{α−k} q^k e^{k(k−1)/(2σ²)} (all terms positive) in 60-digit mpmath."""
    import mpmath as mp

    with mp.workdps(60):
        qq, s2 = mp.mpf(q), 2 * mp.mpf(sigma) ** 2
        a = mp.fsum(mp.binomial(alpha, k) * (1 - qq) ** (alpha - k) * qq**k * mp.exp(mp.mpf(k * k - k) / s2)
                    for k in range(alpha + 1))
        return float(mp.log(a))


class WORExact:
    """WBK Theorem 27 (arXiv:1808.00087) for the Gaussian sampled without replacement, in the form
    dp_accounting 0.6.0 evaluates it (_compute_rdp_sample_wor_gaussian_int: Theorem 27 terms up to order
    256, Theorem 9 terms above, linear interpolation of ln A between integer orders), but with the forward
    differences Δ^m h(0) (the χ^m divergences, h(k) = e^{k(k−1)/(2σ²)}) and the sum computed in mpmath
    instead of by dp_accounting's float64 log-space differencing. The working precision is raised until it
    is provably enough: Δ^m h(0) = Σ_k (−1)^{m−k} C(m, k) h(k) is computed with an absolute error below
    (m + 1)·max_k C(m, k) h(k)·10^{1−dps}, and every Δ^m h(0) must exceed that by 10³⁰ (30 correct digits);
    the final sum has only positive terms."""

    def __init__(self, q, sigma, max_order):
        import mpmath as mp

        self.mp = mp
        m_max = 2 * ((min(max_order, 256) + 2) // 2)
        # log10 of the largest term of each difference, in float64 (only its size matters).
        lt = {m: max(math.log10(math.comb(m, k)) + k * (k - 1) / (2 * sigma**2) / math.log(10)
                     for k in range(m + 1)) for m in range(2, m_max + 1, 2)}
        dps = 50
        while True:
            with mp.workdps(dps):
                s2 = 2 * mp.mpf(sigma) ** 2
                h = [mp.exp(mp.mpf(k * (k - 1)) / s2) for k in range(m_max + 1)]
                d = {m: mp.fsum((-1) ** (m - k) * mp.binomial(m, k) * h[k] for k in range(m + 1))
                     for m in range(2, m_max + 1, 2)}
                need = max(lt[m] + math.log10(m + 1) + 31 - float(mp.log10(d[m])) if d[m] > 0 else 2 * dps
                           for m in d)
            if need <= dps:
                break
            if dps > 10**5:
                raise ValueError(f"WORExact: no precision up to {dps} digits suffices (q={q}, sigma={sigma})")
            dps = int(need) + 10
        self.dps = dps
        with mp.workdps(dps):
            self.q, self.s2, self.d = mp.mpf(q), 2 * mp.mpf(sigma) ** 2, d
        self.cache = {1: 0.0}

    def log_a_int(self, alpha):
        """ln of Theorem 27's bound on A_α at integer α ≥ 1 (Theorem 9 terms for α > 256), as a float."""
        if alpha in self.cache:
            return self.cache[alpha]
        mp = self.mp
        with mp.workdps(self.dps):
            e2 = mp.mpf(2) / self.s2
            a = 1 + self.q**2 * mp.binomial(alpha, 2) * min(4 * mp.expm1(e2), 2 * mp.exp(e2))
            for j in range(3, alpha + 1):
                b = 2 * mp.exp(mp.mpf((j - 1) * j) / self.s2)
                if alpha <= 256:
                    b = min(b, 4 * mp.sqrt(self.d[2 * (j // 2)] * self.d[2 * ((j + 1) // 2)]))
                a += self.q**j * mp.binomial(alpha, j) * b
            v = float(mp.log(a))
        self.cache[alpha] = v
        return v

    def log_a(self, alpha):
        """ln A at any order > 1: dp_accounting's interpolation between ⌊α⌋ and ⌈α⌉ (ln A = 0 at α = 1)."""
        lo, hi = math.floor(alpha), math.ceil(alpha)
        if lo == hi:
            return self.log_a_int(lo)
        t = alpha - lo
        return (1 - t) * self.log_a_int(lo) + t * self.log_a_int(hi)


def close(x, ref):
    """The cross-check's agreement on ln A: |x − ref| ≤ 1e−9·|ref| + 2e−15."""
    return abs(x - ref) <= 1e-9 * abs(ref) + 2e-15


def rdp_one(c):
    """Per order of one case: dp_accounting's one-step RDP ("dpa") and the reference ln A for the check
    ("ref", "nan" where none), with "how" naming the reference: "dpa" (dp_accounting's value, which dprl's
    equals; Poisson integer orders), "poisson_exact" (log_a_poisson_int_exact, where they differ),
    "signed" (log_a_poisson_frac_signed), "dpa_inf" (dp_accounting returns ∞: not compared), "wor_dpa"
    (dp_accounting's value, which dprl's equals), "wor_exact" (WORExact, capped by α(α−1)/(2σ²)). For
    "wor_exact", "exact27" is the uncapped WORExact value, to tell where dp_accounting's float64 value is
    accurate. Also dp_accounting's ε for its own curve and for dprl's composed curve."""
    from dp_accounting.rdp import rdp_privacy_accountant as r

    q, sigma = c["q"], c["sigma"]
    orders = np.asarray(c["orders"], dtype=float)
    if c["kind"] == "poisson":
        one = np.atleast_1d(r._compute_rdp_poisson_subsampled_gaussian(q, sigma, orders))
    else:
        one = np.atleast_1d(r._compute_rdp_sample_wor_gaussian(q, sigma, orders))
    # RdpAccountant.compose multiplies by the count and get_epsilon calls compute_epsilon: the same here.
    total = one * c["steps"]
    eps, _ = r.compute_epsilon(orders, total, c["delta"])
    eps_ours, _ = r.compute_epsilon(orders, np.asarray(c["ours"], dtype=float), c["delta"])
    refs, hows, exact27 = [], [], []
    wor = None
    for a, d, ours in zip(c["orders"], one, c["ours_step"]):
        d = float(d)
        ref, how, ex = math.nan, "", math.nan
        if not math.isfinite(d):
            how = "dpa_inf"
        elif c["kind"] == "poisson":
            if q == 1 or (a == math.floor(a) and close((a - 1) * ours, (a - 1) * d)):
                ref, how = (a - 1) * d, "dpa"
            elif a == math.floor(a):
                # dprl and dp_accounting differ (dp_accounting's log-space sum of α + 1 terms near 1 rounds
                # at high orders): decide with the exact sum.
                ref, how = log_a_poisson_int_exact(q, sigma, int(a)), "poisson_exact"
            else:
                v = log_a_poisson_frac_signed(q, sigma, a)
                ref, how = (math.nan, "dpa_inf") if v is None else (v, "signed")
        elif close((a - 1) * ours, (a - 1) * d) or q == 1:
            ref, how = (a - 1) * d, "wor_dpa"
        else:
            # dprl and dp_accounting differ: decide with the exact Theorem 27 value (the slow part, so only
            # here).
            if wor is None:
                wor = WORExact(q, sigma, max(math.ceil(x) for x in c["orders"]))
            ex = wor.log_a(a)
            ref, how = min(ex, (a - 1) * a / (2 * sigma**2)), "wor_exact"
        refs.append(fin(ref))
        hows.append(how)
        exact27.append(fin(ex))
    return {"dpa": [fin(v) for v in one], "ref": refs, "how": hows, "exact27": exact27,
            "epsilon": fin(eps), "epsilon_of_ours": fin(eps_ours)}


def rdp(cases):
    import multiprocessing as mpr

    with mpr.Pool(2) as pool:
        return pool.map(rdp_one, cases, chunksize=1)


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
        elif w == "dpacc_rdp":
            from dp_accelerator import compute_epsilon_batch

            # dp-accelerator's Rust entry point on its own order grid (sent back by the Go side).
            orders = c["orders"]

            def f():
                return float(compute_epsilon_batch(c["q"], c["sigma"], [c["steps"]], orders, c["delta"])[0])
        elif w == "mlp_step":
            # The threads set here stay for the following cases: each MLP case sets its own.
            f = mlp_step(c)
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
        out.append({"seconds": sec, "reps": reps, "value": fin(f()) if w != "mlp_step" else None})
    return out


def selected_huber():
    """The loss of dprl's nn.SelectedLoss with nn.Huber{}: Huber (δ = 1) of output[i, actions[i]] against
    targets[i], averaged over the batch; a torch module with a reduction attribute, as Opacus's ghost
    clipping wants of a criterion."""
    import torch

    class SelectedHuber(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.reduction = "mean"

        def forward(self, out, actions, targets):
            pred = out.gather(1, actions[:, None]).squeeze(1)
            return torch.nn.functional.huber_loss(pred, targets, reduction=self.reduction, delta=1.0)

    return SelectedHuber()


def mlp_step(c):
    """A one-step closure for the MLP workload of case c: c["method"] is "sgd" (torch.optim.SGD), "ghost"
    (Opacus GradSampleModuleFastGradientClipping with ghost clipping, DPOptimizerFastGradientClipping and
    DPLossFastGradientClipping) or "opacus" (GradSampleModule, per-example gradients, DPOptimizer); the
    network is c["sizes"] with ReLU, in c["dtype"], initialised from c["W"], c["B"] when given (dprl's
    row-major layout equals nn.Linear's weight), trained on the fixed batch c["x"], c["actions"],
    c["targets"] (random when absent) with learning rate c["lr"]. Returns step, which runs one
    forward, loss, backward and update and returns the loss before the update."""
    import torch

    torch.set_num_threads(c.get("threads", 1))
    dtype = {"float64": torch.float64, "float32": torch.float32}[c["dtype"]]
    sizes = c["sizes"]
    layers = []
    for l in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[l], sizes[l + 1]))
        if l < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(dtype)
    n = c["batch"]
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for l, lin in enumerate(model[::2]):
            if "W" in c:
                lin.weight.copy_(torch.tensor(c["W"][l], dtype=torch.float64).view(sizes[l + 1], sizes[l]))
                lin.bias.copy_(torch.tensor(c["B"][l], dtype=torch.float64))
    if "x" in c:
        x = torch.tensor(c["x"], dtype=torch.float64).view(n, sizes[0]).to(dtype)
        actions = torch.tensor(c["actions"], dtype=torch.int64)
        targets = torch.tensor(c["targets"], dtype=torch.float64).to(dtype)
    else:
        x = torch.randn(n, sizes[0], generator=g, dtype=dtype)
        actions = torch.randint(0, sizes[-1], (n,), generator=g)
        targets = torch.randn(n, generator=g, dtype=dtype)
    crit = selected_huber()
    opt = torch.optim.SGD(model.parameters(), lr=c["lr"])
    method = c["method"]
    if method == "sgd":
        def step():
            opt.zero_grad()
            loss = crit(model(x), actions, targets)
            loss.backward()
            opt.step()
            return float(loss)
        return step
    from opacus import GradSampleModule
    from opacus.grad_sample import GradSampleModuleFastGradientClipping
    from opacus.optimizers import DPOptimizer, DPOptimizerFastGradientClipping
    from opacus.utils.fast_gradient_clipping_utils import DPLossFastGradientClipping

    kw = dict(noise_multiplier=c["noise"], max_grad_norm=c["clip"], expected_batch_size=n)
    if method == "ghost":
        gm = GradSampleModuleFastGradientClipping(model, max_grad_norm=c["clip"], use_ghost_clipping=True)
        dopt = DPOptimizerFastGradientClipping(opt, **kw)
        dcrit = DPLossFastGradientClipping(gm, dopt, crit)
    elif method == "opacus":
        gm = GradSampleModule(model)
        dopt = DPOptimizer(opt, **kw)
        dcrit = crit
    else:
        raise ValueError("unknown method " + method)

    def step():
        dopt.zero_grad()
        loss = dcrit(gm(x), actions, targets)
        loss.backward()
        dopt.step()
        return float(loss.item())
    return step


def dpacc_orders(cases):
    """dp-accelerator's own order grid (DPSGDAccountant.orders: 116 orders from 1.01 to 512), once per case."""
    from dp_accelerator import DPSGDAccountant

    return [DPSGDAccountant(1.0, 1, 100).orders for _ in cases]


def train(cases):
    """Per case, the losses of c["steps"] training steps (mlp_step), before each update."""
    out = []
    for c in cases:
        step = mlp_step(c)
        out.append({"losses": [step() for _ in range(c["steps"])]})
    return out


def main():
    mode = sys.argv[1]
    cases = json.load(sys.stdin)
    res = {"rdp": rdp, "pld": pld, "env": env, "train": train, "dpacc_orders": dpacc_orders,
           "bench": bench}[mode](cases)
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
