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

# %% [markdown]
# ## Verify a claim
# A verdict compares each theory value with an experiment mean ± its standard error.

# %%
(verdict,) = attncheck.verify("B.kl.bound", cache=False)
verdict  # renders as a table

# %% [markdown]
# ## A limit at 50 digits
# Values come back at the requested precision, whatever `mpmath.mp.dps` is.

# %%
values = attncheck.evaluate("B.rate.exponent", beta=2, M=10_000, dps=50)
print(values["K_star"])

# %% [markdown]
# ## The equations, as LaTeX

# %%
attncheck.equations("B.kl.bound")[0]

# %% [markdown]
# ## Can the check fail?
# Each claim is run under structural mutants of its own derivation (a sign flip, a dropped
# term, a factor of 2...), and under a ±5 % change of its theory values.

# %%
p = attncheck.power("B.kl.bound")
[(m.name, m.killed) for m in p.mutants], p.scaled
