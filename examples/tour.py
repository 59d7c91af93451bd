# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A tour of attncheck
#
# attncheck encodes the derivations of two papers on attention in SymPy, evaluates them at any
# precision, and checks every closed form against its own simulation. This notebook is kept as a
# jupytext script (`examples/tour.py`) and executed by the test suite.

# %%
import attncheck

try:  # in a notebook each result renders (a table, LaTeX); run as a script, it is printed
    from IPython.display import display as show
except ImportError:
    show = print

# %% [markdown]
# ## Verify a claim
# A verdict compares each theory value with an experiment mean ± its standard error.

# %%
(verdict,) = attncheck.verify("B.kl.bound", cache=False)
show(verdict)  # a table in a notebook
for r in verdict.rows:  # each row: the theory value against the experiment's mean ± its standard error
    word = "ok" if r.passed else "FAIL"
    print(f"{r.label}: theory {r.mutated_theory:.6g}, experiment {r.mean:.6g} ± {r.se:.2g} ({word})")

# %% [markdown]
# ## A limit at 50 digits
# Values come back at the requested precision, whatever `mpmath.mp.dps` is.

# %%
values = attncheck.evaluate("B.rate.exponent", beta=2, M=10_000, dps=50)
print("K* =", values["K_star"])

# %% [markdown]
# ## The equations, as LaTeX

# %%
show(attncheck.equations("B.kl.bound")[0])

# %% [markdown]
# ## Can the check fail?
# Each claim is run under structural mutants of its own derivation (a sign flip, a dropped
# term, a factor of 2...), and under a ±5 % change of its theory values.

# %%
p = attncheck.power("B.kl.bound")
show([(m.name, m.killed) for m in p.mutants])
show(p.scaled)

# %% [markdown]
# ## A table in memory
# A sweep over a grid returns its table: `.to_pandas()` (one row per point) or `.to_xarray()`
# (one dimension per swept parameter), with pandas and xarray installed
# (`pip install 'attncheck[tables]'`). At more than 15 digits the values stay `Value`s.

# %%
import numpy as np

rate = attncheck.sweep("B.rate.exponent", "sweeps/rate", grid={"beta": np.linspace(0.5, 4, 8)}, M=10_000)
show(rate.to_pandas("float")[["beta", "exponent", "K_star"]])
