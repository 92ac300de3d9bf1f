"""`python -m squadron_cad` runs the same CLI as the `squadron-cad` script."""

from squadron_cad.cli import main

main()
