"""What the figure scripts share: finding the build, and writing a PNG."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def setup(build, script):
    """Points the Python package at BUILD's library, selects the Agg backend and returns the
    CLI's path; exits naming `script` when the build is missing."""
    build = os.path.abspath(build)
    lib, cli = os.path.join(build, "libcosserat.so"), os.path.join(build, "cosserat")
    for f in (lib, cli):
        if not os.path.exists(f):
            sys.exit(f"{script}: {f} not found (build first: cmake -S . -B build && cmake --build build)")
    os.environ["COSSERAT_LIBRARY"] = lib
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import matplotlib

    matplotlib.use("Agg")
    return cli


def savefig(fig, out, name):
    """Writes OUT/NAME and closes the figure; returns the path."""
    import matplotlib.pyplot as plt

    path = os.path.join(out, name)
    # no "Software" entry: the PNG bytes do not change with the matplotlib version string
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    print(f"wrote {path}")
    return path
