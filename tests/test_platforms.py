"""The core on the platforms this machine can build for, and run where it can.

* Windows: tests/c/engine_dropin.c (Fathom's API, as an engine calls it),
  tests/c/threads.c (threads and batch calls on a cold instance) and
  tests/c/damaged.c (a table cut short), cross-compiled with mingw-w64
  against the single-file build and run in one wine session, on the 3-4-piece
  tables and ../shared/syzygy5.
* A table cut short under a running prober (tests/c/cut_view.c), natively
  and under wine (twice: the guard's atomics as mingw spells them and as
  MSVC does): the fault guard keeps the program alive, and without it the
  program dies.
* aarch64 and big-endian s390x Linux: the same programs under qemu-user.
  The table format mixes little-endian fields with a big-endian bit stream;
  a reader that used the host's byte order would answer differently on
  s390x, which the comparison below would show.
* macOS (aarch64, x86_64): the single-file build and the extension's C
  (pyfathom/_c/board_calls.c and cffi's generated module source) compile with
  zig; nothing can run them here.
* C++: the engine program and the single-file build compiled as C++ (g++,
  clang++, several -std).

Every emulated or C++ run gets the same input as a native C build of the
same program, and must print exactly what the native build prints (whose
answers tests/test_engine_dropin.py checks against python-chess); on top
of that every WDL line is checked against python-chess here.  Each test
skips naming the missing tool (Debian packages from tests/system_packages.sh,
PyPI ziglang from the [test] extra).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import pytest

from support import table_cache
from support.c_programs import CDIR, CORE, ROOT, engine_positions, run
from support.positions import table_sample

WARN = ["-Wall", "-Wextra", "-Werror"]
# Every 8th position of the engine test's list (about 650; the native test
# runs all of them) and 20 of each 5-piece table with both files keep the
# emulated runs short.
ENGINE_STRIDE = 8
FIVE_PIECE_PER_TABLE = 20

pytestmark = pytest.mark.plain_pass_only("cross builds of its own, without sanitizers")


def _need(tool: str, package: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"needs {tool} (Debian package {package})")
    return path


@pytest.fixture(scope="module")
def amalgamation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _need("make", "make")
    out = tmp_path_factory.mktemp("single-file")
    run(["make", "-s", "-C", str(CORE), "amalgamation", f"OUT={out}"])
    return out


@pytest.fixture(scope="module")
def five_piece_dir(syzygy5_dir: Path) -> Path:
    return syzygy5_dir


def _five_piece_tables(directory: Path) -> list[str]:
    return sorted(p.stem for p in directory.glob("*.rtbw") if (directory / f"{p.stem}.rtbz").is_file())


@pytest.fixture(scope="module")
def engine_case(five_piece_dir: Path) -> tuple[str, list[int]]:
    """(input lines for engine_dropin, python-chess's WDL per line)."""
    boards = [(b, ep) for b, _, ep in engine_positions()[::ENGINE_STRIDE]]
    for key in _five_piece_tables(five_piece_dir):
        boards += [(b, b.ep_square or 0) for b in table_sample(key, FIVE_PIECE_PER_TABLE, seed=24)]
    lines, wdl = [], []
    with chess.syzygy.open_tablebase(str(table_cache.tables_dir())) as tb:
        tb.add_directory(str(five_piece_dir))
        for board, ep in boards:
            bb = [board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.kings,
                  board.queens, board.rooks, board.bishops, board.knights, board.pawns]
            # Clock 0: the W lines are then python-chess's WDL unchanged.
            lines.append(" ".join(f"{x:x}" for x in bb) + f" 0 {ep} {int(board.turn)}")
            wdl.append(tb.probe_wdl(board))
    return "\n".join(lines) + "\n", wdl


def _check_engine_output(out: str, native: str, wdl: list[int]) -> None:
    assert out == native, "output differs from the native build: " + next(
        f"line {i}: {a!r} != {b!r}" for i, (a, b) in
        enumerate(zip(out.splitlines() + [""], native.splitlines() + [""])) if a != b)
    got = {int(line.split()[1]): int(line.split()[2]) - 2
           for line in out.splitlines() if line.startswith("W ")}
    bad = [i for i, v in enumerate(wdl) if got.get(i) != v]
    assert not bad, f"{len(bad)} WDL answers differ from python-chess, first rows {bad[:10]}"


def _build(cc: list[str], amal: Path, program: str, out: Path, *extra: str) -> Path:
    run([*cc, "-std=c99", "-O1", *WARN, f"-I{amal}", f"-I{CORE}", f"-I{CDIR}",
          str(CDIR / f"{program}.c"),
          str(amal / "tbprobe.c"), "-o", str(out), *extra])
    return out


@pytest.fixture(scope="module")
def native(amalgamation: Path, engine_case: tuple[str, list[int]], syzygy_dir: Path,
           five_piece_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The native C builds' outputs, the reference for every other build."""
    d = tmp_path_factory.mktemp("native")
    cc = [os.environ.get("CC", "cc")]
    path = f"{syzygy_dir}:{five_piece_dir}"
    ed = _build(cc, amalgamation, "engine_dropin", d / "engine_dropin", "-pthread")
    dm = _build(cc, amalgamation, "damaged", d / "damaged-table", "-pthread")
    out = {"engine": run([str(ed), path], input=engine_case[0]).stdout,
           "damaged": run([str(dm), str(_damaged_dir(d))]).stdout}
    _check_engine_output(out["engine"], out["engine"], engine_case[1])
    return out


def _damaged_dir(parent: Path) -> Path:
    """A folder with KQvK.rtbw cut to half its size."""
    d = parent / "damaged"
    d.mkdir(exist_ok=True)
    data = (table_cache.tables_dir() / "KQvK.rtbw").read_bytes()
    (d / "KQvK.rtbw").write_bytes(data[: len(data) // 2])
    return d


def _check_damaged(out: str, native_out: str) -> None:
    assert out == native_out
    assert out.startswith("probe 6 invalid file size"), out


# --------------------------------------------------------------------------
# Windows, under wine.

def _winpath(p: Path) -> str:
    return "Z:" + str(p).replace("/", "\\")


def test_windows_build_under_wine(amalgamation: Path, engine_case: tuple[str, list[int]],
                                  native: dict[str, str], syzygy_dir: Path,
                                  five_piece_dir: Path, tmp_path: Path) -> None:
    mingw = _need("x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64")
    wine = _need("wine", "wine64")
    static = ["-static"]
    ed = _build([mingw], amalgamation, "engine_dropin", tmp_path / "ed.exe", *static)
    th = _build([mingw], amalgamation, "threads", tmp_path / "th.exe", *static, "-lpthread")
    dm = _build([mingw], amalgamation, "damaged", tmp_path / "dm.exe", *static)
    (tmp_path / "in.txt").write_text(engine_case[0])
    damaged = _damaged_dir(tmp_path)
    # One wine session for the three programs (wine's start-up is most of
    # the cost); ';' separates the folders of a Windows path list.
    script = tmp_path / "run.bat"
    script.write_text("\r\n".join([
        "@echo off",
        f'"{_winpath(ed)}" "{_winpath(syzygy_dir)};{_winpath(five_piece_dir)}" '
        f'< "{_winpath(tmp_path / "in.txt")}" > "{_winpath(tmp_path / "ed.out")}"',
        f'echo %ERRORLEVEL% > "{_winpath(tmp_path / "ed.rc")}"',
        f'"{_winpath(th)}" "{_winpath(syzygy_dir)}" 50 2 > "{_winpath(tmp_path / "th.out")}"',
        f'echo %ERRORLEVEL% > "{_winpath(tmp_path / "th.rc")}"',
        f'"{_winpath(dm)}" "{_winpath(damaged)}" > "{_winpath(tmp_path / "dm.out")}"',
        f'echo %ERRORLEVEL% > "{_winpath(tmp_path / "dm.rc")}"',
    ]) + "\r\n")
    prefix = table_cache.cache_dir() / "wine-prefix"  # made once (about 30 s), then reused
    env = {**os.environ, "WINEPREFIX": str(prefix), "WINEDEBUG": "-all", "WINEDLLOVERRIDES": "mscoree,mshtml="}
    run([wine, "cmd", "/c", _winpath(script)], env=env, timeout=600)

    def read(name: str) -> str:
        return (tmp_path / name).read_text(errors="replace").replace("\r\n", "\n")

    assert [read(f"{p}.rc").strip() for p in ("ed", "th", "dm")] == ["0", "0", "0"]
    _check_engine_output(read("ed.out"), native["engine"], engine_case[1])
    assert "TOTAL mismatches 0" in read("th.out"), read("th.out")
    _check_damaged(read("dm.out"), native["damaged"])


def _cut_under(launch: list[str], to_path: Any, tmp_path: Path, syzygy_dir: Path,
               noguard: bool) -> tuple[int, str]:
    """Run cut_view (``launch``: the program, under wine or not) on a copy
    of KRPvKR.rtbw, cut it to one page once the program has probed it, and
    return the exit code and output."""
    folder = tmp_path / ("noguard" if noguard else "guard")
    folder.mkdir()
    table = folder / "KRPvKR.rtbw"
    shutil.copyfile(table_cache.shared_folder(table_cache.SYZYGY5, "KRPvKR.rtbw") / "KRPvKR.rtbw",
                    table)
    ready, go = folder / "ready", folder / "go"
    args = [*launch, to_path(syzygy_dir), to_path(folder), to_path(ready), to_path(go)]
    proc = subprocess.Popen(args + (["noguard"] if noguard else []), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_wine_env())
    deadline = time.monotonic() + 120
    while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ready.exists(), f"cut_view did not get ready: {proc.poll()} {proc.stderr.read()[-2000:] if proc.stderr else ''}"
    os.truncate(table, 4096)  # from outside, as a failing disk or another program would
    go.write_text("")
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out.replace("\r\n", "\n") + err[-500:]


def _wine_env() -> dict[str, str]:
    prefix = table_cache.cache_dir() / "wine-prefix"  # made once (about 30 s), then reused
    return {**os.environ, "WINEPREFIX": str(prefix), "WINEDEBUG": "-all",
            "WINEDLLOVERRIDES": "mscoree,mshtml="}


def _check_survived(rc: int, out: str, where: str) -> None:
    found = re.match(r"answered (\d+) io (\d+) path (.*)", out)
    assert rc == 0 and found, f"{where}: the process did not live on ({rc}): {out[-1500:]}"
    assert int(found[2]) > 100, f"{where}: the cut table's probes did not fail: {out}"
    assert found[3].replace("\\", "/").endswith("guard/KRPvKR.rtbw"), f"{where}: {out}"


def _guard_spelling(mingw: str, amal: Path, *flags: str) -> str:
    """The body of the fault guard's compare-exchange (guard_cas) as the
    single-file build compiles it for Windows with ``flags``."""
    text = run([mingw, "-E", "-P", *flags, f"-I{amal}", str(amal / "tbprobe.c")]).stdout
    found = re.search(r"static int guard_cas\(long \*p, long expected, long desired\)\s*\{(.*?)\}",
                      text, re.S)
    assert found, "guard_cas is not in the Windows build"
    return found[1]


@pytest.mark.parametrize("where", ["native", "wine", "wine-interlocked"])
def test_table_cut_under_a_running_prober(where: str, amalgamation: Path, syzygy_dir: Path,
                                          tmp_path: Path) -> None:
    """A table file cut to one page while a program probes it: with the
    fault guard (on by default) its probes then fail with FATHOM_ERR_IO
    naming the file and the program lives on; with the guard turned off
    (fathom_set_fault_guard(0)) the same program dies, as any reader of a
    mapped file does.  Native: the SIGBUS guard.  Under wine: Windows'
    (tb_platform.c; wine maps the view with mmap, and its SIGBUS reaches
    the program as an access violation in the view).  wine-interlocked:
    the same with the guard's atomics spelled as an MSVC build spells them
    (Win32's Interlocked functions, FATHOM_GUARD_INTERLOCKED), as no MSVC
    runs here; the build is first shown to use that spelling."""
    if where.startswith("wine"):
        mingw = _need("x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64")
        wine = _need("wine", "wine64")
        flags = ["-DFATHOM_GUARD_INTERLOCKED"] if where == "wine-interlocked" else []
        spelling = _guard_spelling(mingw, amalgamation, *flags)
        assert ("InterlockedCompareExchange" in spelling) == bool(flags), spelling
        assert ("__atomic" in spelling) == (not flags), spelling
        exe = _build([mingw], amalgamation, "cut_view", tmp_path / "cut_view.exe", "-static",
                     *flags)
        launch, to_path = [wine, str(exe)], _winpath
    else:
        if not sys.platform.startswith("linux"):
            pytest.skip("the native run is the Linux one (the file cut with os.truncate)")
        cc = [os.environ.get("CC", "cc")]
        exe = _build(cc, amalgamation, "cut_view", tmp_path / "cut_view", "-pthread")
        launch, to_path = [str(exe)], str
    rc, out = _cut_under(launch, to_path, tmp_path, syzygy_dir, noguard=False)
    _check_survived(rc, out, where)
    rc, out = _cut_under(launch, to_path, tmp_path, syzygy_dir, noguard=True)
    # (wine's exit code after a crash is not always non-zero: the line tells.)
    assert "answered" not in out and (where != "native" or rc != 0), (
        f"{where}: without the guard it lived ({rc}): {out}")


# --------------------------------------------------------------------------
# Linux on aarch64 and big-endian s390x, under qemu-user.

@pytest.mark.parametrize("arch,big_endian", [("aarch64", False), ("s390x", True)])
def test_linux_under_qemu(arch: str, big_endian: bool, amalgamation: Path,
                          engine_case: tuple[str, list[int]], native: dict[str, str],
                          syzygy_dir: Path, five_piece_dir: Path, tmp_path: Path) -> None:
    cc = _need(f"{arch}-linux-gnu-gcc", f"gcc-{arch}-linux-gnu")
    qemu = _need(f"qemu-{arch}-static", "qemu-user-static")
    # The s390x run only proves the byte order if the target really is big-endian.
    macros = run([cc, "-dM", "-E", "-x", "c", "-"], input="").stdout
    assert ("#define __BYTE_ORDER__ __ORDER_BIG_ENDIAN__" in macros) == big_endian
    ed = _build([cc], amalgamation, "engine_dropin", tmp_path / "ed", "-pthread")
    th = _build([cc], amalgamation, "threads", tmp_path / "th", "-pthread")
    dm = _build([cc], amalgamation, "damaged", tmp_path / "damaged-table", "-pthread")
    emu = [qemu, "-L", f"/usr/{arch}-linux-gnu"]
    out = run([*emu, str(ed), f"{syzygy_dir}:{five_piece_dir}"], input=engine_case[0],
               timeout=600).stdout
    _check_engine_output(out, native["engine"], engine_case[1])
    threads = run([*emu, str(th), str(syzygy_dir), "50", "2"], timeout=600).stdout
    assert "TOTAL mismatches 0" in threads, threads
    _check_damaged(run([*emu, str(dm), str(_damaged_dir(tmp_path))]).stdout, native["damaged"])


# --------------------------------------------------------------------------
# C++.

@pytest.mark.parametrize("compiler,std", [("g++", "c++11"), ("clang++", "c++20")])
def test_engine_program_as_cpp(compiler: str, std: str, amalgamation: Path,
                               engine_case: tuple[str, list[int]], native: dict[str, str],
                               syzygy_dir: Path, five_piece_dir: Path, tmp_path: Path) -> None:
    cxx = _need(compiler, "g++" if compiler == "g++" else "clang")
    exe = tmp_path / "ed"
    run([cxx, "-x", "c++", f"-std={std}", "-O1", *WARN, f"-I{amalgamation}",
          str(CDIR / "engine_dropin.c"), str(amalgamation / "tbprobe.c"), "-pthread", "-o", str(exe)])
    out = run([str(exe), f"{syzygy_dir}:{five_piece_dir}"], input=engine_case[0]).stdout
    _check_engine_output(out, native["engine"], engine_case[1])


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_single_file_compiles_as_every_cpp_standard(compiler: str, amalgamation: Path) -> None:
    cxx = _need(compiler, "g++" if compiler == "g++" else "clang")
    for std in ("c++11", "c++14", "c++17", "c++20"):
        run([cxx, "-x", "c++", f"-std={std}", *WARN, "-fsyntax-only", f"-I{amalgamation}",
              str(amalgamation / "tbprobe.c")])


# --------------------------------------------------------------------------
# macOS, compiled with zig.

def _zig() -> list[str]:
    try:
        import ziglang  # noqa: F401
    except ImportError:
        pytest.skip("needs zig (PyPI package ziglang, in the [test] extra)")
    return [sys.executable, "-m", "ziglang", "cc"]


@pytest.mark.parametrize("target", ["aarch64-macos", "x86_64-macos"])
def test_macos_compiles_with_zig(target: str, amalgamation: Path, tmp_path: Path) -> None:
    """The single-file build as C99 and C11, the core file by file as the
    extension compiles it, and the extension's own C: board_calls.c and the
    module source cffi generates, against this Python's headers with the
    stable ABI (the only part that differs on macOS is pyconfig.h, whose
    LP64 sizes are the same there)."""
    # -O0: what differs between systems is in the headers (an undeclared
    # _SC_NPROCESSORS_ONLN, a macro named near); optimising for a target is
    # zig's own business, and costs minutes here.
    zig = [*_zig(), "-target", target, "-O0"]
    for std in ("c99", "c11"):
        run([*zig, f"-std={std}", *WARN, f"-I{amalgamation}", "-c",
              str(amalgamation / "tbprobe.c"), "-o", str(tmp_path / f"single-{std}.o")])
    import sysconfig

    sys.path.insert(0, str(ROOT))
    try:
        import build_ffi
    finally:
        sys.path.remove(str(ROOT))
    module_c = tmp_path / "_core.c"
    build_ffi.ffi.emit_c_code(str(module_c))
    py_include = sysconfig.get_paths()["include"]
    includes = [f"-I{ROOT / d}" for d in build_ffi.INCLUDE_DIRS]
    flags = ["-std=c99", *WARN, *includes, f"-I{py_include}", "-DPy_LIMITED_API=0x030a0000"]
    # The core's files are in the single file above; here the extension's own C.
    for source in (CORE / "platform" / "tb_platform.c", ROOT / "pyfathom" / "_c" / "board_calls.c", module_c):
        run([*zig, *flags, "-c", str(source), "-o", str(tmp_path / f"{source.stem}.o")])


# --------------------------------------------------------------------------
# The release configuration (tools/build_wheels.sh took 75 s to 9 minutes
# here, too long for the suite; these checks take milliseconds).

def test_release_configuration_names_what_exists() -> None:
    """[tool.cibuildwheel]'s test command names test files that exist, builds
    the abi3 wheel's one CPython, and the workflow covers every platform of
    the README's table and publishes with trusted publishing only."""
    if sys.version_info < (3, 11):
        pytest.skip("needs tomllib (Python 3.11)")
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cibuildwheel"]
    assert config["build"] == "cp310-*"
    named = [word.replace("{project}/", "") for word in config["test-command"].split()
             if word.endswith(".py")]
    assert named and all((ROOT / name).is_file() for name in named), named
    workflow = (ROOT / ".github" / "workflows" / "wheels.yml").read_text()
    for arch in ("x86_64", "aarch64", "arm64", "AMD64"):
        assert f"archs: {arch}" in workflow
    assert "id-token: write" in workflow and "password" not in workflow
    script = ROOT / "tools" / "build_wheels.sh"
    run(["sh", "-n", str(script)])
    text = script.read_text()
    assert "for arch in x86_64 aarch64" in text and "-linux-gnu.2.17" in text
    # Every tool the script runs as `python -m TOOL` is in the install line
    # it gives (wheel was missing once: issue 43), and it checks for each.
    used = set(re.findall(r'"\$python" -m (\w+)', text)) - {"pip"}
    listed = set(re.search(r"pip install (build [^\n]*)", text)[1].split())
    checked = set(re.search(r"for module in ([^;]*);", text)[1].split())
    assert used and used <= listed and used <= checked, (used, listed, checked)
