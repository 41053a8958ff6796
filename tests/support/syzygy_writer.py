"""Synthetic Syzygy tables for tests: format-valid WDL (.rtbw) and DTZ
(.rtbz) files for any material of up to 7 pieces, written in well under a
second, whose stored values follow a known pattern.

Not shipped; nothing here plays chess.  The values are not a tablebase's:
each (file, side) stream of a table is a pattern chosen so that reading a
neighbouring index (off by one, by a piece group's factor, another file's
or side's stream) gives another value, which is what catches indexing
bugs when two readers are compared on the same files.

How a stream is compressed (the format's pairs and Huffman codes, as
python-chess's chess/syzygy.py and src/fathom/tb_table.c read them):

* symbol ``node(k, c)`` expands to ``2**k`` values, the i-th being
  ``values[(c + i) % len(values)]``: ``node(0, c)`` is a leaf and
  ``node(k, c)`` is the pair ``node(k - 1, c), node(k - 1, c + 2**(k-1))``;
  so ``9 * len(values)`` symbols cover every run of up to 256 values;
* a few of them get Huffman codes (the "coded" symbols, numbered first, as
  canonical codes want: longer codes take lower numbers);
* every block holds the same number of values and is one of a few
  templates (random sequences of coded symbols); which template a block
  uses is a hash of its number.  Writing a block is copying bytes, so a
  7-piece table of 10^10 indices takes a fraction of a second, and
  ``Stream.value_at(i)`` is a cheap function of i.

Run as a command, ``python tests/support/syzygy_writer.py OUTDIR MATERIAL...``
writes each material's files and those of every table its probes reach
(captures and promotions), for cross-checking any prober.
"""

from __future__ import annotations

import bisect
import itertools
import os
import random
import struct
import sys
from dataclasses import dataclass, field
from math import comb
from typing import Dict, List, Optional, Sequence, Tuple

WDL_MAGIC = bytes([0x71, 0xE8, 0x23, 0x5D])
DTZ_MAGIC = bytes([0xD7, 0x66, 0x0C, 0xA5])
LETTERS = "PNBRQK"  # python-chess's piece types 1..6
KING = 6
PAWN = 1
# Leading groups of a pawnless index: three unique pieces, or the kings.
LEADING_FACTOR = {0: 31332, 2: 462}
# DTZ pairs flags (first byte of a stream's header).
STORED_BLACK, MAPPED, WIN_PLIES, LOSS_PLIES, WIDE = 1, 2, 4, 8, 16
SINGLE_VALUE = 0x80


def parse_material(name: str) -> Tuple[List[int], List[int]]:
    """Piece types of the white (left) and black side of e.g. "KRRvKQN"."""
    white, black = name.split("v")
    return [LETTERS.index(ch) + 1 for ch in white], [LETTERS.index(ch) + 1 for ch in black]


# ---------------------------------------------------------------- index sizes


def _ptwist(square: int) -> int:
    """Order of a non-first leading pawn on a file a-d (as both readers
    number them: from the centre files and the seventh rank outwards)."""
    f, r = square & 7, square >> 3
    edge = f if f < 4 else 7 - f
    return (3 - edge) * 12 + (6 - r) * 2 + (f < 4)


def pawn_factor(lead: int, file: int) -> int:
    """Positions of `lead` like leading pawns whose first is on `file`."""
    return sum(1 if lead == 1 else comb(_ptwist(r * 8 + file), lead - 1) for r in range(1, 7))


def groups_after(pieces: Sequence[int], start: int) -> List[int]:
    """Sizes of the runs of equal piece codes from `start` on."""
    sizes, i = [], start
    while i < len(pieces):
        j = i
        while j < len(pieces) and pieces[j] == pieces[i]:
            j += 1
        sizes.append(j - i)
        i = j
    return sizes


def pawnless_size(enc_type: int, pieces: Sequence[int], order: int) -> int:
    lead = 3 if enc_type == 0 else 2
    size, free = 1, 64 - lead
    groups = groups_after(pieces, lead)
    for k in range(len(groups) + 1):
        if k == order:
            size *= LEADING_FACTOR[enc_type]
        else:
            g = groups.pop(0)
            size *= comb(free, g)
            free -= g
    return size


def pawn_size(pawns: Tuple[int, int], pieces: Sequence[int], order: int, order2: int, file: int) -> int:
    groups = groups_after(pieces, pawns[0] + pawns[1])
    size, free = 1, 64 - pawns[0] - pawns[1]
    slots = len(groups) + 1 + (pawns[1] > 0)
    for k in range(slots):
        if k == order:
            size *= pawn_factor(pawns[0], file)
        elif pawns[1] and k == order2:
            size *= comb(48 - pawns[0], pawns[1])
        else:
            g = groups.pop(0)
            size *= comb(free, g)
            free -= g
    return size


# ---------------------------------------------------------------- streams

# Coded symbols of the two designs: (code length, node level) each, in
# symbol order (canonical codes: longer lengths take the lower numbers).
ONE_BIT = ((1, 8), (1, 8))  # two 256-value runs: 1 bit per 256 values
MIXED = ((3, 8), (3, 5), (2, 7), (1, 8))  # runs of 256, 32, 128, 256
TEMPLATES = 7


def _canonical_codes(lengths: Sequence[int]) -> Tuple[List[int], List[int]]:
    """Canonical codes for symbols 0.. of non-increasing code lengths: the
    longest codes are the numerically smallest, counted from 0, and each
    shorter length starts where the longer ones end, shifted one bit (how
    both readers rebuild them from the first symbol of every length).
    Returns the codes and the first symbol of each length, shortest
    first."""
    lo, hi = min(lengths), max(lengths)
    first = [0] * (hi - lo + 1)
    codes = [0] * len(lengths)
    base = sym = 0
    for length in range(hi, lo - 1, -1):
        syms = [s for s, n in enumerate(lengths) if n == length]
        first[length - lo] = sym
        for k, s in enumerate(syms):
            codes[s] = base + k
        sym += len(syms)
        if length > lo:
            assert (base + len(syms)) % 2 == 0, "not a complete prefix code"
            base = (base + len(syms)) // 2
    return codes, first


@dataclass
class Stream:
    """The values of one (file, side) of a table: `size` indices."""

    size: int
    values: List[int]  # leaf values (WDL 0..4; DTZ up to 4095, the writer's below DTZ_PLIES_BOUND)
    seed: int
    constant: Optional[int] = None  # a single-value stream
    design: Tuple[Tuple[int, int], ...] = field(init=False)
    per_block: int = field(init=False)
    templates: List[List[int]] = field(init=False)

    def __post_init__(self) -> None:
        small = self.size <= 1 << 24
        self.design = MIXED if small else ONE_BIT
        self.per_block = 4096 if small else 65536
        rng = random.Random(self.seed)
        # Distinct phases: runs of different symbols never line up.
        self.phase = rng.sample(range(len(self.values)), len(self.design)) if len(self.values) > 3 else [0] * 4
        run = [1 << level for _, level in self.design]
        self.templates = []
        for _ in range(TEMPLATES if self.constant is None else 0):
            if self.design is ONE_BIT:  # every run 256 values: random bits
                bits = rng.getrandbits(self.per_block // 256)
                self.templates.append([bits >> j & 1 for j in range(self.per_block // 256)])
                continue
            seq, left = [], self.per_block
            while left:
                choices = [s for s in range(len(self.design)) if run[s] <= left]
                if left < 256:  # finish with the shortest runs
                    choices = [min(choices, key=lambda s: run[s])]
                s = rng.choice(choices)
                seq.append(s)
                left -= run[s]
            self.templates.append(seq)
        self.starts = [[0, *itertools.accumulate(run[s] for s in seq)][:-1] for seq in self.templates]
        self.block_log = 6 if small else 5  # bytes per block: 64 or 32
        # An index entry every four blocks: short walks through the sizes.
        self.idx_bits = (self.per_block * 4).bit_length() - 1
        self.real_blocks = -(-self.size // self.per_block)
        self.num_indices = -(-self.size >> self.idx_bits)

    def template_of(self, block: int) -> int:
        return (block * 2654435761 >> 11) % TEMPLATES

    def value_at(self, index: int) -> int:
        """The stored value at `index` (what a correct reader returns)."""
        if self.constant is not None:
            return self.constant
        block, offset = divmod(index, self.per_block)
        t = self.template_of(block)
        k = bisect.bisect_right(self.starts[t], offset) - 1
        s = self.templates[t][k]
        return self.values[(self.phase[s] + offset - self.starts[t][k]) % len(self.values)]

    # -- encoding

    def header(self, flags: int) -> bytes:
        """The pairs header: flags, block layout, codes and symbol tree."""
        if self.constant is not None:
            return bytes([SINGLE_VALUE | flags, self.constant])
        lengths = [n for n, _ in self.design]
        _, first = _canonical_codes(lengths)
        v = len(self.values)
        coded = len(self.design)

        def node(level: int, phase: int) -> int:
            return coded + level * v + phase % v

        tree: List[Tuple[int, int]] = []
        for s, (_, level) in enumerate(self.design):
            tree.append((node(level - 1, self.phase[s]), node(level - 1, self.phase[s] + (1 << (level - 1)))))
        for level in range(9):
            for phase in range(v):
                if level == 0:
                    tree.append((self.values[phase], 0xFFF))
                else:
                    tree.append((node(level - 1, phase), node(level - 1, phase + (1 << (level - 1)))))
        out = bytearray([flags, self.block_log, self.idx_bits, self.extra_blocks])
        out += struct.pack("<I", self.real_blocks)
        out += bytes([max(lengths), min(lengths)])
        for sym in first:
            out += struct.pack("<H", sym)
        out += struct.pack("<H", len(tree))
        for left, right in tree:
            out += bytes([left & 0xFF, (left >> 8) | (right & 0xF) << 4, right >> 4])
        if len(tree) & 1:
            out.append(0)
        return bytes(out)

    @property
    def extra_blocks(self) -> int:
        """Size-table entries past the last block, which the last index
        entries' midpoints may point into (the format's spare blocks)."""
        last_mid = ((self.num_indices - 1) << self.idx_bits) + (1 << (self.idx_bits - 1))
        return max(0, last_mid // self.per_block - self.real_blocks + 1)

    def index_table(self) -> bytes:
        if self.constant is not None:
            return b""
        half = 1 << (self.idx_bits - 1)
        out = bytearray()
        for j in range(self.num_indices):
            block, offset = divmod((j << self.idx_bits) + half, self.per_block)
            out += struct.pack("<IH", block, offset)
        return bytes(out)

    def size_table(self) -> bytes:
        if self.constant is not None:
            return b""
        return struct.pack("<H", self.per_block - 1) * (self.real_blocks + self.extra_blocks)

    def data(self) -> bytes:
        if self.constant is not None:
            return b""
        codes, _ = _canonical_codes([n for n, _ in self.design])
        block_bytes = 1 << self.block_log
        encoded = []
        for seq in self.templates:
            bits = "".join(format(codes[s], f"0{self.design[s][0]}b") for s in seq)
            bits += "0" * (-len(bits) % 8)  # the reader takes codes MSB first
            raw = int(bits, 2).to_bytes(len(bits) // 8, "big")
            assert len(raw) <= block_bytes
            encoded.append(raw + bytes(block_bytes - len(raw)))
        return b"".join(encoded[self.template_of(b)] for b in range(self.real_blocks))


# ---------------------------------------------------------------- tables


@dataclass
class Spec:
    """How to write one material's files."""

    name: str  # normalised, e.g. "KRRvKQN"
    seed: int = 0
    swap: bool = False  # store the name's black as the table's white
    # (pawnless), or let black's pawns lead when both sides have as many
    one_side: bool = False  # WDL: one side to move stored (symmetric only)
    # DTZ pairs flags per file (pawnless: the first): MAPPED, WIDE,
    # WIN_PLIES, LOSS_PLIES, STORED_BLACK.
    dtz_flags: Sequence[int] = (MAPPED, MAPPED | WIDE, WIN_PLIES | LOSS_PLIES, MAPPED | WIDE | WIN_PLIES)
    wdl_constant: Optional[int] = None  # every WDL value the same (0..4)
    dtz_constant: bool = False  # the DTZ file stores one value (0)
    # Streams of more indices than this store one value each (seeded, so
    # another stream's or table's differs): keeps the sub-tables of a
    # 6-7-piece probe small.  None: every stream patterned.
    max_patterned: Optional[int] = None


@dataclass
class Layout:
    """The piece order of one (file, side) and its index size."""

    pieces: List[int]  # piece codes: type | 8 for the table's black
    order: int
    order2: int = 15
    size: int = 0


def _grouped(codes: Sequence[int], rng: random.Random) -> List[int]:
    """The codes with equal ones together, the groups in random order."""
    kinds = sorted(set(codes))
    rng.shuffle(kinds)
    return [c for k in kinds for c in codes if c == k]


def _codes(white: Sequence[int], black: Sequence[int]) -> List[int]:
    return list(white) + [t | 8 for t in black]


def pawnless_layouts(spec: Spec, sides: int) -> Tuple[int, List[Layout]]:
    white, black = parse_material(spec.name)
    if spec.swap:
        white, black = black, white
    codes = _codes(white, black)
    unique = [c for c in codes if codes.count(c) == 1]
    if len(unique) < 2:
        raise ValueError(f"{spec.name}: no two unique pieces (antichess only)")
    enc_type = 0 if len(unique) >= 3 else 2
    rng = random.Random(spec.seed * 7919 + 1)
    layouts = []
    for _ in range(sides):
        lead = rng.sample(unique, 3) if enc_type == 0 else rng.sample([KING, KING | 8], 2)
        rest = list(codes)
        for c in lead:
            rest.remove(c)
        pieces = lead + _grouped(rest, rng)
        order = rng.randrange(len(groups_after(pieces, len(lead))) + 1)
        layouts.append(Layout(pieces, order, size=pawnless_size(enc_type, pieces, order)))
    return enc_type, layouts


def pawn_counts(spec: Spec) -> Tuple[int, int, int]:
    """(leading pawns, other colour's pawns, 8 when black's pawns lead)."""
    white, black = parse_material(spec.name)
    wp, bp = white.count(PAWN), black.count(PAWN)
    black_leads = bp > 0 and (wp == 0 or wp > bp or (wp == bp and spec.swap))
    return (bp, wp, 8) if black_leads else (wp, bp, 0)


def pawn_layouts(spec: Spec, sides: int) -> List[List[Layout]]:
    """Per file a-d, per stored side."""
    white, black = parse_material(spec.name)
    lead_n, other_n, lead_colour = pawn_counts(spec)
    codes = _codes(white, black)
    rest = [c for c in codes if c & 7 != PAWN]
    head = [PAWN | lead_colour] * lead_n + [PAWN | (8 - lead_colour)] * other_n
    rng = random.Random(spec.seed * 7919 + 2)
    files = []
    for f in range(4):
        per_side = []
        for _ in range(sides):
            pieces = head + _grouped(rest, rng)
            slots = len(groups_after(pieces, lead_n + other_n)) + 1 + (other_n > 0)
            picked = rng.sample(range(slots), 2 if other_n else 1)
            order, order2 = picked[0], picked[1] if other_n else 15
            size = pawn_size((lead_n, other_n), pieces, order, order2, f)
            per_side.append(Layout(pieces, order, order2, size))
        files.append(per_side)
    return files


def _pad_even(out: bytearray) -> None:
    if len(out) & 1:
        out.append(0)


def _piece_bytes(layouts: Sequence[Layout], two_orders: bool) -> bytes:
    """Order byte(s) then a byte per piece; side 1 in the high nibbles."""
    hi = layouts[1] if len(layouts) > 1 else layouts[0]
    lo = layouts[0]
    out = bytearray([lo.order | hi.order << 4])
    if two_orders:
        out.append(lo.order2 | hi.order2 << 4)
    out += bytes(a | b << 4 for a, b in zip(lo.pieces, hi.pieces))
    return bytes(out)


def _piece_header(spec: Spec, sides: int, out: bytearray) -> List[Layout]:
    """Append the piece orders (padded to even); returns the layout of
    every stream, file by file and side by side."""
    if "P" in spec.name:
        files = pawn_layouts(spec, sides)
        for per_side in files:
            out += _piece_bytes(per_side, pawn_counts(spec)[1] > 0)
        layouts = [lay for per_side in files for lay in per_side]
    else:
        _, layouts = pawnless_layouts(spec, sides)
        out += _piece_bytes(layouts, False)
    _pad_even(out)
    return layouts


def _finish(out: bytearray, streams: Sequence[Stream]) -> bytes:
    """Index tables, size tables, 64-aligned blocks, then padding to a size
    of 16 mod 64 (at least 16 bytes: readers fetch a little past a block)."""
    for s in streams:
        out += s.index_table()
    for s in streams:
        out += s.size_table()
    for s in streams:
        if s.constant is None:
            out += bytes(-len(out) % 64)
            out += s.data()
    pad = (16 - len(out)) % 64
    out += bytes(pad if pad >= 16 else pad + 64)
    return bytes(out)


def _permuted(values: Sequence[int], seed: int) -> List[int]:
    out = list(values)
    random.Random(seed).shuffle(out)
    return out


def is_symmetric(name: str) -> bool:
    white, black = name.split("v")
    return white == black


def _too_big(spec: Spec, size: int) -> bool:
    return spec.max_patterned is not None and size > spec.max_patterned


def _wdl_constant(spec: Spec, size: int, stream: int) -> Optional[int]:
    if spec.wdl_constant is not None:
        return spec.wdl_constant
    if _too_big(spec, size):
        return (spec.seed * 3 + stream) % 5
    return None


def write_wdl(spec: Spec, path: str) -> List[Stream]:
    """Write spec's WDL file; returns its streams (file by file, side by
    side), whose value_at gives every stored value (WDL + 2)."""
    sides = 1 if spec.one_side else 2
    if spec.one_side and not is_symmetric(spec.name):
        raise ValueError(f"{spec.name}: one side stored needs a symmetric material")
    out = bytearray(WDL_MAGIC + bytes([(sides == 2) | (2 if "P" in spec.name else 0)]))
    layouts = _piece_header(spec, sides, out)
    streams = [Stream(lay.size, _permuted(range(5), spec.seed * 31 + k), spec.seed * 131 + k,
                      _wdl_constant(spec, lay.size, k)) for k, lay in enumerate(layouts)]
    for s in streams:
        out += s.header(0)
    _write(path, _finish(out, streams))
    return streams


def dtz_maps(flags: int, seed: int, entries: int) -> List[List[int]]:
    """Four value maps (one per WDL class) of `entries` values each."""
    if flags & WIDE:
        # Past a byte (so the map needs 16-bit entries), and no further
        # than real tables go: see DTZ_PLIES_BOUND.
        return [[256 + (m * 997 + j * 131 + seed * 7) % 768 for j in range(entries)] for m in range(4)]
    return [[1 + (m * 41 + j * 13 + seed) % 250 for j in range(entries)] for m in range(4)]


DTZ_LEAVES = (1, 2, 3, 5, 8, 13, 300, 700, 1000)  # stored without maps

DTZ_PLIES_BOUND = 2100
"""Every DTZ a synthetic file stores, read in plies (a value stored in
moves doubled, plus one for a win or loss counted from the zeroing move),
is below this, as in every real table (whose DTZ values stay well below
it): a value past it would be one no real file holds, and one past the
batch calls' int16 would fail its row where a real table's answers
(test_beyond_five.test_synthetic_dtz_values_stay_within_real_tables)."""
MAP_ENTRIES = 6


def write_dtz(spec: Spec, path: str) -> Tuple[List[Stream], List[int], List[Optional[List[List[int]]]]]:
    """Write spec's DTZ file; returns its streams (one per file), their
    pairs flags and value maps (None when unmapped)."""
    out = bytearray(DTZ_MAGIC + bytes([2 if "P" in spec.name else 0]))
    layouts = _piece_header(spec, 1, out)
    flags = [spec.dtz_flags[k % len(spec.dtz_flags)] for k in range(len(layouts))]
    if is_symmetric(spec.name):  # both readers then read the white side
        flags = [f & ~STORED_BLACK for f in flags]
    streams, maps = [], []
    for k, lay in enumerate(layouts):
        seed = spec.seed * 131 + 17 + k
        if spec.dtz_constant or _too_big(spec, lay.size):
            flags[k] &= STORED_BLACK
            streams.append(Stream(lay.size, [0], seed, constant=0))
            maps.append(None)
        elif flags[k] & MAPPED:
            streams.append(Stream(lay.size, _permuted(range(MAP_ENTRIES), seed), seed))
            maps.append(dtz_maps(flags[k], seed, MAP_ENTRIES))
        else:
            streams.append(Stream(lay.size, _permuted(DTZ_LEAVES, seed)[:7], seed))
            maps.append(None)
        out += streams[-1].header(flags[k])
    for k, m in enumerate(maps):
        if m is None:
            continue
        wide = flags[k] & WIDE
        if wide:
            _pad_even(out)
        for values in m:
            fmt = "<H" if wide else "<B"
            out += struct.pack(fmt, len(values))
            for v in values:
                out += struct.pack(fmt, v)
    _pad_even(out)
    _write(path, _finish(out, streams))
    return streams, flags, maps


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)


def write_tables(spec: Spec, folder: str) -> Dict[str, object]:
    """Both files of spec's material into folder; what each stores."""
    wdl = write_wdl(spec, os.path.join(folder, spec.name + ".rtbw"))
    dtz = write_dtz(spec, os.path.join(folder, spec.name + ".rtbz"))
    return {"wdl": wdl, "dtz": dtz}


def needed_tables(names: Sequence[str]) -> List[str]:
    """The materials and every table their probes reach (captures and
    promotions), as python-chess names them."""
    import chess.syzygy

    targets = [chess.syzygy.normalize_tablename(n) for n in names]
    return sorted(set(targets) | set(chess.syzygy.all_dependencies(targets)), key=lambda n: (len(n), n))


def main(argv: Sequence[str]) -> int:
    import chess.syzygy

    if len(argv) < 2:
        print("usage: python tests/support/syzygy_writer.py OUTDIR MATERIAL...", file=sys.stderr)
        return 2
    bad = [m for m in argv[1:] if not chess.syzygy.is_tablename(m, normalized=False)]
    if bad:
        print(f"syzygy_writer: not a material of 3 to 7 pieces with one king each "
              f"(e.g. KRPvKR): {', '.join(bad)}", file=sys.stderr)
        return 2
    os.makedirs(argv[0], exist_ok=True)
    for k, name in enumerate(needed_tables(argv[1:])):
        write_tables(Spec(name, seed=k + 1), argv[0])
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
