"""The default table set: the 3-4-piece Syzygy tables in python-chess's sdist.

python-chess publishes, inside its sdist on PyPI, the 35 regular Syzygy tables
with 3 and 4 pieces (70 files: one ``.rtbw`` and one ``.rtbz`` per material
key, about 4.5 MB).  ``pyfathom download`` installs them as the default
tables.  Nothing is committed to the repository: the archive is fetched with
pip, its checksum is checked, and each extracted file is checked against the
checksum pinned here.

* :func:`fetch_python_chess_sdist` downloads and verifies the archive;
* :func:`extract_tables` extracts and verifies the table files;
* :func:`extract_members` does that for any pinned members (the test suite
  also takes ``data/endgame.epd`` this way: see ``tests/support/table_cache.py``).

Every function is idempotent and safe to interrupt: files are written under a
temporary name and renamed into place only once complete and verified, so a
destination never holds a half-written table.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from pyfathom._disk.filecopy import copy_stream, sha256_file

__all__ = [
    "SDIST_REQUIREMENT",
    "SDIST_FILENAME",
    "SDIST_SHA256",
    "ARCHIVE_TOP",
    "TABLE_SHA256",
    "SdistError",
    "ChecksumError",
    "fetch_python_chess_sdist",
    "extract_members",
    "extract_tables",
    "table_members",
    "files_present",
    "tables_present",
]

SDIST_REQUIREMENT = "chess==1.11.2"
"""The pip requirement whose source distribution holds the tables."""

SDIST_FILENAME = "chess-1.11.2.tar.gz"
"""File name of that source distribution on PyPI."""

SDIST_SHA256 = "a8b43e5678fdb3000695bdaa573117ad683761e5ca38e591c4826eba6d25bb39"
"""sha256 of :data:`SDIST_FILENAME`, as published on PyPI."""

ARCHIVE_TOP = "chess-1.11.2"
"""The top directory of every member of the archive."""

_TABLE_DIR_IN_ARCHIVE = ARCHIVE_TOP + "/data/syzygy/regular/"

TABLE_SHA256: dict[str, str] = {
    "KBBvK.rtbw": "3afa74fcfd6100df851c3b18ca255acd9d68c31c7c74cb02b2d5236ffd610ed6",
    "KBBvK.rtbz": "d3786ba13d73b1ed61b8be4fd301ceed56b9af5e7c4fbf4a252ef77d2ea3d3db",
    "KBNvK.rtbw": "76958da65bc243f2f0a16ceb83f1c00cbc4fb6d6e2f43d052c2f9d65bf16fee8",
    "KBNvK.rtbz": "cad874516a2327e63754b3faababc7dece1b949305f2944b2b5a3b137f92ecd3",
    "KBPvK.rtbw": "4714e6844d18eea21b9e7be3c8b2f5b04739638d74416ae18ab86e1fb4a12e4c",
    "KBPvK.rtbz": "0360472b5800b9c5fbecf4717b0ef582e503bcdee16f57ee8e187234a80a5581",
    "KBvK.rtbw": "bc0d8ab3560de9038460f0e8f61e3b7efd3e3d0327d19ae0387c0da7ddeb244d",
    "KBvK.rtbz": "6246c8a5c643eec9d4758d55ed843e31cc28a9b82a6f630c1c950d8b7755975b",
    "KBvKB.rtbw": "f0bfff470a9775c0f6693d7c1b73a0879cfed64f9b50cb56872cc15dbe8336ad",
    "KBvKB.rtbz": "104404c12c01bbeef4e9095a65cf1f98da6def2e106880b555371f3a8c7f54b6",
    "KBvKN.rtbw": "1d0c01bfb86b5167103f5e46eaa9cfda8b614424cd7749b5e02539c850594bda",
    "KBvKN.rtbz": "268eecbf84f5371a860707ef55a7c53fc55e7c5d29379ec70d6b7ff253d48d2e",
    "KBvKP.rtbw": "7ea5491c17771a47cb558bf3ac3d6fe6a85e2075daa34f8ec4fa91b4319c1fe5",
    "KBvKP.rtbz": "929287a203a8f371f2418cfcbd4b05638a7dc7d2146b87df07a6259b653aebee",
    "KNNvK.rtbw": "8b5195abd7f1d4be7aa4b4dca669e9075d61d1c6b02dec8b71f5e9ea21d9eced",
    "KNNvK.rtbz": "9b2f7f8046cc7911c82a6d51abfa405dfd1c35f118f9a0705e69bd9f81db12ce",
    "KNPvK.rtbw": "27ce7e0ea8f585dfbbb29e2cc1e04ac547818d547c17ad9b053b05eca6f5b479",
    "KNPvK.rtbz": "b2543f1e060eb800cb5f3dc8968c6c57141a87819039d29d681ab3cd2386c57c",
    "KNvK.rtbw": "9d3518b12df3d2006441df758bce31e961346e70a11920aaad75c647003bb6e7",
    "KNvK.rtbz": "0e49a0f2810a131c32fc14872e83044aa9810ce2c86df071851512077291fc25",
    "KNvKN.rtbw": "290b5d295f531ac680e35a3295ff265e89da864fc0363b5d7aca928c8e38faf6",
    "KNvKN.rtbz": "540abbc141be6619646d1ad9cd3080c97e52eb599e3a5832974f93d2d5114f9d",
    "KNvKP.rtbw": "f21332cc4b380764847d6c32511dee16cbf56e65604596ca24e784f8e4c13bdb",
    "KNvKP.rtbz": "f5540325bc8bb6b2a9c99b9e1f4672aa06291fd2d8a4d2fa1fbd9453c90774b4",
    "KPPvK.rtbw": "55aa91c460bc5eea322b8a6cde4f94d2e0a244b6fc14f6aca17e6ccfb2e56ef6",
    "KPPvK.rtbz": "a56cb0a0fd1baa54a47f14b383a8bb0e74051832fbd7f12a0a47f09e5e68b370",
    "KPvK.rtbw": "63ad9e15cd0f5e91e42e6f669a9f6116ae9f9eabd85757e9fb28d2be6074aed9",
    "KPvK.rtbz": "f2469f063c9b5748b7b8a0e33d65e41be2090c397b4bcbedbeedbc5ff301b596",
    "KPvKP.rtbw": "6d21860e47a91d00841ccf63a657dc09b78f602e0ec005f925470e2449e1ae05",
    "KPvKP.rtbz": "2967707c971ec847c5ef3fe6f1934166aeb10c8cc151a1ae9d7c922c5aed1fc3",
    "KQBvK.rtbw": "55948e960dcdf6b4f02ebae87b1a1a7d14bff085aea17e6e6d4b7f75a2306493",
    "KQBvK.rtbz": "27b12f2c8083962b502704af7fd01d7424bfbe724c2bbfd6962f227c7fe91732",
    "KQNvK.rtbw": "cd807df1b6f5966ddc9f481e01bd58b4653d67c77d9d450d348c9bca827b51b8",
    "KQNvK.rtbz": "a86a0900d84c4c95bb85845b88f3ff77ef50383593fa27383ed2e585e8d8139c",
    "KQPvK.rtbw": "e7cd0729a1b2662f289d423bf788634d60a0fb86e11b0b791da9ab88a36a8e6f",
    "KQPvK.rtbz": "b8a0ddb251a9368c4a97f7add8647b050fb0257ed6bea5cf1dc3a720994082c4",
    "KQQvK.rtbw": "b1c0d3eabf1226440b950fd468c4f30a13ea69ce38194bc65e07bd6b617226e0",
    "KQQvK.rtbz": "0d8e14a93ba2fd578b904746c5b0d0c93eb7084aff654c72a0476cab00ba6f94",
    "KQRvK.rtbw": "b018ece9cc195618981b027268f9cca929a1ed4c0bdd739874b7846640ef479a",
    "KQRvK.rtbz": "9766d3e684582297943583e1981154609655034cea2aa78a5494cc01c8c6bcee",
    "KQvK.rtbw": "45c453e5113a714bd4ece1cb5ba78cf5d21dd8b06f89708675d164fbe9bd3b53",
    "KQvK.rtbz": "ad20819e947f38bf06865a888dbde488ee4a34d2aa64b5727e1882313b1273a3",
    "KQvKB.rtbw": "0c18bbcaec0e7c161d56392ff57a39258dd93acd0321e3bbb32f7c05636abeac",
    "KQvKB.rtbz": "a63befd64dbd1aab4e8b290da558fa1ccae21d7aebad81966a7cdd6ac8432554",
    "KQvKN.rtbw": "ba07bd47c6eaa20904b595f43e171c6fc70fcc056cb33696fe12ed254c546100",
    "KQvKN.rtbz": "0e99385bbd903975f8511751379079aa3b6663dd093f43b9ac951a97bd938371",
    "KQvKP.rtbw": "2f92788170e8a5c05608f44a47fd42f3f4fff372d0af64633c56bd081039d8f9",
    "KQvKP.rtbz": "faedb2db23be6619a57cd21c1291582bba9ddae30c5a394f5d4a7ab834a3940f",
    "KQvKQ.rtbw": "571a85d86e635e48567997ea648fd1e90dde39c9b413b2fe968f5e7faeacfbb0",
    "KQvKQ.rtbz": "98327247ba50c403199faec4df4a5f21e333c5c51b6ea2649ef9fd71264f8344",
    "KQvKR.rtbw": "8cdbe3c8e098037875de5854c656f8afeadb8327c85b5b7b1cac81719afd3e2c",
    "KQvKR.rtbz": "0c15a2aaa3bdef39da4c26932006b5d38b55b8e3ad13e8a44815d63f84738618",
    "KRBvK.rtbw": "9e6eced11a37cad71b4fc1a4f62a15e191e58883b51ce8c4c45f341051c6ae8e",
    "KRBvK.rtbz": "e3bb6fbd54a57a154136ecee763a8e9862d8ab3f57b2f55387df70bdbff1b140",
    "KRNvK.rtbw": "4f96cab9fc0005f2679eacb92cec32edf9c932db7bb29b5dc7659be0012d6c35",
    "KRNvK.rtbz": "150b85874a78474a38d0f36f1ab39d387f524a1c2092ad92d3d0945d96c17d16",
    "KRPvK.rtbw": "6bc2aa9db5ee7fcc287e6c3b006ab6cfc2be4dff4ae7ca4a524a78520eea61db",
    "KRPvK.rtbz": "5c89c9ef70c144bb2d6d823a41668ccf2f79b486b6bc128ff01aadb5485c06a9",
    "KRRvK.rtbw": "4c05ec32e6e43b690d235307de75432a3ceecdbc3d2659d8101ed15b48b8445d",
    "KRRvK.rtbz": "e68314e00bf9f16122005a06f7d42bc0f6c682f30e8ca50532ba44444f3b96ce",
    "KRvK.rtbw": "37f8601644113dc83be9822913d6ecf75e5c8b7eeb11b7689c38a3ff986d2a48",
    "KRvK.rtbz": "9ce83c0f6204fcca761c4203a4644ad2993462749fa39ac27815a29dee740b20",
    "KRvKB.rtbw": "69b247cb390ffcd729cf5fe5c40f8a24803190bf67b108b8f05b8b08b26a6a72",
    "KRvKB.rtbz": "4fa644478a516e1425b22a740ddefc4d54e51298250b8208d26073df3638630b",
    "KRvKN.rtbw": "a8cde902b010bf6c8763c97d19b5430b422e74db9cb8e9d5e67fa07373c13c5b",
    "KRvKN.rtbz": "c0df57d0b066cdd7be5bdf9b14745f6ead1fd8e9fba2b77fe0f3cb56ebef7ae0",
    "KRvKP.rtbw": "3968c2bfced3a5ecfbb54166ec13d4e7b70f3b03c495af4ae87cad2ec75a0749",
    "KRvKP.rtbz": "6d4b1389832854119df815ff89ed2cb0786e8887f000009f0db3484457f7f6ff",
    "KRvKR.rtbw": "797081b5b3fbac20c4baa5453d68bdae1425b63895f5c9a5ac5c68ea63a97712",
    "KRvKR.rtbz": "c23fa5a0209204b847232ed49e079c099cf603b43d6ace9e27257793b1839850",
}
"""sha256 of each of the 70 table files in ``data/syzygy/regular/``."""

ProgressCallback = Callable[[str, int, int], None]
"""``progress(file_name, index, total)``, called once per file handled."""


class SdistError(OSError):
    """The python-chess source distribution could not be fetched or read."""


class ChecksumError(SdistError):
    """A downloaded or extracted file does not have its pinned sha256."""


def _has_checksum(path: Path, expected: str) -> bool:
    try:
        return path.is_file() and sha256_file(path) == expected
    except OSError:
        return False


def fetch_python_chess_sdist(
    cache_dir: str | os.PathLike[str], *, quiet: bool = True
) -> Path:
    """Download python-chess's sdist into *cache_dir* and return its path.

    Runs ``python -m pip download --no-deps --no-binary :all:
    chess==1.11.2`` with the running interpreter, so pip's own configuration
    (index URL, proxy, certificates) applies.  The archive is checked against
    :data:`SDIST_SHA256` before it is moved into *cache_dir*; an archive
    already there with the right checksum is returned without any download.

    :param cache_dir: directory that keeps the archive (created if needed).
    :param quiet: pass ``--quiet`` to pip.
    :returns: the path of the verified ``chess-1.11.2.tar.gz``.
    :raises SdistError: pip failed or produced no archive.
    :raises ChecksumError: the archive's sha256 is not :data:`SDIST_SHA256`.
    """
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / SDIST_FILENAME
    if _has_checksum(target, SDIST_SHA256):
        return target
    with tempfile.TemporaryDirectory(prefix=".pip-download-", dir=cache) as tmp:
        cmd = [
            sys.executable, "-m", "pip", "download",
            "--no-deps", "--no-binary", ":all:",
            "--disable-pip-version-check",
            SDIST_REQUIREMENT, "-d", tmp,
        ]
        if quiet:
            cmd.append("--quiet")
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SdistError(
                f"pip download {SDIST_REQUIREMENT} failed "
                f"(exit {proc.returncode}): {proc.stderr.strip()[-2000:]}"
            )
        downloaded = Path(tmp) / SDIST_FILENAME
        if not downloaded.is_file():
            raise SdistError(
                f"pip download {SDIST_REQUIREMENT} did not produce {SDIST_FILENAME}"
                f" (got: {sorted(os.listdir(tmp))})"
            )
        actual = sha256_file(downloaded)
        if actual != SDIST_SHA256:
            raise ChecksumError(
                f"{SDIST_FILENAME}: sha256 {actual}, expected {SDIST_SHA256}"
            )
        os.replace(downloaded, target)
    return target


#: Table file name -> (archive member name, sha256) of the pinned set.
Members = Mapping[str, tuple[str, str]]
"""Archive member name -> (file name in the destination, pinned sha256)."""


def table_members() -> dict[str, tuple[str, str]]:
    """The 70 table files as :data:`Members` (read from :data:`TABLE_SHA256`
    at each call)."""
    return {_TABLE_DIR_IN_ARCHIVE + name: (name, digest)
            for name, digest in TABLE_SHA256.items()}


def files_present(dest: str | os.PathLike[str], members: Members) -> bool:
    """True if *dest* holds every file of *members* with its pinned checksum."""
    d = Path(dest)
    return all(_has_checksum(d / name, digest) for name, digest in members.values())


def tables_present(dest: str | os.PathLike[str]) -> bool:
    """True if *dest* holds the 70 table files with their pinned checksums."""
    return files_present(dest, table_members())


def _write_verified(
    tar: tarfile.TarFile, member: tarfile.TarInfo, dest: Path, name: str, expected: str
) -> None:
    """Copy one member to dest/name through a temporary file, checking sha256."""
    source = tar.extractfile(member)
    if source is None:
        raise SdistError(f"cannot read {member.name} from the archive")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=dest)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, source:
            copy_stream(source, out, digest=digest)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != expected:
            raise ChecksumError(
                f"{name}: sha256 {digest.hexdigest()}, expected {expected}"
            )
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, dest / name)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


def extract_members(
    archive: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    members: Members,
    *,
    progress: ProgressCallback | None = None,
) -> list[Path]:
    """Extract the pinned *members* of the python-chess sdist into *dest*.

    Only the regular members named in *members* are read; member names are
    never used as paths, links and other special members are refused, so a
    crafted archive cannot write outside *dest*.  Each file is written under
    a temporary name in *dest*, checked against its pinned sha256 and renamed
    into place.  Files already present with the right checksum are left
    alone (the call is idempotent).

    :param archive: the python-chess sdist, e.g. from
        :func:`fetch_python_chess_sdist`; its sha256 is checked first.
    :param dest: destination directory (created if needed); all files land
        directly in it, without subdirectories.
    :param members: what to extract, see :data:`Members`.
    :param progress: called as ``progress(name, index, total)`` for each file,
        whether written or already present.
    :returns: the paths of all wanted files in *dest*, sorted.
    :raises ChecksumError: the archive or an extracted file has a wrong sha256.
    :raises SdistError: the archive lacks a wanted file or holds it as a
        non-regular member.
    """
    archive_path = Path(archive)
    out_dir = Path(dest)
    out_dir.mkdir(parents=True, exist_ok=True)
    total = len(members)
    todo = {
        member: value
        for member, value in members.items()
        if not _has_checksum(out_dir / value[0], value[1])
    }
    done = 0
    if progress is not None:
        for member, (name, _) in sorted(members.items()):
            if member not in todo:
                done += 1
                progress(name, done, total)
    else:
        done = total - len(todo)
    if todo:
        actual = sha256_file(archive_path)
        if actual != SDIST_SHA256:
            raise ChecksumError(
                f"{archive_path}: sha256 {actual}, expected {SDIST_SHA256}"
            )
        found: set[str] = set()
        with tarfile.open(archive_path, mode="r:gz") as tar:
            for info in tar:
                if info.name not in todo or info.name in found:
                    continue
                if not info.isfile():
                    raise SdistError(
                        f"{info.name} in {archive_path} is not a regular file"
                    )
                name, expected = todo[info.name]
                _write_verified(tar, info, out_dir, name, expected)
                found.add(info.name)
                done += 1
                if progress is not None:
                    progress(name, done, total)
        missing = sorted(todo[m][0] for m in set(todo) - found)
        if missing:
            raise SdistError(f"{archive_path} lacks: {', '.join(missing)}")
    return sorted(out_dir / name for name, _ in members.values())


def extract_tables(
    archive: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    *,
    progress: ProgressCallback | None = None,
) -> list[Path]:
    """Extract the 70 Syzygy table files (:func:`extract_members` over
    :func:`table_members`)."""
    return extract_members(archive, dest, table_members(), progress=progress)
