#pragma once
/// \file system.hpp
/// \brief The kernel's assembled model as an integrator drives it: the open System API.
///
/// An integrator sees the whole scene as one nonlinear system in its Newton unknown x (see
/// integrator.hpp, AffineStep). Most integrators call solve(), the kernel's Newton iteration
/// (newton.hpp) with the scene's options. An integrator that runs its own iteration (a
/// non-smooth Newton over contact rows, a local-global solver) uses the pieces that iteration is
/// made of, in this order:
///
///     system.begin_solve(step, x);                       // controllers at t_eval, fixed entries of x
///     SystemEvaluation e = system.evaluate(step, x, lambda, true, false);  // F and J at (x, lambda)
///     system.factorize();                                // J's numeric factorization
///     system.solve_linear(-system.residual(), dx);       // one or several right-hand sides
///     system.constraint_rows();                          // C, G, compliance at the last evaluation
///
/// The linear systems are over the *unknowns*: the free DOFs (in the order of free_dofs()),
/// then one multiplier per constraint row. Fixed and prescribed DOFs are not unknowns: their
/// entries of x are set by begin_solve. The Jacobian is assembled on the kernel's cached
/// pattern; none of these calls allocates once the pattern is set (the symbolic analysis is
/// redone only when a contributor's stencils add a nonzero, at begin_attempt).

#include "soma/api.hpp"
#include "soma/assembly.hpp"

#include <span>
#include <string>
#include <vector>

namespace soma {

/// \brief The end of a step an integrator solved, for another look at its contacts
/// (ContactConstraint::detect, System::detect_contacts).
struct SolvedStep {
    const VectorX* q = nullptr;  ///< the configuration at the step's end (laid out as State::q)
    const VectorX* v = nullptr;  ///< the velocity at the step's end (one per DOF)
};

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
    /// \brief How a solve with c_q = 0 (an explicit step: the forces at a configuration x does not
    /// move) holds the hard constraint rows (ConstraintSet::add_rows):
    ///  - acceleration: G_f a + (dG_f/dt) v = 0 (Newmark's consistent initial acceleration);
    ///  - end_position: at the position the step's velocity leads to, q_end = q (+) (end_displacement
    ///    + end_c_q x) from the evaluation point q, linearised at q: C(q) + G_q (end_displacement +
    ///    end_c_q x) = 0, scaled by 1/end_c_q. Symplectic Euler (q_end = q + h v + h^2 a):
    ///    end_displacement = h v, end_c_q = h^2; the row reads G v_end = -C(q)/h;
    ///  - velocity: G_f v + dC/dt = 0 at the evaluation point (v = v_pred + c_v x), scaled by 1/c_v:
    ///    the second half of a velocity Verlet (RATTLE) step.
    /// A compliant row is a spring whose force -C/alpha is known at q: alpha lambda + C = 0 in the
    /// acceleration and velocity forms, C(q_end) linearised + alpha lambda = 0 at the end position.
    enum class ExplicitRows { acceleration, end_position, velocity };
    ExplicitRows explicit_rows = ExplicitRows::acceleration;
    double end_c_q = 0.0;      ///< end_position only
    VectorX end_displacement;  ///< end_position only: full size
};

/// The outcome of a Newton solve.
struct NewtonReport {
    bool converged = false;
    int iterations = 0;
    double initial_residual = 0.0;  ///< ||F_free|| at the first iterate
    double residual = 0.0;          ///< ||F_free|| at the last iterate
    int factorizations = 0;         ///< Jacobians factorized (Newton steps)
    int chord_steps = 0;            ///< steps through an earlier factorization (NewtonOptions::jacobian_reuse)
    std::string diagnosis;          ///< on failure: which test failed, the worst DOFs and their owners
};

/// What one System::evaluate measured at its iterate.
struct SystemEvaluation {
    /// ||F|| over the free DOFs' rows (N for a translation DOF, N m for a rotation).
    double force_norm = 0.0;
    /// Largest |C + alpha lambda| over the constraint rows (0 without constraints).
    double constraint_violation = 0.0;
    /// ||residual()||: every unknown's row, constraint rows included (a line search's merit).
    double merit = 0.0;
    /// Largest |q| over the DOFs at the iterate: round-off in q is about 1e-16 of it.
    double configuration_scale = 0.0;
    /// With evaluate(..., with_force_scale = true): for each free DOF's row of residual() (the
    /// first free_dofs().size() entries), the sum of the absolute values of the terms assembled
    /// into it (inertia, each element's and force's part; Assembly::residual_scale), the size
    /// against which the row's round-off and Newton's balance test (newton.hpp) are measured.
    /// Owned by the System, valid until its next evaluate. Null when not requested, or when the
    /// System does not measure it.
    const VectorX* force_scale = nullptr;
};

/// \brief The constraint rows at the last evaluation (constraint.hpp), stacked in the order of
/// the scene's `constraints:` list.
///
/// The two Jacobians are sparse, rows x dof_count() (global DOF columns, fixed ones included),
/// with a pattern fixed when the scene is built: their values are refilled in place.
struct ConstraintRows {
    VectorX value;                        ///< C(q)
    VectorX compliance;                   ///< alpha per row (0: hard)
    /// G_f: the constraint forces on the DOFs are G_f^T lambda; G_f v is the rows' rate.
    SparseMatrix force_jacobian;
    /// G_q = dC/dq in the Newton step's coordinates (equal to G_f for vector DOFs).
    SparseMatrix position_jacobian;
};

/// \brief The contact (inequality constraint) rows at the last evaluation (contact_constraint.hpp),
/// one per contact, stacked in the order of the scene's contact constraints.
///
/// The Jacobians are sparse, rows x dof_count() (global DOF columns, fixed ones included); their
/// pattern is laid out again at each System::detect_contacts and refilled by each evaluation.
struct ContactRows {
    VectorX gap;       ///< C_n(q) = n . (x_a - x_b) - d (m)
    VectorX friction;  ///< mu per contact
    /// G_f: the normal forces act on the DOFs as G_f^T lambda_n.
    SparseMatrix normal_force_jacobian;
    /// G_q = dC_n/dq in the Newton step's coordinates (equal to G_f for vector DOFs).
    SparseMatrix normal_position_jacobian;
    /// D^T G_f: two rows per contact (tangents t1, t2); its product with v is the slip velocity,
    /// and the friction forces act on the DOFs as its transpose times lambda_f.
    SparseMatrix tangent_jacobian;
};

/// The kernel's assembled model, as an integrator drives it.
class SOMA_API System {
public:
    virtual ~System();

    // ---- configuration ----
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
    /// \brief out = d'(t): the rate of the chart coordinates d = q(t) (-) q0 of a configuration
    /// q0 (+) d that moves with the DOF velocities \p v (size dof_count()). On vector DOFs out = v;
    /// on a manifold block it differs from v at first order in d (a rotation with a body velocity
    /// omega: J_r^-1(d) omega = omega + d x omega / 2 + ...). \p out must not alias \p d. A multistep formula in the chart at q0 needs it to keep
    /// its order above 2 (plugins/integrators/bdf.hpp). The default is a vector space's.
    virtual void chart_rate(const VectorX& q0, const VectorX& d, const VectorX& v, VectorX& out) const {
        (void)q0, (void)d;
        out = v;
    }
    /// The committed state the next step starts from.
    virtual const State& state() const = 0;

    // ---- the Newton solve with the scene's options ----
    /// Solves F(t_eval, q(x), v(x), a(x)) = 0 (and the constraint rows) over the free entries of x
    /// with the scene's Newton options (newton_solve of newton.hpp over the calls below); fixed
    /// and prescribed entries of x are set so that q takes its prescribed value. x holds the
    /// initial guess (full size) and returns the solution; the multipliers are left at theirs.
    /// A converged solution is then put to check_solution: a refusal makes the report
    /// not converged, with the refusal as its diagnosis.
    virtual NewtonReport solve(const AffineStep& step, VectorX& x) = 0;
    /// Commits the next state (prescribed DOFs are set to their exact values at next.t) and
    /// runs every contributor's commit_step.
    virtual void commit(State next) = 0;

    // ---- the open API: the pieces of an iteration ----
    /// Unknowns of the linear systems: free_dofs().size() + constraint_row_count().
    virtual Index unknown_count() const = 0;
    /// The global DOF of each free unknown, in unknown order (fixed and prescribed DOFs omitted).
    virtual const std::vector<Index>& free_dofs() const = 0;
    /// Rows of all constraints (the multipliers follow the free DOFs among the unknowns).
    virtual Index constraint_row_count() const = 0;
    /// The multipliers a solve starts from and leaves at its solution (constraint_row_count()).
    virtual VectorX& multipliers() = 0;
    /// \brief Prepares the solves of \p step: applies the controllers at step.t_eval and sets the
    /// fixed and prescribed entries of \p x. Returns an empty string, or why the step cannot be
    /// solved (constraints in a solve that moves neither q nor a). With c_q = 0 the hard
    /// constraint rows are held as AffineStep::explicit_rows says (acceleration level by default).
    virtual std::string begin_solve(const AffineStep& step, VectorX& x) = 0;
    /// \brief Assembles the residual at (x, lambda) and, with \p with_jacobian, the Jacobian
    /// dF/dx (the KKT matrix when there are constraints). Constraint rows are scaled by 1/c_q
    /// (docs/architecture.md, "Constraints"; c_q = 0: AffineStep::explicit_rows). With \p with_force_scale,
    /// also each free row's force scale (SystemEvaluation::force_scale; a small extra cost, only when wanted).
    virtual SystemEvaluation evaluate(const AffineStep& step, const VectorX& x, const VectorX& lambda,
                                      bool with_jacobian, bool with_force_scale) = 0;
    /// The last evaluation's residual over the unknowns.
    virtual const VectorX& residual() const = 0;
    /// The last assembled Jacobian over the unknowns (unknown_count() square, both triangles
    /// stored, constraint rows scaled as in evaluate), for an iteration that needs products with J
    /// or J^T (a trust region's steepest-descent step, newton.hpp). An evaluation without the
    /// Jacobian leaves it as it was.
    virtual const SparseMatrix& jacobian() const = 0;
    /// \brief Adds \p shift[i] to the diagonal entry of free unknown i (i < shift.size() <=
    /// free_dofs().size()) of the last assembled Jacobian, before factorize(): a quasi-Newton
    /// iteration's approximation of terms the Jacobian leaves out (ncp_newton's diagonal geometric
    /// stiffness). The next evaluation with the Jacobian assembles it anew. False (nothing
    /// changed): this system cannot.
    virtual bool shift_jacobian_diagonal(const VectorX& shift) {
        (void)shift;
        return false;
    }
    /// Numerically factorizes the last assembled Jacobian. False on failure (linear_solver_error()).
    virtual bool factorize() = 0;
    /// Solves J y = b with the last factorization (unknown_count() entries). False on failure.
    virtual bool solve_linear(const VectorX& rhs, VectorX& solution) = 0;
    /// Solves J Y = B for each column of \p rhs (several right-hand sides, e.g. J^-1 G^T for a
    /// Schur complement). \p solution is resized to match.
    virtual bool solve_linear(const Eigen::MatrixXd& rhs, Eigen::MatrixXd& solution) = 0;
    /// \brief Asks every contributor whether the solution \p x of \p step can be accepted
    /// (Contributor::check_solution): empty, or the first refusal ("at t = ... (dt = ...): why").
    /// solve() calls it; an integrator that runs its own iteration calls it before committing.
    virtual std::string check_solution(const AffineStep& step, const VectorX& x) = 0;
    /// Why the last factorize or solve_linear failed.
    virtual std::string linear_solver_error() const = 0;
    /// The constraint rows at the last evaluation (values, G_f and G_q on a fixed pattern, compliance).
    virtual const ConstraintRows& constraint_rows() = 0;
    // ---- contacts (inequality constraints: contact_constraint.hpp) ----
    /// Contacts of the current step (rows of contact_rows()); 0 without contact constraints.
    virtual Index contact_count() const { return 0; }
    /// \brief Collision detection for a step of size \p dt from state(): every contact constraint
    /// lists the contacts of the step, and contact_rows() is laid out for them (allocates: once per
    /// step). An integrator that treats inequality constraints calls it before its iteration.
    /// With \p solved (the ends of the step's solves so far), another look that adds the contacts
    /// within reach at those ends (ContactConstraint::detect); the integrator then solves the step
    /// again when it ends through one of them.
    virtual void detect_contacts(double dt, std::span<const SolvedStep> solved = {}) { (void)dt, (void)solved; }
    /// The contact rows at the last evaluate() (empty without contact constraints).
    virtual const ContactRows& contact_rows() const;
    /// \brief The contact forces of the step being committed, in contact_rows() order: the normal
    /// forces (N, one per contact) and the friction forces (two per contact, along its tangents
    /// t1, t2: contact_tangents). An integrator that treats contacts calls it before commit().
    virtual void set_contact_forces(const VectorX& normal, const VectorX& friction) { (void)normal, (void)friction; }
    /// \brief "at t = ... (dt = ...): \p what", followed by the unknowns with the largest residual
    /// at the last evaluation and, for the worst, which terms push on it: the text a failed
    /// step reports.
    virtual std::string diagnose(const AffineStep& step, const std::string& what) = 0;
};

}  // namespace soma
