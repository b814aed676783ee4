"""`python -m pdfindex`: the same CLI as the `pdfindex` command."""

from pdfindex.cli import main

if __name__ == "__main__":
    main()
