"""Numerics for attncheck: backends, solvers, simulators, claims and the CLI.

``numerics`` imports ``derivations``; never the reverse.  The simulators in
:mod:`numerics.experiments` import neither ``derivations`` nor the claims: a simulation that
used the formula it tests would check nothing.
"""
