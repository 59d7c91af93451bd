"""The command line: exit codes, JSON records, bad input handling.

Toy claims are injected so the CLI is tested independently of the papers' claims; a second
group of tests runs the bad-input checks against every real evaluable claim."""
import json
import math
import re

import mpmath
import pytest
import sympy as sp
from click.testing import CliRunner

from derivations import Equation
from numerics import registry
from numerics.cli import main
from numerics.claims.base import Claim, Comparison
from numerics.core.params import ParamSpace
from numerics.papers.paper_a.vocabulary import PI, THETA

x = sp.Symbol("x", positive=True)
EQ = Equation("T.sqrt", sp.Symbol("s"), sp.sqrt(x), "toy", (x,))
SPACE = ParamSpace((PI.with_default(0.5), THETA.with_default(2.0)))


def _good(settings, claim):
    return [Comparison("sqrt2", float(mpmath.sqrt(2)), 2 ** 0.5, 0.0, 1e-15)], {}, {}


def _evaluate(params, dps):
    with mpmath.workdps(dps):
        return {"sqrt_theta": mpmath.sqrt(mpmath.mpf(params["theta"])), "pi": mpmath.mpf(params["pi"])}


TOYS = {
    "T.good": Claim("T.good", "A", "toy", "sqrt 2", _good, (EQ,), _evaluate, SPACE),
    "T.also": Claim("T.also", "A", "toy", "sqrt 2 again", _good, (EQ,)),
    "T.capped": Claim("T.capped", "A", "toy", "sqrt 2, to 40 digits", _good, (EQ,), _evaluate, SPACE, max_dps=40),
}


@pytest.fixture
def toy(monkeypatch):
    # the toy claims exist in this process only: one CPU, so that verify computes them here
    # (a pool's processes would import the real registry)
    monkeypatch.setattr("numerics.core.cluster.available_workers", lambda: 1)
    monkeypatch.setattr(registry, "claims", lambda: TOYS)
    monkeypatch.setattr(registry, "claim_index", lambda: [registry._describe(c) for c in TOYS.values()])
    return CliRunner()


def test_cli_default_seed_is_the_seeding_default():
    from numerics import cli
    from numerics.core.seeding import DEFAULT_SEED

    assert cli.DEFAULT_SEED == DEFAULT_SEED


def test_list_is_a_table_with_a_header(toy):
    out = toy.invoke(main, ["list"])
    assert out.exit_code == 0
    head = out.output.splitlines()[0].split()
    assert head[:5] == ["id", "status", "eval", "point", "mutants"] and "T.good" in out.output


def test_list_prints_square_brackets_verbatim(monkeypatch):
    statement = "m E[h^2] + E[(E)^2] >= 0 [bold]x[/bold]"
    toys = {"T.brackets": Claim("T.brackets", "A", "toy", statement, _good, (EQ,))}
    monkeypatch.setattr(registry, "claims", lambda: toys)
    monkeypatch.setattr(registry, "claim_index", lambda: [registry._describe(c) for c in toys.values()])
    out = CliRunner().invoke(main, ["list"])
    assert out.exit_code == 0 and statement in out.output


def test_list_json(toy):
    out = toy.invoke(main, ["list", "--json"])
    assert out.exit_code == 0
    recs = [json.loads(line) for line in out.output.splitlines()]
    assert [r["id"] for r in recs] == ["T.good", "T.also", "T.capped"]
    assert recs[0]["evaluable"] and recs[0]["params"][0]["name"] == "pi"
    assert [r["max_dps"] for r in recs] == [2000, None, 40]


def test_verify_passes_and_mutation_is_caught(toy):
    ok = toy.invoke(main, ["verify", "T.good", "--json"])
    assert ok.exit_code == 0
    rec = json.loads(ok.output)
    assert rec["schema"] == "attncheck.verdict/3" and rec["passed"] and rec["rows"][0]["label"] == "sqrt2"
    for key in ("id", "theory", "mean", "se", "z", "tolerance"):
        assert key in rec or key in rec["rows"][0]
    mut = toy.invoke(main, ["verify", "T.good", "--mutate", "0.05"])
    assert mut.exit_code == 0 and "rejected" in mut.output
    assert toy.invoke(main, ["verify", "--mutate", "0"]).exit_code == 0


def test_prefix_selection_and_unknown_id(toy):
    assert toy.invoke(main, ["verify", "T"]).exit_code == 0
    bad = toy.invoke(main, ["verify", "Z.nope"])
    assert bad.exit_code == 2 and "unknown claim id" in bad.output


def test_eval_digits_and_errors(toy):
    out = toy.invoke(main, ["eval", "T.good", "--param", "theta=2", "--dps", "50", "--json"])
    assert out.exit_code == 0
    val = json.loads(out.output)["values"]["sqrt_theta"]
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(val) - mpmath.sqrt(2)) < mpmath.mpf(10) ** -48
    bad = toy.invoke(main, ["eval", "T.good", "--param", "pi=1.5"])
    assert bad.exit_code == 2 and bad.output.strip().count("\n") == 0 and "pi" in bad.output
    assert "Traceback" not in bad.output
    assert toy.invoke(main, ["eval", "T.also"]).exit_code == 2


def test_eval_refuses_a_dps_beyond_the_claims_max_dps_at_once(toy):
    assert toy.invoke(main, ["eval", "T.capped", "--dps", "40"]).exit_code == 0
    out = toy.invoke(main, ["eval", "T.capped", "--dps", "41"])
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1
    assert "--dps" in out.output and "5..40" in out.output


def test_latex(toy, tmp_path):
    f = tmp_path / "eq.tex"
    out = toy.invoke(main, ["latex", "T.good", "-o", str(f)])
    assert out.exit_code == 0
    text = f.read_text()
    assert "\\begin{equation}" in text and "\\sqrt{x}" in text


def test_bad_mutate_and_modes(toy):
    assert toy.invoke(main, ["verify", "--mutate", "nan"]).exit_code == 2
    assert toy.invoke(main, ["verify", "--quick", "--full"]).exit_code == 2


# --- every real evaluable claim rejects bad input cleanly -------------------------------
REAL = [c for c in registry.claims().values() if c.evaluate is not None]
BAD_VALUES = ["nan", "abc", "-1e9", "inf"]


@pytest.mark.parametrize("claim", REAL, ids=[c.id for c in REAL])
def test_real_claims_reject_bad_parameters(claim):
    runner = CliRunner()
    for p in claim.param_space.params:
        for raw in BAD_VALUES:
            try:
                p.parse(raw)
                continue  # a valid value for this parameter (e.g. a real line)
            except Exception:
                pass
            out = runner.invoke(main, ["eval", claim.id, "--param", f"{p.name}={raw}"])
            assert out.exit_code == 2, (claim.id, p.name, raw, out.output)
            assert p.name in out.output and "Traceback" not in out.output
            assert len(out.output.strip().splitlines()) == 1


@pytest.mark.parametrize("claim", REAL, ids=[c.id for c in REAL])
def test_real_claims_evaluate_at_defaults(claim):
    out = CliRunner().invoke(main, ["eval", claim.id, "--dps", "20", "--json"])
    assert out.exit_code == 0, out.output
    values = json.loads(out.output)["values"]
    numbers = [v for v in values.values() if v not in ("true", "false")]  # booleans print as such
    assert values and all(math.isfinite(float(mpmath.mpf(v))) for v in numbers)


def test_latex_of_every_real_claim(tmp_path):
    out_file = tmp_path / "all.tex"
    out = CliRunner().invoke(main, ["latex", "-o", str(out_file)])
    assert out.exit_code == 0, out.output
    text = out_file.read_text()
    from numerics.latex import Document

    # each distinct step once in the document (a repeat is an \eqref), and each claim's statement
    steps = {Document.key(e) for c in registry.claims().values() for e in c.get_equations()}
    n_eq = len(steps) + sum(c.get_statement_eq() is not None for c in registry.claims().values())
    envs = [text.count(f"\\begin{{{env}}}") for env in ("equation", "multline")]
    assert envs[0] == text.count("\\end{equation}") and envs[1] == text.count("\\end{multline}")
    # a step whose formula is printed already (a loss variant with the same formula, a
    # statement that is a step) refers to it: one block per distinct formula
    bodies = re.findall(r"\\begin\{(?:equation|multline)\}\\label\{[^}]*\}\n(.*?)\\end\{", text, re.S)
    assert len(bodies) == sum(envs) and len(set(bodies)) == len(bodies)
    assert n_eq - 10 <= sum(envs) <= n_eq
    assert "nan" not in text.lower().replace("\\nabla", "")


def test_eval_prints_monte_carlo_values_only_to_their_standard_error():
    from numerics.core import value as V

    out = {"a": mpmath.mpf("86.8185546"), "a_rqmc_se": mpmath.mpf("0.648"), "exact": mpmath.pi}
    text = V.flatten(V.values(out, 30))  # the one printer, shared by the CLI and the API
    assert text["a"] == "86.82"  # two digits beyond the se's first
    assert text["a_rqmc_se"] == "0.65"
    assert len(text["exact"].replace(".", "")) == 30


def test_verify_at_a_parameter_point_of_the_user():
    """A.thm3.* run their experiment at the user's point; rows and tolerances as at the design."""
    out = CliRunner().invoke(main, ["verify", "A.thm3.q2_cosine", "--param", "alpha0=1", "--param", "L=4",
                                    "--param", "R=1", "--param", "pi=0.5", "--json"])
    assert out.exit_code == 0, out.output
    rec = json.loads(out.output.splitlines()[-1])
    assert rec["passed"] and rec["details"]["params"]["point"]["L"] == 4
    assert all("point, a0=1" in r["label"] and r["se"] > 0 for r in rec["rows"])
    wrong = CliRunner().invoke(main, ["verify", "A.thm3.q2_cosine", "--param", "alpha0=1", "--param", "L=4",
                                      "--param", "R=1", "--param", "pi=0.5", "--mutate", "0.1"])
    assert wrong.exit_code == 0 and "mutation caught" in wrong.output


def test_verify_param_refused_by_a_claim_without_a_point_space():
    out = CliRunner().invoke(main, ["verify", "B.kl.bound", "--param", "M=3"])
    assert out.exit_code == 2 and "takes no --param" in out.output and len(out.output.strip().splitlines()) == 1
    bad = CliRunner().invoke(main, ["verify", "A.thm3.q2_cosine", "--param", "zeta=1"])
    assert bad.exit_code == 2 and "unknown parameter" in bad.output


def test_help_pages_list_what_they_accept():
    run = CliRunner()
    solve = run.invoke(main, ["solve", "--help"]).output
    for word in ("sparse-token", "attention", "pool", "logistic", "alpha1", "default", "[0.0, inf)"):
        assert word in solve, word
    figure = run.invoke(main, ["figure", "--help"]).output
    assert all(fid in figure for fid in registry.figures())
    bench = run.invoke(main, ["bench", "--help"]).output
    assert all(name in bench for name in registry.benchmarks())
    ev = run.invoke(main, ["eval", "--help"]).output
    assert "--list-params" in ev and "A.thm3.q2_cosine" in ev
    listed = run.invoke(main, ["eval", "A.thm3.q2_cosine", "--list-params"])
    assert listed.exit_code == 0 and listed.output.split()[0] == "L" and "default" in listed.output
    for name, cmd in main.commands.items():
        if isinstance(cmd, type(main)):  # a group (cache): its subcommands are the examples
            continue
        assert "attncheck " + name in run.invoke(main, [name, "--help"]).output, f"{name} --help has no example"


def test_top_level_help_imports_no_registry_module():
    import subprocess
    import sys

    code = ("import sys\nfrom numerics.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('sympy', 'matplotlib', 'numerics.figures', 'numerics.claims') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert "HEAVY []" in out, out


# --- one error style: click's own refusals in the request layer's one line -----------------------
@pytest.mark.parametrize("args, line", [
    (["eval", "A.thm3.q2_cosine", "--dps", "-1"], "error: --dps must be an integer in [5, 2000], got -1"),
    (["eval", "A.thm3.q2_cosine", "--dps", "abc"], "error: --dps must be an integer in [5, 2000], got 'abc'"),
    (["verify", "B.kl.bound", "--seed", "-3"], "error: --seed must be an integer in [0, inf], got -3"),
    (["verify", "B.kl.bound", "--workers", "0"], "error: --workers must be an integer in [1, 64], got 0"),
    (["verify", "B.kl.bound", "--mutate", "x"], "error: --mutate must be a number, got 'x'"),
    (["explore", "A.thm3.q2_cosine", "--examples", "y"], "error: --examples must be an integer, got 'y'"),
    (["sweep", "B.rate.exponent", "--grid", "beta=1,2", "--format", "xls", "--out", "s"],
     "error: --format must be one of parquet, csv, got 'xls'"),
    (["report", "B.kl.bound", "-o", "b.pdf", "--pdf-engine", "word"],
     "error: --pdf-engine must be one of latex, chromium, got 'word'"),
])
def test_click_refusals_are_the_projects_one_line(args, line, tmp_path, monkeypatch):
    """A value outside an option's declared range or choices: exit 2, one line naming the
    option and what it accepts, in the words of the request layer (numerics.request.integer)."""
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and r.output.splitlines() == [line], r.output
    assert not list(tmp_path.iterdir())  # refused before anything was written


def test_an_unknown_id_is_refused_before_any_claim_is_imported(tmp_path):
    """``verify``, ``eval``, ``latex``, ``report``, ``explore`` with an unknown id: exit 2 from the
    claim index, with neither SymPy nor numpy nor any claim module imported."""
    import subprocess
    import sys

    import os
    from pathlib import Path

    import numerics

    registry.claim_index()  # the index of this session's cache folder (the subprocesses read it)
    # the subprocesses run in an empty folder and import the package this process imported
    env = {**os.environ, "PYTHONPATH": str(Path(numerics.__file__).resolve().parents[1])}
    code = ("import sys\nfrom numerics.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    code = e.code\nheavy = [m for m in ('sympy', 'numpy', 'numerics.claims.paper_a', 'numerics.latex',"
            " 'numerics.report') if m in sys.modules]\nprint('EXIT', code, 'HEAVY', heavy)")
    for args in (["verify", "Z.nope"], ["verify", "A.nope", "--power"], ["eval", "Z.nope"], ["latex", "Z.nope"],
                 ["report", "Z.nope", "-o", "z.html"], ["explore", "A.thm3.nope"]):
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                             cwd=tmp_path, env=env)
        assert "EXIT 2 HEAVY []" in out.stdout, (args, out.stdout, out.stderr)
        assert out.stderr.startswith("error: unknown claim id") and out.stderr.count("\n") == 1, out.stderr
    # a sweep's target may be a problem too: the problems are loaded, never the claims (nor SymPy)
    out = subprocess.run([sys.executable, "-c", code.replace("'numpy', ", ""), "sweep", "Z.nope", "--grid", "a=1,2",
                          "--out", "never"], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert "EXIT 2 HEAVY []" in out.stdout and out.stderr == (
        "error: unknown sweep target 'Z.nope': a claim id with 'eval' in `attncheck list`, or a problem "
        f"({', '.join(registry.problems())})\n"), out
    assert not list(tmp_path.iterdir())  # nothing written


# --- progress: one printer, rich on a terminal, plain lines without one ---------------------------
def test_plain_progress_is_quiet_for_short_loops_and_says_how_far_a_long_one_got(monkeypatch):
    import io

    from numerics.cli import progress as cli_progress

    clock = [0.0]
    monkeypatch.setattr(cli_progress.time, "monotonic", lambda: clock[0])
    buf = io.StringIO()
    with cli_progress.Progress(stream=buf, terminal=False, every=10, quiet=2) as p:
        for i in range(4):  # a short loop: nothing
            p("short", i, 3)
        for i, t in enumerate((0, 1, 3, 5, 14, 20)):  # a long one: when due, and its end
            clock[0] = 100 + t
            p("trials", i, 5)
        p.line("a line that stays")
        for i, t in enumerate((0, 3, 4)):  # a solver's iterations (no end), restarted: a second run
            clock[0] = 200 + t
            p("solver Newton", [1, 2, 1][i])
    assert buf.getvalue().splitlines() == ["trials: 2/5 (3 s)", "trials: 4/5 (14 s)", "trials: 5/5 (20 s)",
                                           "a line that stays", "solver Newton: run 1, step 2 (3 s)"]


def test_a_solve_reports_each_iteration_to_the_commands_progress():
    import io

    from numerics.cli.progress import Progress
    from numerics.core import solve as solvers
    from numerics.core.tasks import reporting

    buf = io.StringIO()
    with Progress(stream=buf, terminal=False, every=0, quiet=0) as p, reporting(p):
        sol = solvers.solve("newton", lambda x: ([x[0] ** 2 - 2.0], [[2.0 * x[0]]]), (False,), x0=[1.0], tol=1e-12)
    lines = buf.getvalue().splitlines()
    assert lines and all(ln.startswith("solver Newton: run 1, step ") for ln in lines), lines
    assert len(lines) == sol.iterations >= 3


def test_verify_without_a_terminal_names_each_claim_it_computes(tmp_path):
    r = CliRunner().invoke(main, ["verify", "B.kl.bound", "--no-cache"], env={"ATTNCHECK_CACHE_DIR": str(tmp_path)})
    assert r.exit_code == 0 and "  ... B.kl.bound" in r.stderr.splitlines(), r.stderr
    assert "... B.kl.bound" not in r.stdout  # progress on stderr, verdicts on stdout


@pytest.mark.parametrize("args, line", [
    (["eval"], "error: CLAIM_ID is required"),
    (["sweep", "B.rate.exponent", "--grid", "beta=1,2"], "error: --out is required"),
])
def test_click_missing_and_path_refusals_name_the_parameter_first(args, line):
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and r.output.splitlines() == [line], r.output


def test_an_out_folder_that_is_a_file_is_one_line(tmp_path):
    f = tmp_path / "f"
    f.write_text("")
    r = CliRunner().invoke(main, ["sweep", "B.rate.exponent", "--grid", "beta=1,2", "--out", str(f)])
    assert r.exit_code == 2 and r.output.splitlines() == [f"error: --out: directory {str(f)!r} is a file"], r.output


def test_terminal_progress_is_rich_and_keeps_its_lines():
    """On a terminal: rich bars (a label with brackets is text, not markup), lines that stay."""
    import io

    from numerics.cli.progress import Progress

    buf = io.StringIO()
    with Progress(stream=buf, terminal=True) as p:
        assert p._rich is not None
        p("trials [d=40]", 1, 3)
        p("solver Newton", 4)
        p.current("A.thm3.q2_cosine")
        p("trials [d=40]", 3, 3)
        p.line("running benchmark X [1/2] ...")
    assert "running benchmark X [1/2] ..." in buf.getvalue() and p._rich is None
