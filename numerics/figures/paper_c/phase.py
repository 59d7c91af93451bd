"""Figure ``C.phase``: Paper C's positional-semantic phase diagram from our theory.

Panel (a): Phi of both branches against alpha at omega = 0.3 (the training loss is -Phi; our
roots on the tensor Gauss-Hermite rule with 6 nodes per axis, ``equations.solve_on_rule``,
each branch continued along alpha), the authors' table points as markers, alpha_c (the
crossing) as a vertical line.  Panel (b): the (omega, alpha) plane: alpha_c(omega) (semantic
below / above) and the alpha above which the semantic branch's test error beats the linear
positional baseline (``transition.alpha_c``, ``transition.alpha_linear``; error bars: the
change from 6 to 10 nodes per axis), and the authors' bracket of alpha_c at omega = 0.3 (the
two table alphas between which their Phi curves cross).  Quick: omega = 0.3 only and 6 alphas
in panel (a); full: omega = 0.1 ... 0.5 and 15 alphas.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from numerics.figures.style import save  # noqa: E402


def _branch_curve(branch, alphas, omega, rule=6):
    from numerics.theory.paper_c import equations as E

    out, x0 = [], None
    for a in alphas:
        sol = E.solve_on_rule(branch, a, rule, omega=omega, x0=x0, n_sweeps=30 if x0 is None else 5)
        if not sol.ok:
            out.append(np.nan)
            continue
        x0 = tuple(sol.value["x"])
        out.append(sol.value["phi"])
    return np.array(out)


def _table_bracket():
    """The two table alphas between which the authors' Phi curves cross (omega = 0.3): the
    crossing at the largest alpha (below alpha ~ 0.2 the two branches meet at the trivial point
    and their difference changes sign within the tables' accuracy)."""
    from numerics.claims.paper_c.reference import table

    sem = {r["alpha"]: r["Phi"] for r in table("semantic")}
    pos = {r["alpha"]: r["Phi"] for r in table("positional")}
    al = sorted(set(sem) & set(pos))
    d = [sem[a] - pos[a] for a in al]
    for (a0, d0), (a1, d1) in reversed(list(zip(zip(al, d), zip(al[1:], d[1:])))):
        if (d0 < 0) != (d1 < 0):
            return a0, a1, sem, pos
    return None, None, sem, pos


def figure(path, settings, progress):
    """Paper C: Phi of both branches against alpha (omega = 0.3) and alpha_c(omega)."""
    from numerics.theory.paper_c import transition

    alphas = np.linspace(2.0, 0.9, settings.pick(6, 15))
    omegas = settings.pick((0.3,), (0.1, 0.2, 0.3, 0.4, 0.5))
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.4))
    lo, hi, sem, pos = _table_bracket()
    for branch, table_pts, colour in (("semantic", sem, "C0"), ("positional", pos, "C1")):
        phi = _branch_curve(branch, alphas, 0.3)
        ax.plot(alphas, phi, "-", color=colour, label=f"{branch} (ours, 6 nodes per axis)")
        ta = np.array(sorted(a for a in table_pts if a >= alphas.min()))
        ax.plot(ta, [table_pts[a] for a in ta], "x", color=colour, label=f"{branch} (authors' table)")
    crossings = {om: (transition.alpha_c(om), transition.alpha_linear(om)) for om in omegas}
    c03 = crossings.get(0.3, (None, None))[0]
    if c03 is not None and c03.ok:
        ax.axvline(c03.value.alpha, color="k", lw=0.8, ls="--", label=rf"$\alpha_c = {c03.value.alpha:.3f}$")
    ax.set_xlabel(r"$\alpha = n/d$")
    ax.set_ylabel(r"$\Phi$ (training loss $= -\Phi$)")
    ax.set_title(r"(a) both branches, $\omega = 0.3$", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    for k, (label, marker) in enumerate(((r"$\alpha_c(\omega)$: $\Phi_{sem} = \Phi_{pos}$", "o"),
                                         ("semantic test error = linear baseline", "s"))):
        pts = [(om, c[k].value.alpha, c[k].value.error) for om, c in crossings.items() if c[k].ok]
        if pts:
            om, a, e = map(np.array, zip(*pts))
            bx.errorbar(om, a, yerr=e, marker=marker, capsize=3, label=label)
    if lo is not None:
        bx.errorbar([0.3], [(lo + hi) / 2], yerr=[(hi - lo) / 2], fmt="none", ecolor="k", capsize=5,
                    label=r"authors' tables: $\Phi$ curves cross in this interval")
    bx.set_xlabel(r"$\omega$ (teacher's positional weight)")
    bx.set_ylabel(r"$\alpha$")
    bx.set_title("(b) phase diagram: positional below, semantic above", fontsize=10)
    bx.grid(alpha=0.3)
    bx.legend(fontsize=7)
    fig.tight_layout()
    save(fig, path)
    plt.close(fig)


FIGURES = {"C.phase": figure}
