"""The explorer page in a real headless browser (Debian's chromium, driven by
selenium through chromium-driver) against a live ``pyfathom serve``.

Skipped, with the reason, only where the browser or its driver is not
installed (``.ci/run`` installs both with apt-get).  Screenshots go to the
test's temporary directory, and to ``$PYFATHOM_SCREENSHOT_DIR`` when set.
"""

from __future__ import annotations

import os
import shutil
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest

from support.live_server import Server, serving

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Debian's chromium and chromium-driver are not installed "
           "(apt-get install chromium chromium-driver; .ci/run does it)")


@pytest.fixture(scope="module")
def server(syzygy_dir: Path) -> Iterator[Server]:
    with serving(syzygy_dir) as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1100,900", "--disable-extensions", "--no-first-run"):
        options.add_argument(flag)
    # The browser is not Python: no ASan runtime preloaded into it in the
    # sanitized run (tests/run_sanitized.py).
    from support.sanitizer import native_env

    service = Service(executable_path=str(CHROMEDRIVER), env=native_env())
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _shot(driver: Any, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    driver.save_screenshot(str(path))
    extra = os.environ.get("PYFATHOM_SCREENSHOT_DIR")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / name)
    assert path.stat().st_size > 5000
    return path


def _wait_for(driver: Any, fen: str) -> None:
    """Until the page shows ``fen`` (its body's data-fen) and is not loading."""
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d: Any) -> bool:
        return bool(d.execute_script(
            "return document.body.dataset.fen === arguments[0] && !document.body.dataset.loading",
            fen))

    WebDriverWait(driver, 20).until(ready, message=f"page never showed {fen}")


def _page_moves(driver: Any) -> list[tuple[str, str, str]]:
    return [tuple(row) for row in driver.execute_script(
        "return [...document.querySelectorAll('#moves li')].map("
        "li => [li.dataset.uci, li.dataset.category, li.querySelector('.san').textContent])")]


def _api_moves(server: Server, fen: str) -> tuple[str, list[tuple[str, str, str]]]:
    status, doc = server.get_json("/standard?fen=" + urllib.parse.quote(fen.replace(" ", "_")))
    assert status == 200
    return doc["category"], [(m["uci"], m["category"], m["san"]) for m in doc["moves"]]


def _pieces(driver: Any) -> dict[str, str]:
    return dict(driver.execute_script(
        "return [...document.querySelectorAll('#board .piece')].map("
        "p => [p.dataset.square, p.dataset.piece])"))


def _expected_pieces(board: chess.Board) -> dict[str, str]:
    return {chess.square_name(sq): piece.symbol() for sq, piece in board.piece_map().items()}


def _check_page(driver: Any, server: Server, board: chess.Board) -> None:
    fen = board.fen()
    _wait_for(driver, fen)
    category, moves = _api_moves(server, fen)
    assert _page_moves(driver) == moves
    assert driver.execute_script("return document.getElementById('result').dataset.category") == category
    assert _pieces(driver) == _expected_pieces(board)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
    assert query["fen"] == [fen.replace(" ", "_")]


def test_explorer_page(server: Server, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    # 1. Open a shared link.
    start = chess.Board("4k3/6KP/8/8/8/8/7p/8 w - - 0 1")
    browser.get(server.base + "/?fen=" + start.fen().replace(" ", "_"))
    _check_page(browser, server, start)

    # 2. Type a FEN.
    typed = chess.Board("8/8/8/8/8/2k5/1p6/3K4 b - - 0 1")  # only b1=Q+ and b1=R+ win
    field = browser.find_element(By.ID, "fen-input")
    field.clear()
    field.send_keys(typed.fen())
    browser.find_element(By.ID, "fen-go").click()
    _check_page(browser, server, typed)
    _shot(browser, tmp_path, "explorer-desktop.png")

    # 3. Click the best move in the list.
    first_uci = _page_moves(browser)[0][0]
    browser.find_element(By.CSS_SELECTOR, f'#moves li[data-uci="{first_uci}"]').click()
    after_click = typed.copy()
    after_click.push_uci(first_uci)
    _check_page(browser, server, after_click)

    # 4. Drag a piece: the side to move's king to a legal square.
    king = after_click.king(after_click.turn)
    assert king is not None
    target = next(m.to_square for m in after_click.legal_moves if m.from_square == king)
    # (The page redraws the squares when the piece is picked up: aim by
    # offsets from the board, which stays.)
    board_el = browser.find_element(By.ID, "board")
    centre = browser.execute_script(
        "const b = document.getElementById('board').getBoundingClientRect();"
        "const c = sq => { const r = document.querySelector('#board rect[data-square=\"' + sq + '\"]')"
        ".getBoundingClientRect(); return [r.x + r.width / 2 - b.x - b.width / 2,"
        " r.y + r.height / 2 - b.y - b.height / 2]; };"
        "return [c(arguments[0]), c(arguments[1])];",
        chess.square_name(king), chess.square_name(target))
    (sx, sy), (tx, ty) = centre
    (ActionChains(browser).move_to_element_with_offset(board_el, int(sx), int(sy)).click_and_hold()
     .move_to_element_with_offset(board_el, int((sx + tx) / 2), int((sy + ty) / 2))
     .move_to_element_with_offset(board_el, int(tx), int(ty)).release().perform())
    after_drag = after_click.copy()
    after_drag.push(chess.Move(king, target))
    _check_page(browser, server, after_drag)

    # 5. Back and forward through the line.
    browser.find_element(By.ID, "back").click()
    _check_page(browser, server, after_click)
    browser.back()
    _check_page(browser, server, typed)
    browser.forward()
    _check_page(browser, server, after_click)
    browser.find_element(By.ID, "forward").click()
    _check_page(browser, server, after_drag)

    # 6. Errors are shown in the page; the position stays.
    field = browser.find_element(By.ID, "fen-input")
    field.clear()
    field.send_keys("8/8/8/8/8/8/2Rk4/1K6 w - - 0 1")
    browser.find_element(By.ID, "fen-go").click()
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 20).until(
        lambda d: d.find_element(By.ID, "error").is_displayed(), message="no error shown")
    assert "illegal position" in browser.find_element(By.ID, "error").text
    assert _pieces(browser) == _expected_pieces(after_drag)

    # 7. Phone width: the board fits, nothing scrolls sideways.
    browser.set_window_size(390, 844)
    browser.get(server.base + "/?fen=" + after_drag.fen().replace(" ", "_"))
    _check_page(browser, server, after_drag)
    widths = browser.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth,"
        " document.getElementById('board').getBoundingClientRect().width]")
    assert widths[0] <= widths[1] and 250 <= widths[2] <= widths[1], widths
    _shot(browser, tmp_path, "explorer-phone.png")
    # Only the page's own assets were loaded: nothing from another host.
    hosts = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => new URL(e.name).host)")
    assert set(hosts) <= {f"127.0.0.1:{server.port}"}, hosts
    browser.set_window_size(1100, 900)


def test_batch_post_from_another_origin(server: Server, browser: Any, tmp_path: Path) -> None:
    """A page served from a second port (another origin) POSTs a JSON batch
    with fetch(): chromium sends the CORS preflight first, and reads the
    answer only if both carry the right headers."""
    import functools
    import http.server
    import threading

    (tmp_path / "page.html").write_text("<!doctype html><title>other origin</title>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        browser.get(f"http://127.0.0.1:{other.server_address[1]}/page.html")
        fens = ["8/8/8/4k3/8/8/2Q5/K7 w - - 0 1", "not a fen"]
        browser.set_script_timeout(30)
        result = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0] + '/standard/batch', {method: 'POST',"
            " headers: {'Content-Type': 'application/json'}, body: JSON.stringify(arguments[1])})"
            ".then(r => r.json().then(j => done({status: r.status, body: j})))"
            ".catch(e => done({error: String(e)}));",
            server.base, fens)
    finally:
        other.shutdown()
        other.server_close()
    assert "error" not in result, result
    assert result["status"] == 200 and len(result["body"]) == 2
    assert result["body"][0]["category"] == "win" and "error" in result["body"][1]
