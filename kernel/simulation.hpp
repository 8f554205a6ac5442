#pragma once
/// \file simulation.hpp
/// \brief A simulation built from a validated scene: the scene's objects (elements, forces,
/// constraints, controllers, observers), its model pieces (DOF map, manifold coordinates,
/// boundary conditions, constraint set), and the System an integrator drives (cached assembly,
/// linear solver, evaluation, commit).
///
/// Where each part lives: scene_builder.cpp builds it; simulation.cpp answers SceneView queries;
/// simulation_system.cpp implements System over the model pieces, each in its own file
/// (manifold_coordinates.*, boundary_conditions.*, constraint_set.*); newton.cpp is the Newton
/// iteration over System.

#include "attachment_elimination.hpp"
#include "boundary_conditions.hpp"
#include "checkpoint_file.hpp"
#include "constraint_set.hpp"
#include "contact_set.hpp"
#include "dof_map.hpp"
#include "manifold_coordinates.hpp"
#include "scene_file.hpp"
#include "scene_imports.hpp"
#include "sparse_assembler.hpp"
#include "soma/newton.hpp"
#include "soma/soma.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace soma {

class TypeRegistry;
class PluginLoader;

/// The kernel's schema of a scene file's top level.
ParameterSchema scene_schema();

/// Settings of step retry and growth (integrator.adaptive).
struct AdaptiveStepOptions {
    bool enabled = true;
    int max_retries = 8;
    double shrink = 0.5;
    double grow = 2.0;
    int grow_after = 4;
};

/// Error control of the step size (integrator.error_control): present when the scene asks for it.
struct ErrorControlSettings {
    ErrorControl tolerance;
    double max_step = 0.0;  ///< the largest step (the run's length when the scene gives none)
    int order = 1;          ///< the integrator's error_order()
    double largest_growth = 5.0;  ///< the largest step growth: 5, or the integrator's largest_step_ratio()
};

/// Settings of checkpoints (the scene's `checkpoint` block).
struct CheckpointSettings {
    long every = 0;                      ///< accepted steps between checkpoints; 0: only on interrupt
    std::string file = "checkpoint.soma";///< a file name in the output folder
    bool on_interrupt = true;
};

/// Loads the plugins a scene needs (built-in folder, SOMA_PLUGIN_PATH, the scene's
/// plugin_paths) into the registry. Throws InputError pointing at plugin_paths on failure.
void load_scene_plugins(const SceneDocument& scene, PluginLoader& loader);

class Simulation final : public SceneView, public System {
public:
    /// Validates the scene in full, then constructs everything. Throws InputError.
    Simulation(const SceneDocument& scene, const TypeRegistry& registry);
    ~Simulation() override;

    // ---- SceneView ----
    const std::vector<Element*>& elements() const override { return element_views_; }
    Element* find_element(const std::string& name) const override;
    const std::vector<Contributor*>& contributors() const override { return contributors_; }
    const State& state() const override { return state_; }
    double kinetic_energy() const override;
    double potential_energy() const override;
    double potential_energy(const Contributor& term) const override;
    bool dof_is_free(Index global_dof) const override { return dofs_.is_free(global_dof); }
    /// Kept in notes(), in the order given.
    void note(const std::string& message) const override { notes_.push_back(message); }
    /// Implemented in element_jacobian_blocks.cpp.
    std::unique_ptr<ElementJacobian> element_jacobian(const Element& element) const override;
    /// The equality constraints, then the contact constraints.
    std::vector<const Constraint*> constraint_terms() const override;

    // ---- System ----
    Index dof_count() const override { return dofs_.global_count(); }
    Index configuration_size() const override { return static_cast<Index>(state_.q.size()); }
    void integrate(const VectorX& q, const VectorX& dv, VectorX& out) const override;
    void difference(const VectorX& q1, const VectorX& q0, VectorX& dv) const override;
    void chart_rate(const VectorX& q0, const VectorX& d, const VectorX& v, VectorX& out) const override;
    /// newton_solve (newton.hpp) with the scene's `integrator.newton` options.
    NewtonReport solve(const AffineStep& step, VectorX& x) override;
    void commit(State next) override;
    Index unknown_count() const override { return static_cast<Index>(free_dofs_.size()); }
    const std::vector<Index>& free_dofs() const override { return dofs_.free_dofs(); }
    Index constraint_row_count() const override { return constraints_.row_count(); }
    VectorX& multipliers() override { return lambda_; }
    std::string begin_solve(const AffineStep& step, VectorX& x) override;
    SystemEvaluation evaluate(const AffineStep& step, const VectorX& x, const VectorX& lambda, bool with_jacobian,
                              bool with_force_scale) override;
    const VectorX& residual() const override { return residual_free_; }
    const SparseMatrix& jacobian() const override { return assembler_.jacobian(); }
    bool shift_jacobian_diagonal(const VectorX& shift) override;
    bool factorize() override;
    bool solve_linear(const VectorX& rhs, VectorX& solution) override;
    bool solve_linear(const Eigen::MatrixXd& rhs, Eigen::MatrixXd& solution) override;
    std::string linear_solver_error() const override {
        return elimination_.error().empty() ? solver_->last_error() : elimination_.error();
    }
    const ConstraintRows& constraint_rows() override { return constraints_.rows(); }
    Index contact_count() const override { return contacts_.count(); }
    void detect_contacts(double dt, std::span<const SolvedStep> solved = {}) override;
    const ContactRows& contact_rows() const override { return contacts_.rows(); }
    void set_contact_forces(const VectorX& normal, const VectorX& friction) override;
    std::string diagnose(const AffineStep& step, const std::string& what) override;
    std::string check_solution(const AffineStep& step, const VectorX& x) override;
    /// The scene's Newton options (integrator.newton).
    const NewtonOptions& newton_options() const { return newton_; }

    // ---- the time loop's view ----
    Integrator& integrator() { return *integrator_; }
    double start_time() const { return start_time_; }
    double end_time() const { return end_time_; }
    double nominal_dt() const { return nominal_dt_; }
    const AdaptiveStepOptions& adaptive() const { return adaptive_; }
    /// Error control of the step size; empty: fixed steps (integrator.error_control).
    const std::optional<ErrorControlSettings>& error_control() const { return error_control_; }
    const std::vector<std::unique_ptr<Observer>>& observers() const { return observers_; }
    const CheckpointSettings& checkpoint_settings() const { return checkpoint_; }
    /// Output folder from the scene (`output.directory`), empty if not given.
    const std::string& scene_output_directory() const { return output_directory_; }
    /// Notes for the user found while building (e.g. an unsymmetric Jacobian with LDLT).
    const std::vector<std::string>& notes() const { return notes_; }
    Index free_dof_count() const { return dofs_.free_count(); }
    /// Global DOF numbering and which DOFs are fixed or prescribed (`soma inspect`).
    const DofMap& dof_map() const { return dofs_; }
    /// The scene `type` an element was built from ("?" for an element not of this simulation).
    std::string element_type_name(const Element& element) const;

    /// Runs every contributor's begin_step; the contributors whose pattern_changed() declare
    /// their stencils again, and the linear solver analyzes again only if a new nonzero appeared.
    void begin_attempt();
    /// Runs every contributor's reject_step after a failed attempt.
    void reject_attempt();

    /// Saves the state the run carries across steps (implemented in simulation_checkpoint.cpp):
    /// section "state" (t, q, v, a, the constraint multipliers), then one section per object
    /// that has a checkpoint hook: contributors, the integrator, controllers, constraints and
    /// outputs (section names from section_name()).
    void save_checkpoint(CheckpointFile& file) const;
    /// Restores what save_checkpoint wrote, except the outputs (the time loop resumes them
    /// with their folder). Throws CheckpointError when the checkpoint does not fit this scene.
    void restore_checkpoint(const CheckpointFile& file);
    /// "output 2 (csv)", "contributor 0 'beam'", ...: the section of object `index` of a kind.
    std::string section_name(const char* kind, std::size_t index) const;

    /// The scene's constraints, and the multipliers of their rows at the committed state (the
    /// constraint forces: N for a position row), in constraint order.
    const std::vector<std::unique_ptr<Constraint>>& constraints() const { return constraints_.constraints(); }
    /// The scene's contact constraints (kind inequality), in scene order.
    const std::vector<std::unique_ptr<ContactConstraint>>& contact_constraints() const { return contacts_.constraints(); }
    /// The contacts of the last step and their forces at its end (System::set_contact_forces):
    /// normal (N, one per contact) and friction (two per contact, along contact_tangents' t1, t2).
    const ContactSet& contact_set() const { return contacts_; }
    const VectorX& constraint_multipliers() const { return lambda_; }

    /// Time spent in assembly, factorization, solves and pattern updates (declaring and placing
    /// stencils, with the analyses they need) since construction (seconds), and how often each
    /// ran. `analyses` counts the linear solver's symbolic analyses (one per pattern with new
    /// nonzeros); `pattern_updates` counts stencil placements (construction and every change).
    struct Timings {
        /// step_start: the contributors' begin_step (contact broad phase, rod reference frames);
        /// pattern: declaring changed stencils, placing them, growing the pattern, and the solver's
    /// analysis of a grown pattern (at the next factorization).
        double assembly = 0.0, factorization = 0.0, solve = 0.0, pattern = 0.0, step_start = 0.0;
        long evaluations = 0, factorizations = 0, analyses = 0, pattern_updates = 0, chord_steps = 0;
        /// The linear solver's iterations over every solve (an iterative solver's; 0 for a direct one).
        long linear_solver_iterations = 0;
        /// Per contributor (contributors() order): its add_residual_and_jacobian, its begin_step.
        std::vector<double> term_assembly, term_step_start;
    };
    const Timings& timings() const { return timings_; }
    /// A label per contributor for the run summary's split: an element's type, a force's name.
    const std::vector<std::string>& term_labels() const { return term_labels_; }

private:
    void build_shared_nodes(const Parameters& scene);
    void build_forces(const Parameters& scene, const TypeRegistry& registry);
    void build_solver_and_integrator(const Parameters& scene, const TypeRegistry& registry);
    /// \p own_count: the constraints the scene itself lists, before those its imports appended.
    void build_constraints(const Parameters& scene, const TypeRegistry& registry, std::size_t own_count);
    /// Binds one constraint to the scene built so far and adds it to the equality or the contact set.
    void add_constraint(std::unique_ptr<Constraint> constraint, const Parameters& block);
    /// Throws CheckpointError when an import writes other text than the checkpoint recorded.
    void check_imports_unchanged(const CheckpointFile& file) const;
    /// Throws the located error (at the integrator's type) for a free DOF without mass when the
    /// integrator solves with the mass matrix alone (Integrator::solves_with_mass_alone).
    void refuse_massless_free_dofs(const Parameters& integrator_block);
    /// A note for each penalty contact force when the integrator does not damp unresolved modes.
    void note_penalty_contact_pairing(const Parameters& integrator_block);
    /// Throws the located error for a hard constraint paired with a solver without saddle_point.
    /// Eliminates \p blocks' rows and determined DOFs from each linear solve (and says so).
    void eliminate_attachments(std::vector<EliminatedBlock> blocks);
    [[noreturn]] void refuse_saddle_point_solver(const Parameters& solver_block, const Constraint& hard,
                                                 const TypeRegistry& registry) const;
    /// q_, v_, a_ and context_ at the Newton unknown \p x of \p step.
    void set_evaluation_point(const AffineStep& step, const VectorX& x);
    /// Every contributor declares its stencils again (ids may all change); the pattern grows.
    void rebuild_pattern();
    /// Only the contributors in pattern_changed_ declare again (or everyone, see the .cpp).
    void redeclare_changed_stencils();
    /// Places stencils [first, end) in the pattern; when it grew, the next factorize() analyzes it.
    void place_stencils(StencilId first);
    /// The solver's analysis of the pattern, if it grew since the last one.
    void analyze_pattern();

    std::string describe_global_dof(Index global) const;
    /// The evaluation context of the committed state (energies for observers).
    EvalContext committed_context() const;

    std::vector<std::unique_ptr<Element>> elements_;
    std::vector<std::unique_ptr<Force>> forces_;
    std::vector<Element*> element_views_;
    std::vector<Contributor*> contributors_;
    std::vector<Parameters> element_parameters_;
    DofMap dofs_{{}};
    SparseAssembler assembler_;
    /// Stencils [first, last) each contributor declared in the current pattern (contributor
    /// order), and a counter bumped by every rebuild: what ElementJacobian reads.
    std::vector<std::pair<StencilId, StencilId>> stencil_ranges_;
    long pattern_generation_ = 0;
    /// The constraints' stencils: [0, constraint_stencils_end_), declared first by rebuild_pattern.
    StencilId constraint_stencils_end_ = 0;
    /// Contributors (by index) whose pattern_changed() was true at this attempt's start.
    std::vector<std::size_t> pattern_changed_;
    std::unique_ptr<LinearSolver> solver_;
    std::unique_ptr<Integrator> integrator_;
    std::vector<std::unique_ptr<Observer>> observers_;
    std::vector<std::unique_ptr<Controller>> controllers_;
    ManifoldCoordinates manifold_;
    BoundaryConditions boundary_;
    /// Multipliers are unknowns after the free DOFs (free index n_f + row).
    ConstraintSet constraints_;
    /// The attachments taken out of each linear solve (null-space reduction), and its buffers.
    AttachmentElimination elimination_;
    VectorX reduced_rhs_, reduced_solution_;
    /// The last factorize() reduced and factorized: solves may use the elimination's values.
    bool reduced_factorization_ = false;
    /// Inequality constraints (contacts): outside the KKT system, read by the integrator.
    ContactSet contacts_;
    std::vector<Index> free_index_, free_dofs_;     ///< the DOF map's, extended by the multipliers
    VectorX lambda_;  ///< the multipliers of the last converged solve
    double constraint_residual_ = 0.0;  ///< largest |C + alpha lambda| at the last evaluation

    State state_;
    double start_time_ = 0.0, end_time_ = 0.0, nominal_dt_ = 0.0;
    NewtonOptions newton_;
    AdaptiveStepOptions adaptive_;
    std::optional<ErrorControlSettings> error_control_;
    bool mass_alone_for_error_control_ = false;  ///< the integrator solves with M alone because of it
    std::string output_directory_;
    CheckpointSettings checkpoint_;
    mutable std::vector<std::string> notes_;  ///< note() is const: forces and observers see a const view
    Timings timings_;
    std::vector<std::string> term_labels_;
    bool analysis_pending_ = false;  ///< the pattern grew since the solver's last analysis

    // Evaluation buffers, sized once: no allocation inside an iteration.
    VectorX q_, v_, a_, residual_, residual_free_, column_rhs_, column_solution_;
    VectorX end_displacement_;  ///< an explicit step's end displacement at the iterate (AffineStep::end_c_q)
    std::vector<ImportedText> imported_;  ///< what the scene's imports wrote (checkpoints compare it)
    /// Assembly::residual_scale over the global rows, and its free DOFs' rows in unknown order.
    VectorX residual_scale_, force_scale_free_;
    EvalContext context_;
    std::unique_ptr<NewtonWorkspace> newton_work_;
};

}  // namespace soma
