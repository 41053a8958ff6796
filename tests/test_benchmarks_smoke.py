"""The benchmarks run (tiny sizes, no timing asserted: speed lives in
benchmarks/, see benchmarks/README.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.plain_pass_only("the C benchmark, built by the benchmark itself")
def test_bench_core_runs(syzygy_dir: Path) -> None:
    proc = _run("run_core.py", "--tables", str(syzygy_dir), "--positions", "300",
                "--runs", "1", "--min-seconds", "0.01", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(proc.stdout)
    assert res["wdl_failed"] == 0 and res["dtz_failed"] == 0
    assert res["wdl_median_probes_per_sec"] > 0 and res["dtz_median_probes_per_sec"] > 0


def test_bench_python_runs(syzygy_dir: Path) -> None:
    proc = _run("bench_python.py", "--tables", str(syzygy_dir), "--positions", "300",
                "--oracle-positions", "20", "--runs", "1", "--min-seconds", "0",
                "--batch-lines", "500", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(proc.stdout)
    for key in ("wdl_ratio", "dtz_ratio", "split_conversion_wdl_us", "fathom_tb_probe_wdl_us",
                "batch_wdl_t1_vs_c_loop", "batch_wdl_t2_vs_t1",
                "cli_batch_wdl_positions_per_sec"):
        assert key in res, (key, res)
    assert res["wdl_ratio"] > 0 and res["cli_batch_wdl_lines"] == 500
    # The text report renders too.
    proc = _run("bench_python.py", "--tables", str(syzygy_dir), "--positions", "300",
                "--oracle-positions", "10", "--runs", "1", "--min-seconds", "0",
                "--batch-lines", "0")
    assert proc.returncode == 0 and "probe_wdl" in proc.stdout, proc.stdout + proc.stderr


def test_bench_5piece_runs(syzygy_dir: Path, syzygy5_dir: Path) -> None:
    proc = _run("bench_5piece.py", "--tables", str(syzygy_dir), "--tables5", str(syzygy5_dir),
                "--positions", "200", "--oracle-positions", "10", "--runs", "1",
                "--min-seconds", "0", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(proc.stdout)
    for name in ("3-4", "5"):
        assert res[name]["c_failed"] == 0 and res[name]["c_root_per_sec"] > 0
        for key in ("wdl_ratio", "dtz_ratio", "wdl_ratio_cpu", "dtz_ratio_cpu"):
            assert res[name][key] > 0, (name, key, res)

def test_bench_columnar_runs(syzygy_dir: Path) -> None:
    pytest.importorskip("pyarrow", reason="needs the [arrow] extra")
    proc = _run("bench_columnar.py", "--tables", str(syzygy_dir), "--rows", "3000", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(proc.stdout)
    assert res["all_rows_written"] and res["peak_rss_mb"][0] > 0 and res["rows_per_sec"][0] > 0


def test_bench_dask_runs(syzygy_dir: Path) -> None:
    pytest.importorskip("distributed", reason="needs the [dask] extra")
    proc = _run("bench_dask.py", "--tables", str(syzygy_dir), "--rows", "4000", "--row-group", "1000",
                "--rounds", "1", "--json")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    res = json.loads(proc.stdout)
    assert res["partitions"] == 4
    for name in ("plain", "plain_all_cores", "dask1", "dask2"):
        assert res["rows_per_sec"][name]["median"] > 0, name
    assert res["dask1_vs_plain"]["median"] > 0 and res["dask2_vs_dask1"]["median"] > 0


def test_bench_batch_runs(syzygy_dir: Path, syzygy5_dir: Path) -> None:
    proc = _run("bench_batch.py", "--tables", str(syzygy_dir), "--tables5", str(syzygy5_dir),
                "--positions", "3000", "--games", "20", "--game-positions", "2000",
                "--rounds", "1", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(proc.stdout)
    for name in ("random", "random_10k", "games"):
        assert res[name]["same_answers"], (name, res[name])
        assert res[name]["wdl_batch_table_order_t1"]["median"] > 0
        assert res[name]["dtz_c_loop_t1"]["median"] > 0


@pytest.mark.parametrize("script", ["bench_batch.py", "bench_5piece.py"])
def test_benchmarks_over_5_pieces_refuse_without_them(script: str, tmp_path: Path) -> None:
    # Rows of 5-piece materials probed without their tables would give
    # figures of another benchmark (each still says its answers agree).
    proc = _run(script, "--tables5", str(tmp_path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"no 5-piece tables in {tmp_path}" in proc.stderr


def test_bench_open_runs() -> None:
    proc = _run("bench_open.py", "--max-pieces", "4", "--rounds", "1", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(proc.stdout)
    assert res["files"] == 70
    assert res["ratio_python_chess_over_pyfathom"]["median"] > 0


@pytest.mark.plain_pass_only("C programs built by the benchmark itself")
def test_bench_root_runs(syzygy_dir: Path) -> None:
    """bench_root.py on 200 positions, without a Fathom checkout (that one
    is measured outside the repository)."""
    proc = _run("bench_root.py", "--positions", "200", "--repeats", "1", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(proc.stdout)["pyfathom"]
    assert res["positions"] == 200 and 0 < res["median_us"] <= res["worst_us"]


@pytest.mark.plain_pass_only("times the C core's root probe through every caller")
def test_bench_root_callers_runs(syzygy_dir: Path) -> None:
    """bench_root_callers.py on the slowest 3 of 40 positions, one run each."""
    proc = _run("bench_root_callers.py", "--positions", "40", "--slowest", "3",
                "--repeats", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for caller in ("probe_root", "tb_probe_root", "tb_probe_root_dtz", "annotate_best",
                   "mainline"):
        assert any(line.startswith(caller + " ") for line in proc.stdout.splitlines()), caller


def _git_checkout() -> bool:
    """Whether the tests run from a git checkout with git on PATH (an
    unpacked sdist, which ships the tests, is neither)."""
    try:
        proc = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"],
                              capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return proc.returncode == 0 and Path(proc.stdout.strip()).resolve() == ROOT


def _bench_builds(base: str, new: str, syzygy_dir: Path) -> dict:
    proc = _run("bench_builds.py", base, new, "--set", "3-4", "--tables", str(syzygy_dir),
                "--positions", "200", "--rounds", "2", "--min-seconds", "0", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(proc.stdout)
    assert res["positions"] == 200 and res["rounds"] == 2
    for kind in ("wdl", "dtz"):
        assert res[f"{kind}_differing"] == 0
        low, mid, high = (res[f"{kind}_ratio_{k}"] for k in ("min", "median", "max"))
        assert 0 < low <= mid <= high
        assert res[f"{kind}_base_ns"] > 0 and res[f"{kind}_cpu_new_ns"] > 0
    return res


@pytest.mark.plain_pass_only("builds the core twice, as shared libraries of its own")
def test_bench_builds_runs(syzygy_dir: Path) -> None:
    """bench_builds.py: two builds of the working tree's core, built and
    loaded into one process, over 200 positions, 2 rounds (everything but
    reading a git revision, which needs no checkout: it runs in the sdist
    too)."""
    _bench_builds(".", ".", syzygy_dir)


@pytest.mark.plain_pass_only("builds the core twice, as shared libraries of its own")
def test_bench_builds_reads_a_git_revision(syzygy_dir: Path) -> None:
    """The committed core (``git archive HEAD``) against the working tree."""
    if not _git_checkout():
        pytest.skip(f"{ROOT} is not a git checkout (or git is not on PATH): no revision "
                    "to export; test_bench_builds_runs covered the rest")
    _bench_builds("HEAD", ".", syzygy_dir)


def test_bench_builds_refuses_an_unknown_revision() -> None:
    if not _git_checkout():
        pytest.skip(f"{ROOT} is not a git checkout (or git is not on PATH): no revisions to refuse")
    proc = _run("bench_builds.py", "no-such-revision-here", ".", "--set", "3-4",
                "--positions", "20", "--rounds", "1")
    assert proc.returncode == 1 and "no src/fathom at 'no-such-revision-here'" in proc.stderr, \
        proc.stdout + proc.stderr


@pytest.mark.plain_pass_only("bench_cold.c, built by the benchmark itself")
def test_bench_cold_runs(tmp_path: Path) -> None:
    """bench_cold.py on a small synthetic set (its page drops and fresh
    processes, its own O_DIRECT reader): every way's answers compared row
    by row inside it (exit 1 on a difference), and each way measured cold
    (reads from the disk) and warm (none)."""
    proc = _run("bench_cold.py", "--material", "KRRvKBN", "--min-mb", "0", "--positions",
                "2000", "--rounds", "1", "--kinds", "wdl,dtz", "--no-fio", "--json")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    res = json.loads(proc.stdout)
    assert res["answers_identical"] is True and not res["mismatches"]
    assert res["device_depth32"] > 0 and res["device_depth1"] > 0
    assert res["device_depth32_range"][0] <= res["device_depth32"] <= res["device_depth32_range"][1]
    ways = ("loop", "t1_off", "t1_auto", "default_off", "default_auto")
    assert set(res["figures"]) == {f"{k}/{w}" for k in ("wdl", "dtz") for w in ways}
    for name, fig in res["figures"].items():
        assert fig["cold"]["read_bytes"] > 0, name
        assert fig["warm"]["major_faults"] == 0, name
        assert fig["cold"]["positions_per_s"]["median"] > 0, name
