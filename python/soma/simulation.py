"""soma.Simulation: one scene, stepped from Python (docs/python.md)."""

import json
import operator
import os

import numpy as np

from . import _soma


class State:
    """Everything the next step depends on, taken by Simulation.state().

    t, q, v and a are numpy copies the caller may read or edit; Simulation.set_state(state) goes
    back to the whole state taken (including what is not in q, v and a: rod reference frames,
    integrator and controller memory, actuation set from Python), then commits edited q, v, a.
    """

    __slots__ = ("t", "q", "v", "a", "_snapshot")

    def __init__(self, snapshot):
        self._snapshot = snapshot
        self.t = snapshot.t
        self.q = snapshot.q
        self.v = snapshot.v
        self.a = snapshot.a

    def __repr__(self):
        return f"soma.State(t={self.t!r}, {self.v.size} DOFs)"


def _scene_document(scene, base_directory):
    """A parsed scene from a path, or from a dict written as JSON text (JSON is YAML)."""
    if isinstance(scene, dict):
        # Indented, so that a SceneError's line and column point at one key of the dict's text
        # (Simulation.scene_text shows it).
        text = json.dumps(scene, indent=2, allow_nan=False)
        directory = os.path.abspath(base_directory if base_directory is not None else os.getcwd())
        return _soma.load_scene_text(text, "<scene dict>", directory)
    if isinstance(scene, (str, os.PathLike)):
        if base_directory is not None:
            raise TypeError("base_directory applies to a scene given as a dict; a file's paths are relative to the file")
        return _soma.load_scene_file(os.fspath(scene))
    raise TypeError(f"scene must be a path (str or os.PathLike) or a dict, got {type(scene).__name__}")


class Simulation:
    """A scene built as `soma run` builds it, stepped from Python.

    scene: a scene file path, or a dict with the file's content (relative paths in it are relative
        to base_directory, default the current folder).
    overrides: `--set` texts, e.g. ["integrator.dt=1e-4"].
    output: a folder for the scene's outputs (CSV, VTK), written as `soma run --output` writes
        them; None (default): nothing is written.
    progress: the progress bar on stderr (default off).

    Bad input raises soma.SceneError (a ValueError) whose message is `soma check`'s:
    file:line:col, the key, what was expected.
    """

    def __init__(self, scene, overrides=(), output=None, progress=False, base_directory=None):
        if isinstance(overrides, str):
            raise TypeError("overrides is a list of 'key=value' texts, e.g. ['integrator.dt=1e-4']")
        document = _scene_document(scene, base_directory)
        self.scene_text = document.text
        self._sim = _soma.Simulation(document, list(overrides), None if output is None else os.fspath(output),
                                     bool(progress))

    # ---- stepping ----
    def step(self, n=1):
        """Takes n accepted steps (fewer when the end time comes first); returns how many it took.

        A step retries with a smaller dt as the scene's integrator.adaptive says. One that fails
        raises soma.StepFailed (attributes: time, diagnosis) and leaves the simulation at its last
        accepted state, from which it may step again (from the scene's dt) after a change.
        The GIL is released while stepping; Ctrl-C raises KeyboardInterrupt after the step in
        progress. One simulation steps in one thread at a time.
        """
        n = operator.index(n)  # an integer: step(2.7) is a mistake, not 2 steps
        if n < 0:
            raise ValueError(f"step(n): n must be at least 0, got {n}")
        return self._sim.step(n)

    def advance(self, seconds):
        """Steps until `seconds` of simulated time have passed (or the end time came), shortening the
        last step to land on that time; returns the number of steps taken. Raises StepFailed as step()."""
        return self._sim.advance(float(seconds))

    def run(self):
        """Steps to the end time; returns the number of steps taken."""
        return self._sim.run()

    def close(self):
        """Finishes the outputs (the .pvd collection is complete before this too). Idempotent."""
        self._sim.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def time(self):
        """The committed time (s)."""
        return self._sim.time

    @property
    def start_time(self):
        return self._sim.start_time

    @property
    def end_time(self):
        return self._sim.end_time

    @property
    def dt(self):
        """The scene's step size (s)."""
        return self._sim.dt

    @property
    def done(self):
        """True once the time reached the scene's end time."""
        return self._sim.at_end

    @property
    def dof_count(self):
        return self._sim.dof_count

    @property
    def free_dof_count(self):
        return self._sim.free_dof_count

    @property
    def elements(self):
        """The elements' names, in scene order."""
        return self._sim.elements

    def element_type(self, element):
        return self._sim.element_type(element)

    # ---- state ----
    def state(self):
        """A copy of everything the next step depends on (soma.State)."""
        return State(self._sim.snapshot())

    def set_state(self, state):
        """Back to a state taken by state(); q, v, a edited since are committed on top of it.

        Fixed and prescribed DOFs keep their boundary values; rigid bodies' orientation
        coordinates (q after the DOFs) are read-only: turn a body through its rotation DOFs.
        """
        if not isinstance(state, State):
            raise TypeError(f"set_state takes a soma.State from Simulation.state(), got {type(state).__name__}")
        s = state._snapshot
        if state.t != s.t:
            raise ValueError("set_state: the time of a state cannot be edited (step, or take another state)")
        if np.array_equal(state.q, s.q) and np.array_equal(state.v, s.v) and np.array_equal(state.a, s.a):
            self._sim.restore(s)
        else:
            self._sim.restore_edited(s, state.q, state.v, state.a)

    def positions(self, element):
        """Positions of an element's points, an (n, 3) array (m)."""
        return self._sim.positions(element)

    def velocities(self, element):
        """Velocities of an element's points, an (n, 3) array (m/s)."""
        return self._sim.velocities(element)

    # ---- actuation ----
    def actuation_channels(self, element):
        """An element's actuation channels: dicts with name, count, components, unit, doc."""
        return self._sim.actuation_channels(element)

    def set_actuation(self, element, channel, values, items=None):
        """Sets an actuation channel (e.g. a rod's natural_curvature, a shell's natural_hinge_angle).

        values: an array (items, components), or one row (components,) or a scalar given to every
        selected item; items: item indices (default all). The values hold until set again; a
        scene controller driving the same channel sets it again before every solve.
        """
        info = self._channel(element, channel)
        components = len(info["components"])
        count = info["count"] if items is None else len(items)
        values = np.asarray(values, dtype=float)
        if values.ndim == 0 or (values.ndim == 1 and values.size == components and count != 1):
            values = np.broadcast_to(values, (count, components))
        self._sim.set_actuation(element, channel, [] if items is None else [int(i) for i in items],
                                np.ascontiguousarray(values, dtype=float).ravel().tolist())

    def actuation(self, element, channel):
        """The values of a channel, (items, components): as last set from Python, else as the element started."""
        info = self._channel(element, channel)
        return np.asarray(self._sim.actuation(element, channel)).reshape(info["count"], len(info["components"]))

    def _channel(self, element, channel):
        for info in self._sim.actuation_channels(element):
            if info["name"] == channel:
                return info
        names = ", ".join(repr(c["name"]) for c in self._sim.actuation_channels(element)) or "none"
        raise SceneError(f"element '{element}' has no actuation channel '{channel}' (its channels: {names})")

    # ---- results ----
    def energy(self):
        """{'kinetic': J, 'potential': J, 'terms': {name: potential energy of each term}}."""
        return self._sim.energy()

    def contact_forces(self):
        """The complementarity contacts of the last step (ncp_newton) and their forces:
        {'normal': (n,) N, 'friction': (n, 2) N along the contact tangents, 'normal_direction': (n, 3)}.
        Penalty contacts (imc_contact) are forces, not rows: their totals are in statistics()."""
        return self._sim.contact_forces()

    def statistics(self):
        """What each term reports about itself now, as a `csv` output's `statistic` probe reads it:
        {term: {name: value}}, e.g. {'imc_contact': {'active_pairs': 12, 'normal_force': 0.8}}
        (penalty contact totals), a joint drive's coordinate and effort, a contact constraint's forces."""
        return self._sim.statistics()

    def summary(self):
        """Totals so far: steps, newton_iterations, retries, linear_iterations (Krylov iterations:
        an iterative linear solver's and ncp_newton's own), simulated_time."""
        return self._sim.totals()

    def summary_text(self):
        """`soma run`'s summary of the run so far."""
        return self._sim.summary_text()

    def notes(self):
        """Notes the scene's build left (what `soma run` prints as `note:`)."""
        return self._sim.notes()


SceneError = _soma.SceneError
