"""Open our HTML pages in the real headless Chromium (Debian's, installed by .ci/run) through Playwright:
keys, clicks, the console and screenshots at a chosen viewport, as a user would meet the page."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest


def chromium_path() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get("CI"):
        pytest.fail("chromium is missing: .ci/run installs it")
    return found


class Page:
    """A Playwright page plus everything the page said on its console or threw."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("dialog", lambda d: (self.errors.append(f"dialog: {d.message}"), d.dismiss()))

    def open(self, path: Path, fragment: str = "") -> "Page":
        self.page.goto(path.resolve().as_uri() + (f"#{fragment}" if fragment else ""))
        return self

    def text(self, selector: str) -> str:
        return self.page.locator(selector).first.inner_text()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.page, name)


@contextmanager
def browser(width: int = 1280, height: int = 800) -> Iterator[Any]:
    """A browser whose ``new_page()`` gives a ``Page``; skips when Chromium or Playwright is missing
    outside CI (in CI both are installed, and their absence fails)."""
    exe = chromium_path()
    if exe is None:
        pytest.skip("chromium not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("playwright not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])

        class _Browser:
            def new_page(self, w: int = width, h: int = height) -> Page:
                return Page(b.new_page(viewport={"width": w, "height": h}))

        try:
            yield _Browser()
        finally:
            b.close()
