#pragma once
/// \file integrator.hpp
/// \brief Time integrators: affine step maps over the kernel's System (system.hpp).
///
/// An integrator maps one Newton unknown x (acceleration-like) affinely to the evaluation point
///
///     q = q_pred + c_q x,   v = v_pred + c_v x,   a = a_pred + c_a x
///
/// so that dF/dx = c_q dF/dq + c_v dF/dv + c_a dF/da is exactly the Jacobian of assembly.hpp.
/// Implicit Euler: c = (h^2, h, 1); Newmark: (beta h^2, gamma h, 1); implicit midpoint
/// evaluated at the midpoint: (h^2/4, h/2, 1); statics: x = q, c = (1, 0, 0), v = a = 0.
/// The kernel's Newton solver (System::solve, shared by all integrators) solves F = 0 for x; an
/// integrator may instead run its own iteration over the open System API (system.hpp). The
/// kernel's time loop retries a failed step with a smaller dt and grows it back; with error
/// control (ErrorControl) it also chooses every step's size from the integrator's estimate of its
/// local error.

#include "soma/api.hpp"
#include "soma/assembly.hpp"
#include "soma/constraint.hpp"
#include "soma/system.hpp"

#include <limits>
#include <string>

namespace soma {

class CheckpointWriter;
class CheckpointReader;

/// \brief Tolerances of a step's local error (the scene's `integrator.error_control`).
///
/// The error e of a step, estimated by the integrator per DOF in the DOF (tangent) space, is
/// measured as the root mean square over the free DOFs of e_i / (absolute + relative |q_i|),
/// |q_i| the larger of the step's start and end values (a manifold block's DOFs hold its tangent
/// displacement, zero at the start: rotations answer to `absolute` and the step's own turn). A
/// step whose measure exceeds 1 is not committed; the time loop sizes the next attempt from it.
struct ErrorControl {
    double relative = 1e-3;
    double absolute = 1e-6;
};

/// What one step attempt did.
struct StepReport {
    bool converged = false;
    int newton_iterations = 0;
    /// Iterations of the integrator's own Krylov solves in this attempt (ncp_newton's Schur
    /// complement); the time loop adds those of the linear solver (System::solve_linear with an
    /// iterative solver), so an integrator reports only what does not pass through it.
    int linear_iterations = 0;
    std::string diagnosis;
    /// Under error control: the step's local error in units of its tolerance (ErrorControl).
    /// A converged step with error > 1 was solved but not committed. Negative: not estimated
    /// (no error control).
    double error = -1.0;
    /// The order p of this step's estimate when it differs from error_order() (a multistep rule's
    /// one-step start: BDF2's implicit Euler steps estimate at order 1), so the time loop scales
    /// the next attempt by error^(-1/(p+1)) with the right p; 0: error_order().
    int error_order = 0;
    /// Under error control: the ratio h_next / h of the next step (or the next attempt, after a
    /// rejection) to this one, when the integrator chooses it itself: a multistep rule of
    /// variable order picks its order and step together and holds the step for some steps after
    /// a change (plugins/integrators/bdf.hpp). The time loop still bounds it as its own ratios
    /// (at least 0.2; at most largest_step_ratio() and `error_control.max_step`, and 0.9 after a
    /// rejection). 0: the time loop derives the ratio from error and error_order.
    double next_step_ratio = 0.0;
};

/// Advances (t, q, v) by one step. Integrators are stateless across rejected attempts: on
/// failure nothing must have been committed.
class SOMA_API Integrator {
public:
    virtual ~Integrator();
    /// Takes one step of size h from system.state(); commits through system.commit on success.
    virtual StepReport step(System& system, double h) = 0;
    /// Checkpoint hooks (checkpoint.hpp): the state this integrator carries from one step to the
    /// next beyond q, v and a (a predictor's history, whether the first step was prepared). The defaults save nothing.
    virtual void save_checkpoint(CheckpointWriter& out) const;
    virtual void restore_checkpoint(CheckpointReader& in);
    /// Whether the step uses the kernel's Newton options (the scene's `integrator.newton` block);
    /// false for an integrator that runs its own iteration with its own keys: the scene then
    /// refuses a `newton` block rather than ignore it.
    virtual bool uses_newton_options() const { return true; }
    /// Constraint kinds this integrator treats (none for the penalty-based integrators).
    virtual bool supports(ConstraintKind kind) const { (void)kind; return false; }
    /// True for integrators whose velocities and accelerations are zero (statics).
    virtual bool is_static() const { return false; }
    /// \brief Whether the integrator damps vibrations the step cannot resolve.
    ///
    /// True when its spectral radius on an undamped oscillator stays below 1 as omega h grows
    /// without bound (implicit Euler: 1/sqrt(1 + (omega h)^2) -> 0; Newmark with gamma > 1/2).
    /// Return false for the energy-conserving rules (implicit midpoint, Newmark with gamma = 1/2:
    /// radius 1 for every omega h): under them a mode with omega h >> 1, such as a stiff penalty
    /// contact's (Contributor::is_penalty_contact), keeps its amplitude, flips sign every step,
    /// and on a nonlinear force may gain energy. The kernel prints a note for that pairing.
    virtual bool damps_unresolved_modes() const { return true; }
    /// \brief Whether the integrator solves M a = f with the mass matrix alone (c = (0, 0, 1)):
    /// Newmark's consistent initial acceleration, explicit schemes. The kernel then refuses, when
    /// the scene is built, a free DOF without mass (a midedge_shell's xi), on which that
    /// system is singular.
    virtual bool solves_with_mass_alone() const { return false; }
    /// \brief The order p of this integrator's local error estimate (the error of a step of size
    /// h grows as h^(p+1), so the time loop scales h by error^(-1/(p+1))); 0 when it has none,
    /// and a scene asking for error control is refused.
    virtual int error_order() const { return 0; }
    /// \brief Turns on error control (called once, before the first step, when error_order() > 0):
    /// step() then estimates each converged step's local error, reports it in units of
    /// \p control's tolerance (StepReport::error) and commits the step only when it is <= 1.
    virtual void set_error_control(const ErrorControl& control) { (void)control; }
    /// \brief Whether the error estimate stays meaningful with hard constraints. False for a rule
    /// that holds them away from the step's end (the implicit midpoint rule, at the midpoint): its
    /// end state drifts off the constraints, the next step's correction of that drift enters the
    /// acceleration as drift / h^2, and the estimate (~h^2 times an acceleration difference) then
    /// no longer falls with h. The kernel refuses error control there.
    virtual bool estimates_error_with_hard_constraints() const { return true; }
    /// \brief The largest ratio h_{n+1} / h_n of a step to the one before it under which the
    /// integrator stays stable: none for the one-step rules (infinity); a multistep rule whose
    /// coefficients follow the ratio (variable-step BDF2, zero-stable below 1 + sqrt(2)) caps it.
    /// The time loop grows steps by no more than this (error control), and the scene is refused
    /// when `adaptive.grow` exceeds it.
    virtual double largest_step_ratio() const { return std::numeric_limits<double>::infinity(); }
};

}  // namespace soma
