"""Sweeps: a grid of overrides on a local process pool and on a Dask cluster, failures as rows."""

import csv
import os
import subprocess
import sys

import numpy as np
import pytest

import cosserat
from conftest import SOURCE_DIR

TENDON = os.path.join(SOURCE_DIR, "examples", "tendon-manipulator.json")
AXES = {"rod.elements": [10, 20], "loads.0.tension": [1.0, 2.5], "stages.0.load_steps": [3]}


def tip_angle(result):
    """an extra scalar per case (module level: picklable for the workers)"""
    return {"kappa_z_tip": float(result.kappa[-1, 2])}


def reference():
    rows = []
    for case in cosserat.grid(AXES):
        r = cosserat.run(TENDON, case)
        rows.append((case, r.positions[-1], float(r.kappa[-1, 2])))
    return rows


def check_table(table, ref):
    assert len(table) == len(ref) == 4 and not table.failed
    for row, (case, tip, kz) in zip(table, ref):
        for path, value in case.items():
            assert row[path] == value
        assert row["status"] == "ok" and row["converged"]
        # the same numbers as a direct run of the case, to the last bit
        assert np.array_equal([row["tip_x"], row["tip_y"], row["tip_z"]], tip)
        assert row["kappa_z_tip"] == kz


def test_local_pool_and_failed_cases(tmp_path):
    ref = reference()
    table = cosserat.sweep(TENDON, AXES, measure=tip_angle, workers=2, output_root=str(tmp_path / "runs"))
    check_table(table, ref)
    assert os.path.exists(os.path.join(table[3]["output_dir"], "summary.json"))
    # a bad case is a row with its reason; the others still run
    cases = [{"rod.elements": 10}, {"rod.elements": 0}, {"rod.elemnts": 5}, {"rod.elements": 12}]
    t = cosserat.sweep(TENDON, cases, workers=2)
    assert [r["status"] for r in t] == ["ok", "bad input", "bad input", "ok"]
    assert "rod.elements: must be >= 1" in t[1]["message"] and "rod.elemnts" in t[2]["message"]
    assert len(t.failed) == 2


def test_output_root_locked(tmp_path):
    """Two sweeps into one output root would mix their cases' files: the second is refused,
    naming the PID that holds the folder (here another process holding the library's lock)."""
    root = tmp_path / "runs"
    root.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nos.write(fd, b'%d\\n' % os.getpid())\n"
         "print('locked', flush=True)\ntime.sleep(60)", str(root / ".cosserat.lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(cosserat.CosseratError) as e:
            cosserat.sweep(TENDON, [{"rod.elements": 10}], workers=1, output_root=str(root))
        assert f"another run (PID {holder.pid}) is writing into this output directory" in str(e.value)
        assert not (root / "case_0000").exists()
        # a run of the library into a case folder the sweep would write is refused the same way
        (root / "case_0000").mkdir()
        os.link(root / ".cosserat.lock", root / "case_0000" / ".cosserat.lock")
        with pytest.raises(cosserat.CosseratError) as e:
            cosserat.run(TENDON, {"rod.elements": 10}, output_dir=str(root / "case_0000"))
        assert f"PID {holder.pid}" in str(e.value)
    finally:
        holder.kill()
        holder.wait()
    os.unlink(root / "case_0000" / ".cosserat.lock")  # (a second name of the root's lock file)
    # the holder is gone (its lock with it): the sweep runs and leaves no lock behind
    table = cosserat.sweep(TENDON, [{"rod.elements": 10}], workers=1, output_root=str(root))
    assert table[0]["status"] == "ok"
    assert os.path.exists(os.path.join(table[0]["output_dir"], "summary.json"))
    assert not (root / ".cosserat.lock").exists()


def test_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    ref = reference()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        with distributed.Client(cl) as client:
            table = cosserat.sweep(TENDON, AXES, measure=tip_angle, client=client)
    check_table(table, ref)


def test_command_line(tmp_path):
    out = tmp_path / "sweep.csv"
    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
    p = subprocess.run([sys.executable, "-m", "cosserat", "sweep", TENDON, "--grid", "rod.elements=10,0",
                        "--grid", "stages.0.load_steps=3", "--out", str(out), "--workers", "2"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 2, p.stderr  # one case failed, and says so
    rows = list(csv.DictReader(open(out)))
    assert [r["status"] for r in rows] == ["ok", "bad input"]
    assert float(rows[0]["tip_x"]) == pytest.approx(cosserat.run(TENDON, {"rod.elements": 10, "stages.0.load_steps": 3}).positions[-1][0], rel=1e-15)
    assert "case 1: bad input" in p.stderr


SCRIPT = """import cosserat
import sys
{body}
"""
SWEEP = """table = cosserat.sweep({tendon!r}, {{"rod.elements": [10, 12]}}, workers=2)
print([(r["status"], r["tip_x"]) for r in table])"""


def test_script_without_main_guard(tmp_path):
    """The documented snippet saved as a script without ``if __name__ == "__main__":``: every
    spawned worker imports the script again, which calls sweep again and stops the worker.
    Every case came back as "worker died", hiding why; the sweep now says so. With the guard
    the same script gives the numbers of direct runs."""
    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
    bare = tmp_path / "bare.py"
    bare.write_text(SCRIPT.format(body=SWEEP.format(tendon=TENDON)))
    p = subprocess.run([sys.executable, str(bare)], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 1 and "worker died" not in p.stdout, p.stdout
    # (the line of the parent's error: the pool's threads may print after it as it ends)
    said = [line for line in p.stderr.splitlines()
            if line.startswith("cosserat.CosseratError: cosserat.sweep: every worker process imports ")]
    assert said, p.stderr
    assert str(bare) in said[0] and 'if __name__ == "__main__":' in said[0]
    guarded = tmp_path / "guarded.py"
    body = "if __name__ == '__main__':\n" + "".join("    " + line + "\n" for line in SWEEP.format(tendon=TENDON).splitlines())
    guarded.write_text(SCRIPT.format(body=body))
    p = subprocess.run([sys.executable, str(guarded)], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    got = eval(p.stdout.strip().splitlines()[-1])  # noqa: S307 — our own script's printout
    want = [float(cosserat.run(TENDON, {"rod.elements": n}).positions[-1][0]) for n in (10, 12)]
    assert got == [("ok", w) for w in want]
