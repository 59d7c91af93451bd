"""A paper's registration: one :class:`Paper` object names everything a paper adds to attncheck.

A paper (built in or a plugin) exports one ``PAPER`` and declares it in the entry-point group
``attncheck.papers`` of its ``pyproject.toml``; :mod:`numerics.registry` reads that group and
nothing else (docs/adding-a-paper.md).  Each of ``claims``, ``figures``, ``problems`` and
``benchmarks`` is given as the objects themselves or as a function of no argument returning
them (as a claim's ``equations``): a built-in paper passes functions, so that listing the
problems does not import the claims (and SymPy), and every part is imported when first asked
for.  What a paper declares about itself is checked here; what concerns several papers (one
prefix each, an id registered once, a figure a claim names being registered) is checked by the
registry once every paper is loaded.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence, Union

from numerics.registry import RegistryError

Claims = Union[Sequence[Any], Callable[[], Sequence[Any]]]
Table = Union[Mapping[str, Any], Callable[[], Mapping[str, Any]]]


@dataclass(frozen=True, eq=False)
class Paper:
    """One paper: its claims (``numerics.claims.base.Claim``), figures (id ->
    ``figure(path, settings, progress)``), solvable problems (name -> ``ProblemSpec``) and
    benchmarks (name -> ``bench(settings)``).

    ``prefix`` is the first part of every claim id (``"A"`` for ``A.thm3.q2_cosine``) and each
    claim's ``paper``; an empty prefix is a paper without a name, the wrapping of a claim file
    given with ``--claims`` (or of a plugin of the older ``attncheck.claims`` group) that
    exports a bare ``CLAIMS`` list: its claims may have any prefix.  A paper's symbols are
    printed as it writes them by the module it declares in the entry-point group
    ``attncheck.notation`` (read by the one printer, ``derivations.core.notation_tables``, which
    cannot import this object), named by the same prefix."""

    prefix: str
    title: str
    claims: Claims = ()
    figures: Table = field(default_factory=dict)
    problems: Table = field(default_factory=dict)
    benchmarks: Table = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.prefix, str) or "." in self.prefix or self.prefix != self.prefix.strip():
            raise RegistryError(f"paper {self.prefix!r}: prefix must be a string without dots or spaces (the "
                                "first part of its claim ids, e.g. 'A'); give it one")
        if not isinstance(self.title, str) or not self.title.strip():
            raise RegistryError(f"paper {self.name}: title must be a non-empty string; give it the paper's title")
        for part in ("claims", "figures", "problems", "benchmarks"):  # given as objects: checked now
            if not callable(getattr(self, part)):
                getattr(self, f"get_{part}")()

    @property
    def name(self) -> str:
        """How errors name the paper: its prefix, or its title when it has none."""
        return self.prefix or repr(self.title)

    def get_claims(self) -> tuple:
        """The paper's claims, imported if ``claims`` is a function, each checked: its id starts
        with ``prefix.``, its ``paper`` is the prefix, and no id is listed twice."""
        claims = self._built("claims")
        if isinstance(claims, (str, Mapping)) or not isinstance(claims, Sequence):
            raise RegistryError(f"paper {self.name}: claims must be a list of Claim, got {type(claims).__name__}")
        seen = set()
        for c in claims:
            cid = getattr(c, "id", None)
            if not isinstance(cid, str):
                raise RegistryError(f"paper {self.name}: {c!r} in claims is not a Claim (no string id); list only "
                                    "numerics.claims.base.Claim objects")
            if self.prefix and not cid.startswith(self.prefix + "."):
                raise RegistryError(f"paper {self.name}: claim {cid} does not start with '{self.prefix}.'; name it "
                                    f"{self.prefix}.{cid.split('.', 1)[-1]} or register it with its own paper")
            if self.prefix and getattr(c, "paper", None) != self.prefix:
                raise RegistryError(f"paper {self.name}: claim {cid} has paper={getattr(c, 'paper', None)!r}; set "
                                    f"paper={self.prefix!r}")
            if cid in seen:
                raise RegistryError(f"paper {self.name}: claim {cid} is listed twice in claims; list it once")
            seen.add(cid)
        return tuple(claims)

    def get_figures(self) -> Mapping[str, Any]:
        """Figure id -> ``figure(path, settings, progress)``."""
        return self._table("figures")

    def get_problems(self) -> Mapping[str, Any]:
        """Problem name -> ``ProblemSpec`` (``attncheck solve``)."""
        return self._table("problems")

    def get_benchmarks(self) -> Mapping[str, Any]:
        """Benchmark name -> ``bench(settings)`` returning a dict of ratios (``attncheck bench``)."""
        return self._table("benchmarks")

    def _built(self, part: str):
        value = getattr(self, part)
        if not callable(value):
            return value
        try:
            return value()
        except RegistryError:
            raise
        except Exception as e:  # an import error of the paper's own modules names the paper
            raise RegistryError(f"paper {self.name}: its {part} failed to load: {type(e).__name__}: {e}") from e

    def _table(self, part: str) -> Mapping[str, Any]:
        table = self._built(part)
        if not isinstance(table, Mapping) or not all(isinstance(k, str) and k for k in table):
            raise RegistryError(f"paper {self.name}: {part} must be a dict id -> object, got "
                                f"{type(table).__name__}; give a dict with string ids")
        return MappingProxyType(dict(table))


def wrap(obj, title: str) -> Paper:
    """A plugin's registered object as a :class:`Paper`: a ``Paper`` itself, a module (or any
    object) with a ``PAPER``, or one with a bare ``CLAIMS`` list and optional ``FIGURES``,
    ``PROBLEMS``, ``BENCHMARKS`` dicts (a paper without a prefix, titled ``title``), or a
    ``CLAIMS`` list itself."""
    if isinstance(obj, Paper):
        return obj
    if isinstance(getattr(obj, "PAPER", None), Paper):
        return obj.PAPER
    if isinstance(obj, (list, tuple)):
        return Paper(prefix="", title=title, claims=tuple(obj))
    if not isinstance(getattr(obj, "CLAIMS", None), (list, tuple)):
        raise RegistryError(f"{title}: defines neither a PAPER (numerics.paper.Paper) nor a CLAIMS list; export "
                            "PAPER = Paper(prefix=..., title=..., claims=[...])")
    tables = {part: getattr(obj, part.upper()) for part in ("figures", "problems", "benchmarks")
              if isinstance(getattr(obj, part.upper(), None), Mapping)}
    return Paper(prefix="", title=title, claims=tuple(obj.CLAIMS), **tables)


def merge(part: str, tables) -> dict:
    """``(source, table)`` pairs merged into one dict; an id in two tables is refused, naming it
    and both sources (the registry across papers, :func:`gather` across a paper's modules)."""
    out, where = {}, {}
    for source, table in tables:
        twice = sorted(set(out) & set(table))
        if twice:
            raise RegistryError(f"{part}: {twice[0]!r} is registered twice ({where[twice[0]]} and {source}); give "
                                "it another id")
        out.update(table)
        where.update(dict.fromkeys(table, source))
    return dict(sorted(out.items()))


def gather(attribute: str, *modules):
    """The ``attribute`` of each module (``CLAIMS``, ``FIGURES``, ``PROBLEMS`` or ``BENCHMARKS``)
    joined into one part of a paper: the claim lists one after the other, the dicts merged
    (:func:`merge`)."""
    if attribute == "CLAIMS":
        return [c for m in modules for c in m.CLAIMS]
    return merge(attribute.lower(), [(f"module {m.__name__}", getattr(m, attribute)) for m in modules])
