"""Where a parameter's value travels: the modules it passes from the command line to the verdict.

    python tools/walk.py                      # alpha0 of `attncheck verify A.thm3.q2_cosine`
    python tools/walk.py --claim A.thm3.q2_cosine --param alpha0 --value 3.000000000017

The value is given a tag no other number of the run has (3.000000000017 for alpha0 = 3), the
command runs in this process under a profiler, and every Python frame whose arguments or locals
hold the tagged value (as a number or as its text, directly or one container deep) is recorded:
its module, function and the names the value goes by.  The walk is the sequence of the project's
modules those frames belong to, in the order they were first entered; its *names* are the variables that are the value
itself (the others carry it in a container: a point, the settings); a *climb* is a call, made
while the value travels, from a module into a module of a higher layer (``LAYERS``: the command
line and the API on top, then the request layer, the claims, the theory and the experiments, the
vocabulary and the machinery at the bottom): a lower layer that reaches back up.  A *validation* is a frame of ``numerics.core.params`` (``ParamSpace.validate``,
``Param.parse``) that receives the value.  Not part of the package or of the default suite: a
developer's measurement (tests/test_walk.py runs it once).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: layers, top first: a module's layer is the first prefix it starts with
LAYERS = (
    ("presentation", ("numerics.cli", "attncheck", "numerics.report", "numerics.latex", "numerics.explore",
                      "numerics.sweep")),
    ("request", ("numerics.request", "numerics.registry")),
    ("claims", ("numerics.claims",)),
    ("theory and experiments", ("numerics.theory", "numerics.problems", "numerics.experiments", "derivations")),
    ("vocabulary and machinery", ("numerics.papers", "numerics.core")),
)


def layer(module: str) -> int:
    """The layer's rank (0 on top); -1 for a module outside the project."""
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return -1


def _holds(x, tag: float, text: str, depth: int = 3) -> bool:
    """``x`` is the tagged value (a number or its text), or holds it within ``depth`` levels of
    dicts, lists, tuples and the project's dataclasses (``Settings.params``: pairs in a tuple)."""
    if isinstance(x, float) and x == tag:
        return True
    if isinstance(x, str):
        return x == text or x.endswith("=" + text)
    if not depth:
        return False
    if isinstance(x, dict):
        return any(_holds(v, tag, text, depth - 1) for v in list(x.values())[:64])
    if isinstance(x, (list, tuple)):
        return any(_holds(v, tag, text, depth - 1) for v in x[:64])
    if hasattr(x, "__dataclass_fields__") and layer(type(x).__module__) >= 0:
        return any(_holds(getattr(x, f, None), tag, text, depth - 1) for f in x.__dataclass_fields__)
    return False


def _caller(frame):
    """The nearest frame below ``frame`` that belongs to the project (its module), or None."""
    f = frame.f_back
    while f is not None and layer(f.f_globals.get("__name__", "")) < 0:
        f = f.f_back
    return None if f is None else f.f_globals.get("__name__", "")


def walk(claim: str, param: str, value: str) -> dict:
    """Run ``verify CLAIM --param PARAM=VALUE`` under a profiler; the walk of the value."""
    from click.testing import CliRunner

    from numerics.cli import main

    tag, seen, order, climbs, carriers = float(value), {}, [], {}, set()

    def profile(frame, event, arg):
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if layer(module) < 0:
            return
        held = [k for k, v in frame.f_locals.items() if _holds(v, tag, value)]
        if not held:
            return
        names = sorted(k for k in held if _holds(frame.f_locals[k], tag, value, 0))  # the value itself
        carriers.update(k for k in held if k not in names)
        key = (module, frame.f_code.co_name)
        if key not in seen:
            seen[key] = set()
            order.append(key)
        seen[key].update(names)
        caller = _caller(frame)
        if caller and layer(module) < layer(caller):  # a call from a lower layer into a higher one
            climbs.setdefault((caller, module), None)

    runner = CliRunner()
    sys.setprofile(profile)
    try:
        result = runner.invoke(main, ["verify", claim, "--param", f"{param}={value}", "--no-cache", "--workers", "1"])
    finally:
        sys.setprofile(None)
    distinct = list(dict.fromkeys(m for m, _ in order))
    validations = [f"{m}.{f}" for m, f in order if m == "numerics.core.params" and f == "validate"]
    names = sorted({n for v in seen.values() for n in v})
    return {"claim": claim, "param": param, "value": value, "exit_code": result.exit_code,
            "modules": distinct, "module_count": len(distinct), "climbs": [f"{a} -> {b}" for a, b in climbs],
            "climb_count": len(climbs), "validations": validations, "names": names,
            "carried_in": sorted(carriers),
            "frames": [f"{m}.{f}: {', '.join(sorted(seen[(m, f)])) or '(carried)'}" for m, f in order]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--claim", default="A.thm3.q2_cosine")
    ap.add_argument("--param", default="alpha0")
    ap.add_argument("--value", default="3.000000000017", help="a value no other number of the run has")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    w = walk(args.claim, args.param, args.value)
    if args.json:
        print(json.dumps(w, indent=1))
        return 0
    print(f"{args.param}={args.value} in `attncheck verify {args.claim}` (exit {w['exit_code']}):")
    print(f"  {w['module_count']} modules, {w['climb_count']} climbs, validated {len(w['validations'])} times; "
          f"its names: {', '.join(w['names'])}; carried in: {', '.join(w['carried_in'])}")
    for f in w["frames"]:
        print(f"    {f}")
    print("  modules: " + " -> ".join(w["modules"]))
    for c in w["climbs"]:
        print(f"  climb: {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
