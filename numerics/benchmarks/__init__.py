"""Benchmarks: a paper registers its own in its ``Paper`` (``numerics.registration``); the
modules at the top of this package benchmark attncheck's machinery, no paper's, and
:func:`machinery` registers them.  A benchmark is a callable(settings) -> dict (``settings`` is
a :class:`numerics.claims.base.Settings`, whose ``pick(quick, full)`` declares every size).

A benchmark reports ratios against a baseline run in the same process, never an absolute
timing assertion.  Run with ``attncheck bench [NAME]``.
"""


def machinery() -> list:
    """``(module, BENCHMARKS)`` of each benchmark module of attncheck's machinery."""
    from numerics.benchmarks import entry_points, mutate, scaling

    return [(m.__name__, m.BENCHMARKS) for m in (entry_points, mutate, scaling)]
