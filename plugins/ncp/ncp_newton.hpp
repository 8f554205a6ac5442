#pragma once
/// \file ncp_newton.hpp
/// \brief `ncp_newton`: implicit Euler with contact and exact Coulomb friction as nonlinear
/// complementarity problems, solved by the non-smooth Newton method of Macklin, Erleben,
/// Müller, Chentanez, Jeschke and Makoviychuk, "Non-Smooth Newton Methods for Deformable
/// Multi-Body Dynamics", ACM TOG 38(5), 2019.
///
/// The step is implicit Euler's affine map (integrator.hpp): the unknown x is the end-of-step
/// acceleration, v = v0 + h x, q = q0 + h v (eq. 45 with u = v). The kernel's residual F (every
/// element, force and equality constraint of the scene, with its exact Jacobian A, the KKT
/// matrix when there are joints) is the momentum equation; the contacts of System::contact_rows
/// add their forces to it and their complementarity rows beside it:
///
///     F(x, lambda_b) - G_f^T lambda_n - D^T lambda_f = 0                          (eq. 46)
///     phi_n(C_n(q), r_n lambda_n) = 0        normal contact, FB or min-map      (eqs. 93, 96)
///     D^T v + W lambda_f = 0                 friction, W the fixed-point compliance (eqs. 36, 104-106)
///
/// Each Newton iteration linearises them (eq. 53, in acceleration units: the normal rows divided
/// by h^2 and the friction rows by h, so that every block has the units of A^-1):
///
///     [ A      -B_f^T ] [dx      ]     [ F_hat        ]
///     [ B_q     C     ] [dlambda ] = - [ phi_hat      ]
///
///     B = [alpha G; D] (alpha = dphi_n/dC_n), C = diag(beta r_n / h^2, W / h) + epsilon,
///
/// and solves it through the Schur complement (eqs. 59, 60): (B_q A^-1 B_f^T + C) dlambda =
/// -phi_hat + B_q A^-1 F_hat, by preconditioned conjugate residual (the paper's choice, one
/// solve with A's factorization per iteration) or by a dense direct solve, then
/// dx = A^-1 (B_f^T dlambda - F_hat). The momentum residual carries the exact contact force
/// G_f^T lambda_n, the matrix alpha G_f (as the paper, to keep the matrix symmetric; alpha = 1 at
/// a solution with lambda_n > 0). W is held constant in the iteration (eq. 37), and the contacts'
/// geometric stiffness d(G_f^T lambda)/dq is left out: a quasi-Newton step, as in the paper
/// (section 6), or with `geometric_stiffness: diagonal` estimated on A's diagonal from the last
/// step (section 8.3, geometric_stiffness.hpp). The Schur complement is symmetric where A is and G_q = G_f: on particles, rods
/// and shells. A rigid body's rotation (G_q = G_f J_r(d), J_r -> 1 as the step's turn d -> 0)
/// and its gyroscopic terms (A unsymmetric) break that slightly; the conjugate residual method,
/// which assumes symmetry, then stops short of the exact step and Newton may take more
/// iterations. The direct solve is exact in every case.
///
/// Departures from the paper, each for a reason:
/// - after each update every friction force is projected onto its cone, |lambda_f| <= mu lambda_n.
///   The fixed point's W (eq. 35) is ~0 for a contact that sticks inside its cone and large for
///   one pushed outside it, so of two redundant sticking contacts (a box's front and back corners)
///   the first takes the whole load in the next Newton step, is pushed outside, and the load
///   passes back: a two-cycle that damping t = 0.75 does not break (a box on an incline at mu =
///   tan(theta) + 0.05 failed 100 iterations with t = 1 and with t = 0.75). The solutions all lie
///   in the cones, so the projection changes none of them;
/// - the rest of the scene is implicit, not explicit (u~ of eq. 50): the iteration is the
///   kernel's Newton on F, with the contacts added; elastic forces keep implicit Euler's stability;
/// - the iteration stops on tolerances (force balance per DOF against its force scale, the NCP
///   residuals in metres and metres per second), not after a fixed count;
/// - optionally (friction_jacobian: exact) W's derivatives too, a Newton step on Coulomb's law
///   where the fixed point converges linearly (FrictionJacobian);
/// - optionally (warm_start) each contact's forces start at the last step's (ContactWarmStart);
/// - the complementarity scaling r comes from the diagonal of A, the scene's Jacobian
///   (M + h D + h^2 K), where the paper uses M (eq. 66): the same at small steps, and a contact on
///   a stiff body sees its stiffness.

#include "contact_warm_start.hpp"
#include "ncp_functions.hpp"
#include "conjugate_residual.hpp"
#include "gmres.hpp"

#include "soma/integrator.hpp"

#include <Eigen/LU>
#include <Eigen/SparseCore>

#include <limits>
#include <string>
#include <vector>

namespace soma::ncp {

/// How the NCP arguments are scaled (Macklin et al. 2019, section 7, Fig. 17).
enum class ComplementarityScaling {
    effective_mass,  ///< r_n = h^2 [G A^-1 G^T]_ii, r_f = h [D A^-1 D^T]_ii with A's diagonal (eq. 66)
    step_squared,    ///< r_n = h^2, r_f = h
    identity,        ///< r = 1 (the paper shows it often fails)
};

/// How the Schur complement system is solved.
enum class SchurSolver {
    conjugate_residual,  ///< preconditioned conjugate residual, Jacobi (section 8.2)
    direct,              ///< the dense Schur complement, LU with partial pivoting
    gmres,               ///< GMRES, Jacobi on both sides (gmres.hpp): for an unsymmetric Schur complement
};

/// What stands in for the contacts' geometric stiffness d(G_f^T lambda)/dq in the Newton matrix.
enum class GeometricStiffness {
    none,      ///< left out: quasi-Newton (section 6)
    diagonal,  ///< the secant estimate on the diagonal, stiffening part only (section 8.3, eqs. 71-74)
};

/// The friction rows' derivatives in each Newton iteration.
enum class FrictionJacobian {
    fixed_point,  ///< W held constant (eq. 37): a symmetric Schur complement where A is symmetric
    exact,        ///< W's derivatives in the slip, the friction force and the cone's radius too
};

/// How the iteration starts.
enum class StartingIterate {
    zero_velocity,          ///< v = 0 at the end of the step, lambda = 0 (the paper's, eqs. 67, 68)
    previous_acceleration,  ///< the last step's acceleration (the other integrators' guess)
};

struct NcpNewtonSettings {
    NcpFunction function = NcpFunction::fischer_burmeister;
    ComplementarityScaling scaling = ComplementarityScaling::effective_mass;
    SchurSolver linear_solver = SchurSolver::conjugate_residual;
    /// exact: a Newton step on Coulomb's law itself where the paper's fixed point (W constant,
    /// eq. 37) converges linearly, slowly when a sliding contact is near stopping. The Schur
    /// complement is then unsymmetric, so it needs the direct solve or GMRES.
    FrictionJacobian friction_jacobian = FrictionJacobian::fixed_point;
    StartingIterate start = StartingIterate::zero_velocity;
    /// The paper applies it to particle DOFs only (section 11: jitter at rigid joint limits); here
    /// it applies to every free DOF, and only the contacts' stiffness is missing from A.
    GeometricStiffness geometric_stiffness = GeometricStiffness::none;
    int linear_iterations = 40;        ///< conjugate residual iterations per Newton iteration
    double linear_tolerance = 1e-12;   ///< their relative tolerance (in the preconditioned norm)
    /// The Newton step's length t (eqs. 61, 62). The paper uses 0.75 (section 8.1); with the
    /// friction forces projected onto their cones (below) full steps converge on the redundant
    /// contacts where it needed the damping, and faster (docs/validation.md).
    double damping = 1.0;
    /// Project each friction force onto its cone after every update (the departure above);
    /// false: the paper's iteration as printed.
    bool project_friction = true;
    /// The largest speed (m/s) at which a contact that starts a step penetrated is pushed out:
    /// a step closes at most this speed times h of the penetration (PhysX's maximum
    /// depenetration velocity). Infinite: all of it in one step, as the paper, which at a step
    /// retried small after an accepted penetration asks for enormous forces.
    double max_depenetration_speed = std::numeric_limits<double>::infinity();
    /// How many times a step's contacts are looked for: at its start, then at the end of each
    /// solve (ContactConstraint::detect), solving again from the start while a look adds contacts
    /// and the step ends through one of its contacts. A body knocked into another during the
    /// step, or a plate slammed flat, would otherwise pass into it unseen. 1: the paper's single
    /// look at the step's start.
    int max_contact_looks = 4;
    double regularization = 1e-6;      ///< epsilon added to the Schur complement's diagonal (1/kg; section 8.4)
    int max_iterations = 100;
    /// The paper's mode (Table 2: 4 to 8 Newton iterations a step): accept the step after this
    /// many iterations whatever the residuals (unless the tolerances are met first); 0: converge
    /// to the tolerances or fail. For scenes where the iteration does not settle to them (a box
    /// sliding on another box: docs/validation.md 11.3).
    int fixed_iterations = 0;
    double force_tolerance = 1e-9;     ///< per DOF: |F_hat_i| <= this times the sum of its terms' sizes
    double gap_tolerance = 1e-9;       ///< |phi_n| (m)
    /// |phi_f| (m/s). Looser than the others: where a contact passes from sliding to sticking
    /// (a box dragged along by the box beneath until it catches up) the fixed-point W can cycle
    /// with |phi_f| ~ 1e-7 m/s that no iteration count removes (docs/validation.md, 11.3).
    double slip_tolerance = 1e-6;
    double constraint_tolerance = 1e-10;  ///< |C + alpha lambda| of the equality (joint) rows
    /// Start each contact's forces at those of the same contact at the last committed step
    /// (contact_warm_start.hpp; the paper starts from lambda = 0 and mentions warm starting in
    /// section 8.1). A warm-started solve that fails is solved again from lambda = 0 at the same
    /// step before the step is retried smaller.
    bool warm_start = false;
    /// With warm_start, a step's forces are kept for the next only when every contact carrying a
    /// normal force slips slower than this (m/s) at its end: where contacts slide or impacts
    /// change them, a carried force sends the first Newton step far off (a pile settling took 1.7
    /// times the iterations), and those steps start from zero, as without warm_start; at rest the
    /// carried forces are the solution. A speed no contact reaches: kept after every step.
    double warm_start_slip = 0.01;
};

/// What the last step's iteration did (for tests, benchmarks and the run summary).
struct NcpStepStatistics {
    int newton_iterations = 0;
    int linear_iterations = 0;  ///< conjugate residual iterations, summed over the step
    int contacts = 0;
    int contact_looks = 0;      ///< times the step was solved again with contacts found at a solve's end
    int warm_contacts = 0;      ///< contacts of the last solve started at the last step's forces (warm_start)
    int cold_restarts = 0;      ///< warm-started solves that failed and were solved again from lambda = 0
};

class NcpNewton final : public Integrator {
public:
    /// \throws std::invalid_argument for friction_jacobian exact with the conjugate residual
    /// solve (the scene's schema refuses it at the key; this guards the C++ API).
    explicit NcpNewton(NcpNewtonSettings settings);

    StepReport step(System& system, double h) override;
    bool supports(ConstraintKind kind) const override { (void)kind; return true; }
    bool uses_newton_options() const override { return false; }
    /// Implicit Euler's: unresolved modes are damped (spectral radius 1/sqrt(1 + (omega h)^2)).
    bool damps_unresolved_modes() const override { return true; }

    /// The normal forces (N) and the friction forces (two per contact, along the tangents t1, t2
    /// of contact_constraint.hpp) of the last committed step, in the order of System::contact_rows.
    const VectorX& normal_forces() const { return lambda_n_; }
    const VectorX& friction_forces() const { return lambda_f_; }
    const NcpStepStatistics& statistics() const { return statistics_; }
    /// The last committed step's contacts and forces (warm_start), so a restarted run continues
    /// bit for bit.
    void save_checkpoint(CheckpointWriter& out) const override;
    void restore_checkpoint(CheckpointReader& in) override;
    /// The diagonal geometric stiffness computed at the last Newton iteration, per free unknown
    /// (added to the matrix unless that iteration converged; zeros with geometric_stiffness none).
    const VectorX& geometric_stiffness_shift() const { return stiffness_shift_; }

private:
    /// The Newton iteration from x_, lambda_b_ (contact forces from zero) with the contacts found:
    /// empty, or why it failed. \p starts_at_rest: x_ is the start's configuration (v = 0).
    std::string iterate(System& system, double h, bool starts_at_rest);
    /// One solve of the step from its first iterate (x_start_, the joints' forces at the start,
    /// the contact forces from zero or warm-started): empty, or why it failed. A warm-started
    /// solve that fails is solved again from zero contact forces.
    std::string solve_from_start(System& system, double h);
    /// Whether some contact of the current look is violated at the step's end x_ by more than
    /// gap_tolerance (beyond what the depenetration limit leaves).
    bool ends_through_a_contact(System& system, double h);
    /// The penetration a contact of start gap \p start_gap leaves for later steps of size \p h
    /// (max_depenetration_speed).
    double depenetration_shift(double start_gap, double h) const;
    /// Whether every contact carrying a normal force at the last iterate slips slower than
    /// warm_start_slip (its forces are then kept for the next step's start).
    bool contacts_are_quiet() const;
    /// Lays out the contact rows over the unknowns for this step's contacts (allocates).
    void prepare_contacts(const System& system);
    /// Copies the kernel's contact rows (global DOF columns) into the rows over the unknowns.
    void gather_contact_rows(const ContactRows& rows);
    /// Solves the Schur complement system for dlambda, then dx; false when a solve failed.
    bool solve_newton_step(System& system, std::string& why);
    /// Whether the Newton step just solved (dx_, dlambda_) changes q and every multiplier by
    /// round-off only (1e-13 of the largest |q| and of the largest multiplier of its kind).
    bool at_round_off(Index free, double h, double configuration_scale) const;

    NcpNewtonSettings settings_;
    AffineStep step_;
    VectorX x_, lambda_b_, lambda_n_, lambda_f_, v_iterate_;
    VectorX gap_shift_, work_x_;       ///< per contact: the penetration left for later steps (m); scratch
    VectorX x_start_, multipliers_at_start_;  ///< the step's first iterate and joint forces (each solve starts there)
    /// The ends of the step's solves (ContactConstraint::detect's later looks); buffers kept.
    struct SolvedEnd {
        VectorX q, v;
    };
    std::vector<SolvedEnd> solved_ends_;
    std::vector<SolvedStep> solved_;    ///< views of solved_ends_ for ContactConstraint::detect
    NcpStepStatistics statistics_;
    ContactWarmStart warm_start_;
    bool warm_solve_ = false;  ///< the current solve starts its contact forces from warm_start_

    // ---- per step: the contact rows over the unknowns ----
    using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, Index>;
    RowMatrix normal_force_, normal_position_, tangent_;  ///< G_f, G_q, D over the unknowns
    /// Per value of the kernel's matrices (storage order): its index in ours, or -1 (a fixed DOF).
    std::vector<Index> normal_map_, tangent_map_;
    std::vector<Index> unknown_of_dof_;
    VectorX r_normal_, r_friction_, inverse_mass_diagonal_;
    // ---- per iteration ----
    VectorX slip_, residual_hat_, phi_hat_, compliance_, row_scale_, rhs_, dlambda_, dx_, y0_, work_u_, work_u2_;
    VectorX work_rows_, inverse_schur_diagonal_;
    // ---- friction_jacobian exact: per contact, what the fixed point leaves out ----
    /// The friction rows' velocity part is mix D (mix = 1 + lambda_f dW/da t^T), their own block
    /// C gains block (dW/d|lambda_f| lambda_f l^T / h) and their normal column normal (dW/dL mu lambda_f / h).
    std::vector<Eigen::Matrix2d> friction_mix_, friction_block_;
    std::vector<Eigen::Vector2d> friction_normal_;
    /// Applies each contact's mix to its two friction rows of \p rows (B_q's rows times a vector).
    void mix_friction_rows(VectorX& rows) const;
    // ---- the diagonal geometric stiffness (section 8.3) ----
    VectorX previous_normal_values_, previous_tangent_values_;  ///< G_f's and D's values before the last update
    VectorX secant_step_, secant_left_out_, stiffness_shift_;    ///< over the free DOFs
    bool secant_ready_ = false;  ///< the previous iterate's rows and step are kept
    Eigen::MatrixXd schur_, bt_dense_, a_inverse_bt_;
    Eigen::PartialPivLU<Eigen::MatrixXd> schur_lu_;
    KrylovWorkspace krylov_;
    GmresWorkspace gmres_;
};

}  // namespace soma::ncp
