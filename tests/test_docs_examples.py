"""Every code example on the documentation site runs here (issue 43).

The pages' blocks, by kind:

- ``pycon``: run as doctests (outputs compared), one namespace per page, so
  a page's examples may build on each other;
- ``python``: executed, in the same namespace;
- ``sh``: each command run or checked: ``pyfathom`` commands run as
  processes (``serve`` and downloads from the network are parsed by the
  command's own parser instead), ``curl`` requests sent to a live
  ``pyfathom serve`` and the answer compared with the one shown, the engine
  build lines (``amalgamate.sh``, ``make``, ``cc``) run into a temporary
  folder, ``pip install`` lines checked against pyproject's extras, benchmark
  lines checked against the script's options (they run for minutes: their
  smoke tests are ``tests/test_benchmarks_smoke.py``), the two commands
  compared with README.md and ``.ci/run``;
- C: only as files under ``docs/examples/`` shown with ``literalinclude``,
  built against the core and run, their output compared with pyfathom's.

The placeholders the pages use for the reader's own paths
(``/path/to/syzygy``, ``~/syzygy``, ``tcp://scheduler:8786``,
``http://127.0.0.1:9000``, ...) are replaced by the test tables, temporary
folders, a LocalCluster and a live server (:func:`_substitutions`); nothing
else of an example is changed.  A block of any other kind fails the test
until it is taught how to run it.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import doc_pages
from support.doc_pages import Block
from support.sanitizer import native_env
from support.table_cache import VARIANTS

ROOT = doc_pages.ROOT
KINDS = {"pycon", "python", "sh", "text", "", "{literalinclude}", "{include}", "{toctree}"}
SERVER_BASE = "http://127.0.0.1:9000"
SCHEDULER = "tcp://scheduler:8786"
SPHINX_COMMAND = ["python", "-m", "sphinx", "-W", "--keep-going", "-n", "docs", "build/docs"]
# Pages whose examples talk to a server or a cluster (started only for them).
NEEDS_SERVER = {"server.md"}
NEEDS_CLUSTER = {"batch.md"}


def _all_blocks() -> list[Block]:
    return [b for page in doc_pages.pages() for b in doc_pages.blocks(page)]


def _pages_with(*langs: str) -> list[str]:
    return sorted({b.page.name for b in _all_blocks() if b.lang in langs})


def _shell_lines() -> list[tuple[str, int, str]]:
    """(page, line, command) for every command of the ``sh`` blocks, with
    backslash continuations joined."""
    out = []
    for block in _all_blocks():
        if block.lang != "sh":
            continue
        pending = ""
        for offset, line in enumerate(block.text.splitlines()):
            pending += line
            if pending.endswith("\\"):
                pending = pending[:-1] + " "
                continue
            if pending.strip() and not pending.lstrip().startswith("#"):
                out.append((block.page.name, block.line + offset, pending.strip()))
            pending = ""
    return out


def test_every_block_is_of_a_kind_that_runs() -> None:
    blocks = _all_blocks()
    unknown = [b.where for b in blocks if b.lang not in KINDS]
    assert not unknown, f"blocks this test cannot run (C goes in docs/examples/): {unknown}"
    assert sum(b.lang == "pycon" for b in blocks) >= 6 and len(_shell_lines()) >= 20


# --- the environment: tables, folders, a server, a cluster -------------------

@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, syzygy_dir: Path) -> Path:
    """A folder to run the examples in, holding the inputs they name."""
    work = tmp_path_factory.mktemp("docs-examples")
    (work / "home").mkdir()
    (work / "pyfathom-home").mkdir()
    (work / "pyfathom-home" / "syzygy").symlink_to(syzygy_dir)
    fens = ["8/8/8/8/8/8/2Rk4/1K6 b - - 0 1", "8/4k3/8/4K3/4P3/8/8/8 w - - 0 1",
            "8/8/8/8/8/2k5/1p6/3K4 b - - id \"promotion\";", "not a position"]
    (work / "positions.epd").write_text("# four lines\n" + "\n".join(fens) + "\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"fen": [f.split(" id ")[0] for f in fens]})
    pq.write_table(table, work / "positions.parquet")
    (work / "positions").mkdir()
    pq.write_table(table, work / "positions" / "part-0.parquet")
    # The annotation page's "before" games are its example input.
    before = next(b.text for b in doc_pages.blocks(doc_pages.DOCS / "annotate.md")
                  if b.text.startswith("[Event"))
    (work / "games.pgn").write_text(before)
    return work


@pytest.fixture(scope="module")
def environment(workdir: Path) -> Iterator[dict[str, str]]:
    """The examples' environment: ``default_dir()`` is the test tables, and
    ``~`` a temporary home."""
    env = dict(os.environ, HOME=str(workdir / "home"),
               PYFATHOM_HOME=str(workdir / "pyfathom-home"))
    env.pop("SYZYGY_PATH", None)
    saved = dict(os.environ)
    os.environ.update(env)
    os.environ.pop("SYZYGY_PATH", None)
    try:
        yield env
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")
def live(syzygy_dir: Path) -> Iterator[Any]:
    from support.live_server import serving

    pytest.importorskip("starlette", reason="the [server] extra is not installed")
    with serving(syzygy_dir) as server:
        yield server


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as c:
        yield c.scheduler_address


def _substitutions(workdir: Path, syzygy_dir: Path, server: str | None = None,
                   scheduler: str | None = None) -> list[tuple[str, str]]:
    """Placeholder -> what it stands for here, longest first."""
    engine = workdir / "engine"
    pairs = {
        "/path/to/syzygy": str(syzygy_dir),
        "/data/syzygy": str(syzygy_dir),
        "/mnt/usb/syzygy": str(syzygy_dir),
        "path/to/atomic": str(VARIANTS / "atomic"),
        "~/syzygy-atomic": str(VARIANTS / "atomic"),
        "~/syzygy-antichess": str(VARIANTS / "giveaway"),
        "~/syzygy": str(workdir / "home" / "syzygy"),
        "path/to/engine/fathom": str(engine / "fathom"),
        "path/to/engine/pyrrhic": str(engine / "pyrrhic"),
        "build/fathom-engine": str(engine / "lib"),
        "engine.c": str(doc_pages.DOCS / "examples" / "fathom_style.c"),
    }
    if server:
        pairs[SERVER_BASE] = server
    if scheduler:
        pairs[SCHEDULER] = scheduler
    return sorted(pairs.items(), key=lambda kv: -len(kv[0]))


def _substitute(text: str, pairs: list[tuple[str, str]]) -> str:
    for placeholder, value in pairs:
        text = text.replace(placeholder, value)
    return text


def _context(request: pytest.FixtureRequest, page: str, workdir: Path,
             syzygy_dir: Path) -> list[tuple[str, str]]:
    server = request.getfixturevalue("live").base if page in NEEDS_SERVER else None
    scheduler = request.getfixturevalue("cluster") if page in NEEDS_CLUSTER else None
    return _substitutions(workdir, syzygy_dir, server, scheduler)


# --- Python: pycon doctests and python blocks ------------------------------

@pytest.mark.parametrize("page", _pages_with("pycon", "python"))
def test_python_examples(page: str, request: pytest.FixtureRequest, workdir: Path,
                         syzygy_dir: Path, environment: dict[str, str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    if page in NEEDS_CLUSTER:
        pytest.importorskip("pyarrow", reason="the page's examples need the [arrow] extra")
    pairs = _context(request, page, workdir, syzygy_dir)
    here = workdir / "python" / page  # apart from the shell commands' outputs
    here.mkdir(parents=True, exist_ok=True)
    for name in ("positions", "positions.parquet"):
        if not (here / name).exists():
            (here / name).symlink_to(workdir / name)
    monkeypatch.chdir(here)
    namespace: dict[str, Any] = {"__name__": f"docs.{page}"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    ran = 0
    for block in doc_pages.blocks(doc_pages.DOCS / page):
        text = _substitute(block.text, pairs)
        if block.lang == "pycon":
            test = parser.get_doctest(text, namespace, block.where, str(block.page), block.line)
            result = runner.run(test, clear_globs=False)
            namespace.update(test.globs)  # the DocTest ran on a copy
            assert result.failed == 0, f"{block.where}: {result.failed} example(s) failed (above)"
            ran += result.attempted
        elif block.lang == "python":
            exec(compile(text, block.where, "exec"), namespace)
            ran += 1
    for value in namespace.values():  # what the examples left open: a Dask client
        if type(value).__name__ == "Client" and hasattr(value, "close"):
            value.close()
    assert ran > 0
    if page == "batch.md":  # the Dask example wrote its labels
        import pyarrow.parquet as pq

        labels = pq.read_table(here / "labelled").to_pydict()
        assert labels["wdl"][:3] == [-2, 0, 2] and labels["status"][3] == "invalid_fen"


# --- shell commands ---------------------------------------------------------

def _extras() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return set(project["optional-dependencies"])


def _readme_commands() -> list[str]:
    block = doc_pages.blocks(doc_pages.README)[0]
    return [line for line in block.text.splitlines() if line and not line.startswith("#")]


def _benchmark_help(script: str) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / script), "--help"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _shown_after(page: str, line: int) -> str:
    """The block right after the one holding ``line`` (its shown output)."""
    blocks = doc_pages.blocks(doc_pages.DOCS / page)
    i = next(i for i, b in enumerate(blocks) if b.line <= line < b.line + b.text.count("\n"))
    return blocks[i + 1].text


def _curl(words: list[str]) -> tuple[int, bytes]:
    headers: dict[str, str] = {}
    data = None
    url = None
    it = iter(words[1:])
    for word in it:
        if word == "-H":
            name, _, value = next(it).partition(":")
            headers[name.strip()] = value.strip()
        elif word == "-d":
            data = next(it).encode()
        else:
            assert not word.startswith("-"), f"curl option {word} not taught to this test"
            url = word
    assert url is not None
    req = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(req, timeout=60) as answer:
        return answer.status, answer.read()


def _contains(shown: Any, answer: Any) -> bool:
    """``shown`` (a document with its lists cut short) is part of ``answer``."""
    if isinstance(shown, dict):
        return isinstance(answer, dict) and all(k in answer and _contains(v, answer[k])
                                                for k, v in shown.items())
    if isinstance(shown, list):
        return isinstance(answer, list) and len(shown) <= len(answer) and \
            all(_contains(s, a) for s, a in zip(shown, answer))
    return bool(shown == answer)


@pytest.fixture(scope="module")
def shell_state() -> dict[str, Any]:
    return {}


@pytest.mark.parametrize(("page", "line", "command"), _shell_lines(),
                         ids=[f"{p}:{n}" for p, n, _ in _shell_lines()])
def test_shell_command(page: str, line: int, command: str, request: pytest.FixtureRequest,
                       workdir: Path, syzygy_dir: Path, environment: dict[str, str]) -> None:
    from pyfathom.cli import _parser

    text = _substitute(command, _context(request, page, workdir, syzygy_dir))
    text = text.replace("~/", str(workdir / "home") + "/")
    words = shlex.split(text, comments=True)
    head = words[0]
    if "&&" in words:  # the two commands: exactly README.md's (and .ci/run's)
        assert command in _readme_commands(), f"{page}:{line} is not README.md's command"
        if command.startswith("sh tests/system_packages.sh"):
            assert command + " ||" in (ROOT / ".ci" / "run").read_text()
    elif head == "pyfathom":
        parser, _ = _parser()
        parser.parse_args(words[1:])  # a usage error exits: every option exists
        network = words[1] == "download" and not any(
            w == "--source" and Path(words[i + 1]).is_dir() for i, w in enumerate(words[:-1]))
        if words[1] == "serve" or network:
            return  # a server runs until stopped (the curl lines talk to one); no network here
        proc = subprocess.run([sys.executable, "-m", "pyfathom", *words[1:]], cwd=workdir,
                              env=environment, capture_output=True, text=True, timeout=300)
        assert proc.returncode in (0, 1), proc.stderr  # 1: the inputs' bad lines, on purpose
        assert "Traceback" not in proc.stderr
        if words[1] == "batch":  # every input has one bad line, on purpose
            assert proc.returncode == 1 and "1 bad (1 invalid_fen)" in proc.stderr, proc.stderr
            assert Path(workdir, words[words.index("-o") + 1]).exists()
        elif words[1] == "annotate":
            assert proc.returncode == 0 and "Ra8#" in (workdir / "annotated.pgn").read_text()
        elif words[1] == "download":
            assert len(list((workdir / "home" / "syzygy").glob("*.rtb*"))) == 70
        else:
            assert proc.returncode == 0, proc.stderr
    elif head == "curl":
        status, body = _curl(words)
        assert status == 200
        answer = json.loads(body)
        shown = command.split("?fen=")[-1] if "?fen=" in command else None
        if "/mainline" in command:
            comment = _shown_after_comment(page, line)
            assert answer == json.loads(comment)
        elif shown is not None:
            text_shown = _shown_after(page, line)
            cut = re.sub(r",\s*\.\.\.\]", "]", text_shown)
            assert _contains(json.loads(cut), answer), (text_shown, answer)
        else:
            sent = json.loads(words[words.index("-d") + 1])  # short FENs, completed in the answer
            assert len(answer) == len(sent) and all(
                doc["fen"].startswith(fen) and doc["category"] != "unknown" for doc, fen in zip(answer, sent))
    elif head == "python" and words[1].startswith("benchmarks/"):
        help_text = _benchmark_help(words[1])
        for option in (w for w in words[2:] if w.startswith("--")):
            assert option in help_text, f"{words[1]} has no option {option}"
    elif head == "python" and words[1:3] == ["-m", "sphinx"]:
        assert command.split() == SPHINX_COMMAND
    elif head == "pip":
        for extra in re.findall(r"(?:pyfathom-syzygy|\.)\[([a-z,]+)\]", command):
            assert set(extra.split(",")) <= _extras(), f"{page}:{line}: no extra [{extra}]"
    elif head == "sh" and words[1] == "src/fathom/amalgamate.sh":
        subprocess.run(words, cwd=ROOT, check=True, capture_output=True, timeout=120, env=native_env())
        assert {p.name for p in Path(words[2]).iterdir()} >= {"tbprobe.c", "tbprobe.h", "tbconfig.h"}
    elif head == "make":
        if shutil.which("make") is None:
            pytest.skip("needs make (GNU)")
        extra = [f"OUT={workdir / 'engine' / 'lib'}"] if "lib" in words else []
        subprocess.run([*words, *extra], cwd=ROOT, check=True, capture_output=True, timeout=300,
                       env=native_env())
    elif head == "cc":
        request.getfixturevalue("engine_lib")
        exe = workdir / "engine" / "engine"
        subprocess.run([*words, "-o", str(exe)], cwd=ROOT, check=True, capture_output=True,
                       timeout=300, env=native_env())
        out = subprocess.run([str(exe), str(syzygy_dir)], check=True, capture_output=True,
                             text=True, timeout=60, env=native_env()).stdout
        assert out.startswith("wdl 0 ")
    else:
        pytest.fail(f"{page}:{line}: a kind of command this test cannot run or check: {command}")


def _shown_after_comment(page: str, line: int) -> str:
    """The ``# {...}`` line right after a command: its output as shown."""
    lines = doc_pages.read(page).split("\n")
    following = lines[line]  # lines are 1-based: the next line
    assert following.startswith("# {"), following
    return following[2:]


# --- C: the programs under docs/examples/ -----------------------------------

@pytest.fixture(scope="module")
def engine_lib(workdir: Path) -> Path:
    """``make -C src/fathom lib`` into a temporary folder: the single-file
    core as an engine links it."""
    if shutil.which("make") is None:
        pytest.skip("needs make (GNU)")
    out = workdir / "engine" / "lib"
    if not (out / "libfathom.a").exists():
        subprocess.run(["make", "-s", "-C", "src/fathom", "lib", f"OUT={out}"], cwd=ROOT,
                       check=True, capture_output=True, timeout=300, env=native_env())
    return out


def _included_programs() -> list[Path]:
    return sorted({(b.page.parent / b.argument).resolve() for b in _all_blocks()
                   if b.lang == "{literalinclude}" and b.argument.startswith("examples/")})


def test_every_example_program_is_shown() -> None:
    shown = _included_programs()
    assert shown == sorted((doc_pages.DOCS / "examples").glob("*.c"))


@pytest.mark.parametrize("program", [p.name for p in _included_programs()])
def test_c_example(program: str, engine_lib: Path, workdir: Path, syzygy_dir: Path,
                   tablebase: Any) -> None:
    import chess

    from support.c_programs import CORE, STRICT, cc

    source = doc_pages.DOCS / "examples" / program
    exe = workdir / "engine" / program.removesuffix(".c")
    subprocess.run([*cc(), *STRICT, f"-I{engine_lib}", f"-I{CORE}", str(source),
                    str(engine_lib / "libfathom.a"), "-pthread", "-o", str(exe)],
                   check=True, capture_output=True, text=True, timeout=300, env=native_env())
    out = subprocess.run([str(exe), str(syzygy_dir)], check=True, capture_output=True,
                         text=True, timeout=60, env=native_env()).stdout
    board = chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1")
    dtz = tablebase.probe_dtz(board)
    if program == "fathom_style.c":
        best = tablebase.probe_root(board).best_move
        fathom_wdl = int(tablebase.probe_wdl(board)) + 2
        assert out.splitlines() == [f"wdl {fathom_wdl} score {(fathom_wdl - 2) * 10000}",
                                    f"best {best.from_square}-{best.to_square} dtz {abs(dtz)}"]
    else:
        assert out.splitlines() == [f"dtz {dtz}"]


# --- what the pages name ------------------------------------------------------

GENERATED = {"benchmarks/bin"}  # made by the benchmarks when they run
_PATH = re.compile(r"`((?:src|pyfathom|tests|benchmarks|tools|examples|docs|\.ci|\.github)/[^`\s]*)`")


@pytest.mark.parametrize("page", [p.name for p in doc_pages.pages()] + ["README.md"])
def test_every_path_a_page_names_exists(page: str) -> None:
    """A file moved (as issue 42 moved many) leaves no stale path on a page."""
    text = doc_pages.README.read_text() if page == "README.md" else doc_pages.read(page)
    named = set(_PATH.findall(text)) - GENERATED
    missing = []
    for path in named:
        path = path.rstrip(".,:;)").split("#")[0]
        # "tb_platform.h/.c" names two files; "bench_*.py" a set of them.
        for candidate in path.replace("/.", "|.").split("|")[:1]:
            if not (list(ROOT.glob(candidate)) or (ROOT / candidate).exists()):
                missing.append(path)
    assert not missing, sorted(missing)
