"""The plot command on CLI output folders writes valid, non-empty PNGs."""

import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import SOURCE_DIR

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FOUR = ["centerline.png", "strains.png", "stresses.png", "convergence.png"]


def plot(directory, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
    env.pop("DISPLAY", None)  # headless, and whatever backend the environment asks for
    env.pop("MPLBACKEND", None)
    p = subprocess.run(
        [sys.executable, "-m", "cosserat.plot", str(directory), *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def check_png(path):
    import matplotlib.image

    with open(path, "rb") as f:
        assert f.read(8) == PNG_MAGIC, path
    assert os.path.getsize(path) > 10_000, f"{path}: only {os.path.getsize(path)} bytes"
    img = matplotlib.image.imread(path)
    assert img.ndim == 3 and img.shape[0] > 200 and img.shape[1] > 200
    assert float(np.std(img[..., :3])) > 0, f"{path}: a single flat colour"


@pytest.mark.parametrize("fixture", ["tendon_cli", "helix_cli"])
def test_plot_writes_the_four_pngs(fixture, request, tmp_path):
    src = request.getfixturevalue(fixture)
    out = tmp_path / "png"
    printed = plot(src, "--out", str(out))
    assert printed == [str(out / name) for name in FOUR]
    for name in FOUR:
        check_png(out / name)


def test_plot_defaults_to_the_run_folder_and_plots_series(helix_cli, tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    for name in os.listdir(helix_cli):
        (d / name).write_bytes((helix_cli / name).read_bytes())
    t = np.linspace(0, 2, 201)
    cols = {"t": t, "tip_x": np.sin(3 * t), "tip_z": np.cos(t), "energy": t**2}
    with open(d / "series.csv", "w") as f:
        f.write(",".join(cols) + "\n")
        np.savetxt(f, np.column_stack(list(cols.values())), delimiter=",")
    printed = plot(d)
    assert printed == [str(d / name) for name in FOUR + ["series.png"]]
    check_png(d / "series.png")


def test_plot_reports_a_folder_without_outputs(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
    p = subprocess.run([sys.executable, "-m", "cosserat.plot", str(tmp_path)], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "no run outputs" in p.stderr
