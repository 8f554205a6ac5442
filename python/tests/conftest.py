"""Shared helpers of the Python API's tests (run by ctest as `python_api`)."""

import os
import pathlib
import sys

import pytest

SOURCE = pathlib.Path(os.environ.get("SOMA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(os.environ.get("SOMA_BUILD_DIR", SOURCE / "build"))
if str(BUILD / "python") not in sys.path:
    sys.path.insert(0, str(BUILD / "python"))


def rod_scene(nodes=11, duration=0.05, dt=1.0e-3, integrator="implicit_euler", outputs=None):
    """A clamped rod under gravity, 0.1 m long: the cantilever of configs/rods, small."""
    scene = {
        "simulation": {"duration": duration},
        "integrator": {"type": integrator, "dt": dt},
        "linear_solver": {"type": "eigen_ldlt"},
        "elements": [{
            "name": "beam", "type": "discrete_rod",
            "geometry": {"line": {"from": [0, 0, 0], "to": [0.1, 0, 0], "nodes": nodes}},
            "cross_section": {"circle": {"radius": 1.0e-3}},
            "material": {"density": 1200, "youngs_modulus": 2.0e6, "poisson_ratio": 0.5},
            "fixed": {"nodes": [0, 1], "edges": [0]},
        }],
        "forces": [{"type": "gravity", "acceleration": [0, 0, -9.81]}],
    }
    if outputs is not None:
        scene["outputs"] = outputs
    return scene


@pytest.fixture
def soma():
    import soma as module
    return module
