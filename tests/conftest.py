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
