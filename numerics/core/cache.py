"""The verdict cache: recorded evidence, keyed by the content of everything it depends on.

The key of a claim's evidence is a SHA-256 over

* the claim id, mode, seed and dps;
* the source of every project module the claim's module imports, transitively (its claim code,
  the derivations and the compiled theory it uses, the simulators and estimators of its
  experiment; imports inside functions count);
* the versions of Python and of the numerical packages.

So changing one derivation re-runs exactly the claims whose modules import it, and nothing
else. Evidence (unjudged rows) is stored, not verdicts, so ``--mutate`` judges cached evidence
too. The folder follows the platform's conventions (``platformdirs``) and is overridden by the
environment variable ``ATTNCHECK_CACHE_DIR``. Writes are atomic (a temporary file of a unique
name, renamed), so processes sharing one cache folder never see each other's partial files.
A record that cannot be read back (truncated, corrupted, of another format) is reported once
on stderr, removed, and its claim recomputed.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import pickle
import platform
import sys
import tempfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path

ENV = "ATTNCHECK_CACHE_DIR"
PROJECT_PACKAGES = ("derivations", "numerics")
VERSIONED = ("numpy", "scipy", "sympy", "mpmath", "highspy", "attncheck")
FORMAT = 1


def cache_dir() -> Path:
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("attncheck"))


@lru_cache(maxsize=1)
def versions() -> dict:
    out = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:  # pragma: no cover - always installed
            out[name] = "absent"
    return out


def git_commit() -> str:
    """The commit of the working tree attncheck runs from ("unknown" outside a checkout)."""
    import subprocess

    try:
        root = Path(__file__).resolve().parents[2]
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                              timeout=5).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _source_path(module: str) -> Path | None:
    loaded = sys.modules.get(module)
    if loaded is not None and getattr(loaded, "__file__", None) and loaded.__file__.endswith(".py"):
        return Path(loaded.__file__)  # also a claim file loaded by path (verify --claims)
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _imports(module: str, path: Path, roots: tuple = PROJECT_PACKAGES) -> set[str]:
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # modules imported by name at run time (importlib.import_module("derivations.x"),
            # or f"derivations.paper_b.{name}": then every module of that package counts)
            text = node.value
            if text.split(".")[0] in roots and "." in text and " " not in text:
                found |= _package_modules(text[:-1]) if text.endswith(".") else {text}
    return {m for m in found if m.split(".")[0] in roots}


def _package_modules(package: str) -> set[str]:
    import pkgutil

    path = _source_path(package)
    if path is None or path.name != "__init__.py":
        return {package}
    return {package} | {f"{package}.{i.name}" for i in pkgutil.iter_modules([str(path.parent)])}


@lru_cache(maxsize=None)
def dependencies(module: str) -> tuple[str, ...]:
    """The project modules ``module`` imports, transitively, with itself and its packages; for
    a claim module of an installed package, that package's own modules count too (its
    derivation and simulator)."""
    roots = tuple(dict.fromkeys(PROJECT_PACKAGES + (module.split(".")[0],)))
    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        path = _source_path(m)
        if path is None:
            continue
        seen[m] = path
        parts = m.split(".")
        todo.extend(".".join(parts[:k]) for k in range(1, len(parts)))  # parent packages run too
        todo.extend(_imports(m, path, roots) - set(seen))
    return tuple(sorted(seen))


@lru_cache(maxsize=None)
def _module_digest(module: str) -> str:
    h = hashlib.sha256()
    for m in dependencies(module):
        h.update(m.encode())
        h.update(_source_path(m).read_bytes())
    return h.hexdigest()


def claim_module(claim) -> str:
    """The module that defines a claim's experiment (a Claim, or an index stub)."""
    return claim.module if hasattr(claim, "module") else claim.experiment.__module__


def key(claim, settings) -> str:
    h = hashlib.sha256()
    parts = (FORMAT, claim.id, settings.mode, settings.seed, settings.dps,
             sorted(versions().items()), _module_digest(claim_module(claim)))
    if getattr(settings, "params", ()):  # a user's parameter point (verify --param)
        parts += (tuple(settings.params),)
    h.update(repr(parts).encode())
    return h.hexdigest()


def _path(k: str) -> Path:
    return cache_dir() / "evidence" / k[:2] / f"{k}.pickle"


#: the records already reported unreadable in this process (reported once)
_REPORTED: set = set()


def _unreadable(p: Path, why: str) -> None:
    if str(p) not in _REPORTED:
        _REPORTED.add(str(p))
        print(f"warning: verdict cache record {p} is unreadable ({why}); recomputing it", file=sys.stderr)
    try:
        p.unlink()
    except OSError:
        pass


def load(claim, settings):
    """The recorded evidence of ``claim`` under ``settings``, or None (not recorded, or a
    record that cannot be read: reported once, removed)."""
    p = _path(key(claim, settings))
    try:
        with open(p, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        _unreadable(p, e.strerror or str(e))
        return None
    try:
        ev = pickle.loads(data)
    except Exception as e:  # truncated or corrupted bytes raise almost anything, over several lines too
        _unreadable(p, (" ".join(f"{type(e).__name__}: {e}".split())[:200]) if str(e).strip() else type(e).__name__)
        return None
    # evidence of this claim (numerics.claims.base.Evidence; core stays generic: by its fields)
    if getattr(ev, "claim_id", None) != claim.id or not isinstance(getattr(ev, "comparisons", None), list) \
            or getattr(ev, "error", ""):
        _unreadable(p, "not the evidence of this claim")
        return None
    return ev


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file of a unique name in the same folder,
    renamed over ``path`` (atomic: a reader sees the old file or the new one, never a part)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def store(claim, settings, evidence) -> None:
    if getattr(evidence, "error", ""):  # an error verdict is never recorded
        return
    p = _path(key(claim, settings))
    try:
        write_atomic(p, pickle.dumps(evidence, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError as e:  # a read-only cache must not stop a verification
        print(f"warning: verdict cache not written ({e})", file=sys.stderr)


# --- artifacts derived from recorded evidence (a report's mutation power, a rendered figure) ---
def module_key(module: str, *parts) -> str:
    """A content key like :func:`key` for anything computed by ``module``: the source of every
    project module it imports (transitively), the package versions, and ``parts``."""
    h = hashlib.sha256()
    h.update(repr((FORMAT, sorted(versions().items()), _module_digest(module), parts)).encode())
    return h.hexdigest()


def _artifact_path(kind: str, k: str) -> Path:
    return cache_dir() / "artifacts" / kind / f"{k}.bin"


def load_artifact(kind: str, k: str) -> bytes | None:
    """The bytes recorded under ``kind``/``k`` (see :func:`store_artifact`), or None."""
    try:
        return _artifact_path(kind, k).read_bytes()
    except OSError:
        return None


def store_artifact(kind: str, k: str, data: bytes) -> None:
    """Record ``data`` atomically; a read-only cache is not an error."""
    try:
        write_atomic(_artifact_path(kind, k), data)
    except OSError:
        pass


def info() -> dict:
    root = cache_dir()
    files = list((root / "evidence").rglob("*.pickle")) if root.exists() else []
    return {"path": str(root), "entries": len(files), "bytes": sum(f.stat().st_size for f in files)}


def clear() -> int:
    root = cache_dir() / "evidence"
    n = 0
    if root.exists():
        for f in root.rglob("*.pickle"):
            try:
                f.unlink()
                n += 1
            except FileNotFoundError:  # removed by another process meanwhile
                pass
        for f in root.rglob(".tmp-*"):  # left by a process killed while writing
            f.unlink(missing_ok=True)
    import shutil

    shutil.rmtree(cache_dir() / "artifacts", ignore_errors=True)  # derived from the evidence
    return n


# --- recorded run times (for the estimate ``verify`` prints before it starts) -------------------
def _timings_path() -> Path:
    return cache_dir() / "timings.json"


def record_time(claim_id: str, mode: str, seconds: float) -> None:
    import json

    path = _timings_path()
    try:
        data = json.loads(path.read_text()) if path.exists() else {}
    except (OSError, ValueError):
        data = {}
    data[f"{mode}:{claim_id}"] = round(float(seconds), 2)
    try:  # a time recorded by another process meanwhile may be lost: it is only an estimate
        write_atomic(path, json.dumps(data, sort_keys=True).encode())
    except OSError:
        pass


def recorded_times(mode: str) -> dict[str, float]:
    import json

    try:
        data = json.loads(_timings_path().read_text())
    except (OSError, ValueError):
        return {}
    prefix = f"{mode}:"
    return {k[len(prefix):]: v for k, v in data.items() if k.startswith(prefix)}
