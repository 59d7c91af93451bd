"""Mutation testing of the machinery: mutmut over a named group of modules (docs/mutation.md).

    python tools/mutation.py prepare                # make mutants/, record which tests reach what
    python tools/mutation.py run core request sweep [--max-children N]
    python tools/mutation.py run claims --sample 300 --seed 1   # (selection: docs/mutation.md)
    python tools/mutation.py report core            # the score per module, survivors to triage
    python tools/mutation.py show NAME               # the mutant's diff and the hash of its line
    python tools/mutation.py equivalent "REASON" NAME...   # record survivors as equivalent

Run from the repository root, in the venv of `pip install -e '.[test,mutation]'`. mutmut keeps
every result under `mutants/` (git-ignored): a run that is stopped goes on where it was, and a
run only takes up the mutants that have no result yet. Not part of the default suite or of CI.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
EQUIVALENTS = ROOT / "docs" / "mutation" / "equivalent.toml"
#: the tests that failed in prepare's record (on the unmutated code): tests/conftest.py keeps
#: them from judging a mutant, the report names them
STATS_FAILURES = MUTANTS / "attncheck-stats-failures.txt"

#: the groups of modules (paths relative to the root; a folder is every .py file under it)
GROUPS = {
    # the machinery run in full
    "core": [
        "numerics/core/arb.py", "numerics/core/arb_compile.py", "numerics/core/backends.py",
        "numerics/core/cache.py", "numerics/core/cluster.py", "numerics/core/optimize.py",
        "numerics/core/precision.py", "numerics/core/quadrature.py", "numerics/core/resources.py",
        "numerics/core/results.py", "numerics/core/seeding.py", "numerics/core/special.py",
        "numerics/core/stats.py", "numerics/core/tasks.py",
    ],
    "request": ["numerics/request"],
    "sweep": ["numerics/sweep.py"],
    "value": ["numerics/core/value.py", "numerics/core/digits.py", "numerics/core/value_ops.py",
              "numerics/core/params.py"],
    "solve": ["numerics/core/solve"],
    "memo": ["numerics/core/shared_memo.py"],
    "claims-machinery": [
        "numerics/claims/base.py", "numerics/claims/power.py", "numerics/claims/ratchet.py",
        "numerics/claims/runner.py", "numerics/explore.py", "numerics/registry.py", "numerics/theory/certify.py",
    ],
    # each paper's claim modules: a seeded sample (--sample), a mutant costs a claim run
    "claims": ["numerics/claims/paper_a", "numerics/claims/paper_b", "numerics/claims/paper_c"],
}

#: functions that run only in a process the tests start (a pool's worker, a cluster's worker):
#: mutmut records the tests that reach a function in the tests' own process and finds none for
#: these, so they get the tests of the function that starts that process
SPAWNED = {
    "numerics.core.tasks.x__worker_init": "numerics.core.tasks.xǁ_Poolǁ_spawn_process",
    "numerics.core.tasks.x__serial_in_worker": "numerics.core.tasks.x_map_tasks",
    "numerics.core.cluster.x_dask_setup": "numerics.core.cluster.x_client_for",
    # a claim collected in a pool's process; the pool's results kept when a run is interrupted
    "numerics.claims.runner.x__collect_in_worker": "numerics.claims.runner.x_collect_all",
    "numerics.claims.runner.x_share_memo": "numerics.claims.runner.x_collect_all",
    "numerics.claims.runner.x__keep_finished": "numerics.claims.runner.x_collect_all",
}

#: mutmut's exit codes (mutmut.stats.status_by_exit_code) folded into the report's columns
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout",
          None: "not checked"}


def _modules(names: list[str]) -> list[Path]:
    paths = []
    for name in names:
        for entry in GROUPS.get(name, [name]):
            p = ROOT / entry
            if p.is_dir():
                paths += sorted(q.relative_to(ROOT) for q in p.rglob("*.py"))
            elif p.is_file():
                paths.append(p.relative_to(ROOT))
            else:
                sys.exit(f"tools/mutation.py: {entry!r} is neither a group ({', '.join(GROUPS)}) "
                         "nor a module of the repository")
    return paths


def _meta(module: Path) -> dict:
    """mutmut's record of one module: ``{mutant name: exit code or None}``."""
    f = MUTANTS / (str(module) + ".meta")
    if not f.exists():
        sys.exit(f"tools/mutation.py: no mutants of {module}: run `python tools/mutation.py "
                 "prepare` first (and check [tool.mutmut] only_mutate in pyproject.toml)")
    return json.loads(f.read_text())["exit_code_by_key"]


def _env() -> dict:
    env = dict(os.environ)
    # no PYTHONPATH: mutmut puts mutants/ first on sys.path itself, and the tests run in mutants/,
    # so a subprocess they start as `python -m numerics.cli` or `python -c` imports the mutated
    # copy from its working directory (and inherits MUTANT_UNDER_TEST, the active mutant); a
    # PYTHONPATH naming mutants/ leaves mutmut's record of which tests reach what empty
    env.pop("PYTHONPATH", None)
    # the mutated modules are ten times the size of the originals: compiled once and kept, or
    # every mutant's process spends seconds compiling them again
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _compile() -> None:
    """Byte-compile mutants/ (what changed since the last call) before mutmut forks from it."""
    subprocess.call([sys.executable, "-m", "compileall", "-q", "-j", "0", "mutants"], cwd=ROOT,
                    env=_env(), stdout=subprocess.DEVNULL)


def _mutmut(args: list[str], clean_run: bool = True) -> int:
    _compile()
    code = "from mutmut.__main__ import cli\n"
    if not clean_run:
        # mutmut first runs the mutants' tests on the unmutated code (one process); right after
        # `prepare`, whose record of the whole suite ran every test unmutated and required it to
        # pass, that run repeats it (minutes): `--no-clean-run` leaves it out
        code += ("from mutmut.workers.isolation import ForkServerRunner\n"
                 "ForkServerRunner.run_clean_tests = lambda self, tests: 0\n")
    return subprocess.call([sys.executable, "-c", code + "cli()", *args], cwd=ROOT, env=_env())


def prepare(_args) -> int:
    """Make the mutants and record which tests reach which function (the selected tests, one
    process): what `mutmut run` does before it tests a mutant (mutmut's own functions). A test
    that fails here (on the unmutated code: a flaky or timed test) does not stop the record, as
    it would stop mutmut's: it is listed, and kept from judging any mutant."""
    head = ("import os\n"
            "from mutmut.__main__ import copy_src_dir, copy_also_copy_files, setup_source_paths, "
            "create_mutants, get_mutant_runner, collect_or_load_stats\n"
            "os.makedirs('mutants', exist_ok=True)\n"
            "copy_src_dir(); copy_also_copy_files(); setup_source_paths()\n")
    gen = head + ("s = create_mutants(os.cpu_count() or 2)\n"
                  "print('mutants:', s.mutated, 'files mutated,', s.unmodified, 'unchanged')\n")
    stats = head + (
        "from mutmut.runners.harness import PytestRunner\n"
        "failed = []\n"
        "class Failures:\n"
        "    def pytest_runtest_logreport(self, report):\n"
        "        if report.failed and report.nodeid not in failed:\n"
        "            failed.append(report.nodeid)\n"
        "args, execute = PytestRunner._pytest_args_regular_run, PytestRunner.execute_pytest\n"
        "def all_of_them(self, tests):\n"
        "    return [a for a in args(self, tests) if a != '-x']\n"
        "def tolerant(self, params, **kw):\n"
        "    if '--collect-only' in params:\n"
        "        return execute(self, params, **kw)\n"
        "    kw['plugins'] = list(kw.get('plugins', [])) + [Failures()]\n"
        "    code = execute(self, params, **kw)\n"
        "    if failed:\n"
        f"        with open({str(STATS_FAILURES)!r}, 'a') as fh:\n"
        "            fh.write(''.join(n + '\\n' for n in failed))\n"
        "        print('failed on the unmutated code (kept from judging mutants):', *failed, sep='\\n  ')\n"
        "    return 0 if code == 1 else code\n"
        "PytestRunner._pytest_args_regular_run, PytestRunner.execute_pytest = all_of_them, tolerant\n"
        "collect_or_load_stats(get_mutant_runner(1), apply_config_invalidation=True)\n"
        "print('which tests reach which function: recorded')\n")
    status = subprocess.call([sys.executable, "-c", gen], cwd=ROOT, env=_env())
    if status:
        return status
    if not (MUTANTS / "mutmut-stats.json").exists():  # a new record: its failures are new too
        STATS_FAILURES.unlink(missing_ok=True)
    _compile()
    return subprocess.call([sys.executable, "-c", stats], cwd=ROOT, env=_env())


def _adopt_spawned() -> None:
    """Give the functions of SPAWNED the tests of their parent in mutmut's record."""
    f = MUTANTS / "mutmut-stats.json"
    if not f.exists():
        return
    data = json.loads(f.read_text())
    tests = data["tests_by_mangled_function_name"]
    for child, parent in SPAWNED.items():
        if parent in tests:
            tests[child] = sorted(set(tests.get(child, [])) | set(tests[parent]))
    f.write_text(json.dumps(data))


def _adopt_claim_tests() -> None:
    """Give a function reached by one test of a claim (``test_x[ID]``) every test of that claim.

    The tests of a claim (its quick run, its structural mutants, its power ratchet, its doubled
    allowances) share one computation of its evidence per session (``tests/conftest.py``): the
    first of them computes it, and mutmut's record gives the claim's experiment to that test
    alone.  A mutant of the experiment would then run only that test (the structural mutants'),
    never the ratchet that catches a loosened allowance.  Every mutant's session is fresh, so
    the first test of the claim it runs computes the evidence again, under the mutant."""
    f = MUTANTS / "mutmut-stats.json"
    if not f.exists():
        return
    data = json.loads(f.read_text())
    by_claim: dict[str, set] = {}
    for test in data["duration_by_test"]:
        if _claim_of(test):
            by_claim.setdefault(_claim_of(test), set()).add(test)
    tests = data["tests_by_mangled_function_name"]
    for function, reached in tests.items():
        tests[function] = sorted(set(reached).union(*(by_claim.get(_claim_of(t), ()) for t in reached)))
    # A claim module's functions also run inside closures built when the module is imported (a
    # claim's experiment made by a factory, ``_experiment(model, quantity)``): mutmut records the
    # factory as reached by whichever test imported the module first, never by the tests that
    # run the closure.  So every function of a claim module gets the quick runs (``MODULE_TESTS``:
    # the claim passes, and fails at +-5 %) of every claim that reaches any function of that
    # module; the claim's own power runs (its structural mutants, the ratchet: minutes each in a
    # fresh session) stay with the claims whose tests reached the function.
    claims_of: dict[str, set] = {}
    for function, reached in tests.items():
        if function.startswith(CLAIM_MODULES):
            claims_of.setdefault(function.rsplit(".", 1)[0], set()).update(filter(None, map(_claim_of, reached)))
    for function in tests:
        module = function.rsplit(".", 1)[0]
        if module in claims_of:
            quick = {t for c in claims_of[module] for t in by_claim.get(c, ()) if t.split("[")[0].endswith(MODULE_TESTS)}
            tests[function] = sorted(set(tests[function]) | quick)
    f.write_text(json.dumps(data))


#: the modules of each paper's claims (mangled-name prefixes), and the tests of a claim that every
#: function of its module gets (``_adopt_claim_tests``)
CLAIM_MODULES = ("numerics.claims.paper_",)
MODULE_TESTS = ("::test_claim_passes_at_quick_size", "::test_claim_rejects_mutation")


def _claim_of(test: str) -> str:
    """The claim id a test is parametrised by (``test_x[A.thm3.q2_cosine]``, with another
    parameter after a ``-``: ``test_y[A.thm3.q2_cosine--0.05]``), or ``""``."""
    param = test[test.index("[") + 1:-1] if test.endswith("]") and "[" in test else ""
    m = re.fullmatch(r"([A-Z]\.[\w.]*\w)(-.*)?", param)
    return m.group(1) if m else ""


def _function(name: str) -> str:
    return name.rpartition("__mutmut_")[0]


def _select(modules: list[Path], sample: int | None, seed: int, again: bool = False) -> list[str]:
    # no result yet; "no tests" for a function that has tests now (SPAWNED); with ``again`` the
    # survivors not recorded as equivalent (after tests were added for them)
    equivalent = _equivalents() if again else {}
    names = [n for m in modules for n, exit_code in _meta(m).items()
             if exit_code is None or (exit_code == 33 and _function(n) in SPAWNED)
             or (again and exit_code in (0, 5, 33) and n not in equivalent)]
    if sample is not None:
        chosen = set(_sample(modules, sample, seed))
        names = [n for n in names if n in chosen]
    return sorted(names)


def _sample(modules, sample, seed):
    everything = sorted(n for m in modules for n in _meta(m))
    return random.Random(seed).sample(everything, min(sample, len(everything)))


def run(args) -> int:
    modules = _modules(args.groups)
    names = _select(modules, args.sample, args.seed, args.again)
    if not names:
        print("nothing to run: every mutant of", ", ".join(args.groups), "has a result")
        return report(args)
    print(f"{len(names)} mutants of {len(modules)} modules", flush=True)
    # one mutmut call: each call first runs every test that reaches the named mutants on the
    # unmutated code (its clean run, one process), so the mutants are not split into calls.
    # mutmut saves each mutant's result as it ends: a stopped run goes on from there.
    _adopt_spawned()
    _adopt_claim_tests()
    cmd = ["run", *names] + (["--max-children", str(args.max_children)] if args.max_children else [])
    status = _mutmut(cmd, clean_run=args.clean_run)
    report(args)
    return status


def _diff(name: str) -> str:
    out = subprocess.run([sys.executable, "-c", "from mutmut.__main__ import cli; cli()", "show", name],
                         cwd=ROOT, env=_env(), capture_output=True, text=True)
    return out.stdout


def line_hash(diff: str) -> str:
    """A short hash of a mutant's changed lines (the ``-``/``+`` lines of its diff, stripped):
    an equivalence recorded for a mutant whose line has since changed is reported stale."""
    lines = [l[1:].strip() for l in diff.splitlines()
             if l[:1] in "+-" and not l.startswith(("+++", "---"))]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:10]


def equivalent(args) -> int:
    """Record a survivor as equivalent: its name, the hash of its changed lines, the reason."""
    known = _equivalents()
    with open(EQUIVALENTS, "a") as fh:
        for name in args.names:
            if name in known:
                print(f"{name}: already recorded")
                continue
            diff = _diff(name)
            if not diff.strip():
                sys.exit(f"tools/mutation.py: no mutant {name!r}")
            reason = args.reason.replace("\\", "\\\\").replace('"', '\\"')
            fh.write(f'\n["{name}"]\nline = "{line_hash(diff)}"\nreason = "{reason}"\n')
    return 0


def _equivalents() -> dict:
    return tomllib.loads(EQUIVALENTS.read_text()) if EQUIVALENTS.exists() else {}


def show(args) -> int:
    for name in args.names:
        d = _diff(name)
        print(d, end="")
        print(f"line hash: {line_hash(d)}\n")
    return 0


def report(args) -> int:
    modules = _modules(args.groups)
    chosen = set(_sample(modules, args.sample, args.seed)) if args.sample is not None else None
    equivalent = _equivalents()
    stale, untriaged, rows, total = [], [], [], {}
    for m in modules:
        counts = dict.fromkeys(["generated", "killed", "timeout", "survived", "equivalent",
                                "no tests", "not checked", "suspicious"], 0)
        for name, exit_code in sorted(_meta(m).items()):
            if chosen is not None and name not in chosen:
                continue
            counts["generated"] += 1
            status = STATUS.get(exit_code, "suspicious")
            if name in equivalent and status in ("survived", "no tests"):
                if args.check and line_hash(_diff(name)) != equivalent[name].get("line"):
                    stale.append(name)
                status = "equivalent"
            elif status in ("survived", "no tests"):
                untriaged.append((name, status))
            counts[status] = counts.get(status, 0) + 1
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
        rows.append((str(m), counts))
    rows.append(("all", total))
    print(f"{'module':36} {'gen':>5} {'kill':>5} {'tout':>4} {'surv':>5} {'equiv':>5} {'none':>5}"
          f" {'todo':>5} {'score':>7}")
    for module, c in rows:
        judged = c["generated"] - c["equivalent"]
        score = (c["killed"] + c["timeout"]) / judged if judged else float("nan")
        print(f"{module:36} {c['generated']:5} {c['killed']:5} {c['timeout']:4} {c['survived']:5}"
              f" {c['equivalent']:5} {c['no tests']:5} {c['not checked']:5} {100 * score:6.1f}%")
    if chosen is not None and total["generated"] > total["equivalent"]:
        k, n = total["killed"] + total["timeout"], total["generated"] - total["equivalent"]
        lo, hi = _wilson(k, n)
        print(f"sampled score {100 * k / n:.1f} % (95 % interval {100 * lo:.1f}-{100 * hi:.1f} %)")
    if STATS_FAILURES.exists():
        print("\ntests that failed on the unmutated code (kept from judging mutants):",
              *sorted(set(STATS_FAILURES.read_text().split())), sep="\n  ")
    if untriaged:
        print(f"\n{len(untriaged)} survivors not recorded as equivalent:")
        for name, status in untriaged:
            print(f"  {name}  [{status}]")
    if stale:
        print(f"\n{len(stale)} stale equivalents (the mutated line changed): {', '.join(stale)}")
        return 1
    return 0


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return centre - half, centre + half


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="tools/mutation.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare", help="make mutants/ and record which tests reach which function")
    for name in ("run", "report"):
        p = sub.add_parser(name)
        p.add_argument("groups", nargs="+", help=f"groups ({', '.join(GROUPS)}) or module paths")
        p.add_argument("--sample", type=int, help="a seeded random sample of this many mutants")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--check", action="store_true",
                       help="check that each recorded equivalent still has its line")
        if name == "run":
            p.add_argument("--max-children", type=int, help="processes (default: one per CPU)")
            p.add_argument("--again", action="store_true",
                           help="run the survivors again too (after tests were added for them)")
            p.add_argument("--no-clean-run", dest="clean_run", action="store_false",
                           help="skip mutmut's run of the tests on the unmutated code (right after "
                                "`prepare` only: it has just run them all)")
    p = sub.add_parser("show")
    p.add_argument("names", nargs="+")
    p = sub.add_parser("equivalent", help="record survivors as equivalent, with one reason")
    p.add_argument("reason")
    p.add_argument("names", nargs="+")
    args = ap.parse_args(argv)
    return {"prepare": prepare, "run": run, "report": report, "show": show,
            "equivalent": equivalent}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
