"""cosserat — Python interface to the cosserat rod library (ctypes, nothing compiled).

Example (from the repository root)::

    import cosserat
    r = cosserat.run("examples/two-helical-segments.json", {"rod.elements": 300})
    r.converged        # True
    r.tip_position     # array([0.031, 9.99994, 60.0]), analytic (0, 10, 60)
    r.kappa            # (300, 3) curvatures along the rod

* :func:`run` solves a scenario (dict, file or JSON text) and returns a :class:`Result`
  with numpy arrays (positions, quaternions, strains, stress resultants, convergence).
* ``run(..., on_sample=f)`` calls ``f`` at every output time of dynamic stages with a :class:`Sample`
  that can set the loads' actuator inputs (a controller in the loop); ``keep_snapshots=True``
  keeps the state history in ``Result.snapshots``; ``Result.plot()`` / ``Result.animate()``.
* :func:`load` reads a scenario file into a dict to edit.
* :func:`read_output` reads an output folder written by the CLI or ``run(..., output_dir=)``.
* :func:`sweep` runs a scenario over a grid or list of overrides on a process pool or a Dask
  cluster and returns a table (``python3 -m cosserat sweep`` on the command line).
* ``python3 -m cosserat.plot DIR`` draws the PNGs of an output folder.

The shared library is found through ``COSSERAT_LIBRARY``, then ``build/libcosserat.so`` of the
repository, then ``ctypes.util.find_library("cosserat")``; it is loaded on first use.
See docs/python.md.
"""

from ._core import (
    JointReaction,
    Reaction,
    Rod,
    Result,
    RunInterrupted,
    RunWarning,
    Sample,
    Snapshots,
    Step,
    StopRun,
    library_version,
    load,
    quat_to_matrix,
    run,
)
from ._errors import CosseratError, Status
from .output import Body, BodyHistory, Contact, RunOutput, Track, read_output
from ._sweep import SweepTable, grid, sweep

__version__ = "0.1.0"

# Public names show as cosserat.X in reprs and tracebacks, not as the private module they live in.
for _obj in (Body, BodyHistory, CosseratError, Status, Result, Reaction, JointReaction, Rod, RunInterrupted, RunWarning, Sample, Snapshots, Step, StopRun, RunOutput, SweepTable, Contact):
    _obj.__module__ = __name__
del _obj

__all__ = [
    "Body",
    "BodyHistory",
    "Contact",
    "CosseratError",
    "JointReaction",
    "Reaction",
    "Rod",
    "Result",
    "RunInterrupted",
    "RunOutput",
    "RunWarning",
    "Sample",
    "Snapshots",
    "Status",
    "Step",
    "StopRun",
    "SweepTable",
    "library_version",
    "load",
    "quat_to_matrix",
    "read_output",
    "Track",
    "run",
    "grid",
    "sweep",
]
