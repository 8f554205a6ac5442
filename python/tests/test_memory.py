"""No memory growth over 10^5 steps through the Python API."""

import resource

from conftest import rod_scene


def resident_kib():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() // 1024


def test_no_memory_growth_over_100000_steps(soma):
    # A 6-node rod stepped one step per call (the API's per-call path: argument conversion, the
    # GIL released and taken back), with a state snapshot and positions read every 100 steps, and a
    # reset to the start every 10^4 steps (the scene ends at 10 s = 10^4 steps of 1 ms).
    # After a warm-up episode, RSS may not grow by more than 1 MiB over 10^5 steps: a leak of 11
    # bytes per step (one pointer) would exceed it.
    sim = soma.Simulation(rod_scene(nodes=6, duration=10.0))
    start = sim.state()

    def episode():
        sim.set_state(start)
        for k in range(10_000):
            sim.step(1)
            if k % 100 == 0:
                sim.state()
                sim.positions("beam")
                sim.energy()

    episode()
    before = resident_kib()
    for _ in range(10):
        episode()
    grown = resident_kib() - before
    assert sim.time == 10.0  # every episode ran to its end
    assert grown < 1024, f"RSS grew by {grown} KiB over 10^5 steps"
