#pragma once
/// \file integrator.hpp
/// \brief Time integrators and the kernel's System they drive.
///
/// An integrator maps one Newton unknown x (acceleration-like) affinely to the evaluation point
///
///     q = q_pred + c_q x,   v = v_pred + c_v x,   a = a_pred + c_a x
///
/// so that dF/dx = c_q dF/dq + c_v dF/dv + c_a dF/da is exactly the Jacobian of assembly.hpp.
/// Implicit Euler: c = (h^2, h, 1); Newmark: (beta h^2, gamma h, 1); implicit midpoint
/// evaluated at the midpoint: (h^2/4, h/2, 1); statics: x = q, c = (1, 0, 0), v = a = 0.
/// The kernel's Newton solver (shared by all integrators) solves F = 0 for x; the kernel's time
/// loop retries a failed step with a smaller dt and grows it back.

#include "soma/api.hpp"
#include "soma/assembly.hpp"
#include "soma/constraint.hpp"

#include <string>

namespace soma {

/// \brief One Newton solve's evaluation point as an affine function of the unknown x.
///
/// All vectors have System::dof_count() entries. q_pred holds the step-start q's DOF entries
/// plus the integrator's tangent predictor, so q = q_pred + c_q x is the evaluation point for
/// vector DOFs and the tangent displacement from the step start for a manifold block's DOFs
/// (the kernel turns the latter into the block's coordinates; element.hpp, ManifoldBlock).
struct AffineStep {
    double t_eval = 0.0;       ///< time at which F is evaluated
    double dt = 0.0;           ///< the step size
    double load_factor = 1.0;  ///< statics load ramp
    VectorX q_pred, v_pred, a_pred;  ///< full size; integrators keep them allocated across steps
    JacobianCoefficients coefficients;
};

/// The outcome of a Newton solve.
struct NewtonReport {
    bool converged = false;
    int iterations = 0;
    double initial_residual = 0.0;  ///< ||F_free|| at the first iterate
    double residual = 0.0;          ///< ||F_free|| at the last iterate
    std::string diagnosis;          ///< on failure: which test failed, the worst DOFs and their owners
};

/// The kernel's assembled model, as an integrator drives it.
class SOMA_API System {
public:
    virtual ~System();
    /// Velocity DOFs: the size of v, a, the Newton unknown and the predictors of AffineStep.
    virtual Index dof_count() const = 0;
    /// Size of q: dof_count() plus the coordinates of manifold blocks (element.hpp), which
    /// follow the DOFs. A committed q holds zero at a manifold block's tangent DOFs.
    virtual Index configuration_size() const = 0;
    /// out = q (+) dv: every DOF moved by dv (vector DOFs: q + dv; manifold blocks: their
    /// integrate). \p out may alias \p q.
    virtual void integrate(const VectorX& q, const VectorX& dv, VectorX& out) const = 0;
    /// dv = q1 (-) q0 (size dof_count()), so that integrate(q0, dv) = q1.
    virtual void difference(const VectorX& q1, const VectorX& q0, VectorX& dv) const = 0;
    /// The committed state the next step starts from.
    virtual const State& state() const = 0;
    /// Solves F(t_eval, q(x), v(x), a(x)) = 0 over the free entries of x with the scene's Newton
    /// options; fixed and prescribed entries of x are set so that q takes its prescribed value.
    /// x holds the initial guess (full size) and returns the solution.
    virtual NewtonReport solve(const AffineStep& step, VectorX& x) = 0;
    /// Commits the next state (prescribed DOFs are set to their exact values at next.t) and
    /// runs every contributor's commit_step.
    virtual void commit(State next) = 0;
};

/// What one step attempt did.
struct StepReport {
    bool converged = false;
    int newton_iterations = 0;
    std::string diagnosis;
};

/// Advances (t, q, v) by one step. Integrators are stateless across rejected attempts: on
/// failure nothing must have been committed.
class SOMA_API Integrator {
public:
    virtual ~Integrator();
    /// Takes one step of size h from system.state(); commits through system.commit on success.
    virtual StepReport step(System& system, double h) = 0;
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
};

}  // namespace soma
