"""The type hints say what the code does: mypy checks the packages, and the benchmarks and examples
that use them, with no error (a hint that contradicts a call or a return fails here)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# apart: each run checks its own paths with a cache of its own
@pytest.mark.parametrize("paths", [["arena", "bots", "leagues"], ["benchmarks", "examples"]], ids=["packages", "scripts"])
def test_the_code_type_checks(paths: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    api = pytest.importorskip("mypy.api")
    monkeypatch.chdir(ROOT)
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",  # one per run: apart
                                str(ROOT / ".mypy_cache" / paths[0]), "--no-error-summary", *paths])
    assert status == 0, out + err
