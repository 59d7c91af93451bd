"""Figure 1 of Paper A: step-4 test error vs alpha1 for attention, pooled and vectorised models.

Theory lines: the ERM self-consistent equations (numerics.theory.paper_a.erm_equations,
continuation along alpha1).  Points: finite-d ridge ERM, mean ± se over trials.  ``--full``: L = 10, R = 1,
pi = 0.5, theta = 5, lambda = 1e-5, d = 1000, 8 trials (the paper's setting); ``--quick``:
lambda = 1e-2, d = 300, 3 trials, fewer alpha1.  The attention query is the fixed q of the
claims (||q|| = 2, s_q = 0.5, beta = 1): under our conventions the protocol's own q^(2) with
eta = 0.5 has ||q^(2)|| ~ 0.02 (docs/paper_a_after_training.md §7).
"""
from __future__ import annotations

import numpy as np

from numerics.figures.style import log_ticks, save


def figure1(path, settings, progress):
    """Paper A Fig. 1: step-4 test error vs alpha1, attention / pooled / vectorised, theory and ERM."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from numerics.theory.paper_a import erm_equations as SE
    from numerics.claims.paper_a.after_training import ATT_Q, BASE
    from numerics.experiments.simulators.sparse_token import SparseTokenModel
    from numerics.experiments.simulators.sparse_token_erm import query_with_alignment, step4_trial

    full = settings.full
    lam = 1e-5 if full else 1e-2
    d, trials = (1000, 8) if full else (300, 3)
    a_line = np.geomspace(0.25, 8.0, 24 if full else 10)
    a_pts = np.array([0.5, 1.0, 2.0, 4.0, 8.0]) if full else np.array([0.5, 2.0, 6.0])
    laws = {
        "attention": SE.attention_law(BASE["L"], BASE["R"], BASE["pi"], BASE["theta"], ATT_Q["beta"],
                                      ATT_Q["q_norm"], ATT_Q["s_q"], log2_points=10 if full else 9,
                                      n_scrambles=4, seed=settings.seed),
        "pool": SE.linear_law("pool", BASE["L"], BASE["R"], BASE["pi"], BASE["theta"]),
        "vec": SE.linear_law("vec", BASE["L"], BASE["R"], BASE["pi"], BASE["theta"]),
    }
    rng = np.random.default_rng(settings.seed_sequence("A.fig1"))
    sim = SparseTokenModel(BASE["L"], BASE["R"], BASE["pi"], BASE["theta"], d)
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    colors = {"attention": "C0", "pool": "C1", "vec": "C2"}
    names = {"attention": "attention", "pool": "pooled", "vec": "vectorised"}
    for model in progress(list(laws), "theory lines"):
        res = SE.continuation(laws[model], a_line[::-1], lam, "logistic", quad_tol=1e-6, x_quad_tol=1e-3)
        ok = np.array([r.ok for r in res][::-1])
        err = np.array([r.raw.metrics["test_error"] if r.ok else np.nan for r in res][::-1])
        ax.plot(a_line[ok], err[ok], "-", color=colors[model], label=f"{names[model]} (theory)")
    jobs = [(m, a) for m in laws for a in a_pts]
    pts = {m: [] for m in laws}
    for model, al in progress(jobs, "simulations"):
        vals = []
        for _ in range(trials):
            xi = sim.signal_direction(rng)
            q = query_with_alignment(xi, ATT_Q["q_norm"], ATT_Q["s_q"], rng) if model == "attention" else None
            r = step4_trial(sim, model, al, lam, "logistic", rng, q=q, beta=ATT_Q["beta"], xi=xi, n_test=200_000)
            vals.append(r.test_error)
        pts[model].append((al, np.mean(vals), np.std(vals, ddof=1) / np.sqrt(trials)))
    for model, rows in pts.items():
        a, m, s = map(np.array, zip(*rows))
        ax.errorbar(a, m, yerr=s, fmt="o", color=colors[model], ms=4, capsize=2,
                    label=f"{names[model]} (ERM, $d = {d}$, {trials} trials, $\\pm 1$ se)")
    ax.set_xscale("log")
    ax.set_xlim(a_line[0], a_line[-1])
    log_ticks(ax, "x")
    ax.set_xlabel(r"$\alpha_1 = n_1/d$")
    ax.set_ylabel("test error")
    ax.set_title(f"Paper A Fig. 1: logistic loss, $\\lambda = {lam:g}$")
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()  # theory and simulation of a model side by side
    rank = {names[m]: k for k, m in enumerate(laws)}
    order = sorted(range(len(labels)), key=lambda i: (rank[labels[i].split(" (")[0]], i))
    ax.legend([handles[i] for i in order], [labels[i] for i in order], loc="upper left",
              bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    save(fig, path)
    plt.close(fig)


FIGURES = {"A.fig1": figure1}
