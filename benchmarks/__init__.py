"""Benchmarks for pdfindex (run by hand; never asserted as time limits in tests)."""
