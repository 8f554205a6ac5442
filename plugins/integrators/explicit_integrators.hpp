#pragma once
/// \file explicit_integrators.hpp
/// \brief Symplectic Euler and Bridson-Marino: steps whose positions are explicit (no stiffness
/// matrix), with constraints held at the step's end (ArtiSynth technical notes, section 0.9).
///
/// | integrator      | step (M a = f solved by the kernel's Newton: one iteration when f is linear in v) |
/// |-----------------|------------------------------------------------------------------------------------|
/// | symplectic Euler | M a = f(t, q, v);  v+ = v + h a;  q+ = q + h v+                                  |
/// | Bridson-Marino  | M a1 = f(t, q, v + h/2 a1);  v' = v + h/2 a1;  q+ = q + h v';                      |
/// |                 | M a2 = f(t + h, q+, v+),  v+ = v + h/2 a + h/2 a2;  a+ = a2                        |
///
/// Symplectic Euler (section 0.9.1) is first order and symplectic: on an undamped oscillator its
/// one-step map has determinant 1 and radius 1 for omega h < 2, and it grows without bound beyond.
/// Bridson-Marino (section 0.9.4; Bridson, Marino and Fedkiw 2003) is velocity Verlet with the
/// damping forces implicit in each half step: second order, radius 1 for omega h < 2 without
/// damping. Neither needs dF/dq: the kernel assembles it with weight c_q = 0 (the Jacobian is
/// M, and M - h/2 D for Bridson-Marino), so a step costs one factorization of that matrix.
/// a is the acceleration at the step start, M a = f(t, q, v): the last step's a2 (Bridson-Marino's
/// first step solves it, as Newmark's does). The section prints the two half steps linearised in
/// the velocity, (M - h/2 D) xdot^{k+1/2} = (M - h/2 D) xdot^k + h/2 f^k and (M - h/2 D) xdot^{k+1} =
/// (M - h/2 D) xdot^k + h/2 (f^k + f(xdot^k, x^{k+1})); with f = f(x) + D xdot they are the two
/// solves above (the velocity update is the trapezoidal rule on the damping forces, velocity Verlet
/// on the rest: second order); for forces nonlinear in the velocity each half step is solved to
/// the Newton tolerance (the kernel's Newton iteration measures its steps by c_v dt there).
///
/// Constraints (equality rows). Symplectic Euler holds them at the position the step's velocity
/// leads to, linearised where the forces are evaluated (AffineStep::ExplicitRows::end_position):
/// G v+ = -C(q)/h, the velocity-level row with the position error corrected over one step (section
/// 0.11 with its stabilisation on a hard row). Bridson-Marino is RATTLE (Hairer, Lubich and Wanner,
/// Geometric Numerical Integration, VII.1.4): the same row on the half-step velocity that moves the
/// positions, then G(q+) v+ + dC/dt = 0 on the end velocity, without the correction, which would
/// put an O(h) velocity into every step and cost an order (measured on the double pendulum: energy
/// error ratio 2 instead of 4 per halving of h). The end-of-step violation is second order in the
/// step, |C(q+)| ~ h^2 |v|^2 / r for a joint turning at radius r, and does not accumulate.
/// Stability needs dt < 2/omega_max, omega_max the scene's highest frequency (a stiff rod's: refine
/// dt with the mesh, as dt ~ l^2 for bending).

#include "soma/integrator.hpp"

#include <string>

namespace soma::integrators {

/// An integrator whose steps evaluate the forces where x does not move q (c_q = 0).
class ExplicitPositionIntegrator : public Integrator {
public:
    bool supports(ConstraintKind kind) const override { return kind == ConstraintKind::equality; }
    /// Radius 1 within the stability limit: unresolved modes are not damped, they grow.
    bool damps_unresolved_modes() const override { return false; }
    /// The step's matrix is M (or M - h/2 D): singular on a free DOF without mass.
    bool solves_with_mass_alone() const override { return true; }

protected:
    /// One solve of M a = f at the evaluation point (q_start (+) q_offset, v_pred + c_v a) at t.
    /// With \p moving_weight > 0 the constraint rows are held where the velocity v_pred +
    /// moving_weight a, which moves the configuration from there for a time h, leads
    /// (AffineStep::ExplicitRows::end_position, end_c_q = h moving_weight); with 0, at the velocity
    /// level (ExplicitRows::velocity). \p q_offset: the evaluation point's displacement from the
    /// step start (full size).
    NewtonReport solve_half(System& system, double t, double h, const VectorX& q_offset, const VectorX& v_pred, double c_v,
                            double moving_weight, VectorX& a);

    /// A failed solve's diagnosis for StepReport, naming \p who, with the stability limit when the
    /// state has grown to non-finite values.
    static std::string failure(const std::string& who, const NewtonReport& newton);

    AffineStep step_;
};

class SymplecticEuler final : public ExplicitPositionIntegrator {
public:
    StepReport step(System& system, double h) override;

private:
    VectorX a_, offset_;
};

/// Its first step commits the consistent start acceleration a0 before the half steps (as Newmark's
/// does): a failure of the first half step after it leaves the start's q and v as they were, with
/// a0 in place of the state's a.
class BridsonMarino final : public ExplicitPositionIntegrator {
public:
    StepReport step(System& system, double h) override;
    /// Whether the start's acceleration was solved (the first step's M a0 = f).
    void save_checkpoint(CheckpointWriter& out) const override;
    void restore_checkpoint(CheckpointReader& in) override;

private:
    bool initialized_ = false;
    VectorX a1_, a2_, offset_, v_half_, v_pred_;
};

}  // namespace soma::integrators
