import os
import shutil
import tempfile

import pytest

# The tests never touch the user's verdict cache: whatever $ATTNCHECK_CACHE_DIR says, the CLI,
# the API and every subprocess of this test session use a folder of the session's own (set at
# import, before any test module reads it; the fixture below re-asserts it and removes it at
# the end). The user's limits do not change what the tests see either.
USER_CACHE_DIR = os.environ.get("ATTNCHECK_CACHE_DIR")
SESSION_CACHE_DIR = tempfile.mkdtemp(prefix="attncheck-test-cache-")
os.environ["ATTNCHECK_CACHE_DIR"] = SESSION_CACHE_DIR
for _name in ("ATTNCHECK_MAX_MEMORY", "ATTNCHECK_MAX_TIME", "ATTNCHECK_TRIAL_WORKERS"):
    os.environ.pop(_name, None)

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ci", deadline=None, derandomize=True, max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True, scope="session")
def session_cache_dir():
    """The verdict cache of this test session (numerics.core.cache reads the variable at each
    use; the records it reported unreadable are forgotten)."""
    from numerics.core import cache

    os.environ[cache.ENV] = SESSION_CACHE_DIR
    cache._REPORTED.clear()
    yield SESSION_CACHE_DIR
    shutil.rmtree(SESSION_CACHE_DIR, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    """How many inputs the fuzz tests tried (tests/test_fuzz_cli.py)."""
    import sys

    mod = next((m for name, m in sys.modules.items() if name.endswith("test_fuzz_cli")), None)
    if mod is not None and getattr(mod, "TRIED", None):
        terminalreporter.write_line(f"fuzz inputs tried: {mod.TRIED['inputs']} CLI, {mod.TRIED['api']} API")


@pytest.fixture(autouse=True)
def _mpmath_precision_restored():
    """mpmath's global working precision is the same before and after every test (a test that
    raises ``mpmath.mp.dps`` and forgets it would change what later tests compute)."""
    import mpmath

    dps = mpmath.mp.dps
    yield
    mpmath.mp.dps = dps

