"""soma.Simulation: stepping, state, actuation, energies, contact forces and errors."""

import filecmp
import math
import os
import subprocess

import numpy as np
import pytest

from conftest import BUILD, SOURCE, rod_scene

CANTILEVER = SOURCE / "configs" / "rods" / "cantilever.yaml"


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(root, f), folder) for root, _, names in os.walk(folder) for f in names)


def test_stepping_writes_the_cli_run_bit_for_bit(soma, tmp_path):
    # The same scene through `soma run` and through Simulation.step in uneven chunks: every
    # output file (CSV of the tip and energies at 17 digits, VTK frames as raw doubles, the .pvd)
    # must be byte-identical, because both step through one TimeLoop.
    overrides = ["simulation.duration=0.2"]
    cli = tmp_path / "cli"
    subprocess.run([str(BUILD / "bin" / "soma"), "run", str(CANTILEVER), "--quiet", "--output", str(cli),
                    "--set", overrides[0]], check=True, capture_output=True)
    py = tmp_path / "python"
    with soma.Simulation(CANTILEVER, overrides=overrides, output=py) as sim:
        taken = 0
        while not sim.done:
            taken += sim.step(7)
        assert taken == 200
        assert sim.step(5) == 0  # at the end time: nothing more
    names = files_under(cli)
    assert names == files_under(py)
    assert len(names) >= 5
    match, mismatch, errors = filecmp.cmpfiles(cli, py, names, shallow=False)
    assert mismatch == [] and errors == []


def test_without_an_output_folder_nothing_is_written(soma, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sim = soma.Simulation(CANTILEVER, overrides=["simulation.duration=0.01"])
    sim.run()
    sim.close()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("scene,overrides", [
    # rod reference frames (contributor state) and the implicit Euler guess
    (SOURCE / "configs" / "rods" / "cantilever.yaml", []),
    # rigid bodies (quaternion coordinates after the DOFs) with implicit midpoint and joints
    (SOURCE / "configs" / "rigid" / "double_pendulum.yaml", []),
    # a scene controller's memory (actuation) under statics
    (SOURCE / "configs" / "rods" / "pneunet.yaml", []),
    # Newmark's acceleration
    (SOURCE / "configs" / "rods" / "cantilever.yaml", ["integrator={type: newmark, dt: 1.0e-3}"]),
])
def test_a_state_taken_and_set_again_repeats_the_steps_bit_for_bit(soma, scene, overrides):
    sim = soma.Simulation(scene, overrides=overrides)
    sim.step(5)
    taken = sim.state()
    sim.step(10)
    first = {name: sim.positions(name) for name in sim.elements}
    first_v = sim.state().v
    sim.set_state(taken)
    assert sim.time == taken.t
    np.testing.assert_array_equal(sim.state().q, taken.q)
    sim.step(10)
    for name in sim.elements:
        np.testing.assert_array_equal(sim.positions(name), first[name])
    np.testing.assert_array_equal(sim.state().v, first_v)


def test_state_arrays_are_copies(soma):
    sim = soma.Simulation(rod_scene())
    state = sim.state()
    state.q[:] = 123.0
    assert not np.any(sim.state().q == 123.0)
    positions = sim.positions("beam")
    positions[:] = 0.0
    assert sim.positions("beam")[-1, 0] == pytest.approx(0.1)


def test_an_edited_state_is_committed_with_its_boundary_conditions(soma):
    sim = soma.Simulation(rod_scene())
    sim.step(3)
    state = sim.state()
    # DOFs 0..2 are node 0 (fixed): an edit there is refused; the last node's z velocity is free
    # and takes the edited value.
    last_z = 3 * 10 + 2 + 0  # node 10's z: nodes come first, 3 DOFs each (see `soma inspect`)
    state.v[last_z] = 0.5
    state.q[0] = 7.0
    with pytest.raises(soma.SceneError, match=r"q\[0\] is beam node 0 x, which the scene fixes"):
        sim.set_state(state)
    state.q[0] = 0.0
    sim.set_state(state)
    assert sim.velocities("beam")[10, 2] == 0.5
    sim.step(1)
    assert sim.positions("beam")[10, 2] > state.q[last_z]  # moving up at 0.5 m/s


def test_orientation_coordinates_are_read_only(soma):
    sim = soma.Simulation(SOURCE / "configs" / "rigid" / "double_pendulum.yaml")
    state = sim.state()
    assert state.q.size > state.v.size  # quaternions after the DOFs
    state.q[-1] += 0.1
    with pytest.raises(soma.SceneError, match="orientation coordinates"):
        sim.set_state(state)


def test_actuation_set_from_python_equals_the_scene_controller(soma):
    # PneuNet under statics: a constant natural curvature set from Python once, and the same
    # constant written as the scene's actuation controller, give identical shapes.
    pneunet = SOURCE / "configs" / "rods" / "pneunet.yaml"
    scripted = soma.Simulation(pneunet, overrides=["controllers=[]"])
    channel = scripted.actuation_channels("actuator")[0]
    assert channel["name"] == "natural_curvature" and channel["components"] == ["kappa1", "kappa2"]
    scripted.set_actuation("actuator", "natural_curvature", [-20.0, 0.0])
    np.testing.assert_array_equal(scripted.actuation("actuator", "natural_curvature")[:, 0], -20.0)
    scene = soma.Simulation(pneunet, overrides=['controllers[0].values=["-20", "0"]'])
    scripted.step(3)
    scene.step(3)
    np.testing.assert_array_equal(scripted.positions("actuator"), scene.positions("actuator"))
    # and the tip lies where the stress-free shape puts it: edge j of 50 (dl = 2 mm, edge 0
    # clamped along x) turned by j kappa dl, since a physical curvature kappa turns each of the 49
    # bend-twist springs by kappa dl. Gravity's sag, q L^4 / (8 EI) = 3e-5 m on the straight rod
    # at E = 20 GPa, bounds the difference.
    kappa, dl = 20.0, 0.002
    turned = kappa * dl * np.arange(50)
    tip = scripted.positions("actuator")[-1]
    assert tip[0] == pytest.approx(dl * np.cos(turned).sum(), abs=3e-5)
    assert tip[2] == pytest.approx(-dl * np.sin(turned).sum(), abs=3e-5)


def test_set_state_restores_actuation_set_since(soma):
    sim = soma.Simulation(SOURCE / "configs" / "rods" / "pneunet.yaml", overrides=["controllers=[]"])
    before = sim.state()
    sim.set_actuation("actuator", "natural_curvature", -10.0, items=[0, 1])
    assert sim.actuation("actuator", "natural_curvature")[1, 0] == -10.0
    assert sim.actuation("actuator", "natural_curvature")[1, 1] == -10.0
    sim.set_state(before)
    assert np.all(sim.actuation("actuator", "natural_curvature") == 0.0)


def test_energies_add_up(soma):
    sim = soma.Simulation(CANTILEVER)
    sim.step(20)
    energy = sim.energy()
    assert set(energy["terms"]) == {"beam", "gravity", "viscous_drag"}
    assert energy["kinetic"] > 0.0
    assert energy["potential"] == pytest.approx(sum(energy["terms"].values()), rel=1e-12)


def test_contact_forces_of_a_resting_box_carry_its_weight(soma):
    # A 0.2 m cube of 500 kg/m^3 (4 kg) resting on the floor under the non-smooth Newton solver:
    # its four corner contacts' normal forces sum to m g (a resting contact is solved exactly).
    scene = {
        "simulation": {"duration": 0.1},
        "integrator": {"type": "ncp_newton", "dt": 0.01},
        "elements": [{"name": "box", "type": "rigid_body", "position": [0, 0, 0.1],
                      "shape": {"box": {"size": [0.2, 0.2, 0.2]}}, "density": 500}],
        "forces": [{"type": "gravity", "acceleration": [0, 0, -9.81]}],
        "constraints": [{"type": "ncp_contact", "floor": {"height": 0}, "friction": 0.5}],
    }
    sim = soma.Simulation(scene)
    sim.step(5)
    contacts = sim.contact_forces()
    assert contacts["normal"].shape == (4,)
    assert contacts["normal"].sum() == pytest.approx(4.0 * 9.81, rel=1e-6)
    np.testing.assert_allclose(contacts["normal_direction"], [[0, 0, 1]] * 4, atol=1e-12)
    np.testing.assert_allclose(contacts["friction"], 0.0, atol=1e-6)
    # Where each force acts: the box's four bottom corners, on the floor (the gap tolerance, 1e-9 m).
    np.testing.assert_allclose(np.sort(contacts["point"][:, :2], axis=0), [[-0.1, -0.1]] * 2 + [[0.1, 0.1]] * 2, atol=1e-9)
    np.testing.assert_allclose(contacts["point"][:, 2], 0.0, atol=1e-9)


def test_a_failed_step_raises_and_keeps_the_last_good_state(soma):
    # Symplectic Euler far above its stability limit (the termination test of the kernel): the
    # state grows until it is not finite and the step fails after its retries.
    sim = soma.Simulation(rod_scene(integrator="symplectic_euler", duration=0.2))
    with pytest.raises(soma.StepFailed) as failure:
        sim.step(1000)
    assert "stable only for dt < 2/omega_max" in failure.value.diagnosis
    assert failure.value.time == sim.time
    good = sim.state()
    assert np.all(np.isfinite(good.q))
    assert 0.0 < sim.time < 0.2


def test_scene_errors_point_at_the_input(soma, tmp_path):
    scene = rod_scene()
    scene["elements"][0]["materal"] = scene["elements"][0].pop("material")
    with pytest.raises(soma.SceneError) as error:
        soma.Simulation(scene)
    message = str(error.value)
    assert "<scene dict>:" in message and "elements[0].materal: unknown key 'materal'; did you mean 'material'" in message
    assert isinstance(error.value, ValueError)
    with pytest.raises(soma.SceneError, match="no_such_file.yaml"):
        soma.Simulation(tmp_path / "no_such_file.yaml")
    with pytest.raises(soma.SceneError, match=r"--set integrator.dt=-1"):
        soma.Simulation(rod_scene(), overrides=["integrator.dt=-1"])
    with pytest.raises(TypeError):
        soma.Simulation(rod_scene(), overrides="integrator.dt=1e-4")
    with pytest.raises(TypeError):
        soma.Simulation(42)


def test_queries_refuse_what_the_scene_lacks(soma):
    sim = soma.Simulation(rod_scene())
    with pytest.raises(soma.SceneError, match=r"no element named 'bean' in the scene \(elements: 'beam'\)"):
        sim.positions("bean")
    with pytest.raises(soma.SceneError, match="has no actuation channel 'pressure'"):
        sim.set_actuation("beam", "pressure", 1.0)
    with pytest.raises(soma.SceneError, match="expected 18"):
        sim.set_actuation("beam", "natural_curvature", np.zeros((4, 2)))
    with pytest.raises(soma.SceneError, match="out of range"):
        sim.set_actuation("beam", "natural_curvature", [1.0, 0.0], items=[99])
    with pytest.raises(soma.SceneError, match="finite"):
        sim.set_actuation("beam", "natural_curvature", [math.nan, 0.0])
    with pytest.raises(ValueError):
        sim.step(-1)
    with pytest.raises(TypeError):
        sim.step(2.7)


def test_summary_counts_the_steps(soma):
    sim = soma.Simulation(rod_scene())
    sim.step(10)
    summary = sim.summary()
    assert summary["steps"] == 10 and summary["simulated_time"] == pytest.approx(0.01)
    assert summary["newton_iterations"] >= 10
    # A direct linear solver (eigen_ldlt, the scene's) takes no Krylov iterations; CG takes at
    # least one per Newton iteration.
    assert summary["linear_iterations"] == 0
    scene = rod_scene()
    scene["linear_solver"] = {"type": "eigen_cg", "tolerance": 1.0e-12}
    sim = soma.Simulation(scene)
    sim.step(10)
    summary = sim.summary()
    assert summary["linear_iterations"] >= summary["newton_iterations"] > 0
    text = sim.summary_text()
    assert text.startswith("run in progress at t = 0.01 s") and "none written" in text
    sim.run()
    assert sim.summary_text().startswith("run completed")


def test_hinge_angles_set_from_python_equal_the_scene_controller(soma):
    # The plate of configs/shells as a hinge shell: every natural hinge angle set to 0.05 rad from
    # Python, and by an actuation controller in the scene, curl it to the same shape.
    plate = SOURCE / "configs" / "shells" / "cantilever_plate.yaml"
    common = ["elements.plate.type=hinge_shell", "outputs=[]"]
    scripted = soma.Simulation(plate, overrides=common)
    scripted.set_actuation("plate", "natural_hinge_angle", 0.05)
    scene = soma.Simulation(plate, overrides=common + [
        'controllers=[{type: actuation, element: plate, channel: natural_hinge_angle, values: ["0.05"]}]'])
    flat = soma.Simulation(plate, overrides=common)
    for sim in (scripted, scene, flat):
        sim.step(2)
    np.testing.assert_array_equal(scripted.positions("plate"), scene.positions("plate"))
    # and the curl is the actuation's, not gravity's: the free edge moves 4 cm, gravity's sag is 0.3 mm
    assert abs(scripted.positions("plate")[20, 2] - flat.positions("plate")[20, 2]) > 0.01


def test_states_carry_python_actuation_both_ways(soma):
    # A state before any actuation, one after: going back and forth restores each one's
    # actuation, so the steps after repeat bit for bit.
    sim = soma.Simulation(SOURCE / "configs" / "rods" / "pneunet.yaml", overrides=["controllers=[]"])
    plain = sim.state()
    sim.set_actuation("actuator", "natural_curvature", [-20.0, 0.0])
    curled = sim.state()
    sim.step(3)
    reference = sim.positions("actuator")
    sim.set_state(plain)
    assert np.all(sim.actuation("actuator", "natural_curvature") == 0.0)
    sim.set_state(curled)
    sim.step(3)
    np.testing.assert_array_equal(sim.positions("actuator"), reference)


def test_a_state_of_another_simulation_is_refused_and_changes_nothing(soma):
    a = soma.Simulation(rod_scene())
    b = soma.Simulation(rod_scene(integrator="newmark"))
    a.step(5)
    b.step(20)
    before = a.state()
    with pytest.raises(soma.SceneError, match="taken from another simulation"):
        a.set_state(b.state())
    assert a.time == before.t
    np.testing.assert_array_equal(a.state().q, before.q)


def test_one_simulation_is_used_by_one_thread_at_a_time(soma):
    import threading
    sim = soma.Simulation(rod_scene(duration=20.0))
    worker = threading.Thread(target=sim.run)
    worker.start()
    try:
        while sim.time == 0.0:  # the worker is stepping (the GIL is released)
            pass
        with pytest.raises(RuntimeError, match="in use by another thread"):
            sim.step(1)
    finally:
        worker.join()
    assert sim.done


def test_ctrl_c_interrupts_a_long_run(tmp_path):
    # A 10^6-step run in a child process gets SIGINT after its first steps: KeyboardInterrupt
    # after the step in progress, not at the end of the run.
    import signal
    import sys
    import time
    script = tmp_path / "long_run.py"
    script.write_text(
        "import sys, soma\n"
        f"sys.path.insert(0, {str(SOURCE / 'python' / 'tests')!r})\n"
        "from conftest import rod_scene\n"
        "sim = soma.Simulation(rod_scene(duration=1000.0))\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    sim.run()\n"
        "except KeyboardInterrupt as e:\n"
        "    print('interrupted', sim.time, e, flush=True)\n")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ, PYTHONPATH=str(BUILD / "python")))
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    assert time.monotonic() - sent < 5.0
    assert out.startswith("interrupted") and "interrupted at t = " in out
    assert 0.0 < float(out.split()[1]) < 1000.0


def test_statistics_report_penalty_contact_totals(soma):
    # The entanglement gripper's straight rods already overlap the contact band (the scene's own
    # note: 280 pairs push weakly from the start), so imc_contact reports pairs and a force.
    sim = soma.Simulation(SOURCE / "configs" / "contact" / "entanglement_gripper.yaml", overrides=["outputs=[]"])
    sim.step(2)
    contact = sim.statistics()["imc_contact"]
    assert contact["active_pairs"] > 0 and contact["normal_force"] > 0.0
