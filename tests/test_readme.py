"""The README's statements checked against the commands' own output (issue
23, finding 12), and those that moved to the documentation site (issue 43)
where they are now: the first command's output block (README and the
getting-started page), what it says about the four positions, the size of
the default tables, the python-chess example (run, its printed lines
compared), the server's mainline example (README and the server page), the
--json fields (the command-line page) and the "Where things live" map (the
architecture page).  The site's other examples run in
``test_docs_examples.py``.  About 3 s."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from pyfathom.cli import main
from support import doc_pages

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
GETTING_STARTED = doc_pages.read("getting-started.md")


def _first_command_fens() -> list[str]:
    line = next(line for line in README.splitlines() if "pyfathom probe" in line)
    words = shlex.split(line[line.index("pyfathom probe"):])
    return words[2:]


def _probe(fens: list[str], syzygy_dir: Path, capsys, *extra: str) -> str:
    assert main(["probe", *fens, "--tables", str(syzygy_dir), *extra]) == 0
    return capsys.readouterr().out


def test_first_output_block_is_what_the_first_command_prints(syzygy_dir, capsys):
    fens = _first_command_fens()
    assert len(fens) == 4
    out = _probe(fens, syzygy_dir, capsys)
    block = README.split("The first command prints", 1)[1].split("```\n", 2)[1]
    assert block.strip() and out.startswith(block), (block, out[:len(block) + 80])


def test_getting_started_page_has_the_same_commands_and_output() -> None:
    """The two commands and the first one's output, on the site as in the
    README (which .ci/run and this file check)."""
    readme_part = README.split("## What it is", 1)[0].split("\n", 2)[2].strip()
    assert readme_part and readme_part in GETTING_STARTED


def test_statements_about_the_four_positions(syzygy_dir, capsys):
    fens = _first_command_fens()
    results = json.loads(_probe(fens, syzygy_dir, capsys, "--json"))
    statement = " ".join(README.split("(the king and pawn pair", 1)[1].split(".)", 1)[0].split())
    assert results[1]["wdl"] == 0 and "a draw with white to move" in statement
    assert results[2]["wdl"] == -2 and "`black to move: loss`" in statement
    assert "black to move: loss" in _probe([fens[2]], syzygy_dir, capsys)
    keeping = re.search(r"keep black's win are `([^`]*)`", statement)
    assert keeping is not None
    winning = {m["san"] for m in results[3]["moves"] if m["wdl"] == 2}
    assert set(keeping[1].split()) == winning
    drawing = re.findall(r"`(b1=[BN])`", statement)
    assert drawing == ["b1=B", "b1=N"], statement  # a loop over no match would pass
    for san in drawing:
        assert next(m for m in results[3]["moves"] if m["san"] == san)["wdl"] == 0


def test_default_table_size(syzygy_dir):
    from pyfathom import tables

    names = tables.published_checksums()
    size = sum((syzygy_dir / name).stat().st_size for name in names)
    said = {float(x) for x in re.findall(r"([0-9.]+) MB", README.split("## What it is")[0])}
    assert said, "the README's first command no longer says the tables' size"
    for text in (README, GETTING_STARTED):
        found = re.findall(r"70 files, ([0-9.]+) MB", text)
        assert found
        said |= {float(x) for x in found}
    assert said == {round(size / 1e6, 1)}, (said, size)


def test_python_chess_example_runs_and_prints_what_it_says(syzygy_dir, tmp_path, monkeypatch,
                                                          capsys):
    import pyfathom.tables

    section = README.split("### python-chess users", 1)[1]
    snippet = section.split("```python", 1)[1].split("```")[0]
    assert "open_tablebase(pyfathom.tables.default_dir())" in snippet
    assert "import pyfathom.tables" in snippet and callable(pyfathom.tables.default_dir)
    (tmp_path / "syzygy").symlink_to(syzygy_dir)  # default_dir() is where download put them
    monkeypatch.setenv("PYFATHOM_HOME", str(tmp_path))
    exec(compile(snippet, "README.md (python-chess users)", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    shown = [line.split("#", 1)[1].split(",")[0].strip()
             for line in snippet.splitlines() if line.strip().startswith("print(")]
    assert len(printed) == len(shown) >= 2
    for out, comment in zip(printed, shown):
        assert comment.startswith(out), (out, comment)


def test_json_fields_are_documented(syzygy_dir, capsys):
    result = json.loads(_probe([_first_command_fens()[0]], syzygy_dir, capsys, "--json"))[0]
    section = doc_pages.read("cli.md")
    for name in list(result) + list(result["moves"][0]):
        assert f"`{name}`" in section, name


def test_mainline_example_is_what_the_server_answers(syzygy_dir):
    lichess = pytest.importorskip("pyfathom.server.lichess", reason="the [server] extra is not installed")
    import pyfathom

    for text in (README, doc_pages.read("server.md")):
        match = re.search(r"mainline\?fen=(\S+)'\n# (\{.*\})", text)
        assert match is not None
        with pyfathom.open_tablebase(str(syzygy_dir)) as tb:
            answer = lichess.mainline_document(tb, lichess.parse_fen(match[1]))
        assert json.loads(json.dumps(answer)) == json.loads(match[2])


def test_where_things_live_names_every_file():
    """The architecture page's map names every Python module and sub-package
    of pyfathom/ (at any depth) and every file of the C core's one source
    list, so a file that is added or moved without its paragraph fails."""
    table = doc_pages.read("architecture.md").split("## Where things live", 1)[1].split('"fathom" names two things', 1)[0]
    package = ROOT / "pyfathom"
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts or path.name == "__init__.py" and path.parent == package:
            continue
        name = f"{path.parent.name}/" if path.name == "__init__.py" else path.name
        assert f"`{name}" in table or f"{name}`" in table, f"{path.relative_to(ROOT)} is not in the architecture page's map"
    for c_path in sorted((package / "_c").iterdir()):
        assert c_path.name in table, f"{c_path.relative_to(ROOT)} is not in the architecture page's map"
    listed = [line.split()[0] for line in (ROOT / "src" / "fathom" / "sources.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    assert len(listed) > 30
    for entry in listed:
        assert Path(entry).name in table, f"src/fathom/{entry} is not in the architecture page's map"
    for folder in {Path(entry).parts[0] for entry in listed if "/" in entry}:
        assert f"`{folder}/`" in table, f"src/fathom/{folder}/ has no paragraph on the architecture page"
