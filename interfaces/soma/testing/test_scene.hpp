#pragma once
/// \file testing/test_scene.hpp
/// \brief A SceneView for plugin unit tests: the scene a force binds to, a controller drives or
/// an observer records, without the kernel.
///
/// Header-only, like dense_assembly.hpp, so that in-tree and out-of-tree plugin tests share it:
/// \code
///   soma::testing::TestScene scene;
///   scene.add_element(beam);     // elements are contributors too, listed first
///   scene.add_force(spring);     // forces after the elements, in the order added
///   scene.bind_in_order();       // beam's DOFs at 0 .. n-1; state = initial state, a = 0
///   spring.bind(scene);
///   auto points = soma::testing::TestScene::bound_in_order({&beam});   // the same in one line
/// \endcode
/// Energies are those of the terms at the scene's state unless a test pins them
/// (set_kinetic_energy, set_potential_energy) to check what an observer writes. Notes reported
/// through note() are kept in `notes`.

#include "soma/contributor.hpp"
#include "soma/element.hpp"
#include "soma/scene_view.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace soma::testing {

class TestScene : public SceneView {
public:
    TestScene() = default;
    /// \brief A scene of \p elements (added in order, not bound).
    explicit TestScene(const std::vector<Element*>& elements) {
        for (Element* element : elements) add_element(*element);
    }

    /// \brief A scene of \p elements, bound one after another (bind_in_order), in its initial
    /// state.
    static TestScene bound_in_order(const std::vector<Element*>& elements) {
        TestScene scene(elements);
        scene.bind_in_order();
        return scene;
    }

    /// \brief Adds an element; it is also a contributor (elements come before forces).
    void add_element(Element& element) {
        elements_.push_back(&element);
        list_contributors();
    }
    /// \brief Adds a contributor that is not an element (a force), after the elements.
    void add_force(Contributor& force) {
        forces_.push_back(&force);
        list_contributors();
    }

    /// \brief Binds the elements one after another in the global DOF vector (local DOF k of an
    /// element at the sum of the previous elements' DOF counts plus k) and sets the state to
    /// their initial state at t = 0, with a = 0. Returns the number of DOFs.
    Index bind_in_order() {
        Index next = 0;
        for (Element* element : elements_) {
            std::vector<Index> map(static_cast<std::size_t>(element->dof_count()));
            for (Index& dof : map) dof = next++;
            element->bind(std::move(map));
        }
        State state;
        state.q = VectorX::Zero(next);
        state.v = VectorX::Zero(next);
        state.a = VectorX::Zero(next);
        for (Element* element : elements_) {
            VectorX q, v;
            element->initial_state(q, v);
            for (Index k = 0; k < q.size(); ++k) state.q[element->global_dof(k)] = q[k];
            for (Index k = 0; k < v.size(); ++k) state.v[element->global_dof(k)] = v[k];
        }
        state_ = std::move(state);
        return next;
    }

    /// \brief The number of DOFs of the state.
    Index dof_count() const { return static_cast<Index>(state_.q.size()); }

    /// \brief Sets the committed state that state() returns (and energies are evaluated at).
    void set_state(State state) { state_ = std::move(state); }
    /// \brief Sets the time of the state (what a controller's bind() sees as state().t).
    void set_time(double t) { state_.t = t; }

    /// \brief Pins what kinetic_energy() returns, instead of the elements' kinetic energy.
    void set_kinetic_energy(double value) { kinetic_ = value; }
    /// \brief Pins what potential_energy() returns, instead of the sum over the terms.
    void set_potential_energy(double value) { potential_ = value; }
    /// \brief Pins what potential_energy(term) returns for \p term.
    void set_potential_energy(const Contributor& term, double value) { term_potential_[&term] = value; }

    /// \brief The state as an evaluation context: q, v, a of state(), coefficients (1, 0, 0).
    EvalContext context() const {
        EvalContext c;
        c.t = state_.t;
        c.q = &state_.q;
        c.v = &state_.v;
        c.a = &state_.a;
        c.step_start = &state_;
        return c;
    }

    // ---- SceneView ----
    const std::vector<Element*>& elements() const override { return elements_; }
    Element* find_element(const std::string& name) const override {
        for (Element* element : elements_)
            if (element->name() == name) return element;
        return nullptr;
    }
    const std::vector<Contributor*>& contributors() const override { return contributors_; }
    const State& state() const override { return state_; }
    double kinetic_energy() const override {
        if (kinetic_) return *kinetic_;
        double sum = 0.0;
        for (const Element* element : elements_) sum += element->kinetic_energy(context());
        return sum;
    }
    double potential_energy() const override {
        if (potential_) return *potential_;
        double sum = 0.0;
        for (const Contributor* term : contributors_) sum += potential_energy(*term);
        return sum;
    }
    double potential_energy(const Contributor& term) const override {
        const auto pinned = term_potential_.find(&term);
        return pinned != term_potential_.end() ? pinned->second : term.potential_energy(context());
    }
    void note(const std::string& message) const override { notes.push_back(message); }

    mutable std::vector<std::string> notes;  ///< what the terms reported with note(), in order

private:
    void list_contributors() {
        contributors_.assign(elements_.begin(), elements_.end());
        contributors_.insert(contributors_.end(), forces_.begin(), forces_.end());
    }

    std::vector<Element*> elements_;
    std::vector<Contributor*> forces_;
    std::vector<Contributor*> contributors_;
    State state_;
    std::optional<double> kinetic_;
    std::optional<double> potential_;
    std::map<const Contributor*, double> term_potential_;
};

}  // namespace soma::testing
