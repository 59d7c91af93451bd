"""The one request layer under the command line and the Python API: the API imports nothing
from the CLI, the dps domain is declared once, numpy arrays evaluate elementwise, results are
typed (Values, one SolveResult for every model), and the API mirrors sweep and figure."""
import pathlib
import re
import subprocess
import sys

import mpmath
import numpy as np
import pytest
from click.testing import CliRunner

import attncheck
from numerics import request as Q
from numerics.cli import main
from numerics.core.params import ParameterError
from numerics.core.precision import DPS, MAX_DPS, MIN_DPS
from numerics.core.value import Value

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_api_imports_nothing_from_the_cli():
    code = ("import sys, attncheck\nattncheck.evaluate('B.rate.exponent', beta=2, M=10000)\n"
            "print('CLI', sorted(m for m in sys.modules if m == 'numerics.cli' or m.startswith('numerics.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "CLI []" in out.stdout, out.stdout + out.stderr
    api = "".join(f.read_text() for f in [ROOT / "attncheck" / "__init__.py",
                                          *sorted((ROOT / "numerics" / "request").glob("*.py"))])
    assert "numerics.cli" not in api.replace("``numerics.cli``", "")


def test_the_dps_domain_is_written_once():
    """No entry point spells the limits of dps: they come from numerics.core.precision."""
    files = [ROOT / "attncheck" / "__init__.py", *sorted((ROOT / "numerics" / "request").glob("*.py")),
             *sorted((ROOT / "numerics" / "cli").glob("*.py"))]
    for f in files:
        text = f.read_text()
        assert not re.search(r"IntRange\(\s*5\s*,\s*2000\s*\)|<=\s*2000|\b2000\b", text), f
    assert (DPS.lo, DPS.hi) == (MIN_DPS, MAX_DPS)
    from numerics.claims.base import MAX_DPS as claims_max

    assert claims_max == MAX_DPS


def test_cli_and_api_share_the_dps_domain_certify_included():
    for bad in (MIN_DPS - 1, MAX_DPS + 1):
        with pytest.raises(ParameterError, match="dps"):
            attncheck.evaluate("B.rate.exponent", dps=bad)
        with pytest.raises(ParameterError, match="dps"):
            attncheck.certify("A.thm1.linear_threshold", dps=bad)
        out = CliRunner().invoke(main, ["eval", "A.thm1.linear_threshold", "--certify", "--dps", str(bad)])
        assert out.exit_code == 2
    low = attncheck.certify("A.thm1.linear_threshold", dps=MIN_DPS)  # the same lower bound as the CLI's
    balls = attncheck.certify("A.thm1.linear_threshold", dps=30, as_values=True)
    exact = attncheck.evaluate("A.thm1.linear_threshold", dps=40)
    for k, b in balls.items():  # a ball radius as a Value: the mpmath value lies in it
        assert b.kind == "radius" and 0 < b.error < 1e-26
        if not isinstance(exact[k].value, bool):
            assert abs(exact[k] - b) <= b.error
    out = CliRunner().invoke(main, ["eval", "A.thm1.linear_threshold", "--certify", "--dps", str(MIN_DPS)])
    assert out.exit_code == 0 and all(b.digits in out.output for b in low.values())


def test_request_layer_validates_once_with_the_callers_spelling():
    with pytest.raises(ParameterError, match=r"^--workers must be"):
        Q.workers(0, Q.option_name)
    with pytest.raises(ParameterError, match=r"^workers must be"):
        Q.workers(65)
    with pytest.raises(ParameterError, match="mutate"):
        Q.mutate(float("nan"))
    with pytest.raises(ParameterError, match="mode"):
        Q.settings("medium")
    with pytest.raises(ParameterError, match="unknown claim id"):
        Q.select(["Z.nope"])
    with pytest.raises(ParameterError, match="takes no --model|must be one of"):
        Q.solve("sparse-token", {"model": "bogus"}, {}, 30, spell=Q.option_name)


def test_evaluate_returns_values_that_behave_like_numbers():
    v = attncheck.evaluate("A.thm3.q2_cosine", alpha0=2, dps=50)
    cos = v["logistic.q2_cosine"]
    assert isinstance(cos, Value) and cos.exact and cos.dps == 50
    assert 0 < cos < 1 and cos + 1 > 1 and float(cos * 2) == pytest.approx(2 * float(cos))
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(cos) - mpmath.mpf("0.90749190620775527977374389004732531566066757582737")) < 1e-49


def test_monte_carlo_outputs_carry_their_error_instead_of_a_key_suffix():
    v = attncheck.evaluate("A.capacity.ordering", dps=20)
    assert not any(k.endswith("_se") for k in v)
    a = v["alpha_A"]
    assert a.kind == "rqmc_se" and a.error > 0 and " ± " in str(a)
    s = attncheck.evaluate("A.capacity.ordering", dps=20, as_strings=True)
    assert "alpha_A_rqmc_se" in s  # the CLI's text, error back on its key


def test_evaluate_accepts_numpy_arrays_elementwise():
    beta = np.array([1.0, 2.0, 4.0])
    out = attncheck.evaluate("B.rate.exponent", beta=beta, M=10000, dps=20)
    e = out["exponent"]
    assert isinstance(e, np.ndarray) and e.dtype == object and e.shape == (3,)
    assert all(isinstance(x, Value) for x in e)
    for b, x in zip(beta, e):
        assert x == attncheck.evaluate("B.rate.exponent", beta=b, M=10000, dps=20)["exponent"]
    np.testing.assert_allclose(np.asarray(e, dtype=float), -2 * beta / (2 * beta + 1))
    grid = attncheck.evaluate("B.rate.exponent", beta=np.array([[1.0], [2.0]]), M=np.array([100, 10000]))
    assert grid["exponent"].shape == (2, 2)
    with pytest.raises(ParameterError, match="broadcast"):
        attncheck.evaluate("B.rate.exponent", beta=np.array([1.0, 2.0]), M=np.array([10, 100, 1000]))
    with pytest.raises(ParameterError, match="no points"):
        attncheck.evaluate("B.rate.exponent", beta=np.array([]))
    with pytest.raises(ParameterError, match="at most"):
        attncheck.evaluate("B.rate.exponent", beta=np.ones((400, 400)))
    with pytest.raises(ParameterError, match="beta"):  # every point is validated before any runs
        attncheck.evaluate("B.rate.exponent", beta=np.array([1.0, -1.0]))


def test_solve_returns_one_typed_result_with_values():
    s = attncheck.solve("sparse-token", model="pool", loss="square", alpha1=2, lam=0.01, dps=25)
    assert s.ok and s.iterations > 0 and s.residual < 1e-20
    te = s["test_error"]
    assert isinstance(te, Value) and te.dps == 25 and 0 < te < 1
    assert len(str(te).replace("0.", "", 1)) >= 20  # the polished digits, not a float's
    assert all(isinstance(x, Value) for x in s.value.values())
    assert "\n" not in repr(s) and "sparse-token" in repr(s)


def test_verdict_repr_is_one_line():
    (v,) = attncheck.verify("B.kl.bound")
    text = repr(v)
    assert "\n" not in text and len(text) < 200 and "B.kl.bound" in text and "PASS" in text


def test_sweep_and_figure_from_python(tmp_path):
    prov = attncheck.sweep("B.rate.exponent", tmp_path / "s", grid={"beta": np.array([1.0, 2.0, 3.0])}, M=1000,
                           format="csv")
    assert prov["points"] == 3 and prov["computed"] == 3
    again = attncheck.sweep("B.rate.exponent", tmp_path / "s", grid={"beta": [1.0, 2.0, 3.0]}, M=1000, format="csv")
    assert again["reused"] == 3  # the same points as the CLI would address them
    cli = CliRunner().invoke(main, ["sweep", "B.rate.exponent", "--grid", "beta=1.0,2.0,3.0", "--param", "M=1000",
                                    "--format", "csv", "--out", str(tmp_path / "s")])
    assert cli.exit_code == 0 and "3 reused" in cli.output
    png = attncheck.figure(None, tmp_path / "s.png", sweep_dir=tmp_path / "s")
    assert pathlib.Path(png).read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ParameterError, match="unknown figure"):
        attncheck.figure("nope", tmp_path / "f.png")
    with pytest.raises(ParameterError, match="must end in"):
        attncheck.figure("A.fig1", tmp_path / "f.txt")
    with pytest.raises(ParameterError, match="both fixed and swept"):
        attncheck.sweep("B.rate.exponent", tmp_path / "t", grid={"beta": [1.0]}, beta=2.0)


def test_docstring_examples_run():
    import doctest

    res = doctest.testmod(attncheck, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 10 and res.failed == 0


def test_the_cli_is_a_thin_shell():
    sizes = {f.name: len(f.read_text().splitlines()) for f in (ROOT / "numerics" / "cli").glob("*.py")}
    assert sizes and max(sizes.values()) <= 400, sizes
    assert 'attncheck = "numerics.cli:main"' in (ROOT / "pyproject.toml").read_text()


def test_verify_at_a_point_is_validated_by_the_request_layer_for_both():
    with pytest.raises(ParameterError, match="takes no param"):
        attncheck.verify("B.kl.bound", params={"M": 3})
    with pytest.raises(ParameterError, match="unknown parameter"):
        attncheck.verify("A.thm3.q2_cosine", params={"zeta": 1})
    base = Q.settings()
    at = Q.point_settings(Q.select(["A.thm3.q2_cosine"]), base, {"alpha0": "1", "L": "4"}, Q.option_name)
    assert dict(at.params)["L"] == 4 and dict(at.params)["alpha0"] == 1.0 and Q.point_settings([], base, {}) is base


def test_import_attncheck_is_cheap():
    code = "import sys, attncheck\nprint('HEAVY', [m for m in ('mpmath', 'sympy', 'numpy') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr
    assert attncheck.Value is Value


def test_a_dps_that_a_claim_cannot_honour_is_refused_up_front():
    """``verify --dps N`` (N other than the default) runs only claims whose theory is computed at
    N digits and that reach N; the others are named in one line, before anything runs."""
    from types import SimpleNamespace

    float64 = SimpleNamespace(id="X.float64", uses_dps=False, max_dps=MAX_DPS)
    capped = SimpleNamespace(id="X.capped", uses_dps=True, max_dps=50)
    honest = SimpleNamespace(id="X.honest", uses_dps=True, max_dps=MAX_DPS)
    Q.claims_dps([float64, honest], DPS.default)  # the default: nothing to honour
    Q.claims_dps([honest, capped], 50)
    with pytest.raises(ParameterError, match=r"^--dps 40: X\.float64 does not evaluate the theory at --dps digits"):
        Q.claims_dps([honest, float64], 40, Q.option_name)
    with pytest.raises(ParameterError, match=r"X\.capped supports dps 5\.\.50"):
        Q.claims_dps([honest, capped], 60)


# --- the validators, word for word (the one line a user reads) -----------------------------------
def _refused(fn, *args, **kw):
    with pytest.raises(ParameterError) as e:
        fn(*args, **kw)
    return str(e.value)


def test_scalars_are_checked_and_named_the_callers_way():
    assert Q.option_name("max_shrinks") == "--max-shrinks" and Q.python_name("dps") == "dps"
    assert Q.integer("n", 3, 1, 5) == 3 and Q.integer("n", 1, 1, 5) == 1 and Q.integer("n", 5, 1, 5) == 5
    assert Q.integer("n", np.int64(7), 0, None) == 7 and type(Q.integer("n", np.int64(7), 0, None)) is int
    assert _refused(Q.integer, "n", 6, 1, 5) == "n must be an integer in [1, 5], got 6"
    assert _refused(Q.integer, "n", 0, 1, None) == "n must be an integer in [1, inf], got 0"
    assert _refused(Q.integer, "n", True, 0, 5) == "n must be an integer in [0, 5], got True"
    assert _refused(Q.integer, "n", 2.0, 0, 5, Q.option_name) == "--n must be an integer in [0, 5], got 2.0"
    assert Q.dps(MIN_DPS) == MIN_DPS and Q.dps(MAX_DPS) == MAX_DPS
    assert _refused(Q.dps, MAX_DPS + 1, spell=Q.option_name) == \
        f"--dps must be an integer in [{MIN_DPS}, {MAX_DPS}], got {MAX_DPS + 1}"
    capped = type("C", (), {"max_dps": 40, "id": "T.capped"})()
    assert Q.dps(40, capped) == 40
    assert _refused(Q.dps, 41, capped, Q.option_name) == f"--dps 41: T.capped supports --dps {MIN_DPS}..40"
    assert Q.dps(MAX_DPS, type("U", (), {"max_dps": None, "id": "T.u"})()) == MAX_DPS
    from numerics.core.seeding import DEFAULT_SEED

    assert Q.seed(None) == DEFAULT_SEED and Q.seed(0) == 0 and Q.seed(2**40) == 2**40
    assert _refused(Q.seed, -1, Q.option_name) == "--seed must be an integer in [0, inf], got -1"
    assert Q.mode("quick") == "quick" and Q.mode("full") == "full"
    assert _refused(Q.mode, "fast") == "mode must be one of quick, full, got 'fast'"
    assert _refused(Q.mode, None) == "mode must be one of quick, full, got None"
    assert Q.workers(1) == 1 and Q.workers(Q.MAX_WORKERS) == Q.MAX_WORKERS == 64
    assert _refused(Q.workers, 0, Q.option_name) == "--workers must be an integer in [1, 64], got 0"
    assert _refused(Q.workers, 65) == "workers must be an integer in [1, 64], got 65"
    assert Q.mutate(0.05) == 0.05 and Q.mutate(-0.99) == -0.99 and type(Q.mutate(1)) is float
    for bad in (-1, -1.5, float("inf"), float("nan"), True, "0.1"):
        assert _refused(Q.mutate, bad, Q.option_name) == f"--mutate must be a finite number > -1, got {bad!r}"
    s = Q.settings("full", 7, 40, (("a", 1),))
    assert (s.mode, s.seed, s.dps, s.params) == ("full", 7, 40, (("a", 1),))
    assert Q.settings().seed == DEFAULT_SEED and Q.settings().dps == DPS.default and Q.settings().mode == "quick"


def test_claims_at_another_precision_are_refused_by_name():
    cs = registry_claims()
    fixed = [cs["A.grad.q2"]]
    Q.claims_dps(fixed, DPS.default)  # the default: always
    assert _refused(Q.claims_dps, fixed, 40, Q.option_name) == (
        "--dps 40: A.grad.q2 does not evaluate the theory at --dps digits (float64, or a working "
        "precision of its own); run it without --dps")
    two = [cs["A.grad.q2"], cs["A.attention_vs_linear"], cs["B.rate.exponent"]]
    assert _refused(Q.claims_dps, two, 40) == (
        "dps 40: A.grad.q2, A.attention_vs_linear do not evaluate the theory at dps digits (float64, or a "
        "working precision of its own); run them without dps")
    Q.claims_dps([cs["B.rate.exponent"]], 40)
    capped = type("C", (), {"max_dps": 40, "id": "T.capped", "uses_dps": True})()
    with pytest.raises(ParameterError, match="T.capped supports dps"):
        Q.claims_dps([cs["B.rate.exponent"], capped], 41)


def registry_claims():
    from numerics import registry

    return registry.claims()


def test_points_and_explore_requests():
    cs = registry_claims()
    base = Q.settings()
    assert Q.point_settings([cs["A.thm3.q2_cosine"]], base, {}) is base
    s = Q.point_settings([cs["A.thm3.q2_cosine"], cs["A.thm3.q2_norm"]], base, {"alpha0": "3", "L": "6"})
    assert dict(s.params)["alpha0"] == 3.0 and dict(s.params)["L"] == 6 and list(s.params) == sorted(s.params)
    msg = _refused(Q.point_settings, [cs["A.thm3.q2_cosine"], cs["A.capacity.ordering"]], base, {"L": "6"},
                   Q.option_name)
    assert msg.startswith("claim A.capacity.ordering runs at its built-in design only and takes no --param "
                          "(claims that do: A.capacity.conjecture1, A.grad.q2, ")
    chosen = Q.explore_request(["A.thm3.q2_cosine"], 1, 0)
    assert [c.id for c in chosen] == ["A.thm3.q2_cosine"]
    assert len(Q.explore_request(None, 1000, 1000)) == len(cs)
    assert _refused(Q.explore_request, None, 0, 5, Q.option_name) == "--examples must be an integer in [1, 1000], got 0"
    assert _refused(Q.explore_request, None, 1001, 5) == "examples must be an integer in [1, 1000], got 1001"
    assert _refused(Q.explore_request, None, 5, 1001) == "shrinks must be an integer in [0, 1000], got 1001"
    assert _refused(Q.explore_request, None, 5, -1) == "shrinks must be an integer in [0, 1000], got -1"
    chosen, pinned = Q.explore_request(["A.thm3.q2_cosine", "A.thm3.q2_norm"], 5, 5, within={"alpha0": "3"})
    assert len(chosen) == 2 and pinned == {"alpha0": 3.0}
    assert _refused(Q.explore_request, ["A.capacity.ordering"], 5, 5, Q.option_name, within={"L": "6"}) == \
        "claim A.capacity.ordering runs at its built-in design only and takes no --param"
    msg = _refused(Q.explore_request, ["A.thm3.q2_cosine"], 5, 5, within={"zeta": "1", "nu": "2"})
    assert msg.startswith("claim A.thm3.q2_cosine: unknown parameter(s) nu, zeta; valid: L, R, pi, ")
    with pytest.raises(ParameterError):
        Q.explore_request(["A.thm3.q2_cosine"], 5, 5, within={"alpha0": "-3"})


def test_what_is_asked_for_is_named():
    assert Q.claim("B.rate.exponent").id == "B.rate.exponent"
    for bad in ("B.nope", 3, None):
        assert _refused(Q.claim, bad) == f"unknown claim id {bad!r}; `attncheck list` (attncheck.claims()) lists them"
    assert [c.id for c in Q.select("B.rate.exponent")] == ["B.rate.exponent"]
    assert len(Q.select(None)) == len(Q.select([])) == len(Q.select(())) == len(registry_claims())
    assert _refused(Q.select, 3) == "ids must be a claim id, a list of ids or None, got 3"
    assert _refused(Q.select, ["A.thm3", 3]) == "claim ids must be strings, got ['A.thm3', 3]"
    assert _refused(Q.select, ["Z.none"]) == "unknown claim id 'Z.none'; `attncheck list` (attncheck.claims()) lists them"
    assert Q.evaluable("B.rate.exponent").evaluate is not None
    assert _refused(Q.evaluable, "A.attention_vs_linear") == (
        "claim A.attention_vs_linear has no closed form to evaluate; evaluable claims are marked 'eval' in "
        "`attncheck list`")
    assert Q.problem("sparse-token").name == "sparse-token"
    assert _refused(Q.problem, "nope") == "unknown problem 'nope'; known: positional-semantic, sparse-token"
    assert _refused(Q.problem, 1) == "unknown problem 1; known: positional-semantic, sparse-token"
    spec = Q.problem("sparse-token")
    assert Q.options(spec, {"model": "pool", "loss": None}) == {"model": "pool"}
    assert _refused(Q.options, spec, {"branch": "semantic"}, Q.option_name) == "problem sparse-token takes no --branch"
    assert _refused(Q.options, spec, {"model": "mlp"}, Q.option_name) == \
        "--model must be one of attention, pool, vec, got 'mlp'"


def test_check_cost_refuses_with_the_given_limits_only_inside_the_call():
    from numerics.core import resources

    est = resources.Estimate(1e6, 100.0, ("--n",), "solve")
    said = []
    assert resources.check_cost(est, announce=said.append) is est and said == ["solve: estimated 2 min, 977 KiB of memory"]
    with pytest.raises(resources.ResourceError, match="above the limit 60 s"):
        resources.check_cost(est, max_time="60s")
    with pytest.raises(resources.ResourceError, match="above the limit 512 KiB"):
        resources.check_cost(est, max_memory="512K")
    assert resources.check_cost(est) is est  # the limits given to one call do not outlive it


def test_a_claim_object_without_the_precision_attributes_takes_every_dps():
    """A plugin's claim object need not declare ``uses_dps`` or ``max_dps``: it computes at the dps
    asked (up to MAX_DPS); a capped claim is refused in the caller's spelling."""
    from types import SimpleNamespace

    bare = SimpleNamespace(id="X.bare")
    Q.claims_dps([bare], 40)
    assert Q.dps(MAX_DPS, bare) == MAX_DPS and Q.dps(40, SimpleNamespace(id="X.none", max_dps=None)) == 40
    capped = SimpleNamespace(id="X.capped", uses_dps=True, max_dps=50)
    assert _refused(Q.claims_dps, [capped], 60, Q.option_name) == "--dps 60: X.capped supports --dps 5..50"


def test_options_skip_the_ones_not_given_and_keep_reading():
    spec = Q.problem("sparse-token")
    assert Q.options(spec, {"loss": None, "model": "pool"}) == {"model": "pool"}


def test_an_output_path_is_checked_before_anything_runs(tmp_path, monkeypatch):
    import os

    good = tmp_path / "out.json"
    assert Q.output_path(good, (".json",)) == str(good)
    assert Q.output_path(tmp_path / "OUT.JSON", (".json",)) == str(tmp_path / "OUT.JSON")  # any case
    assert _refused(Q.output_path, tmp_path / "out.txt", (".html", ".pdf"), "--output") == (
        f"--output {str(tmp_path / 'out.txt')!r}: the file name must end in .html or .pdf")
    missing = tmp_path / "no" / "out.json"
    assert _refused(Q.output_path, missing, (".json",)) == (
        f"path {str(missing)!r}: folder {str(tmp_path / 'no')!r} does not exist")
    folder = tmp_path / "a.json"
    folder.mkdir()
    assert _refused(Q.output_path, folder, (".json",)) == f"path {str(folder)!r}: is a folder, expected a file"
    # permissions as the operating system reports them (root may write anywhere: simulated)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "old.json").write_text("{}")
    (tmp_path / "w.json").write_text("{}")
    refused = {str(locked), str(locked / "old.json")}
    monkeypatch.setattr(os, "access", lambda p, mode: not (mode == os.W_OK and os.fspath(p) in refused))
    for path in (locked / "old.json", locked / "new.json"):
        assert _refused(Q.output_path, path, (".json",)) == f"path {str(path)!r}: not writable"
    refused.discard(str(locked))
    assert _refused(Q.output_path, locked / "old.json", (".json",)) == (
        f"path {str(locked / 'old.json')!r}: not writable")  # a read-only file in a writable folder
    assert Q.output_path(locked / "new.json", (".json",)) == str(locked / "new.json")
    assert Q.output_path(tmp_path / "w.json", (".json",)) == str(tmp_path / "w.json")  # an existing writable file


def test_names_are_found_or_refused_naming_the_known_ones():
    # before any claim is imported, ids are checked against the index (a fresh process each:
    # the first refusal loads the claims, and the selection then checks itself)
    def known(ids) -> str:
        code = ("from numerics import request as Q\nfrom numerics.core.params import ParameterError\n"
                f"try:\n    Q.known({ids!r})\nexcept ParameterError as e:\n    print(e)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
        return out.stdout.strip() + out.stderr

    assert known(None) == known("A.thm3") == known(["A.thm3.q2_cosine", "B."]) == ""
    for ids, bad in (("Z.nope", "Z.nope"), (["A.thm3.q2_cosine", "Z.two"], "Z.two"), (("B.", 7, "Z.three"), "Z.three")):
        assert known(ids) == f"unknown claim id {bad!r}; `attncheck list` (attncheck.claims()) lists them"
    assert _refused(Q.claim, "Z.nope") == "unknown claim id 'Z.nope'; `attncheck list` (attncheck.claims()) lists them"
    assert _refused(Q.claim, "A.thm3") == (  # a prefix names several claims, not one
        "unknown claim id 'A.thm3'; `attncheck list` (attncheck.claims()) lists them")
    from numerics import registry

    figures = ", ".join(registry.figures())
    assert Q.figure_fn("A.fig1") is registry.figures()["A.fig1"]
    assert _refused(Q.figure_fn, "Z.fig") == f"unknown figure 'Z.fig'; known: {figures}"
    assert _refused(Q.figure_fn, 3) == f"unknown figure 3; known: {figures}"


def test_a_point_needs_claims_that_take_one(monkeypatch):
    from types import SimpleNamespace

    from numerics import registry

    base = Q.settings()
    design = SimpleNamespace(id="X.design")  # no point_space attribute at all: design only
    takers = ", ".join(c.id for c in registry.claims().values() if getattr(c, "point_space", None) is not None)
    assert _refused(Q.point_settings, [design], base, {"alpha0": "2"}, Q.option_name) == (
        f"claim X.design runs at its built-in design only and takes no --param (claims that do: {takers})")
    monkeypatch.setattr(registry, "claims", lambda: {})
    assert _refused(Q.point_settings, [design], base, {"alpha0": "2"}) == (
        "claim X.design runs at its built-in design only and takes no param (claims that do: none)")
    assert Q.point_settings([design], base, {}) is base


def test_unknown_problems_and_figures_with_none_registered(monkeypatch):
    from numerics import registry

    monkeypatch.setattr(registry, "problems", lambda: {})
    monkeypatch.setattr(registry, "figures", lambda: {})
    assert _refused(Q.problem, "p") == "unknown problem 'p'; known: none"
    assert _refused(Q.figure_fn, "f") == "unknown figure 'f'; known: none"


def test_a_solve_is_validated_priced_solved_and_returned_whole(monkeypatch):
    """``request.solve``: the options and parameters with their defaults, the dps and cost
    checked in the caller's spelling and limits, and every field of the problem's solution kept
    (its values only when it converged), with what was asked."""
    import importlib
    from dataclasses import replace

    from numerics import registry
    from numerics.core import resources
    from numerics.core.results import RESULTS, Solution

    S = importlib.import_module("numerics.request.solve")
    assert S.solve_request("positional-semantic", {}, {})[3] == resources.unpriced("solve of positional-semantic")
    spec = registry.problems()["sparse-token"]
    asked = []

    def fake(opts, values, digits):
        asked.append((opts, values, digits))
        raw = {k: i + 0.5 for i, k in enumerate("abcde")}
        return Solution(RESULTS.successful, 7, 1e-20, raw, "float64 then mpmath", {"quadrature": "QMC"})

    monkeypatch.setattr(S, "problem", lambda name: replace(spec, solve=fake))
    res = S.solve("sparse-token", {"model": "pool", "loss": "square", "branch": None}, {"lam": "0.01"}, 20)
    values = spec.param_space.validate({"lam": "0.01"})
    assert asked == [({"model": "pool", "loss": "square"}, values, 20)]
    assert (res.problem, res.options, res.params, res.iterations, res.residual) == (
        "sparse-token", {"model": "pool", "loss": "square"}, values, 7, 1e-20)
    assert (res.message, res.stats, list(res.raw)) == ("float64 then mpmath", {"quadrature": "QMC"}, list("abcde"))
    assert repr(res) == ("SolveResult(sparse-token, model=pool, loss=square: converged, 7 iterations, residual 1e-20; "
                         "a=0.5, b=1.5, "
                         "c=2.5, d=3.5, ...)")
    failed = Solution(RESULTS.failed, 50, 0.1, {"a": 1}, "stalled", {})
    monkeypatch.setattr(S, "problem", lambda name: replace(spec, solve=lambda o, v, d: failed))
    res = S.solve("sparse-token", {}, {}, 20)
    assert res.raw == {} and res.message == "stalled" and not res.ok
    assert repr(res) == "SolveResult(sparse-token: not converged, 50 iterations, residual 0.1; )"
    four = Solution(RESULTS.successful, 1, 0.0, {k: 1 for k in "abcd"}, "", {})
    monkeypatch.setattr(S, "problem", lambda name: replace(spec, solve=lambda o, v, d: four))
    assert repr(S.solve("sparse-token", {}, {}, 20)).endswith("; a=1, b=1, c=1, d=1)")
    # the caller's spelling and limits, and the cost priced from the problem's own model
    dashed = lambda n: f"--{n}"  # noqa: E731
    with pytest.raises(ParameterError, match="^--dps "):
        S.solve("sparse-token", {}, {}, 3, spell=dashed)
    with pytest.raises(ParameterError, match="^--model must be one of"):
        S.solve("sparse-token", {"model": "x"}, {}, 20, spell=dashed)
    _, _, _, est = S.solve_request("sparse-token", {"model": "attention"}, {})
    assert est == spec.cost({"model": "attention"}, values | {"lam": spec.param_space.validate({})["lam"]})
    assert est.what and est.seconds > 0
    with pytest.raises(resources.ResourceError, match="^solve sparse-token --model attention: would take about"):
        S.solve("sparse-token", {"model": "attention"}, {}, 20, max_time=1e-3)
    with pytest.raises(resources.ResourceError, match="needs about .* of memory, above the limit"):
        S.solve("sparse-token", {"model": "attention"}, {}, 20, max_memory=1000)
    told = []
    monkeypatch.setattr(resources, "ANNOUNCE_S", 0.0)
    S.solve("sparse-token", {"model": "attention"}, {}, 20, announce=told.append)
    assert told and told[0].startswith("solve sparse-token --model attention: estimated")


def test_a_mutate_request_is_validated_whole_with_its_defaults():
    """``mutate``'s request: the claims, settings, sample, sample seed, workers and budget, each
    with its default, at the edges of its range, and refused in the caller's spelling."""
    claims, *rest = Q.automatic_mutants(["B.kl.bound"])
    assert [c.id for c in claims] == ["B.kl.bound"] and rest == [Q.settings("quick", None), 100, 0, 1, 30.0]
    assert Q.automatic_mutants(["B.kl.bound"], "full", 5, sample=1, sample_seed=0, workers_=2, budget=None)[1:] == (
        Q.settings("full", 5), 1, 0, 2, None)
    assert Q.automatic_mutants(["B.kl.bound"], budget=1e-3)[5] == 1e-3
    dashed = {"spell": lambda n: f"--{n}"}
    for budget in (0, -1.0, True, float("inf"), float("nan"), "3"):
        with pytest.raises(ParameterError) as err:
            Q.automatic_mutants(["B.kl.bound"], budget=budget, **dashed)
        assert str(err.value) == f"--budget must be a number of seconds > 0, got {budget!r}"
    for kw, name in (({"sample": 0}, "--sample"), ({"sample_seed": -1}, "--sample_seed"), ({"workers_": 0}, "--workers")):
        with pytest.raises(ParameterError, match=f"^{name} "):
            Q.automatic_mutants(["B.kl.bound"], **kw, **dashed)
    for examples, shrinks, name in ((0, 8, "--examples"), (3, -1, "--shrinks")):  # explore's budget
        with pytest.raises(ParameterError, match=f"^{name} "):
            Q.explore_request(["B.kl.bound"], examples, shrinks, **dashed)


def test_an_evaluation_is_validated_priced_and_never_returns_a_non_finite_value(monkeypatch):
    """``request.evaluate`` on a stand-in claim whose numbers are known: the fields of the
    evaluation, the cost checked in the caller's limits, a numerical failure and a non-finite
    value refused, the claim's dps cap, and the array requests' refusals word by word."""
    import importlib
    from dataclasses import replace

    from numerics import registry
    from numerics.core import resources
    from numerics.core import value as V

    E = importlib.import_module("numerics.request.evaluate")
    outputs = {"a": mpmath.mpf("0.25"), "n": 3, "ok": True}

    def evaluate(values, digits):
        if values["beta"] == 3.0:
            raise ZeroDivisionError("a pole at beta = 3")
        return dict(outputs) if values["beta"] != 4.0 else {**outputs, "b": mpmath.inf, "c": mpmath.nan}

    stand_in = replace(registry.claim("B.rate.exponent"), evaluate=evaluate, max_dps=40,
                       cost=lambda p: resources.Estimate(bytes=1e6, seconds=100.0 * p["beta"], what="its model"))
    monkeypatch.setattr(E, "evaluable", lambda claim_id: stand_in)
    ev = E.evaluate("B.rate.exponent", {"beta": "2"}, 20)
    values = stand_in.param_space.validate({"beta": "2"})
    assert (ev.claim_id, ev.params, ev.dps, ev.raw, ev.shape) == ("B.rate.exponent", values, 20, outputs, None)
    assert ev.values == V.values(outputs, 20)
    with pytest.raises(E.EvaluationError) as err:
        E.evaluate("B.rate.exponent", {"beta": "3"}, 20)
    assert str(err.value) == "B.rate.exponent could not be evaluated at these parameters: a pole at beta = 3"
    with pytest.raises(E.EvaluationError) as err:
        E.evaluate("B.rate.exponent", {"beta": "4"}, 20)
    assert str(err.value) == "B.rate.exponent: non-finite value for b, c at these parameters"
    dashed = lambda n: f"--{n}"  # noqa: E731
    with pytest.raises(ParameterError) as err:
        E.evaluate("B.rate.exponent", {}, 41, spell=dashed)
    assert str(err.value) == "--dps 41: B.rate.exponent supports --dps 5..40"
    # the cost: this claim's own, in the caller's limits, announced when long
    with pytest.raises(resources.ResourceError, match="^its model: would take about"):
        E.evaluate("B.rate.exponent", {"beta": "2"}, 20, max_time=150)
    E.evaluate("B.rate.exponent", {"beta": "1"}, 20, max_time=150)
    with pytest.raises(resources.ResourceError, match="^its model: needs about"):
        E.evaluate("B.rate.exponent", {"beta": "1"}, 20, max_memory=1e5)
    told = []
    monkeypatch.setattr(resources, "ANNOUNCE_S", 0.0)
    E.evaluate("B.rate.exponent", {"beta": "1"}, 20, announce=told.append)
    assert told and told[0].startswith("its model: estimated")
    monkeypatch.setattr(E, "evaluable", lambda claim_id: replace(stand_in, cost=None))  # no cost model
    with pytest.raises(resources.ResourceError,
                       match=r"^evaluate of B.rate.exponent \(the Python interpreter alone\): needs about"):
        E.evaluate("B.rate.exponent", {"beta": "1"}, 20, max_memory=1e5)
    monkeypatch.setattr(E, "evaluable", lambda claim_id: stand_in)
    two = {"beta": np.array([1.0, 2.0])}  # 100 s and 200 s on one core: the points priced together
    with pytest.raises(resources.ResourceError, match="^evaluation at 2 points: would take about 5 min"):
        E.evaluate("B.rate.exponent", two, 20, max_time=250)
    with pytest.raises(resources.ResourceError, match="^evaluation at 2 points: needs about"):
        E.evaluate("B.rate.exponent", two, 20, max_memory=1e5)
    told.clear()
    assert E.evaluate("B.rate.exponent", two, 20, announce=told.append).shape == (2,)
    assert told and told[0].startswith("evaluation at 2 points: estimated 5 min")
    # arrays: shapes that do not broadcast, no points, the point budget at its edge
    refusals = [({"beta": np.array([1.0, 2.0]), "M": np.array([1e3, 2e3, 3e3])},
                 "array parameters beta, M do not broadcast together: shapes (2,), (3,)"),
                ({"beta": np.array([]), "M": np.array([])}, "array parameters beta, M: no points (an empty array)")]
    for params, message in refusals:
        with pytest.raises(ParameterError) as err:
            E.evaluate("B.rate.exponent", params, 20)
        assert str(err.value) == message
    monkeypatch.setattr(E, "MAX_POINTS", 4)
    arr = E.evaluate("B.rate.exponent", {"beta": np.array([1.0, 1.5, 2.0, 2.5])}, 20)
    assert arr.shape == (4,) and arr.params["beta"].tolist() == [1.0, 1.5, 2.0, 2.5] and arr.params["M"] == 1e4
    assert arr.raw is None and arr.values["a"].shape == (4,) and arr.values["a"][3] == V.values(outputs, 20)["a"]
    assert (arr.claim_id, arr.dps, arr.values["a"][3].dps) == ("B.rate.exponent", 20, 20)
    with pytest.raises(ParameterError) as err:
        E.evaluate("B.rate.exponent", {"beta": np.ones((2, 3)), "M": np.full(3, 1e3)}, 20)
    assert str(err.value) == "array parameters beta, M: 6 points requested; at most 4 per request"


# --- verify: one plan for the command line and the API -------------------------------------------
THREE = ["B.kl.bound", "B.rate.exponent", "B.forward.linearity"]


def test_a_verify_plan_reads_the_cache_through_stubs_unless_the_point_is_the_users():
    """The verdict cache is read through index stubs (a claim is imported only to be computed);
    a parameter point of the user's (a dict from the API, ``K=V`` items from the command line)
    neither reads nor writes it, so its claims are the claims themselves and none is cached."""
    from numerics import registry

    plan = Q.plan_verify(["A.thm3.q2_cosine"])
    assert plan.use_cache and [c.id for c in plan.claims] == ["A.thm3.q2_cosine"] and plan.settings.params == ()
    assert all(isinstance(c, registry.ClaimStub) for c in plan.claims)
    at = Q.plan_verify(["A.thm3.q2_cosine"], params={"alpha0": 3})
    assert not at.use_cache and at.cached == 0 and at.todo == 1 and dict(at.settings.params)["alpha0"] == 3.0
    assert not any(isinstance(c, registry.ClaimStub) for c in at.claims)
    typed = Q.plan_verify(("A.thm3.q2_cosine",), params=("alpha0=3",), spell=Q.option_name)
    assert typed.settings == at.settings and not typed.use_cache
    assert not Q.plan_verify(["B.kl.bound"], cache=False).use_cache
    power = Q.plan_verify(["B.kl.bound"], power=True)  # the claims themselves, no estimate
    assert power.use_cache and not isinstance(power.claims[0], registry.ClaimStub) and power.seconds == 0


def test_a_verify_plan_sizes_its_pool_by_the_claims_it_computes(monkeypatch):
    monkeypatch.setattr("numerics.core.cluster.available_workers", lambda: 8)
    assert Q.plan_verify(THREE, cache=False).workers == 3  # at most one process per claim
    assert Q.plan_verify(THREE[:1], cache=False).workers == 1  # one claim: no pool
    assert Q.plan_verify(THREE, cache=False, workers_=5).workers == 5  # as asked
    monkeypatch.setattr("numerics.core.cluster.available_workers", lambda: 2)
    assert Q.plan_verify(THREE, cache=False).workers == 2  # at most one per CPU
    assert _refused(Q.plan_verify, THREE, workers_=0, spell=Q.option_name) == \
        "--workers must be an integer in [1, 64], got 0"
    assert _refused(Q.plan_verify, THREE, workers_=65) == "workers must be an integer in [1, 64], got 65"


def test_a_verify_plan_is_estimated_from_the_times_recorded_here_and_priced(monkeypatch):
    from numerics.core import cache, resources

    times = {"B.kl.bound": 40.0, "B.rate.exponent": 20.0, "B.forward.linearity": 999.0}
    monkeypatch.setattr(cache, "recorded_times", lambda mode: times)
    monkeypatch.setattr(cache, "load", lambda claim, settings: object() if claim.id == THREE[2] else None)
    monkeypatch.setattr("numerics.core.cluster.available_workers", lambda: 8)
    plan = Q.plan_verify(THREE)
    assert (plan.seconds, plan.timed, plan.cached, plan.todo, plan.workers) == (60.0, 2, 1, 2, 2)
    fresh = Q.plan_verify(THREE, cache=False)
    assert (fresh.seconds, fresh.timed, fresh.cached, fresh.todo) == (1059.0, 3, 0, 3)
    del times["B.rate.exponent"]
    assert (Q.plan_verify(THREE).seconds, Q.plan_verify(THREE).timed) == (40.0, 1)
    times["B.rate.exponent"] = 20.0
    # priced only when a limit is given: here 60 s on one process, above 30 s
    told = []
    assert Q.plan_verify(THREE, workers_=1, announce=told.append).todo == 2 and told == []
    with resources.limited(max_time="30s"):
        assert _refused(Q.plan_verify, THREE, workers_=1, spell=Q.option_name) == (
            "verify of 2 claims: would take about 60 s, above the limit 30 s (max_time=): lower the number of "
            "claims (or use --quick, more --workers), or raise the limit")
        assert Q.plan_verify(THREE, workers_=2).workers == 2  # 30 s on each of two processes
    with resources.limited(max_time="2h"):
        Q.plan_verify(THREE, workers_=1, announce=told.append)
    assert told == ["verify of 2 claims: estimated 60 s, 238 MiB of memory"]


def test_a_verify_plan_refuses_in_the_callers_spelling_before_anything_runs():
    assert _refused(Q.plan_verify, "Z.nope") == \
        "unknown claim id 'Z.nope'; `attncheck list` (attncheck.claims()) lists them"
    assert _refused(Q.plan_verify, 3) == "ids must be a claim id, a list of ids or None, got 3"
    assert _refused(Q.plan_verify, ["B.kl.bound", 3]) == "claim ids must be strings, got ['B.kl.bound', 3]"
    assert _refused(Q.plan_verify, ["B.kl.bound"], mutate_=float("nan")) == \
        "mutate must be a finite number > -1, got nan"
    assert _refused(Q.plan_verify, ["B.kl.bound"], mutate_=0.1, power=True, spell=Q.option_name) == \
        "--power and --mutate are exclusive"
    assert _refused(Q.plan_verify, ["B.kl.bound"], record=True, spell=Q.option_name) == \
        "--record-ratchet records what --power computes: give --power too"
    assert _refused(Q.plan_verify, ["B.kl.bound"], seed_=3, power=True, record=True, spell=Q.option_name) == \
        "--record-ratchet records at quick size, seed 20260429 and dps 30: drop --seed"
    assert _refused(Q.plan_verify, ["B.kl.bound"], params={"M": 3}, spell=Q.option_name).startswith(
        "claim B.kl.bound runs at its built-in design only and takes no --param (claims that do: ")
    assert _refused(Q.plan_verify, ["A.grad.q2"], dps_=40) == (
        "dps 40: A.grad.q2 does not evaluate the theory at dps digits (float64, or a working precision of its "
        "own); run it without dps")
    assert _refused(Q.plan_verify, ["B.kl.bound"], "medium") == "mode must be one of quick, full, got 'medium'"


def test_the_api_and_the_command_line_plan_a_verify_in_one_place(monkeypatch):
    """``attncheck.verify`` and ``attncheck verify`` both go through ``numerics.request.plan_verify``
    (each in its own spelling) and run what it planned through ``run_verify``."""
    calls = []

    def plan(ids=None, *args, **kw):
        calls.append((ids, kw.get("spell")))
        raise ParameterError("planned here")

    monkeypatch.setattr(Q, "plan_verify", plan)
    with pytest.raises(ParameterError, match="^planned here$"):
        attncheck.verify("B.kl.bound")
    out = CliRunner().invoke(main, ["verify", "B.kl.bound"])
    assert out.exit_code == 2 and out.output == "error: planned here\n"
    assert calls == [("B.kl.bound", None), (("B.kl.bound",), Q.option_name)]
    monkeypatch.undo()
    ran = []
    real = Q.run_verify
    monkeypatch.setattr(Q, "run_verify", lambda p, **kw: ran.append(p) or real(p, **kw))
    (v,) = attncheck.verify("B.kl.bound")
    assert CliRunner().invoke(main, ["verify", "B.kl.bound"]).exit_code == 0 and v.passed
    assert [(p.claims[0].id, p.settings, p.use_cache) for p in ran] == [("B.kl.bound", Q.settings(), True)] * 2
