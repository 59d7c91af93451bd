"""Paper C's parameters and names, declared once.

The model of Result 4.2 (tied rank-1 dot-product attention on two tokens): the sample ratio
alpha = n/d, the teacher's positional weight omega, the token noise sigma and the ridge lambda;
and the two branches of the fixed point a user chooses from (the semantic one, theta != 0, and
the positional one, m != 0).
"""
from __future__ import annotations

from numerics.core.params import Param

ALPHA = Param("alpha", float, 0.0, 100.0, lo_open=True, doc="sample ratio n/d, in (0, 100]")
OMEGA = Param("omega", float, 0.0, 1.0, doc="teacher's positional weight, in [0, 1]")
SIGMA = Param("sigma", float, 0.0, 10.0, lo_open=True, doc="token noise std, in (0, 10]")
LAMBDA = Param("lam", float, 0.0, 10.0, lo_open=True, doc="ridge penalty, in (0, 10]")

#: the branches of the fixed point: semantic (theta != 0) and positional (m != 0)
BRANCHES = ("semantic", "positional")
