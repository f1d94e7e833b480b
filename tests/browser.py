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


def plain(text: str) -> str:
    """``text`` without the invisible marks that isolate each name's direction (U+2068, U+2069)."""
    return text.replace("\u2068", "").replace("\u2069", "")


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
        """Load the page afresh at ``fragment``. Going from the same page to another fragment would be a
        same-document navigation, which returns before the page's ``hashchange`` handler has run, so
        what the test reads next could still be the old position (a flake seen under load)."""
        if self.page.url.split("#")[0] == path.resolve().as_uri():
            self.page.goto("about:blank")
        self.page.goto(path.resolve().as_uri() + (f"#{fragment}" if fragment else ""))
        return self

    def text(self, selector: str) -> str:
        """The text as a reader sees it: without the invisible marks that isolate each name's direction
        (U+2068 and U+2069; ``tests/test_replay_page.py`` checks them apart)."""
        return plain(self.page.locator(selector).first.inner_text())

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


#: every visible text's contrast against its background (WCAG AA asks 4.5:1): the failures, as
#: [tag, text, ratio], for ``page.evaluate``
CONTRAST = """() => {
  const lum = c => { const v = c.match(/[\\d.]+/g).slice(0, 3).map(x => +x / 255)
      .map(x => x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const bg = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor;
      if (c && !c.endsWith(", 0)") && c !== "transparent") return c; } return "rgb(255, 255, 255)"; };
  const out = [];
  for (const e of document.querySelectorAll("body *")) {
    if (![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    if (!e.getClientRects().length) continue;
    const a = lum(getComputedStyle(e).color), b = lum(bg(e));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) out.push([e.tagName, e.textContent.slice(0, 20), ratio.toFixed(2)]);
  }
  return out;
}"""
