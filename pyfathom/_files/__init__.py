"""File and format work: batch rows, columnar files, text input and atomic output."""
