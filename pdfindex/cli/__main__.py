"""python -m pdfindex.cli"""

from pdfindex.cli import main

main()
