// The `soma._soma` extension module: PythonSimulation (python_simulation.hpp) bound with
// pybind11. The Python package (python/soma/__init__.py) wraps it in soma.Simulation, soma.Env
// and soma.VectorEnv; names here are private to that package.
#include "python_simulation.hpp"

#include "soma/contact_end_position.hpp"

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <fmt/format.h>

#include <chrono>
#include <csignal>

namespace py = pybind11;
using soma::python::PythonSimulation;
using soma::python::Snapshot;

namespace {

/// A copy of an Eigen vector as a new numpy array (Python owns it; the simulation moves on).
py::array_t<double> copy_array(const soma::VectorX& v) {
    py::array_t<double> out(v.size());
    std::copy(v.data(), v.data() + v.size(), out.mutable_data());
    return out;
}

soma::VectorX vector_from(const py::array_t<double, py::array::c_style | py::array::forcecast>& a, const char* name) {
    if (a.ndim() != 1) throw soma::InputError(fmt::format("set_state: {} must be a 1-D array, got {} dimensions", name, a.ndim()));
    return Eigen::Map<const soma::VectorX>(a.data(), a.shape(0));
}

/// Energies at the committed state: kinetic, potential, and the potential of each term by name.
py::dict energies(const PythonSimulation& self) {
    const soma::Simulation& sim = self.simulation();
    py::dict terms;
    for (std::size_t i = 0; i < sim.contributors().size(); ++i) {
        const soma::Contributor& term = *sim.contributors()[i];
        const std::string base = term.name().empty() ? sim.term_labels()[i] : term.name();
        // Two terms of one name (two unnamed forces of one type): number them in scene order.
        std::string name = base;
        for (int k = 2; terms.contains(name); ++k) name = fmt::format("{}#{}", base, k);
        terms[py::str(name)] = sim.potential_energy(term);
    }
    py::dict out;
    out["kinetic"] = sim.kinetic_energy();
    out["potential"] = sim.potential_energy();
    out["terms"] = terms;
    return out;
}

/// The complementarity contacts of the last step and their forces (System::set_contact_forces).
py::dict contact_forces(const PythonSimulation& self) {
    const soma::ContactSet& contacts = self.simulation().contact_set();
    const soma::Index n = contacts.count();
    py::array_t<double> normal_direction({static_cast<py::ssize_t>(n), py::ssize_t{3}});
    py::array_t<double> friction({static_cast<py::ssize_t>(n), py::ssize_t{2}});
    py::array_t<double> normal(static_cast<py::ssize_t>(n));
    py::array_t<double> point({static_cast<py::ssize_t>(n), py::ssize_t{3}});
    auto x = point.mutable_unchecked<2>();
    soma::FrameKinematics frame;
    auto d = normal_direction.mutable_unchecked<2>();
    auto f = friction.mutable_unchecked<2>();
    auto l = normal.mutable_unchecked<1>();
    const bool solved = contacts.normal_forces().size() == n;
    for (soma::Index i = 0; i < n; ++i) {
        const soma::Vec3& direction = contacts.contact(i).normal;
        // Where the force acts on the contact's first end (a body's surface point, a node).
        const soma::Vec3 at = soma::contact_end_position(contacts.contact(i).a, self.simulation().state().q, frame);
        for (int k = 0; k < 3; ++k) {
            d(i, k) = direction[k];
            x(i, k) = at[k];
        }
        l(i) = solved ? contacts.normal_forces()[i] : 0.0;
        for (int k = 0; k < 2; ++k) f(i, k) = solved && contacts.friction_forces().size() == 2 * n ? contacts.friction_forces()[2 * i + k] : 0.0;
    }
    py::dict out;
    out["normal"] = normal;
    out["friction"] = friction;
    out["normal_direction"] = normal_direction;
    out["point"] = point;
    return out;
}

/// What each term reports about itself at the committed state (the CSV probe `statistic`):
/// {term name: {statistic: value}}, forces and elements, then constraints; terms without any left out.
py::dict statistics(const PythonSimulation& self) {
    const soma::Simulation& sim = self.simulation();
    const soma::State& state = sim.state();
    soma::EvalContext context;
    context.t = state.t;
    context.q = &state.q;
    context.v = &state.v;
    context.a = &state.a;
    context.step_start = &state;
    py::dict out;
    for (std::size_t i = 0; i < sim.contributors().size(); ++i) {
        const soma::Contributor& term = *sim.contributors()[i];
        const std::vector<soma::TermStatistic> names = term.statistics();
        if (names.empty()) continue;
        py::dict values;
        for (std::size_t k = 0; k < names.size(); ++k) values[py::str(names[k].name)] = term.statistic(k, context);
        out[py::str(term.name().empty() ? sim.term_labels()[i] : term.name())] = values;
    }
    const std::vector<const soma::Constraint*> constraints = sim.constraint_terms();
    for (std::size_t i = 0; i < constraints.size(); ++i) {
        const std::vector<soma::TermStatistic> names = constraints[i]->statistics();
        if (names.empty()) continue;
        py::dict values;
        for (std::size_t k = 0; k < names.size(); ++k) values[py::str(names[k].name)] = constraints[i]->statistic(k);
        out[py::str(constraints[i]->name().empty() ? fmt::format("constraint {}", i) : constraints[i]->name())] = values;
    }
    return out;
}

py::list actuation_channels(const PythonSimulation& self, const std::string& element) {
    py::list out;
    for (const soma::ActuationChannel& c : self.element(element).actuation_channels()) {
        py::dict channel;
        channel["name"] = c.name;
        channel["count"] = c.count;
        channel["components"] = c.component_names;
        channel["unit"] = c.unit;
        channel["doc"] = c.doc;
        out.append(channel);
    }
    return out;
}

}  // namespace

PYBIND11_MODULE(_soma, m) {
    m.doc() = "Soma's simulation kernel (use the soma package, not this module)";
    // Exceptions: the package subclasses these (soma.SceneError, soma.StepFailed).
    static py::exception<soma::InputError> scene_error(m, "SceneError", PyExc_ValueError);
    static py::exception<soma::python::StepFailed> step_failed(m, "StepFailed", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const soma::python::StepFailed& e) {
            py::object error = py::reinterpret_borrow<py::object>(step_failed.ptr())(e.what());
            error.attr("time") = e.time();
            error.attr("diagnosis") = e.what();
            PyErr_SetObject(step_failed.ptr(), error.ptr());
        } catch (const soma::python::Interrupted& e) {
            PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
        } catch (const soma::InputError& e) {
            scene_error(e.what());
        } catch (const soma::CheckpointError& e) {
            scene_error(e.what());
        }
    });

    m.def("load_scene_file", [](const std::filesystem::path& file) { return std::make_shared<soma::SceneDocument>(soma::load_scene_file(file)); });
    m.def("load_scene_text", [](const std::string& text, const std::string& name, const std::filesystem::path& directory) {
        auto scene = std::make_shared<soma::SceneDocument>(soma::load_scene_text(text, name));
        scene->directory = directory;
        return scene;
    });
    py::class_<soma::SceneDocument, std::shared_ptr<soma::SceneDocument>>(m, "SceneDocument")
        .def_property_readonly("file", [](const soma::SceneDocument& s) { return s.file; })
        .def_property_readonly("text", [](const soma::SceneDocument& s) { return s.text; });

    py::class_<Snapshot, std::shared_ptr<Snapshot>>(m, "Snapshot")
        .def_property_readonly("t", [](const Snapshot& s) { return s.state.t; })
        .def_property_readonly("q", [](const Snapshot& s) { return copy_array(s.state.q); })
        .def_property_readonly("v", [](const Snapshot& s) { return copy_array(s.state.v); })
        .def_property_readonly("a", [](const Snapshot& s) { return copy_array(s.state.a); });

    // Ctrl-C while a step runs without the GIL: Python's handler only records the signal, so the
    // time loop polls it between steps, from the main thread (the only one Python delivers
    // signals to) and at most every 50 ms (taking the GIL each step would serialise VectorEnv).
    const unsigned long main_thread =
        py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
    const auto interrupt_poll = [main_thread]() {
        return [main_thread, last = std::chrono::steady_clock::time_point{}]() mutable -> int {
            if (PyThread_get_thread_ident() != main_thread) return 0;
            const auto now = std::chrono::steady_clock::now();
            if (now - last < std::chrono::milliseconds(50)) return 0;
            last = now;
            const py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() == 0) return 0;
            PyErr_Clear();  // raised again as KeyboardInterrupt once the step returns
            return SIGINT;
        };
    };

    py::class_<PythonSimulation>(m, "Simulation")
        .def(py::init([interrupt_poll](const soma::SceneDocument& scene, const std::vector<std::string>& overrides,
                                       const std::optional<std::filesystem::path>& output, bool progress) {
                 return std::make_unique<PythonSimulation>(scene, overrides, output, progress, interrupt_poll());
             }),
             py::arg("scene"), py::arg("overrides"), py::arg("output"), py::arg("progress"))
        // The GIL is released while stepping: VectorEnv steps simulations in parallel threads.
        .def("step", &PythonSimulation::step, py::arg("count"), py::call_guard<py::gil_scoped_release>())
        .def("run", &PythonSimulation::run, py::call_guard<py::gil_scoped_release>())
        .def("advance", &PythonSimulation::advance, py::arg("seconds"), py::call_guard<py::gil_scoped_release>())
        .def("close", &PythonSimulation::close)
        .def_property_readonly("closed", &PythonSimulation::closed)
        .def_property_readonly("at_end", &PythonSimulation::at_end)
        .def_property_readonly("time", [](const PythonSimulation& s) { return s.simulation().state().t; })
        .def_property_readonly("start_time", [](const PythonSimulation& s) { return s.simulation().start_time(); })
        .def_property_readonly("end_time", [](const PythonSimulation& s) { return s.simulation().end_time(); })
        .def_property_readonly("dt", [](const PythonSimulation& s) { return s.simulation().nominal_dt(); })
        .def_property_readonly("dof_count", [](const PythonSimulation& s) { return s.simulation().dof_count(); })
        .def_property_readonly("free_dof_count", [](const PythonSimulation& s) { return s.simulation().free_dof_count(); })
        .def_property_readonly("elements", [](const PythonSimulation& s) {
            std::vector<std::string> names;
            for (const soma::Element* e : s.simulation().elements()) names.push_back(e->name());
            return names;
        })
        .def("element_type", [](const PythonSimulation& s, const std::string& name) {
            return s.simulation().element_type_name(s.element(name));
        })
        .def("totals", [](const PythonSimulation& s) {
            const soma::python::StepTotals t = s.totals();
            py::dict out;
            out["steps"] = t.steps;
            out["newton_iterations"] = t.newton_iterations;
            out["retries"] = t.retries;
            out["linear_iterations"] = t.linear_iterations;
            out["simulated_time"] = t.simulated_time;
            return out;
        })
        .def("summary_text", &PythonSimulation::summary_text)
        .def("notes", [](const PythonSimulation& s) { return s.simulation().notes(); })
        .def("snapshot", [](const PythonSimulation& s) { return std::const_pointer_cast<Snapshot>(s.snapshot()); })
        .def("restore", [](PythonSimulation& s, const Snapshot& snapshot) { s.restore(snapshot, nullptr); })
        .def("restore_edited", [](PythonSimulation& s, const Snapshot& snapshot,
                                  const py::array_t<double, py::array::c_style | py::array::forcecast>& q,
                                  const py::array_t<double, py::array::c_style | py::array::forcecast>& v,
                                  const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
            soma::State edited;
            edited.t = snapshot.state.t;
            edited.q = vector_from(q, "q");
            edited.v = vector_from(v, "v");
            edited.a = vector_from(a, "a");
            s.restore(snapshot, &edited);
        })
        .def("positions", [](const PythonSimulation& s, const std::string& e) { return s.point_positions(e, false); })
        .def("velocities", [](const PythonSimulation& s, const std::string& e) { return s.point_positions(e, true); })
        .def("actuation_channels", &actuation_channels)
        .def("set_actuation", &PythonSimulation::set_actuation)
        .def("actuation", &PythonSimulation::actuation)
        .def("energy", &energies)
        .def("contact_forces", &contact_forces)
        .def("statistics", &statistics);
}
