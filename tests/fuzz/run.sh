#!/bin/sh
# Build the libFuzzer targets (clang, ASan + UBSan) and run each for a
# bounded time on a seed corpus generated from the fetched real tables.
#
#   tests/fuzz/run.sh [seconds-per-target] [tables-dir]
#
# Tables default to the test cache (pytest fetches them there).  Corpora
# grow in $FUZZ_WORK (default build/fuzz); crashes are written there as
# crash-* files: copy a minimised one into tests/fuzz/regressions/<target>/
# (not named *.rtbw/*.rtbz) so the replay test keeps it fixed.
set -eu
SECONDS_PER=${1:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TABLES=${2:-${PYFATHOM_TEST_CACHE:-$HOME/.cache/pyfathom-tests}/syzygy-chess-1.11.2}
WORK=${FUZZ_WORK:-$ROOT/build/fuzz}
CC=${CC_FUZZ:-clang}
# Every C file of the core but the Fathom facade's instance (tbprobe.c, its
# one global instance unused here): the roles core and fathom-api of
# src/fathom/sources.txt, the one list of the core's files.
SRCS=$(awk 'NF && $1 !~ /^#/ && ($2 == "core" || $2 == "fathom-api") {print $1}' \
    "$ROOT/src/fathom/sources.txt")
mkdir -p "$WORK"
set --
for s in $SRCS; do set -- "$@" "$ROOT/src/fathom/$s"; done
[ -d "$WORK/seeds" ] || python3 "$HERE/make_corpus.py" "$TABLES" "$WORK/seeds" --mutants 8
export PYFATHOM_FUZZ_TABLES="$TABLES"
status=0
for t in table fen board game; do
    "$CC" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -I"$ROOT/src/fathom" -I"$HERE" "$HERE/fuzz_$t.c" "$@" -lpthread -o "$WORK/fuzz_$t"
    mkdir -p "$WORK/corpus/$t" "$WORK/artifacts/$t"
    echo "== fuzz_$t: ${SECONDS_PER}s"
    "$WORK/fuzz_$t" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 \
        -max_len=1048576 -print_final_stats=1 -artifact_prefix="$WORK/artifacts/$t/" \
        "$WORK/corpus/$t" "$WORK/seeds/$t" "$HERE/regressions/$t" 2>"$WORK/fuzz_$t.log" || status=1
    grep -E "stat::number_of_executed_units|stat::new_units_added|ERROR|runtime error" \
        "$WORK/fuzz_$t.log" || true
    echo "corpus: $(ls "$WORK/corpus/$t" | wc -l) files; crashes: $(ls "$WORK/artifacts/$t" | wc -l)"
done
exit $status
