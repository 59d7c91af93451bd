import os
import tempfile

# the CLI's verdict cache goes to a folder of this test session, never the user's
os.environ.setdefault("ATTNCHECK_CACHE_DIR", tempfile.mkdtemp(prefix="attncheck-test-cache-"))

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", deadline=None, derandomize=True, max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_terminal_summary(terminalreporter):
    """How many inputs the fuzz tests tried (tests/test_fuzz_cli.py)."""
    import sys

    mod = next((m for name, m in sys.modules.items() if name.endswith("test_fuzz_cli")), None)
    if mod is not None and getattr(mod, "TRIED", None):
        terminalreporter.write_line(f"fuzz inputs tried: {mod.TRIED['inputs']} CLI, {mod.TRIED['api']} API")
