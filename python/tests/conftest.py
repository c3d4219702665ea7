"""Shared fixtures: the CLI, the examples, and CLI runs used as independent references.

tests/python.sh sets COSSERAT_LIBRARY, COSSERAT_CLI and COSSERAT_SOURCE_DIR; when run by hand,
the CLI defaults to the cosserat executable next to the library and the sources to this checkout.
"""

import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("COSSERAT_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
TENDON = os.path.join(SOURCE_DIR, "examples", "tendon-manipulator.json")
HELIX = os.path.join(SOURCE_DIR, "examples", "two-helical-segments.json")


def cli_path():
    cli = os.environ.get("COSSERAT_CLI")
    if not cli:
        lib = os.environ.get("COSSERAT_LIBRARY") or os.path.join(SOURCE_DIR, "build", "libcosserat.so")
        cli = os.path.join(os.path.dirname(lib), "cosserat")
    return cli


def run_cli(scenario, outdir, *sets, expect=0):
    """Runs `cosserat run scenario -o outdir --set ...`; returns the CompletedProcess."""
    cli = cli_path()
    if not os.access(cli, os.X_OK):
        pytest.fail(f"CLI not found at {cli} (set COSSERAT_CLI)")
    cmd = [cli, "run", scenario, "-o", str(outdir), "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == expect, f"{' '.join(cmd)} -> {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


@pytest.fixture(scope="session")
def tendon_cli(tmp_path_factory):
    """CLI output folder of the tendon example with 50 elements."""
    d = tmp_path_factory.mktemp("tendon50")
    run_cli(TENDON, d, "rod.elements=50")
    return d


@pytest.fixture(scope="session")
def helix_cli(tmp_path_factory):
    """CLI output folder of the helix example with 99 elements."""
    d = tmp_path_factory.mktemp("helix99")
    run_cli(HELIX, d, "rod.elements=99")
    return d
