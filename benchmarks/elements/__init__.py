"""Element (figure/table caption) detection benchmark on real Debian documentation PDFs."""
