"""The README's statements checked against the commands' own output (issue
23, finding 12): the first command's output block, what it says about the
four positions, the size of the default tables, the python-chess snippet's
hint, the server's mainline example, the --json fields and the "Where
things live" map.  About 3 s."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from pyfathom.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


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
    for san in re.findall(r"`(b1=[BN])`", statement):
        assert next(m for m in results[3]["moves"] if m["san"] == san)["wdl"] == 0


def test_default_table_size(syzygy_dir):
    from pyfathom import tables

    names = tables.published_checksums()
    size = sum((syzygy_dir / name).stat().st_size for name in names)
    said = {float(x) for x in re.findall(r"([0-9.]+) MB", README.split("## What it is")[0])}
    said |= {float(x) for x in re.findall(r"70 files, ([0-9.]+) MB", README)}
    assert said == {round(size / 1e6, 1)}, (said, size)


def test_snippet_names_where_the_tables_are():
    import pyfathom.tables

    snippet = README.split("### python-chess users", 1)[1].split("```python", 1)[1].split("```")[0]
    assert "open_tablebase(pyfathom.tables.default_dir())" in snippet
    assert "import pyfathom.tables" in snippet and callable(pyfathom.tables.default_dir)


def test_json_fields_are_documented(syzygy_dir, capsys):
    result = json.loads(_probe([_first_command_fens()[0]], syzygy_dir, capsys, "--json"))[0]
    section = README.split("### The command line", 1)[1].split("## Many machines", 1)[0]
    for name in list(result) + list(result["moves"][0]):
        assert f"`{name}`" in section, name


def test_mainline_example_is_what_the_server_answers(syzygy_dir):
    lichess = pytest.importorskip("pyfathom.server.lichess", reason="the [server] extra is not installed")
    import pyfathom

    match = re.search(r"mainline\?fen=(\S+)'\n# (\{.*\})", README)
    assert match is not None
    with pyfathom.open_tablebase(str(syzygy_dir)) as tb:
        answer = lichess.mainline_document(tb, lichess.parse_fen(match[1]))
    assert json.loads(json.dumps(answer)) == json.loads(match[2])


def test_where_things_live_names_every_module():
    table = README.split("### Where things live", 1)[1].split('"fathom" names two things', 1)[0]
    modules = [p for p in (ROOT / "pyfathom").glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    modules += [p for p in (ROOT / "pyfathom" / "cli").glob("*.py") if p.name != "__init__.py"]
    modules += [p for p in (ROOT / "pyfathom" / "server").glob("*.py") if p.name != "__init__.py"]
    modules += [p for p in (ROOT / "pyfathom" / "annotate").glob("*.py") if p.name != "__init__.py"]
    for path in modules:
        assert path.name in table, f"{path.relative_to(ROOT)} is not in the README's map"
    for c_file in (ROOT / "src" / "fathom").rglob("*.c"):
        named = c_file.name in table or (c_file.name.startswith("tb_variant_") and "tb_variant_*.c" in table)
        if c_file.name not in ("tbprobe_helpers.c", "tbprobe_pyrrhic.c"):
            assert named, f"src/fathom/{c_file.name} is not in the README's map"
