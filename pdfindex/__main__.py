"""`python -m pdfindex`: the same command as `pdfindex` (a search handed to a running
`pdfindex watch` first: pdfindex.quick)."""

from pdfindex.quick import main

if __name__ == "__main__":
    main()
