"""Ctrl-C in cosserat.run: a long dynamic run stops within a fraction of a second, raising
RunInterrupted (a KeyboardInterrupt) with the partial result; the outputs are on disk."""

import json
import os
import signal
import subprocess
import sys
import time

from conftest import SOURCE_DIR

SCRIPT = r"""
import sys, cosserat
try:
    cosserat.run(sys.argv[1], ["stages.1.t_end=60", "output.vtk=false"], output_dir=sys.argv[2])
    print("finished")
except cosserat.RunInterrupted as e:
    r = e.result
    print("interrupted", r.status, len(r.series["t"]), r.series["t"][-1], flush=True)
"""


def test_ctrl_c_stops_a_dynamic_run_with_the_partial_result(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
    ex = os.path.join(SOURCE_DIR, "examples", "wilberforce.json")
    out = tmp_path / "run"
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, ex, str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    series = out / "series.csv"
    deadline = time.time() + 120
    while time.time() < deadline and not (series.exists() and series.stat().st_size > 2000):
        time.sleep(0.05)
    assert series.exists(), "the run never reached its dynamic stage"
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    stopped_in = time.time() - t0
    assert p.returncode == 0, stderr
    words = stdout.split()
    assert words[0] == "interrupted", stdout + stderr
    assert words[1] == "interrupted"  # Status.INTERRUPTED
    assert int(words[2]) > 1 and 0 < float(words[3]) < 60  # a partial series, not the whole run
    assert stopped_in < 10, f"took {stopped_in:.1f} s to stop"
    # everything on disk, saying it was interrupted, with a checkpoint to resume from
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["converged"] is False
    assert (out / "checkpoint.bin").exists() and (out / "nodes.csv").exists()
