"""Draw a finished sweep (``attncheck figure --from DIR``): every output that varies (never a
parameter, fixed or swept) against the first swept parameter, one line per value of the second
one, one panel per output; a standard error (``NAME_se``) as a ±2 se band."""
from __future__ import annotations

import math

from numerics.sweep import Sweep, read_table

MAX_PANELS = 6
#: what a solve reports about itself, drawn after its outputs
DIAGNOSTICS = frozenset({"residual", "quadrature_error", "float64_minus_mpmath_max"})


def draw_sweep(out_dir, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, prov = read_table(out_dir)
    rows = [r for r in rows if r.get("ok", True)]  # a point without values (an error) is not drawn
    if not rows:
        raise ValueError("no point of the sweep has values")
    swept = [k for k, v in prov["grid"].items() if len(v) > 1]
    if not swept:
        raise ValueError("the sweep has a single point; nothing to draw")
    x, group = swept[0], (swept[1] if len(swept) > 1 else None)
    # the outputs, never a parameter (a fixed one, given or by default, is a column of the table too)
    names = prov.get("outputs") or [k for k in rows[0] if k not in _parameters(out_dir, prov)]
    skip = set(prov["grid"]) | {"ok", "key", "iterations", "converged"}
    numeric = [k for k in names if k not in skip and not k.endswith("_se")
               and all(isinstance(r.get(k), (int, float)) and not isinstance(r.get(k), bool) for r in rows)]
    # the solve's diagnostics and a constant output last, if room
    numeric.sort(key=lambda k: k in DIAGNOSTICS)
    varying = [k for k in numeric if len({r[k] for r in rows}) > 1]
    outputs = (varying + [k for k in numeric if k not in varying])[:MAX_PANELS]
    if not outputs:
        raise ValueError("the sweep has no numeric output")
    cols = min(3, len(outputs))
    fig, axes = plt.subplots(math.ceil(len(outputs) / cols), cols, figsize=(4.2 * cols, 3.4 * math.ceil(len(outputs) / cols)),
                             squeeze=False)
    groups = sorted({r[group] for r in rows}) if group else [None]
    for ax, key in zip(axes.flat, outputs):
        for g in groups:
            sel = sorted((r for r in rows if group is None or r[group] == g), key=lambda r: r[x])
            ax.plot([r[x] for r in sel], [r[key] for r in sel], marker="o", ms=3,
                    label=f"{group} = {g:g}" if isinstance(g, float) else f"{group} = {g}" if group else None)
            se = f"{key}_se"
            if all(se in r for r in sel):
                ax.fill_between([r[x] for r in sel], [r[key] - 2 * r[se] for r in sel],
                                [r[key] + 2 * r[se] for r in sel], alpha=0.2)
        ax.set_xlabel(x)
        ax.set_title(key, fontsize=9)
        ax.grid(alpha=0.3)
        if group:
            ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(outputs):]:
        ax.axis("off")
    fig.suptitle(f"{prov['target']['name']}: sweep over {', '.join(swept)}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _parameters(out_dir, prov: dict) -> set:
    """The parameter columns of a sweep written before its provenance listed them."""
    recs = Sweep(out_dir, prov).records()
    return set(recs[0]["params"]) if recs else set(prov["grid"])
