"""Benchmarks: modules here export ``BENCHMARKS`` (dict name -> callable(quick: bool) -> dict).

A benchmark reports ratios against a baseline run in the same process, never an absolute
timing assertion.  Run with ``attncheck bench [NAME]``.
"""
