"""Figure 1 of Paper A: step-4 test error vs alpha1 for attention, pooled and vectorised models.

Theory lines: the ERM self-consistent equations (numerics.theory.paper_a.erm_equations,
continuation along alpha1).  Points: finite-d ridge ERM, mean ±2 se over trials (the figures'
convention, numerics/figures/style.py).  ``--full``: L = 10, R = 1,
pi = 0.5, theta = 5, lambda = 1e-5, d = 1000, 8 trials (the paper's setting); ``--quick``:
lambda = 1e-2, d = 200, 3 trials, 3 points; the theory lines at 25 alpha1 (pooled, vectorised)
and 9 (attention: ~2 s a solve), each drawn as the shape-preserving cubic through its points
(``smooth_line``).  The attention query is the fixed q of the claims (||q|| = 2, s_q = 0.5, beta = 1): under our conventions the protocol's own q^(2) with
eta = 0.5 has ||q^(2)|| ~ 0.02 (docs/paper_a_after_training.md §7).  ``A.fig1.trained``
(below) draws the same setting after the whole protocol, at the protocol's own q^(2)
(docs/paper_a_protocol.md).
"""
from __future__ import annotations

import numpy as np

from numerics.figures.style import (COLUMN_WIDTH, SE_LABEL, errorbars, fine_grid, legend_below, log_ticks, save,
                                    smooth_line)

#: points on each theory line (geometric in alpha1), quick and full: the linear models' lines
#: are cheap; the attention line's solve is ~2 s a point, so it has fewer, and every line is the
#: shape-preserving cubic through its points (``smooth_line``: no corner that is not in the theory)
FINE_QUICK, FINE_FULL = 25, 49
ATT_QUICK, ATT_FULL = 9, 33
#: each model's colour, line style and marker (told apart without colour too)
LOOK = {"attention": ("C0", "-", "o"), "pool": ("C1", "--", "s"), "vec": ("C2", "-.", "^")}


def figure1(path, settings, progress):
    """Paper A Fig. 1: step-4 test error vs alpha1, attention / pooled / vectorised, theory and ERM."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from numerics.theory.paper_a import erm_equations as erm_theory
    from numerics.theory.paper_a import models as M
    from numerics.claims.paper_a.after_training import ATT_Q, BASE
    from numerics.experiments.paper_a.sparse_token import SparseTokenModel
    from numerics.experiments.paper_a.sparse_token_erm import query_with_alignment, step4_trial

    pick = settings.pick
    lam = pick(1e-2, 1e-5)
    d, trials = pick((200, 3), (1000, 8))
    a_pts = np.array(pick([0.5, 2.0, 6.0], [0.5, 1.0, 2.0, 4.0, 8.0]))
    laws = {
        mo.name: (erm_theory.attention_law(BASE["L"], BASE["R"], BASE["pi"], BASE["theta"], ATT_Q["beta"],
                                           ATT_Q["q_norm"], ATT_Q["s_q"], log2_points=pick(9, 10),
                                           n_scrambles=4, seed=settings.seed) if mo.sees_q
                  else erm_theory.linear_law(mo, BASE["L"], BASE["R"], BASE["pi"], BASE["theta"]))
        for mo in M.MODELS
    }
    rng = np.random.default_rng(settings.seed_sequence("A.fig1"))
    sim = SparseTokenModel(BASE["L"], BASE["R"], BASE["pi"], BASE["theta"], d)
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 4.4))
    look = {m: LOOK.get(m, (f"C{k}", "-", "o")) for k, m in enumerate(laws)}
    names = {mo.name: mo.title for mo in M.MODELS}
    for model in progress(list(laws), "theory lines"):
        a_line = fine_grid(0.25, 8.0, pick(ATT_QUICK, ATT_FULL) if M.model(model).sees_q else pick(FINE_QUICK, FINE_FULL))
        res = erm_theory.continuation(laws[model], a_line[::-1], lam, M.LOGISTIC, quad_tol=1e-6, x_quad_tol=1e-3)
        ok = np.array([r.ok for r in res][::-1])
        err = np.array([r.raw.metrics["test_error"] if r.ok else np.nan for r in res][::-1])
        colour, ls, _ = look[model]
        smooth_line(ax, a_line[ok], err[ok], ls, color=colour, label=f"{names[model]} (theory)")
    jobs = [(m, a) for m in laws for a in a_pts]
    pts = {m: [] for m in laws}
    for model, al in progress(jobs, "simulations"):
        vals = []
        for _ in range(trials):
            xi = sim.signal_direction(rng)
            q = query_with_alignment(xi, ATT_Q["q_norm"], ATT_Q["s_q"], rng) if M.model(model).sees_q else None
            r = step4_trial(sim, model, al, lam, "logistic", rng, q=q, beta=ATT_Q["beta"], xi=xi, n_test=200_000)
            vals.append(r.test_error)
        pts[model].append((al, np.mean(vals), np.std(vals, ddof=1) / np.sqrt(trials)))
    for model, rows in pts.items():
        a, m, s = map(np.array, zip(*rows))
        colour, _, marker = look[model]
        errorbars(ax, a, m, s, fmt=marker, color=colour, label=f"{names[model]} (ERM, $d = {d}$, {trials} trials, {SE_LABEL})")
    ax.set_xscale("log")
    ax.set_xlim(0.25, 8.0)
    log_ticks(ax, "x")
    ax.set_xlabel(r"$\alpha_1 = n_1/d$")
    ax.set_ylabel("test error")
    ax.set_title(f"Paper A Fig. 1: logistic loss, $\\lambda = {lam:g}$")
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()  # theory and simulation of a model side by side
    rank = {names[m]: k for k, m in enumerate(laws)}
    order = sorted(range(len(labels)), key=lambda i: (rank[labels[i].split(" (")[0]], i))
    ax.legend([handles[i] for i in order], [labels[i] for i in order], loc="upper center",
              bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=7, frameon=False)
    fig.tight_layout()
    save(fig, path)
    plt.close(fig)


FIGURES = {"A.fig1": figure1}


# --------------------------------------------------------------------------------------------
# Figure 1 as trained: the protocol's own q^(2) instead of a fixed query.  Its curves, steps 1-3
# and sizes are those of the claim A.fig1.trained (numerics/claims/paper_a/fig1_trained.py), which
# checks its lines against the simulated protocol.


def _both_formats(fig, path) -> None:
    """Save ``path`` and its PNG/PDF sibling (the other of the two formats)."""
    from pathlib import Path

    p = Path(path)
    save(fig, str(p), dpi=130)
    other = {".png": ".pdf", ".pdf": ".png"}.get(p.suffix.lower())
    if other:
        save(fig, str(p.with_suffix(other)), dpi=130)


def figure1_trained(path, settings, progress):
    """Test error vs alpha1 after the whole protocol (steps 1-3 on D0 at alpha0 = 2, step 4 on D1).

    The curves of the claim A.fig1.trained (attention at the q^(2) of steps 1-3 with
    eta_q beta = 50, solid, and at the paper's eta = 0.5, dashed; pooled and vectorised).
    Lines: ``protocol_curve`` (Theorem-3 limits -> step-4 equations, continuation in alpha1);
    points: the claim's simulated protocol (``numerics.experiments.paper_a.protocol``), mean ±2 se
    over trials.  ``--full``: the paper's lambda = 1e-5, d = 1000, 8 trials; ``--quick``:
    lambda = 1e-2, d = 200, 4 trials (the claim's sizes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    from numerics.claims.paper_a import fig1_trained as C
    from numerics.theory.paper_a.protocol import protocol_curve

    cfg = settings.pick(**C.SIZES)
    lam, d, trials, a_pts = cfg["lam"], cfg["d"], cfg["trials"], cfg["alphas"]
    a_line = fine_grid(0.25, 8.0, settings.pick(8, 24))  # the protocol's solves are costly: smooth_line
    B = C._base()
    style = dict(zip(C.CURVES, (("C0", "-", "o"), ("C3", ":", "D"), ("C1", "--", "s"), ("C2", "-.", "^"))))
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 4.4))
    for label, (model, eta_q) in progress(list(C.CURVES.items()), "theory lines"):
        res = protocol_curve(a_line[::-1], lam=lam, loss=C.LOSS, model=model, eta_q=eta_q, L=B["L"], R=B["R"],
                             pi=B["pi"], theta=B["theta"], seed=settings.seed, log2_points=cfg["log2_points"],
                             n_scrambles=cfg["n_scrambles"], **C.STEPS)[::-1]
        ok = np.array([r.ok for r in res])
        err = np.array([r.raw.metrics["test_error"] if r.ok else np.nan for r in res])
        colour, ls, _ = style[label]
        smooth_line(ax, a_line[ok], err[ok], ls, color=colour, label=f"{label} (theory)")
    sims = {al: C.simulate(settings, al, d, trials, cfg["n_test"], cfg["labels"])
            for al in progress(list(a_pts), "simulations")}
    for label, (model, eta_q) in C.CURVES.items():
        key = C.row_key(model, eta_q)
        vals = [sims[al][key]["test_error"] for al in a_pts]
        m = np.array([v.mean() for v in vals])
        s = np.array([v.std(ddof=1) / np.sqrt(len(v)) for v in vals])
        errorbars(ax, a_pts, m, s, fmt=style[label][2], color=style[label][0],
                  label=f"{label} (simulated protocol, $d = {d}$, {trials} trials, {SE_LABEL})")
    ax.set_xscale("log")
    ax.set_xticks([0.25, 0.5, 1.0, 2.0, 4.0, 8.0])
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(r"$\alpha_1 = n_1/d$")
    ax.set_ylabel(r"test error $E_{\mathrm{test}}$")
    lam_tex = rf"10^{{{int(round(np.log10(lam)))}}}"
    ax.set_title(rf"Paper A Fig. 1 as trained (logistic, $\alpha_0 = {C.STEPS['alpha0']:g}$, $\lambda = {lam_tex}$)",
                 fontsize=10)
    legend_below(ax, ncol=2, fontsize=7)
    fig.tight_layout()
    _both_formats(fig, path)
    plt.close(fig)


FIGURES["A.fig1.trained"] = figure1_trained
