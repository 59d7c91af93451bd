"""Help that teaches: every subcommand's --help shows an example and its defaults; the top-level
help lists short, whole descriptions and a tour; no escaped percent sign shows."""
import click
import pytest
from click.testing import CliRunner

from numerics.cli import main


def _commands(group, path=()):
    for name, cmd in sorted(group.commands.items()):
        yield path + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, path + (name,))


COMMANDS = list(_commands(main))


def _help(*path) -> str:
    out = CliRunner().invoke(main, [*path, "--help"], terminal_width=100)
    assert out.exit_code == 0, out.output
    return out.output


def test_top_level_help_has_whole_descriptions_and_a_tour():
    text = _help()
    listing = text.split("Commands:", 1)[1]
    assert "..." not in listing, listing
    assert sum(ln.lstrip().startswith("A tour:") or "attncheck verify" in ln for ln in text.splitlines()) >= 1
    tour = [ln for ln in text.splitlines() if ln.count("attncheck ") >= 2]
    assert len(tour) == 2, tour
    assert all(len(ln) <= 100 for ln in text.splitlines())


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_every_help_has_an_example_and_its_defaults(path):
    text = _help(*path)
    assert "%%" not in text
    cmd = dict(COMMANDS)[path]
    examples = [ln for ln in text.splitlines() if ln.strip().startswith("attncheck " + " ".join(path))]
    assert examples, f"{' '.join(path)} --help shows no example"
    if isinstance(cmd, click.Group):
        return
    ctx = click.Context(cmd)
    valued = [p for p in cmd.params if isinstance(p, click.Option) and not p.is_flag and not p.multiple
              and p.get_default(ctx) not in (None, getattr(click.core, "UNSET", None))]
    for p in valued:  # an option with a default value states it
        stated = p.show_default or "default" in (p.help or "")
        assert stated, f"{' '.join(path)} --{p.name}: no default stated"
    if valued:
        assert "default" in text.lower()


def test_verify_help_shows_a_plain_percent():
    assert "±5 %" in _help("verify") and "%%" not in _help("verify")


def test_solve_help_states_the_default_model_and_loss():
    from numerics.problems.paper_a import sparse_token

    text = " ".join(_help("solve").split())
    assert "--model attention --loss logistic" in text
    # the help's rule (an option's first choice is its default) is the solver's
    assert (sparse_token.DEFAULT_MODEL, sparse_token.DEFAULT_LOSS) == (sparse_token.MODELS[0], sparse_token.LOSSES[0])


def test_figure_without_an_id_lists_the_ids(tmp_path):
    from numerics import registry

    out = CliRunner().invoke(main, ["figure", "-o", str(tmp_path / "x.png")])
    assert out.exit_code == 2 and "None" not in out.output
    assert all(fid in out.output for fid in registry.figures())
    assert len(out.output.strip().splitlines()) == 1
