"""The Python examples run to the end (python/examples)."""

import os
import subprocess
import sys

from conftest import BUILD, SOURCE


def run_example(name, *args):
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    done = subprocess.run([sys.executable, str(SOURCE / "python" / "examples" / name), *args], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_random_policy_on_the_pneunet_runs_1000_steps():
    out = run_example("pneunet_random_policy.py")
    assert out.startswith("1000 steps in ")


def test_scripted_soft_gripper_curls_its_fingers():
    out = run_example("soft_gripper_scripted.py", "--seconds", "1.5")
    lines = [line for line in out.splitlines() if line.startswith("t = ")]
    assert len(lines) == 6
    # the tips rise as the fingers curl (mean height from -0.30 m hanging to above -0.2 m)
    heights = [float(line.split("mean height")[1].split()[0]) for line in lines]
    assert heights[0] < -0.29 and heights[-1] > -0.2
