"""The walk of a parameter from the command line to the verdict (tools/walk.py): validated once,
through few modules, with few calls that climb back up the layers.  The bounds are the ones
measured; a change that makes the walk longer fails here."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _walk_module():
    spec = importlib.util.spec_from_file_location("walk", ROOT / "tools" / "walk.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_alpha0_is_validated_once_and_walks_a_short_way():
    w = _walk_module().walk("A.thm3.q2_cosine", "alpha0", "3.000000000017")
    assert w["exit_code"] in (0, 1), w  # a verdict was printed (pass or fail)
    assert w["validations"] == ["numerics.core.params.validate"], w["validations"]
    assert w["modules"][0].startswith("numerics.cli") and "numerics.theory.paper_a.alignment" in w["modules"]
    # 11 modules from a shell; 12 here, where the suite's shared experiment memo
    # (numerics.core.shared_memo, tests/conftest.py) keys the experiment by the settings too
    assert w["module_count"] <= 11 + ("numerics.core.shared_memo" in w["modules"]), w["modules"]
    assert w["climb_count"] <= 1, w["climbs"]  # the derivation cache's wrapper calling the claim's function
    assert "alpha0" in w["names"]


def test_the_walk_sees_a_value_carried_in_the_settings_and_a_layer_order():
    walk = _walk_module()
    assert walk.layer("numerics.cli.verify") < walk.layer("numerics.request") < walk.layer("numerics.claims.base")
    assert walk.layer("numerics.claims.base") < walk.layer("numerics.theory.paper_a.alignment")
    assert walk.layer("numerics.theory.paper_a.alignment") < walk.layer("numerics.core.params")
    assert walk.layer("numpy") == -1
    from numerics.claims.base import Settings

    assert walk._holds(Settings(params=(("alpha0", 3.5),)), 3.5, "3.5") and not walk._holds({"a": 3.25}, 3.5, "3.5")
    assert walk._holds("alpha0=3.5", 3.5, "3.5") and not walk._holds("alpha0=3.55", 3.5, "3.5")
