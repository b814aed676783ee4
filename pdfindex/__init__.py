"""pdfindex: a persistent full-text index of a folder of PDFs, served over MCP and a CLI."""

__version__ = "0.1.0"
