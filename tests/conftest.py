import os
import shutil
import tempfile
from pathlib import Path

import pytest

from numerics.core.shared_memo import SharedMemo

# The tests never touch the user's verdict cache: whatever $ATTNCHECK_CACHE_DIR says, the CLI,
# the API and every subprocess of this test session use a folder of the session's own (set at
# import, before any test module reads it; the fixture below re-asserts it). Under
# ``pytest -n N`` the session is one folder for all its processes: the controller makes it and
# hands it to each worker (``pytest_configure_node``), so a claim verified in one worker is a
# cache hit in the other, and the controller removes it at the end. The user's limits do not
# change what the tests see either.
USER_CACHE_DIR = os.environ.get("ATTNCHECK_CACHE_DIR")
_SESSION_KEY = "attncheck_session"


def _new_session() -> dict:
    return {"cache": tempfile.mkdtemp(prefix="attncheck-test-cache-"),
            "shared": tempfile.mkdtemp(prefix="attncheck-test-shared-")}


#: the folders of this session: ``cache`` (the verdict cache, $ATTNCHECK_CACHE_DIR) and ``shared``
#: (the experiment memo and the claims' evidence, shared by the session's processes). A worker
#: replaces its import-time folders by the controller's in ``pytest_configure``.
SESSION = _new_session()
SESSION_CACHE_DIR = SESSION["cache"]
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


def pytest_addoption(parser):
    parser.addoption("--record-shape", action="store_true",
                     help="tests/test_record_shape.py writes the design and details keys it computes into "
                          "tests/data/record_shape.json instead of checking them (run with -n 0)")


def pytest_configure(config):
    global SESSION_CACHE_DIR
    given = getattr(config, "workerinput", {}).get(_SESSION_KEY)
    if given:  # an xdist worker: the controller's folders, not the ones made at import
        for path in SESSION.values():
            shutil.rmtree(path, ignore_errors=True)
        SESSION.clear()
        SESSION.update(given)
        SESSION_CACHE_DIR = SESSION["cache"]
        os.environ["ATTNCHECK_CACHE_DIR"] = SESSION_CACHE_DIR
    from numerics.claims import base

    # the experiment memo of the claims (numerics.claims.base.memo), shared by the processes
    base._MEMO = SharedMemo(Path(SESSION["shared"]) / "memo")


#: the modules that run whole claims, started first: under ``pytest -n N`` a long test left for
#: the end keeps one process busy while the others wait, so the long ones go first and the many
#: short ones fill in behind them (the order inside each module is kept).  The tests of one
#: claim that read its session evidence or power run (the claims and mutation catalogues, the
#: power ratchet) form one xdist group (``--dist loadgroup``, pyproject.toml): one process runs
#: them one after the other, computing the claim's runs once, where two processes asking at once
#: would leave one of them waiting on the other's lock for the whole run (up to a minute a claim);
#: the claims of one family (``Claim.shares``) are one group, so that one process's memo of their
#: common solves serves them all
FIRST = ("test_mutation_catalogue.py", "test_claims_catalogue.py", "test_third_paper.py",
         "test_reproducibility.py", "test_notebook.py")


#: the mutant a mutation run (``python tools/mutation.py``, docs/mutation.md) has this process
#: test: each mutant is a fresh process that imports this file (and makes its own folders)
MUTANT = os.environ.get("MUTANT_UNDER_TEST", "")
#: the tests that failed in the mutation run's record of which test reaches what (run on the
#: unmutated code; written by ``tools/mutation.py prepare`` in mutants/): never a mutant's judge
STATS_FAILURES = "attncheck-stats-failures.txt"


def _reach() -> dict:
    """{test: how many mutated functions it reached} in mutmut's record (mutants/, the cwd)."""
    import json
    from collections import Counter

    try:
        record = json.loads(Path("mutmut-stats.json").read_text())["tests_by_mangled_function_name"]
    except (OSError, ValueError, KeyError):
        return {}
    return Counter(test for tests in record.values() for test in tests)


def pytest_collection_modifyitems(config, items):
    if "__mutmut_" in MUTANT or ("MUTANT_UNDER_TEST" in os.environ and MUTANT == ""):  # or its clean run
        failures = Path(STATS_FAILURES)
        failed = set(failures.read_text().split()) if failures.exists() else set()
        dropped = [item for item in items if item.nodeid in failed]
        if dropped:
            items[:] = [item for item in items if item.nodeid not in failed]
            config.hook.pytest_deselected(items=dropped)
    if "__mutmut_" in MUTANT:
        # mutmut gives the tests that reach the mutant fastest first by the times of its record,
        # and stops at the first failure. Those times hide what a test reused from the session
        # (a claim's evidence collected by an earlier test is free to the next one), and every
        # mutant runs in a fresh session: the tests that reach the fewest mutated functions (a
        # unit test before a command that runs a claim) go first, then mutmut's order
        reach = _reach()
        items[:] = sorted(items, key=lambda item: reach.get(item.nodeid, 0))  # stable
        return
    rank = {name: i for i, name in enumerate(FIRST)}
    items[:] = sorted(items, key=lambda item: rank.get(item.path.name, len(FIRST)))  # stable
    for item in items:
        claim = getattr(item, "callspec", None) and item.callspec.params.get("claim")
        if claim is not None and {"quick_evidence", "quick_power"} & set(item.fixturenames):
            item.add_marker(pytest.mark.xdist_group(f"claim {claim.shares or claim.id}"))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):  # the xdist controller, once per worker
    node.workerinput[_SESSION_KEY] = dict(SESSION)


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput"):  # the controller (or a run without -n) owns the folders
        for path in SESSION.values():
            shutil.rmtree(path, ignore_errors=True)


_EVIDENCE: SharedMemo | None = None


@pytest.fixture(scope="session")
def quick_evidence():
    """``quick_evidence(claim)``: the claim's quick-size evidence, collected once per test
    session by whichever process asks first and read from its file by the others."""
    from numerics.claims.base import Settings

    global _EVIDENCE
    if _EVIDENCE is None:
        _EVIDENCE = SharedMemo(Path(SESSION["shared"]) / "evidence")

    def of(claim):
        if claim.id not in _EVIDENCE:
            _EVIDENCE[claim.id] = claim.collect(Settings(mode="quick"))
        return _EVIDENCE[claim.id]

    return of


_POWER: SharedMemo | None = None


@pytest.fixture(scope="session")
def quick_power(quick_evidence):
    """``quick_power(claim)``: the claim's mutation power at quick size
    (``numerics.claims.power.power``, on the session's ``quick_evidence``), computed once per
    test session by whichever process asks first and read from its file by the others: the
    mutation catalogue and the power ratchet judge the same runs."""
    from numerics.claims.base import Settings
    from numerics.claims.power import power

    global _POWER
    if _POWER is None:
        _POWER = SharedMemo(Path(SESSION["shared"]) / "power")

    def of(claim):
        if claim.id not in _POWER:
            _POWER[claim.id] = power(claim, Settings(mode="quick"), evidence=quick_evidence(claim))
        return _POWER[claim.id]

    return of


_FIGURES: SharedMemo | None = None


@pytest.fixture(scope="session")
def quick_figure():
    """``quick_figure(fig_id)``: ``{suffix: bytes}`` of the registered figure rendered once per
    test session at quick size, the way ``attncheck figure ID -o FILE`` renders it, by whichever
    process asks first. The figure's own ``save`` writes the PNG and, from the same drawn
    figure, its PDF (``save`` again, with a ``.pdf`` path), so a test of either format does not
    compute the figure a second time; ``"describe"`` holds what the drawn figure shows
    (``numerics.figures.style.describe``: texts, legend boxes, data points, line corners)."""
    from numerics import registry
    from numerics.claims.base import Settings
    from numerics.figures import style

    global _FIGURES
    if _FIGURES is None:
        _FIGURES = SharedMemo(Path(SESSION["shared"]) / "figures")

    def of(fig_id):
        if fig_id not in _FIGURES:
            render = registry.figures()[fig_id]
            module = __import__(render.__module__, fromlist=["_"])

            drawn = {}

            def save_both(fig, path, *args, **kwargs):
                style.save(fig, path, *args, **kwargs)
                style.save(fig, str(Path(path).with_suffix(".pdf")), *args, **kwargs)
                drawn.setdefault("describe", style.describe(fig))  # what it shows, for the style tests

            folder = Path(tempfile.mkdtemp(prefix="attncheck-test-figure-", dir=SESSION["shared"]))
            patched = getattr(module, "save", None) is style.save
            if patched:
                module.save = save_both
            try:
                render(str(folder / "fig.png"), Settings(mode="quick"), lambda items, label: items)
            finally:
                if patched:
                    module.save = style.save
            _FIGURES[fig_id] = {**{f.suffix: f.read_bytes() for f in folder.iterdir()}, **drawn}
        return _FIGURES[fig_id]

    return of


@pytest.fixture(autouse=True, scope="session")
def session_cache_dir():
    """The verdict cache of this test session (numerics.core.cache reads the variable at each
    use; the records it reported unreadable are forgotten)."""
    from numerics.core import cache

    os.environ[cache.ENV] = SESSION_CACHE_DIR
    cache._REPORTED.clear()
    yield SESSION_CACHE_DIR


@pytest.fixture(autouse=True)
def _shared_locks_released():
    """A computation that raised inside a test does not keep its shared entry locked."""
    yield
    from numerics.claims import base

    for memo in (base._MEMO, _EVIDENCE, _POWER, _FIGURES):
        if isinstance(memo, SharedMemo):
            memo.release_all()


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
