#pragma once
/// \file contributor.hpp
/// \brief What elements and forces have in common: they add to the residual and Jacobian.

#include "soma/api.hpp"
#include "soma/assembly.hpp"

#include <string>
#include <vector>

namespace soma {

class CheckpointWriter;
class CheckpointReader;

/// A quantity a term reports about itself at a state, for outputs (a CSV probe `statistic`):
/// e.g. a contact force's number of touching pairs or its total normal force.
struct TermStatistic {
    std::string name;  ///< e.g. "active_pairs"
    std::string unit;  ///< e.g. "N", or "" for a count
    std::string doc;   ///< one line for the scene reference and messages
};

/// A term of the residual F(t, q, v, a) (see assembly.hpp).
class SOMA_API Contributor {
public:
    virtual ~Contributor();

    /// The scene name (elements: their `name`; forces: their `name` or their type).
    const std::string& name() const { return name_; }
    void set_name(std::string name) { name_ = std::move(name); }

    /// Declares every stencil this term will add to. Called once after DOFs are bound, and
    /// again whenever pattern_changed() returns true at the start of a step.
    virtual void declare_pattern(PatternBuilder& pattern) = 0;

    /// Adds this term's part of F and, when assembly.wants_jacobian(), of J. Must not allocate.
    virtual void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) = 0;

    /// Potential energy of conservative terms at context.q (0 for dissipative terms).
    virtual double potential_energy(const EvalContext& context) const;

    /// False when dF/dq or dF/dv is unsymmetric (friction); the kernel then tells the user if
    /// the chosen linear solver only reads one triangle.
    virtual bool symmetric_jacobian() const { return true; }

    /// Step hooks: state carried across steps (rod reference frames, contact candidates).
    virtual void begin_step(const State& start);
    virtual void commit_step(const State& end);
    virtual void reject_step();

    /// Checkpoint hooks (checkpoint.hpp): the state this term carries from one step to the
    /// next beyond q, v and a (a rod's reference frames and twists). The defaults save nothing.
    virtual void save_checkpoint(CheckpointWriter& out) const;
    virtual void restore_checkpoint(CheckpointReader& in);
    /// True when the stencils must be declared again (contact pairs appeared or vanished).
    virtual bool pattern_changed() const { return false; }
    /// \brief Declares only the stencils needed beyond those of the last declaration, after them
    /// (their ids follow), and returns true; or declares nothing and returns false, and the kernel
    /// calls declare_pattern() instead.
    ///
    /// Called in place of declare_pattern() when pattern_changed() and this term's stencils are
    /// the last in the tables, so that new stencils can follow them: the kernel then places only
    /// the new ones (a contact pair that appeared), not all of this term's again. The stencils
    /// declared before keep their ids and must stay valid for the stencils this term writes.
    /// Default: false (declare everything).
    virtual bool declare_added_stencils(PatternBuilder& pattern);

    /// \brief Why a converged Newton solution cannot be accepted, or empty to accept it.
    ///
    /// Called by System::solve after Newton converged, with \p context at the solution (q, v,
    /// a, step_start). A term whose forces are only valid near the step's start returns why
    /// the solution left that region, e.g. contact whose candidate pairs, found at the step's
    /// start, no longer cover the configuration reached. The solve then fails with this
    /// diagnosis and the run retries the step with a smaller dt, as for any failed solve.
    /// Must not allocate. Default: accept.
    virtual std::string check_solution(const EvalContext& context) const;

    /// True for contact enforced by a penalty (a force that grows steeply with penetration):
    /// its contact vibration is often far too fast for the step (omega h >> 1), which only an
    /// integrator that damps unresolved modes handles well (Integrator::damps_unresolved_modes);
    /// the kernel prints a note when a scene pairs it with one that does not.
    virtual bool is_penalty_contact() const { return false; }

    /// The quantities this term reports (none by default): what `statistic(i, context)` returns
    /// for index i. Fixed once bound.
    virtual std::vector<TermStatistic> statistics() const { return {}; }
    /// Statistic \p index of statistics() at the state of \p context (q, and v when set).
    /// Called by outputs after a step is committed; may allocate.
    virtual double statistic(std::size_t index, const EvalContext& context) const;

private:
    std::string name_;
};

}  // namespace soma
