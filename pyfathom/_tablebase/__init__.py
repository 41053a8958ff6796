"""The Tablebase class and the mixins it is built from (board probes, batch probes, bitboard arrays, core access)."""
