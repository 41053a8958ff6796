"""The documentation site built as a reader gets it (issue 43): with
``python -m sphinx -W --keep-going -n`` (any warning or unresolved
reference fails), every internal link and anchor of the built HTML
resolving, and in headless Chromium the front page, an API page and the
search page rendering without console errors, the search finding
``probe_dtz_bitboards``.

The site is built once per session (:func:`site`), in about 15-25 s.
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import shutil
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.doc_pages import DOCS

pytestmark = pytest.mark.plain_pass_only(
    "checks the documentation: its build imports pyfathom in a process of its own")

SPHINX = ["-m", "sphinx", "-W", "--keep-going", "-n", "-q"]


@dataclass(frozen=True)
class Site:
    html: Path
    returncode: int
    log: str


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    pytest.importorskip("sphinx", reason="Sphinx (the [test] or [docs] extra) is not installed")
    root = tmp_path_factory.mktemp("docs-site")
    proc = subprocess.run([sys.executable, *SPHINX, "-d", str(root / "doctrees"), str(DOCS),
                           str(root / "html")], capture_output=True, text=True, timeout=600)
    return Site(root / "html", proc.returncode, proc.stdout + proc.stderr)


def test_site_builds_without_a_warning(site: Site) -> None:
    assert site.returncode == 0 and "WARNING" not in site.log and "ERROR" not in site.log, site.log
    for page in ("index.html", "api/pyfathom.html", "search.html", "genindex.html"):
        assert (site.html / page).stat().st_size > 1000, page
    api = (site.html / "api" / "pyfathom.html").read_text()
    # Generated, not hand-written: the signature and the docstring are there.
    assert 'id="pyfathom.Tablebase.probe_dtz_bitboards"' in api and "precise" in api
    for name in ("fathom", "tables", "fen", "dask", "annotate", "server", "batch_files", "columnar"):
        assert (site.html / "api" / f"{name}.html").exists(), name


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and (name == "id" or tag == "a"):
                self.ids.add(value)
            elif (name == "href" and tag in ("a", "link")) or (name == "src" and tag in ("img", "script")):
                self.targets.append(value)


@functools.lru_cache(maxsize=None)
def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(errors="replace"))
    return parser


def test_every_internal_link_resolves(site: Site) -> None:
    assert site.returncode == 0, site.log
    pages = sorted(site.html.rglob("*.html"))
    assert len(pages) > 20
    broken = []
    checked = 0
    for page in pages:
        for target in _parse(page).targets:
            parts = urllib.parse.urlsplit(target)
            if parts.scheme or parts.netloc:
                continue  # another site: not reachable from here
            path = (page.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else page
            if path.is_dir():
                path = path / "index.html"
            checked += 1
            if not path.is_file() or site.html.resolve() not in path.parents:
                broken.append(f"{page.relative_to(site.html)}: {target}")
            elif parts.fragment and path.suffix == ".html" and parts.fragment not in _parse(path).ids:
                broken.append(f"{page.relative_to(site.html)}: {target} (no such anchor)")
    assert checked > 500 and not broken, broken[:40]


# --- in a browser -------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
needs_browser = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Debian's chromium and chromium-driver are not installed "
           "(apt-get install chromium chromium-driver; .ci/run does it)")


@pytest.fixture(scope="module")
def served(site: Site) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, as a host serves it."""
    assert site.returncode == 0, site.log

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site.html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from support.sanitizer import native_env

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1200,900", "--disable-extensions", "--no-first-run"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER), env=native_env()),
                              options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _console_errors(driver: Any) -> list[str]:
    # The browser asks for /favicon.ico by itself; the site names none.
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE" and "/favicon.ico " not in entry["message"]]


@needs_browser
@pytest.mark.parametrize(("page", "text"), [("index.html", "Getting started"),
                                            ("api/pyfathom.html", "probe_dtz_bitboards"),
                                            ("batch.html", "Order and memory")])
def test_page_renders_without_console_errors(page: str, text: str, served: str, browser: Any,
                                             tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get_log("browser")  # drop what came before
    browser.get(f"{served}/{page}")
    body = browser.find_element(By.TAG_NAME, "body")
    assert text in body.text
    # furo's stylesheet applied: the sidebar is laid out beside the content.
    assert browser.execute_script(
        "return getComputedStyle(document.querySelector('.sidebar-drawer')).display") != "none"
    browser.save_screenshot(str(tmp_path / "page.png"))
    assert _console_errors(browser) == []


@needs_browser
def test_search_finds_probe_dtz_bitboards(served: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get_log("browser")
    browser.get(f"{served}/search.html?q=probe_dtz_bitboards")

    def results(driver: Any) -> list[Any]:
        return list(driver.find_elements(By.CSS_SELECTOR, "#search-results li a"))

    WebDriverWait(browser, 30).until(lambda d: results(d))
    links = [a.get_attribute("href") for a in results(browser)]
    assert any(link.endswith("api/pyfathom.html#pyfathom.Tablebase.probe_dtz_bitboards")
               for link in links), links
    assert _console_errors(browser) == []
