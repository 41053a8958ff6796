"""Getting Syzygy tables onto the machine: the default set and mirrors.

Two ways in, both used by ``pyfathom download``:

* :func:`download_default` puts the 35 regular 3- and 4-piece tables (70
  files, about 4.5 MB) from python-chess 1.11.2's source distribution into a
  directory, through :mod:`pyfathom._disk.default_tables` (the one code path that
  fetches that archive with pip and checks the archive's and every file's
  pinned sha256).
* :func:`mirror` copies ``.rtbw`` / ``.rtbz`` files from an HTTP directory
  listing (the links of an index page) or from a local folder: how users get
  the 5-, 6- and 7-piece sets.  Partial files are resumed (HTTP ``Range``),
  and checksums in ``sha256sum`` format are verified when given.

Both are idempotent (a second run finds nothing to do) and never leave a
half-written table: data goes to a hidden ``.NAME.part`` file in the
destination, which is renamed into place only once complete and verified.

Where tables are looked up (``--tables``, ``$SYZYGY_PATH``, the default
directory) is :mod:`pyfathom.tables`'s concern; :func:`default_dir` is
named here too because it is the directory :func:`download_default` fills.
"""

from __future__ import annotations

import html.parser
import os
import re
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyfathom._disk import default_tables as _default_tables
from ._disk.filecopy import copy_stream, sha256_file
from .tables import default_dir, is_table_file

__all__ = [
    "DownloadError",
    "ChecksumMismatch",
    "default_dir",
    "download_default",
    "read_checksums",
    "mirror",
    "MirrorResult",
]


Progress = Callable[[str, int, int], None]
"""``progress(label, done, total)``: bytes (mirror) or files (default set);
total is 0 when unknown."""


class DownloadError(OSError):
    """A download or copy failed; the message says which file and why."""


class ChecksumMismatch(DownloadError):
    """A file does not have the checksum it was expected to have."""


def _remove_stale_parts(dest: Path) -> None:
    """Remove hidden ``.*.part`` files an interrupted run left behind."""
    try:
        names = os.listdir(dest)
    except OSError:
        return
    for name in names:
        if name.startswith(".") and name.endswith(".part"):
            try:
                os.unlink(dest / name)
            except OSError:
                pass


# --- the default 3-4-piece set ----------------------------------------------

_NO_PIP = (
    f"pip is not available to this Python ({sys.executable}), and it fetches the tables' "
    f"archive: install pip (python -m ensurepip), or get {_default_tables.SDIST_FILENAME} another way "
    f"(`pip download --no-deps --no-binary :all: {_default_tables.SDIST_REQUIREMENT}` with any other "
    f"Python, or the file list of https://pypi.org/project/chess/1.11.2/) and run: "
    f"pyfathom download --archive {_default_tables.SDIST_FILENAME}"
)


def _have_pip() -> bool:
    """Whether ``python -m pip`` can run here (pip is importable)."""
    import importlib.util

    try:
        return importlib.util.find_spec("pip") is not None
    except (ImportError, ValueError):  # ValueError: sys.modules["pip"] is None
        return False



def download_default(
    dest: str | os.PathLike[str],
    *,
    archive: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    log: Callable[[str], None] | None = None,
) -> int:
    """Put the 70 verified 3-4-piece table files into *dest*.

    Returns the number of files written; 0 means everything was already
    there with the right checksum and nothing was fetched.  ``archive`` is a
    ``chess-1.11.2.tar.gz`` already on disk (checked against its pinned
    sha256 like a downloaded one); otherwise pip fetches it into a temporary
    directory.  ``log`` receives one-line status messages.

    :raises DownloadError: pip failed, or the archive or a file has a wrong
        checksum (nothing unverified is left in *dest*).
    """
    out = Path(dest).expanduser()
    if _default_tables.tables_present(out):
        return 0
    if archive is None and not _have_pip():
        raise DownloadError(_NO_PIP)
    out.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(out)
    before = {
        name for name, digest in _default_tables.TABLE_SHA256.items()
        if (out / name).is_file() and sha256_file(out / name) == digest
    }

    def step(name: str, index: int, total: int) -> None:
        if progress is not None:
            progress(name, index, total)

    tmp: str | None = None
    try:
        if archive is None:
            tmp = tempfile.mkdtemp(prefix="pyfathom-sdist-")
            if log is not None:
                log(f"fetching {_default_tables.SDIST_FILENAME} from PyPI with pip ...")
            archive_path = _default_tables.fetch_python_chess_sdist(tmp)
        else:
            archive_path = Path(archive)
            if not archive_path.is_file():
                raise DownloadError(f"archive not found: {archive_path}")
        _default_tables.extract_tables(archive_path, out, progress=step)
    except _default_tables.ChecksumError as e:
        raise ChecksumMismatch(f"checksum mismatch, refused: {e}") from None
    except (_default_tables.SdistError, OSError) as e:
        if isinstance(e, DownloadError):
            raise
        raise DownloadError(str(e)) from None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        _remove_stale_parts(out)
    return len(_default_tables.TABLE_SHA256) - len(before)


# --- mirrors: an HTTP directory listing or a local folder -------------------


def read_checksums(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read a ``sha256sum`` file: ``{file name: hex digest}``.

    Lines are ``<64 hex digits> <space> [*]name``; the name's directory part
    is dropped (``6-WDL/KRPvKR.rtbw`` is ``KRPvKR.rtbw``).  Blank lines and
    ``#`` comments are skipped; any other line is an error.
    """
    sums: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise DownloadError(f"cannot read checksum file {path}: {e}") from None
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        m = re.fullmatch(r"([0-9A-Fa-f]{64})\s+\*?(.+)", text)
        if m is None:
            raise DownloadError(f"{path}:{number}: not a sha256sum line: {text[:80]!r}")
        name = m.group(2).strip().replace("\\", "/").rsplit("/", 1)[-1]
        sums[name] = m.group(1).lower()
    return sums


class _LinkParser(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag.lower() == "a":
            for key, value in attrs:
                if key.lower() == "href" and value:
                    self.hrefs.append(value)


def _is_url(source: str) -> bool:
    return urllib.parse.urlsplit(source).scheme in ("http", "https")


_USER_AGENT = "pyfathom-download"
_TIMEOUT = 60


def _open(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> Any:
    request = urllib.request.Request(url, method=method, headers={"User-Agent": _USER_AGENT, **(headers or {})})
    return urllib.request.urlopen(request, timeout=_TIMEOUT)


def list_remote(url: str) -> dict[str, str]:
    """Table files linked from an HTTP index page: ``{name: absolute URL}``."""
    if not url.endswith("/"):
        url += "/"
    try:
        with _open(url) as response:
            charset = response.headers.get_content_charset() or "utf-8"
            body = response.read().decode(charset, errors="replace")
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise DownloadError(f"cannot list {url}: {_reason(e)}") from None
    parser = _LinkParser()
    parser.feed(body)
    found: dict[str, str] = {}
    for href in parser.hrefs:
        absolute = urllib.parse.urljoin(url, href)
        name = urllib.parse.unquote(urllib.parse.urlsplit(absolute).path.rsplit("/", 1)[-1])
        if is_table_file(name):
            found.setdefault(name, absolute)
    return found


def _reason(e: BaseException) -> str:
    if isinstance(e, urllib.error.HTTPError):
        return f"HTTP {e.code} {e.reason}"
    if isinstance(e, urllib.error.URLError):
        return str(e.reason)
    return str(e) or type(e).__name__


def list_local(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """Table files directly in a local folder: ``{name: path}``."""
    root = Path(folder).expanduser()
    try:
        names = sorted(os.listdir(root))
    except OSError as e:
        raise DownloadError(f"cannot list {root}: {e.strerror or e}") from None
    return {n: root / n for n in names if is_table_file(n) and (root / n).is_file()}


@dataclass
class MirrorResult:
    """What :func:`mirror` did, file names in each list."""

    fetched: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (name, reason)


def _bytes_progress(progress: Progress | None, name: str,
                    total: int) -> Callable[[int], None] | None:
    """:data:`Progress` for one file, as :func:`copy_stream` calls it."""
    if progress is None:
        return None
    return lambda done: progress(name, done, total)


def _remote_size(url: str) -> int | None:
    try:
        with _open(url, method="HEAD") as response:
            length = response.headers.get("Content-Length")
            return int(length) if length is not None else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _fetch_http(url: str, part: Path, name: str, size: int | None, progress: Progress | None) -> None:
    """Download url into part, resuming from part's current length."""
    have = part.stat().st_size if part.exists() else 0
    if size is not None and have > size:
        part.unlink()
        have = 0
    if size is not None and have == size:
        return
    headers = {"Range": f"bytes={have}-"} if have else {}
    try:
        response = _open(url, headers)
    except urllib.error.HTTPError as e:
        if e.code == 416 and have:
            # Range not satisfiable: the part may be complete, or stale.
            if size is None or have == size:
                return
            part.unlink()
            return _fetch_http(url, part, name, size, progress)
        raise DownloadError(f"{name}: {url}: {_reason(e)}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise DownloadError(f"{name}: {url}: {_reason(e)}") from None
    with response:
        if have and response.status != 206:
            have = 0  # the server ignored the Range header: start over
        if size is None:
            length = response.headers.get("Content-Length")
            if length is not None and length.isdigit():
                size = have + int(length)
        mode = "ab" if have else "wb"
        done = have
        try:
            with open(part, mode) as out:
                if progress is not None:
                    progress(name, done, size or 0)
                done = copy_stream(response, out, done=done, progress=_bytes_progress(
                    progress, name, size or 0))
                out.flush()
                os.fsync(out.fileno())
        except (OSError, ValueError) as e:
            raise DownloadError(f"{name}: {url}: {_reason(e)}") from None
    if size is not None and done != size:
        raise DownloadError(f"{name}: connection closed after {done} of {size} bytes (run again to resume)")


def _fetch_local(src: Path, part: Path, name: str, progress: Progress | None) -> None:
    """Copy src into part, resuming from part's current length."""
    size = src.stat().st_size
    have = part.stat().st_size if part.exists() else 0
    if have > size:
        part.unlink()
        have = 0
    done = have
    with open(src, "rb") as inp, open(part, "ab" if have else "wb") as out:
        inp.seek(have)
        if progress is not None:
            progress(name, done, size)
        copy_stream(inp, out, done=done, progress=_bytes_progress(progress, name, size))
        out.flush()
        os.fsync(out.fileno())


def mirror(
    source: str,
    dest: str | os.PathLike[str],
    *,
    checksums: dict[str, str] | None = None,
    progress: Progress | None = None,
) -> MirrorResult:
    """Copy every table file of *source* (HTTP index URL or folder) to *dest*.

    A file already in *dest* is skipped when it has the expected checksum
    (with *checksums*) or the same size as the source (without).  Otherwise
    it is fetched into ``dest/.NAME.part`` (continuing a partial one with an
    HTTP ``Range`` request or a seek), checked, and renamed into place.  A
    checksum mismatch deletes the part file and fails that file.  With
    *checksums*, a source file that has no checksum listed fails too;
    without, every file whose published checksum pyfathom knows (the
    3-4-piece set, :func:`pyfathom.tables.published_checksums`) is verified
    against it all the same, so a damaged mirror is refused unasked.
    Failures do not stop the other files; see :class:`MirrorResult`.
    """
    out = Path(dest).expanduser()
    remote = _is_url(source)
    if remote:
        files: dict[str, str | Path] = dict(list_remote(source))
    else:
        local = source[len("file://"):] if source.startswith("file://") else source
        files = dict(list_local(local))
    if not files:
        raise DownloadError(f"no .rtbw/.rtbz files found at {source}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DownloadError(f"cannot create {out}: {e.strerror or e}") from None
    result = MirrorResult()
    known = checksums if checksums is not None else dict(_default_tables.TABLE_SHA256)
    for name in sorted(files):
        where = files[name]
        target = out / name
        part = out / f".{name}.part"
        expected = known.get(name)
        if checksums is not None and expected is None:
            result.failed.append((name, "no checksum listed for it"))
            continue
        try:
            size = _remote_size(str(where)) if remote else Path(where).stat().st_size
            if target.is_file():
                if expected is not None:
                    if sha256_file(target) == expected:
                        result.skipped.append(name)
                        continue
                elif size is not None and target.stat().st_size == size:
                    result.skipped.append(name)
                    continue
            if remote:
                _fetch_http(str(where), part, name, size, progress)
            else:
                _fetch_local(Path(where), part, name, progress)
            if size is not None and part.stat().st_size != size:
                raise DownloadError(f"{name}: size {part.stat().st_size}, expected {size}")
            if expected is not None:
                actual = sha256_file(part)
                if actual != expected:
                    part.unlink()
                    raise ChecksumMismatch(f"{name}: sha256 {actual}, expected {expected}; refused")
            os.replace(part, target)
            result.fetched.append(name)
        except DownloadError as e:
            result.failed.append((name, str(e)))
        except OSError as e:
            result.failed.append((name, f"{name}: {e.strerror or e}"))
    return result
