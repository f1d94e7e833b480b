"""The layering rule, checked on the source: imports go downward only, and no package reaches into
another's private names.

Layers, bottom up: ``arena`` (one game) -> ``bots`` (players, through ``arena``'s public API as any
plugin) -> ``leagues`` (many games), and inside ``leagues``: ``tournament`` -> ``records`` -> ``league``
-> ``cli``. Nothing imports ``leagues.cli`` (the top) but its entry points: ``leagues.console`` (the
``tute`` script) and ``leagues.__main__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "bots", "leagues")
#: for each layer, the layers it may import (itself included)
ALLOWED = {
    "arena": {"arena"},
    "bots": {"arena", "bots"},
    "leagues.tournament": {"arena", "leagues.tournament"},
    "leagues.records": {"arena", "leagues.tournament", "leagues.records"},
    "leagues.league": {"arena", "leagues.tournament", "leagues.records", "leagues.league"},
    "leagues.cli": {"arena", "leagues.tournament", "leagues.records", "leagues.league", "leagues.cli"},
    "leagues.console": {"leagues.cli"},  # the console script, lighter than leagues.cli to import
    "leagues": {"arena", "leagues.cli", "leagues.console"},  # leagues/__init__ and __main__
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str | None:
    """The layer a project module belongs to (the longest key of ALLOWED that prefixes it)."""
    best = None
    for layer in ALLOWED:
        if module == layer or module.startswith(layer + "."):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def imports_of(source: str, module: str, is_package: bool) -> list[tuple[str, list[str]]]:
    """(imported module, names taken from it) for every import in ``source``, relative ones resolved."""
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([base] if base else []))
            out.append((base, [alias.name for alias in node.names]))
    return out


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    layer = layer_of(module)
    found = []
    for target, names in imports_of(source, module, is_package):
        top = target.split(".")[0]
        if top not in PACKAGES:
            continue
        target_layer = layer_of(target)
        if layer is None or target_layer is None:
            continue
        if target_layer not in ALLOWED[layer]:
            found.append(f"{module} imports {target} (layer {target_layer} is above or beside {layer})")
        if top != module.split(".")[0]:
            private = [n for n in names + target.split(".") if n.startswith("_") and not n.endswith("__")]
            if private:
                found.append(f"{module} imports private {private} from {target}")
    return found


def project_modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_every_module_imports_downward_only() -> None:
    problems = []
    for path in project_modules():
        problems += violations(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")
    assert not problems, "\n".join(problems)


def test_nothing_imports_the_cli_but_its_entry_points() -> None:
    for path in project_modules():
        module = module_name(path)
        if module.startswith("leagues.cli") or module in ("leagues", "leagues.__main__", "leagues.console"):
            continue
        for target, _ in imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py"):
            assert not target.startswith("leagues.cli"), f"{module} imports {target}"


@pytest.mark.parametrize("source, module, expected", [
    ("from leagues.tournament.store import Store\n", "arena.record", "arena.record imports leagues.tournament.store"),
    ("import bots.greedy\n", "arena.view", "arena.view imports bots.greedy"),
    ("from leagues.cli import main\n", "leagues.league.report", "leagues.league.report imports leagues.cli"),
    ("from ..league.store import LeagueStore\n", "leagues.records.archive", "imports leagues.league.store"),
    ("from arena.knowledge import _hall\n", "bots.search", "imports private ['_hall']"),
])
def test_the_check_catches_a_fabricated_violation(source: str, module: str, expected: str) -> None:
    assert any(expected in v for v in violations(source, module)), violations(source, module)


def test_each_subpackage_says_what_it_holds_and_may_import() -> None:
    for init in sorted((ROOT / "leagues").rglob("__init__.py")) + [ROOT / "arena" / "hosting" / "__init__.py"]:
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "import" in doc, f"{init.relative_to(ROOT)}: no docstring saying what it may import"


def test_no_benchmark_or_example_is_named_like_a_package() -> None:
    """A script's folder heads its path: a ``benchmarks/bots.py`` hid the ``bots`` package from the bots
    a benchmark started in a subprocess (``benchmarks/hosts.py`` forfeited every deal: "'bots' is not a
    package"), run from the repository as the README says."""
    scripts = [p for folder in ("benchmarks", "examples") for p in (ROOT / folder).glob("*.py")]
    assert scripts
    assert not [p for p in scripts if p.stem in PACKAGES], [p for p in scripts if p.stem in PACKAGES]
