"""Every fenced block of the README and of docs/ is checked as written, in a fresh folder.

* A ``bash`` block: each command runs in order, in a fresh temporary folder (holding the
  repository's ``examples/``), and must exit 0; an ``attncheck ...`` command (or a chain of them
  joined by ``&&``) runs in this process through the command line's own entry point, anything
  else (a redirection, a pipe, pdflatex) through ``bash``.
* A ``python`` block runs with ``exec`` in a fresh folder.
* A transcript (a block of ``$ command`` lines, each followed by what it prints): each command
  runs; a shown ``error: ...`` line must be the command's own (exit 2), a shown ``FAIL`` line
  an exit 1, otherwise exit 0.
* Any other block says what it is by a marker.

A marker is an HTML comment on the line before the fence (invisible on the rendered page)::

    <!-- docs-test: slow -->                 run it under ``pytest -m slow`` only
    <!-- docs-test: manual REASON -->        not run; the test is skipped with REASON
    <!-- docs-test: excerpt PATH -->         an abridged excerpt of PATH: every function it
                                             defines, id it quotes and key it sets is in PATH
    <!-- docs-test: layout ROOT -->          a file tree: every path it names exists under ROOT
    <!-- docs-test: synopsis -->             ``attncheck COMMAND [--option ...]``: every command
                                             and option it names exists

A block without a marker that is neither bash, python nor a transcript fails the test: no
block goes unchecked without saying why.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"(?:<!-- docs-test: (?P<marker>[^>]*?) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```", re.S | re.M)
KINDS = ("slow", "manual", "excerpt", "layout", "synopsis")


def blocks():
    out = []
    for path in DOCS:
        text = path.read_text()
        for m in FENCE.finditer(text):
            line = text[: m.start("lang")].count("\n") + 1  # the fence's line, as an editor numbers it
            name = f"{path.relative_to(ROOT)}:{line}"
            marker = (m.group("marker") or "").split(None, 1)
            kind, arg = (marker[0], marker[1] if len(marker) > 1 else "") if marker else ("", "")
            marks = [pytest.mark.slow] if kind == "slow" else []
            out.append(pytest.param(name, m.group("lang"), m.group("body"), kind, arg, id=name, marks=marks))
    return out


BLOCKS = blocks()


def test_every_block_is_found_and_every_marker_is_known():
    assert len(BLOCKS) >= 50  # the README and every page of docs/
    for path in DOCS:  # no fence is missed (an indented one, say): each is a block of the test
        fences = len(re.findall(r"^\s*(?:```|~~~)", path.read_text(), flags=re.M))
        found = sum(p.values[0].startswith(f"{path.relative_to(ROOT)}:") for p in BLOCKS)
        assert fences == 2 * found, f"{path.relative_to(ROOT)}: {fences} fence lines, {found} blocks found"
    for p in BLOCKS:
        name, lang, body, kind, arg = p.values
        assert kind in ("",) + KINDS, f"{name}: unknown docs-test marker {kind!r}; known: {', '.join(KINDS)}"
        assert kind not in ("manual", "excerpt", "layout") or arg, f"{name}: the marker {kind} needs its argument"


# --- running commands ----------------------------------------------------------------------------
@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A fresh folder holding the repository's examples/ (the commands name them), the cwd of
    the block; the power ratchet a command records is a copy in it, never the checkout's."""
    from numerics import registry
    from numerics.claims import ratchet

    (tmp_path / "examples").symlink_to(ROOT / "examples")
    copy = tmp_path / ratchet.RECORD.name
    shutil.copy(ratchet.RECORD, copy)
    monkeypatch.setattr(ratchet, "RECORD", copy)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    # the claims a command computes run in this process (as on a one-CPU machine), on the test
    # session's experiment memo: a simulation another test ran is not run again (same records)
    monkeypatch.setattr("numerics.core.cluster.available_workers", lambda: 1)
    extra = list(registry.EXTRA_FILES)
    yield tmp_path
    if registry.EXTRA_FILES != extra:  # a --claims file of the block ends with it
        registry.EXTRA_FILES[:] = extra
        registry.claims.cache_clear()


def _commands(body: str) -> list[str]:
    """The commands of a bash block: one a line, comments and blank lines dropped."""
    out = []
    for line in body.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line:
            out.append(line)
    return out


def _run(command: str) -> tuple[int, str]:
    """(exit code, output) of one command line, as written."""
    parts = [p.strip() for p in command.split("&&")]
    if all(p.startswith("attncheck ") and not re.search(r"[|<>;$`]", p) for p in parts):
        from click.testing import CliRunner

        from numerics.cli import main

        out = ""
        for part in parts:  # in this process: the session's verdict cache and experiment memo
            r = CliRunner().invoke(main, shlex.split(part)[1:], catch_exceptions=False)
            out += r.output
            if r.exit_code:
                return r.exit_code, out
        return 0, out
    if shutil.which("pdflatex") is None and "pdflatex" in command:
        pytest.skip("pdflatex is not installed (Debian: texlive-latex-base)")
    cmd = command.replace("pdflatex ", "pdflatex -interaction=nonstopmode -halt-on-error ")
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=3600)
    return r.returncode, r.stdout + r.stderr


def _transcript(body: str) -> list[tuple[str, list[str]]]:
    """[(command, the lines shown after it)] of a ``$ command`` transcript."""
    out = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((line[2:].strip(), []))
        elif out:
            out[-1][1].append(line)
    return out


@pytest.mark.parametrize("name, lang, body, kind, arg", BLOCKS)
def test_block(name, lang, body, kind, arg, fresh, monkeypatch):
    if kind == "manual":
        pytest.skip(f"{name}: {arg}")
    if kind == "excerpt":
        return _excerpt(name, body, arg)
    if kind == "layout":
        return _layout(name, body, arg)
    if kind == "synopsis":
        return _synopsis(name, body)
    if lang in ("bash", "sh", "shell", "console"):
        if "attncheck cache clear" in body:  # a block that empties the verdict cache empties its own
            monkeypatch.setenv("ATTNCHECK_CACHE_DIR", str(fresh / "cache"))
        for command in _commands(body):
            code, out = _run(command)
            assert code == 0, f"{name}: `{command}` exited {code}:\n{out[-3000:]}"
        return
    if lang == "python":
        exec(compile(body, name, "exec"), {"__name__": "__docs__"})
        return
    shown = _transcript(body)
    assert shown, f"{name}: a {lang or 'plain'} block that is not run says why: put a docs-test marker before it"
    for command, lines in shown:
        errors = [ln for ln in lines if ln.startswith("error: ")]
        want = 2 if errors else 1 if any(ln.startswith("FAIL ") for ln in lines) else 0
        code, out = _run(command)
        assert code == want, f"{name}: `{command}` exited {code}, the page shows exit {want}:\n{out[-3000:]}"
        for ln in errors:
            assert ln in out.splitlines(), f"{name}: `{command}` printed\n{out}\nnot the page's\n{ln}"


# --- blocks that are not commands ----------------------------------------------------------------
def _plain(text: str) -> str:
    return " ".join(text.split())


def _excerpt(name: str, body: str, path: str):
    """An abridged excerpt: every function it defines and every id it quotes (a step, a mutant,
    a claim: ``"X.ridge.variance:no-gamma"``) is in PATH, so a renamed one is caught."""
    source = (ROOT / path).read_text()
    names = re.findall(r"^\s*def (\w+)\(", body, flags=re.M)
    ids = re.findall(r"[\"']([A-Z]\.[\w.]+(?::[\w-]+)?)[\"']", body)
    keys = re.findall(r"^\s*\[([\w.\-\"]+)\]|^(\w[\w-]*)\s*=", body, flags=re.M)
    assert names or ids or keys, f"{name}: an excerpt of {path} that names nothing to check"
    for n in names:
        assert re.search(rf"^\s*def {n}\(", source, flags=re.M), f"{name}: no function {n} in {path}"
    for i in ids:
        assert f'"{i}"' in source or f"'{i}'" in source, f"{name}: {i} is not in {path}"
    for k in (a or b for a, b in keys):
        assert k in source, f"{name}: {k} is not in {path}"


def _layout(name: str, body: str, root: str):
    stack: list[tuple[int, str]] = []
    for line in body.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        entry = line.split()[0]
        stack = [(i, e) for i, e in stack if i < indent]
        path = ROOT / root / "/".join(e.rstrip("/") for _, e in stack) / entry.rstrip("/")
        assert path.exists(), f"{name}: {entry} ({path.relative_to(ROOT)}) does not exist"
        stack.append((indent, entry))


def _synopsis(name: str, body: str):
    from numerics.cli import main

    for line in body.splitlines():
        words = line.split()
        if len(words) < 2 or words[0] != "attncheck":
            continue
        cmd = main
        rest = [w for w in words[1:] if not w.startswith("[--max-")]
        if rest and rest[0] in main.commands:
            cmd = main.commands[rest[0]]
        known = {o for p in cmd.params for o in getattr(p, "opts", []) + getattr(p, "secondary_opts", [])}
        for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", line):
            assert option in known or option in ("-h", "--help"), f"{name}: {line.strip()}: no option {option}"
