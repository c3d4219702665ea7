"""Command line: ``python3 -m cosserat sweep FILE --grid PATH=V1,V2 ...`` (a parameter sweep,
see :func:`cosserat.sweep`) and ``python3 -m cosserat plot DIR`` (the PNGs of an output folder,
also ``python3 -m cosserat.plot DIR``)."""

import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "sweep":
        from ._sweep import main as sweep_main

        return sweep_main(argv[1:])
    if argv and argv[0] == "plot":
        from .plot import main as plot_main

        return plot_main(argv[1:])
    print("usage: python3 -m cosserat {sweep,plot} ...  (try: python3 -m cosserat sweep --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
