"""Benchmarks: modules here export ``BENCHMARKS`` (dict name -> callable(settings) -> dict;
``settings`` is a :class:`numerics.claims.base.Settings`, whose ``pick(quick, full)`` declares every
size).

A benchmark reports ratios against a baseline run in the same process, never an absolute
timing assertion.  Run with ``attncheck bench [NAME]``.
"""
