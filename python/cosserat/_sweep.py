"""Parameter sweeps: one scenario, many overrides, a table of results — on this machine's
cores or, unchanged, on a Dask cluster.

Example::

    import cosserat
    if __name__ == "__main__":  # in a script: the workers import it again (see _reimport_guard)
        table = cosserat.sweep("examples/tendon-manipulator.json",
                               {"loads.0.tension": [1, 2, 4, 8], "rod.elements": [50, 250]})
        for row in table:
            print(row["loads.0.tension"], row["rod.elements"], row["status"], row["tip_x"])
        table.to_csv("sweep.csv")

    from distributed import Client          # the same sweep on a cluster
    table = cosserat.sweep("examples/tendon-manipulator.json", cases, client=Client("tcp://scheduler:8786"))

Every case runs in its own worker process; a case that fails (bad override, solver failure,
even a crashed worker) is a row with its status and message, never a lost sweep.

Command line (writes the same table as CSV)::

    python3 -m cosserat sweep examples/tendon-manipulator.json --grid loads.0.tension=1,2,4 \\
        --grid rod.elements=50,250 --out sweep.csv [--workers 2] [--scheduler tcp://host:8786]
"""

import argparse
import concurrent.futures
import contextlib
import csv
import itertools
import json
import os
import sys
from collections.abc import Mapping
from typing import Callable, Iterable, List, Optional

from ._errors import CosseratError, Status

#: scalar results recorded for every case (tip = last node; energies at the end of dynamic runs)
DEFAULT_RESULTS = ("converged", "model", "load_factor", "final_residual", "wall_time_s", "tip_x", "tip_y", "tip_z")


def grid(axes: Mapping) -> List[dict]:
    """The cartesian product of ``{PATH: [values]}``: one override dict per case, in order."""
    paths = list(axes)
    for p in paths:
        if isinstance(axes[p], (str, bytes)) or not isinstance(axes[p], Iterable):
            raise TypeError(f"grid: {p}: expected a list of values, got {axes[p]!r}")
    return [dict(zip(paths, values)) for values in itertools.product(*(list(axes[p]) for p in paths))]


def _scalars(result, measure):
    row = {
        "converged": bool(result.converged),
        "model": result.model,
        "load_factor": float(result.load_factor),
        "final_residual": float(result.final_residual),
        "wall_time_s": float(result.wall_time_s),
    }
    tip = result.positions[-1]
    row.update(tip_x=float(tip[0]), tip_y=float(tip[1]), tip_z=float(tip[2]))
    for name, column in (result.series or {}).items():
        if name.startswith(("energy_", "work_")) and len(column):
            row[f"final_{name}"] = float(column[-1])
    if measure is not None:
        extra = measure(result)
        if not isinstance(extra, Mapping):
            raise TypeError(f"measure must return a dict of scalars, got {type(extra).__name__}")
        row.update(extra)
    return row


def run_case(scenario, overrides: dict, output_dir: Optional[str] = None, measure: Optional[Callable] = None,
             library: Optional[str] = None) -> dict:
    """Runs one case and returns its row (never raises for a failure of the case itself).

    This is what a worker executes; ``library`` (a path to libcosserat.so) is set in the worker's
    environment first, for clusters whose workers were started without ``COSSERAT_LIBRARY``."""
    if library and not os.environ.get("COSSERAT_LIBRARY"):
        os.environ["COSSERAT_LIBRARY"] = library
    # the sweep's parallelism is across cases, one core each: a large case would otherwise start
    # a thread per CPU of its own and oversubscribe the machine (an explicit setting is kept)
    if not os.environ.get("COSSERAT_THREADS") and not os.environ.get("OMP_NUM_THREADS"):
        os.environ["COSSERAT_THREADS"] = "1"
    from ._core import run  # in the worker process

    try:
        result = run(scenario, overrides, output_dir)
        row = {"status": str(result.status), "message": result.message}
        row.update(_scalars(result, measure))
    except CosseratError as e:
        row = {"status": str(e.status), "message": str(e), "converged": False}
    except Exception as e:  # noqa: BLE001 — a case's failure is its row, whatever it is
        row = {"status": "error", "message": f"{type(e).__name__}: {e}", "converged": False}
    return row


class SweepTable:
    """Rows of a sweep, one per case, in the order of the cases.

    Each row is a dict: ``case`` (index), the case's overrides (by path), ``status`` (``"ok"``,
    ``"not converged"``, ``"bad input"``, ... as :class:`Status` prints, or ``"error"``/``"worker
    died"``), ``message``, the
    scalar results (``converged``, ``model``, ``load_factor``, ``final_residual``,
    ``wall_time_s``, ``tip_x/y/z``, ``final_energy_*`` for dynamic runs, and whatever
    ``measure`` returned) and ``output_dir`` when files were written.
    """

    def __init__(self, rows: List[dict]):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, k):
        return self.rows[k]

    @property
    def columns(self) -> List[str]:
        cols: List[str] = []
        for r in self.rows:
            for c in r:
                if c not in cols:
                    cols.append(c)
        return cols

    @property
    def failed(self) -> List[dict]:
        """The rows whose case did not converge or could not run."""
        return [r for r in self.rows if r.get("status") != str(Status.OK)]

    def column(self, name):
        return [r.get(name) for r in self.rows]

    def to_csv(self, path):
        """Writes the table (override values JSON-encoded when they are not scalars)."""
        cols = self.columns
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for r in self.rows:
                w.writerow([_cell(r.get(c)) for c in cols])

    def to_pandas(self):
        import pandas  # optional

        return pandas.DataFrame(self.rows, columns=self.columns)

    def __repr__(self):
        return f"<SweepTable: {len(self.rows)} cases, {len(self.failed)} failed>"


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, (list, dict, tuple)):
        return json.dumps(v)
    return v


def _library_path():
    from . import _lib

    return getattr(_lib.lib(), "_name", None)


def sweep(scenario, cases, *, output_root: Optional[str] = None, measure: Optional[Callable] = None,
          client=None, workers: Optional[int] = None) -> SweepTable:
    """Runs ``scenario`` once per case and returns a :class:`SweepTable`.

    Args:
        scenario:    a scenario dict, a path to a scenario file or JSON text (as for :func:`run`);
                     a path is resolved here, so workers on other machines need the same path
                     (a shared filesystem) or pass the scenario as a dict.
        cases:       ``{PATH: [values]}`` for a full grid (:func:`grid`), or a list of override
                     dicts ``[{PATH: value, ...}, ...]``.
        output_root: write each case's files into ``output_root/case_NNNN`` (default: no files).
                     The sweep locks the folder: a second sweep (or ``cosserat run``) into it
                     meanwhile raises :class:`CosseratError` naming this process's PID.
        measure:     a picklable function ``Result -> dict`` of extra scalars for the row.
        client:      a Dask ``distributed.Client``: the cases run on its cluster. Default: a
                     process pool on this machine.
        workers:     size of the local process pool (default: the number of cores).
    """
    if client is None:
        _reimport_guard()
    if isinstance(cases, Mapping):
        cases = grid(cases)
    cases = [dict(c) for c in cases]
    if isinstance(scenario, (str, os.PathLike)) and not str(scenario).lstrip().startswith("{"):
        scenario = os.path.abspath(os.fspath(scenario))
    library = _library_path()
    outdirs = [None if output_root is None else os.path.join(output_root, f"case_{k:04d}") for k in range(len(cases))]
    args = [(scenario, c, d, measure, library) for c, d in zip(cases, outdirs)]
    # one sweep per output root at a time (a second one is refused, naming the first's PID)
    lock = _FolderLock(output_root) if output_root is not None else contextlib.nullcontext()
    with lock:
        if client is not None:
            rows = _run_dask(client, args)
        else:
            rows = _run_local(args, workers)
    table = []
    for k, (c, d, row) in enumerate(zip(cases, outdirs, rows)):
        full = {"case": k, **c, **row}
        if d is not None:
            full["output_dir"] = d
        table.append(full)
    return SweepTable(table)


#: the lock file of an output folder; the library's runs take the same one (src/io/run.c)
_LOCK_NAME = ".cosserat.lock"


class _FolderLock:
    """An flock on ``folder/.cosserat.lock`` (holding this process's PID) for the time of a sweep.

    Two sweeps (or a sweep and ``cosserat run -o``) writing into one output root would mix
    their cases' files; the second is refused with a :class:`CosseratError` naming the
    first's PID. The lock is the library's: the kernel drops it with the process, and the
    file is removed while still locked, so whoever opened it just before checks after locking
    that it locked the file the path names.
    """

    def __init__(self, folder):
        self.folder = folder
        self.fd = None

    def __enter__(self):
        import fcntl

        os.makedirs(self.folder, exist_ok=True)
        path = os.path.join(self.folder, _LOCK_NAME)
        for _ in range(100):
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = os.pread(fd, 31, 0).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise CosseratError(f"{self.folder}: another run (PID {pid}) is writing into this output directory; "
                                    "wait for it to end or choose another output_root", Status.IO) from None
            except OSError:  # a file system without flock: unlocked, as the library does
                os.close(fd)
                return self
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
                self.fd = fd
                return self
            os.close(fd)  # removed by the run that held it: lock the new one
        raise CosseratError(f"{self.folder}: cannot lock the output directory (the lock file keeps changing)",
                            Status.IO)

    def __exit__(self, *exc):
        if self.fd is not None:
            try:
                os.unlink(os.path.join(self.folder, _LOCK_NAME))
            except OSError:
                pass
            os.close(self.fd)
            self.fd = None
        return False


#: set for the local pool's workers: the file a worker writes into when it finds the sweep
#: called again while it imports the main script (see _reimport_guard)
_REIMPORT_ENV = "COSSERAT_SWEEP_REIMPORT_FILE"


def _reimport_guard():
    """In a worker that is still starting, raises: the sweep was called again by the import of
    the main script, which the ``spawn`` start method re-imports in every worker.

    A script that calls :func:`sweep` at its top level, without ``if __name__ == "__main__":``,
    starts the sweep again in each worker as it imports the script there; multiprocessing then
    kills the worker ("An attempt has been made to start a new process before the current
    process has finished its bootstrapping phase"), and every case came back as "worker died",
    which hid the cause. The worker leaves a note for the parent, which says so."""
    import multiprocessing.process

    if not getattr(multiprocessing.process.current_process(), "_inheriting", False):
        return
    note = os.environ.get(_REIMPORT_ENV)
    if note:
        with contextlib.suppress(OSError), open(note, "w") as f:
            f.write("re-import")
    raise CosseratError("cosserat.sweep called while a worker process imports the main script: put the sweep "
                        "under if __name__ == \"__main__\":", Status.BAD_INPUT)


def _reimport_error():
    main = sys.modules.get("__main__")
    where = getattr(main, "__file__", None) or "the main script"
    return CosseratError(f"cosserat.sweep: every worker process imports {where} again (the 'spawn' start method) "
                         "and that import calls sweep again, which stops the worker; put the code that runs the "
                         "sweep under if __name__ == \"__main__\": (see docs/python.md, Sweeps)", Status.BAD_INPUT)


def _run_local(args, workers):
    import tempfile

    fd, note = tempfile.mkstemp(prefix="cosserat-sweep-")
    os.close(fd)
    before = os.environ.get(_REIMPORT_ENV)
    os.environ[_REIMPORT_ENV] = note  # inherited by the workers, which are started from here
    try:
        return _run_pools(args, workers, note)
    finally:
        if before is None:
            os.environ.pop(_REIMPORT_ENV, None)
        else:
            os.environ[_REIMPORT_ENV] = before
        with contextlib.suppress(OSError):
            os.unlink(note)


def _reimported(note):
    try:
        return os.path.getsize(note) > 0
    except OSError:
        return False


def _run_pools(args, workers, note):
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter per worker: no inherited state
    rows = [None] * len(args)
    pending = list(range(len(args)))
    while pending:
        # a worker that dies (a crash in a case) breaks the pool: the cases it had are recorded as
        # such and the rest run in a new pool
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers or os.cpu_count(), mp_context=ctx) as pool:
            futures, broken = {}, []
            for k in pending:
                try:
                    futures[pool.submit(run_case, *args[k])] = k
                except concurrent.futures.process.BrokenProcessPool:  # broken while submitting
                    broken.append(k)
            for f in concurrent.futures.as_completed(futures):
                k = futures[f]
                try:
                    rows[k] = f.result()
                except concurrent.futures.process.BrokenProcessPool:
                    broken.append(k)
                except Exception as e:  # noqa: BLE001
                    rows[k] = {"status": "error", "message": f"{type(e).__name__}: {e}", "converged": False}
        # (whatever the futures said: a worker stopped at its bootstrap breaks the pool, but the
        # futures it leaves may also fail otherwise; ~1 run in 8 under load gave "error" rows)
        if _reimported(note):
            raise _reimport_error()
        if len(broken) == len(pending):
            # nothing finished: run them one per pool to find the crashing ones
            for k in broken:
                with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
                    try:
                        rows[k] = pool.submit(run_case, *args[k]).result()
                    except concurrent.futures.process.BrokenProcessPool:
                        rows[k] = {"status": "worker died", "message": "the worker process died running this case",
                                   "converged": False}
            broken = []
        pending = broken
    return rows


def _run_dask(client, args):
    futures = [client.submit(run_case, *a, pure=False) for a in args]
    rows = []
    for f in futures:
        try:
            rows.append(f.result())
        except Exception as e:  # noqa: BLE001 — e.g. a worker lost while running the case
            rows.append({"status": "error", "message": f"{type(e).__name__}: {e}", "converged": False})
    return rows


def _parse_value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m cosserat sweep",
                                description="Run a scenario over a grid of overrides; write one CSV row per case.")
    p.add_argument("scenario", metavar="FILE")
    p.add_argument("--grid", action="append", default=[], metavar="PATH=V1,V2,...",
                   help="an axis of the grid (repeat for more axes); values are JSON when they parse")
    p.add_argument("--out", "-o", default="sweep.csv", metavar="CSV", help="the table (default sweep.csv)")
    p.add_argument("--output-root", metavar="DIR", help="write each case's outputs into DIR/case_NNNN")
    p.add_argument("--workers", type=int, help="local worker processes (default: the number of cores)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster (tcp://host:8786)")
    a = p.parse_args(argv)
    axes = {}
    for g in a.grid:
        path, eq, values = g.partition("=")
        if not eq or not path or not values:
            p.error(f"--grid {g!r}: expected PATH=V1,V2,...")
        axes[path] = [_parse_value(v) for v in values.split(",")]
    if not axes:
        p.error("give at least one --grid PATH=V1,V2,...")
    client = None
    if a.scheduler:
        from distributed import Client

        client = Client(a.scheduler)
    table = sweep(a.scenario, axes, output_root=a.output_root, client=client, workers=a.workers)
    table.to_csv(a.out)
    print(f"{a.out}: {len(table)} cases, {len(table.failed)} failed")
    for r in table.failed:
        print(f"  case {r['case']}: {r['status']}: {r['message']}", file=sys.stderr)
    return 0 if not table.failed else 2


if __name__ == "__main__":
    sys.exit(main())
