// The non-smooth Newton step (ncp_newton.hpp).
#include "ncp_newton.hpp"

#include "geometric_stiffness.hpp"

#include "soma/checkpoint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace soma::ncp {
namespace {

/// The value map of a kernel matrix (global DOF columns, column-major) into a row-major matrix
/// over the unknowns: \p map[k] is where the kernel's k-th stored value goes, -1 for a DOF that is
/// not an unknown (fixed or prescribed).
void lay_out_over_unknowns(const SparseMatrix& kernel, const std::vector<Index>& unknown_of_dof, Index unknowns,
                           Eigen::SparseMatrix<double, Eigen::RowMajor, Index>& out, std::vector<Index>& map) {
    std::vector<Eigen::Triplet<double, Index>> entries;
    entries.reserve(static_cast<std::size_t>(kernel.nonZeros()));
    for (Index column = 0; column < kernel.outerSize(); ++column)
        for (Index k = kernel.outerIndexPtr()[column]; k < kernel.outerIndexPtr()[column + 1]; ++k) {
            const Index unknown = unknown_of_dof[static_cast<std::size_t>(column)];
            if (unknown >= 0) entries.emplace_back(kernel.innerIndexPtr()[k], unknown, static_cast<double>(k));
        }
    out.resize(kernel.rows(), unknowns);
    out.setFromTriplets(entries.begin(), entries.end());  // one entry per (row, unknown): nothing is summed
    out.makeCompressed();
    map.assign(static_cast<std::size_t>(kernel.nonZeros()), -1);
    for (Index p = 0; p < out.nonZeros(); ++p) map[static_cast<std::size_t>(out.valuePtr()[p])] = p;
}

void copy_values(const SparseMatrix& kernel, const std::vector<Index>& map,
                 Eigen::SparseMatrix<double, Eigen::RowMajor, Index>& out) {
    for (Index k = 0; k < kernel.nonZeros(); ++k)
        if (const Index p = map[static_cast<std::size_t>(k)]; p >= 0) out.valuePtr()[p] = kernel.valuePtr()[k];
}

}  // namespace

NcpNewton::NcpNewton(NcpNewtonSettings settings) : settings_(settings) {
    if (settings_.friction_jacobian == FrictionJacobian::exact && settings_.linear_solver == SchurSolver::conjugate_residual)
        throw std::invalid_argument("ncp_newton: friction_jacobian exact makes the Schur complement unsymmetric, which "
                                    "the conjugate residual solve cannot take (use gmres or direct)");
}

void NcpNewton::prepare_contacts(const System& system) {
    const Index n = system.dof_count();
    const std::vector<Index>& free_dofs = system.free_dofs();
    const Index unknowns = system.unknown_count();
    unknown_of_dof_.assign(static_cast<std::size_t>(n), -1);
    for (std::size_t i = 0; i < free_dofs.size(); ++i) unknown_of_dof_[static_cast<std::size_t>(free_dofs[i])] = static_cast<Index>(i);
    const ContactRows& rows = system.contact_rows();
    const Index contacts = system.contact_count();
    lay_out_over_unknowns(rows.normal_force_jacobian, unknown_of_dof_, unknowns, normal_force_, normal_map_);
    normal_position_ = normal_force_;  // the same pattern
    lay_out_over_unknowns(rows.tangent_jacobian, unknown_of_dof_, unknowns, tangent_, tangent_map_);
    const Index rows_total = 3 * contacts;
    lambda_n_ = VectorX::Zero(contacts);
    lambda_f_ = VectorX::Zero(2 * contacts);
    friction_mix_.assign(static_cast<std::size_t>(contacts), Eigen::Matrix2d::Identity());
    friction_block_.assign(static_cast<std::size_t>(contacts), Eigen::Matrix2d::Zero());
    friction_normal_.assign(static_cast<std::size_t>(contacts), Eigen::Vector2d::Zero());
    r_normal_.resize(contacts);
    r_friction_.resize(contacts);
    slip_.resize(2 * contacts);
    for (VectorX* v : {&phi_hat_, &compliance_, &row_scale_, &rhs_, &dlambda_, &work_rows_, &inverse_schur_diagonal_})
        v->resize(rows_total);
    for (VectorX* v : {&residual_hat_, &dx_, &y0_, &work_u_, &work_u2_, &inverse_mass_diagonal_}) v->resize(unknowns);
    const auto free = static_cast<Index>(free_dofs.size());
    for (VectorX* v : {&secant_step_, &secant_left_out_}) v->resize(free);
    previous_normal_values_.resize(normal_force_.nonZeros());
    previous_tangent_values_.resize(tangent_.nonZeros());
    stiffness_shift_ = VectorX::Zero(free);
    secant_ready_ = false;
    if (settings_.linear_solver == SchurSolver::direct) {
        bt_dense_.resize(unknowns, rows_total);
        schur_.resize(rows_total, rows_total);
    }
}

void NcpNewton::gather_contact_rows(const ContactRows& rows) {
    copy_values(rows.normal_force_jacobian, normal_map_, normal_force_);
    copy_values(rows.normal_position_jacobian, normal_map_, normal_position_);
    copy_values(rows.tangent_jacobian, tangent_map_, tangent_);
}

StepReport NcpNewton::step(System& system, double h) {
    StepReport report;
    const State& s = system.state();
    const Index n = system.dof_count();
    step_.t_eval = s.t + h;
    step_.dt = h;
    step_.q_pred = s.q.head(n) + h * s.v;  // implicit Euler: q = q0 + h v, v = v0 + h a
    step_.v_pred = s.v;
    step_.a_pred = VectorX::Zero(n);
    step_.coefficients = {h * h, h, 1.0};
    x_ = settings_.start == StartingIterate::zero_velocity ? VectorX(-s.v / h) : s.a;
    v_iterate_.resize(n);
    statistics_ = {};
    multipliers_at_start_ = system.multipliers();

    system.detect_contacts(h);
    if (const std::string why = system.begin_solve(step_, x_); !why.empty()) {
        report.diagnosis = why;
        return report;
    }
    x_start_ = x_;  // with the fixed and prescribed DOFs' entries begin_solve set
    if (std::string why = solve_from_start(system, h); !why.empty()) {
        report.diagnosis = std::move(why);
        report.newton_iterations = statistics_.newton_iterations;
        report.linear_iterations = statistics_.linear_iterations;
        return report;
    }
    // Another look with the motion found (ContactConstraint::detect): a contact the step's own
    // motion reaches, unforeseen at its start, is solved again with it when the step ends through
    // it, until a solve ends through none or the looks run out.
    const auto looks = static_cast<std::size_t>(settings_.max_contact_looks);
    if (solved_ends_.size() < looks) solved_ends_.resize(looks);  // once: the buffers are kept
    solved_.clear();
    solved_.reserve(looks);
    for (std::size_t look = 1; look < looks; ++look) {
        const Index before = system.contact_count();
        SolvedEnd& end = solved_ends_[look - 1];
        end.v = s.v + h * x_;
        work_x_ = h * end.v;
        system.integrate(s.q, work_x_, end.q);
        solved_.push_back({&end.q, &end.v});
        system.detect_contacts(h, solved_);
        if (system.contact_count() == before) break;  // nothing more within reach
        if (!ends_through_a_contact(system, h)) {
            solved_.pop_back();
            system.detect_contacts(h, solved_);  // the contacts of the last solve, whose forces were found
            break;
        }
        ++statistics_.contact_looks;
        if (std::string why = solve_from_start(system, h); !why.empty()) {
            report.diagnosis = std::move(why);
            report.newton_iterations = statistics_.newton_iterations;
            report.linear_iterations = statistics_.linear_iterations;
            return report;
        }
    }

    if (std::string refusal = system.check_solution(step_, x_); !refusal.empty()) {
        report.diagnosis = std::move(refusal);
        report.newton_iterations = statistics_.newton_iterations;
        report.linear_iterations = statistics_.linear_iterations;
        return report;
    }
    State next;
    next.t = s.t + h;
    next.a = x_;
    next.v = s.v + h * x_;
    next.q = s.q;
    next.q.head(n) += h * next.v;  // eq. 45
    system.multipliers() = lambda_b_;
    system.set_contact_forces(lambda_n_, lambda_f_);
    if (settings_.warm_start) {
        if (contacts_are_quiet()) warm_start_.keep(normal_force_, tangent_, lambda_n_, lambda_f_);
        else warm_start_.clear();
    }
    system.commit(std::move(next));
    report.converged = true;
    report.newton_iterations = statistics_.newton_iterations;
    report.linear_iterations = statistics_.linear_iterations;
    return report;
}

bool NcpNewton::contacts_are_quiet() const {
    // The slip of the last iterate (D v+, m/s), at each contact that carries a normal force
    // (above the round-off a separating contact's force settles at, as the contact statistics
    // count active contacts).
    const double largest = lambda_n_.size() > 0 ? lambda_n_.maxCoeff() : 0.0;
    for (Index i = 0; i < lambda_n_.size(); ++i)
        if (lambda_n_[i] > 1e-9 * largest && std::hypot(slip_[2 * i], slip_[2 * i + 1]) > settings_.warm_start_slip)
            return false;
    return true;
}

double NcpNewton::depenetration_shift(double start_gap, double h) const {
    return std::max(0.0, -start_gap - settings_.max_depenetration_speed * h);
}

bool NcpNewton::ends_through_a_contact(System& system, double h) {
    // The rows of the look's contacts at the step's end (x_) and at its start (v = 0), each
    // shifted as the iteration shifts it for the depenetration limit.
    const Index contacts = system.contact_count();
    gap_shift_.setZero(contacts);
    if (std::isfinite(settings_.max_depenetration_speed)) {
        work_x_ = -system.state().v / h;
        system.evaluate(step_, work_x_, lambda_b_, false, false);
        gap_shift_ = system.contact_rows().gap;
    }
    system.evaluate(step_, x_, lambda_b_, false, false);
    for (Index i = 0; i < contacts; ++i) {
        if (system.contact_rows().gap[i] + depenetration_shift(gap_shift_[i], h) < -settings_.gap_tolerance) return true;
    }
    return false;
}

std::string NcpNewton::solve_from_start(System& system, double h) {
    const bool at_rest = settings_.start == StartingIterate::zero_velocity;
    x_ = x_start_;
    lambda_b_ = multipliers_at_start_;
    warm_solve_ = settings_.warm_start && warm_start_.kept();
    statistics_.warm_contacts = 0;
    std::string why = iterate(system, h, at_rest);
    // A solve that started from no kept force was a cold one already.
    if (why.empty() || !warm_solve_ || statistics_.warm_contacts == 0) return why;
    // The last step's forces can be a poor start where contacts change fast (an impact's force
    // carried into the step after it): the iteration from zero forces, the paper's, gets its turn
    // at this step size before the time loop shrinks the step.
    ++statistics_.cold_restarts;
    x_ = x_start_;
    lambda_b_ = multipliers_at_start_;
    warm_solve_ = false;
    statistics_.warm_contacts = 0;
    return iterate(system, h, at_rest);
}

std::string NcpNewton::iterate(System& system, double h, bool starts_at_rest) {
    const State& s = system.state();
    prepare_contacts(system);
    statistics_.contacts = static_cast<int>(system.contact_count());
    const Index contacts = system.contact_count();
    const auto free = static_cast<Index>(system.free_dofs().size());
    const Index unknowns = system.unknown_count();
    const double t = settings_.damping;
    gap_shift_.setZero(contacts);
    if (!starts_at_rest && std::isfinite(settings_.max_depenetration_speed) && contacts > 0) {
        // The start's gaps, for the depenetration limit: the rows at v = 0 (q = q0).
        work_x_ = -s.v / h;
        system.evaluate(step_, work_x_, lambda_b_, true, false);
        gap_shift_ = system.contact_rows().gap;
    }
    const int iterations_before = statistics_.newton_iterations;
    // Whether the last undamped Newton step changed q and the multipliers by round-off only: the
    // force residual is then at its floating-point floor (below).
    bool step_at_round_off = false;

    for (int iteration = 0;; ++iteration) {
        const SystemEvaluation e = system.evaluate(step_, x_, lambda_b_, true, true);
        v_iterate_ = step_.v_pred + h * x_;
        const ContactRows& rows = system.contact_rows();
        gather_contact_rows(rows);
        if (iteration == 0 && warm_solve_)
            statistics_.warm_contacts = static_cast<int>(warm_start_.apply(normal_force_, tangent_, rows.friction, lambda_n_, lambda_f_));
        if (iteration == 0) {
            // The gaps at the step's start (the first iterate is the start's configuration when
            // the iteration starts from v = 0; otherwise they were read before the loop).
            for (Index i = 0; i < contacts; ++i) {
                const double start_gap = starts_at_rest ? rows.gap[i] : gap_shift_[i];
                gap_shift_[i] = depenetration_shift(start_gap, h);
            }
            // The effective masses of eq. 66 from A's diagonal (A = M + h D + h^2 K over the
            // free DOFs); a DOF without a positive diagonal counts as immovable.
            const SparseMatrix& a = system.jacobian();
            inverse_mass_diagonal_.setZero();
            for (Index j = 0; j < free; ++j)
                if (const double d = a.coeff(j, j); d > 0.0) inverse_mass_diagonal_[j] = 1.0 / d;
            const auto effective = [&](const auto& matrix, Index row) {
                double sum = 0.0;
                for (typename RowMatrix::InnerIterator it(matrix, row); it; ++it)
                    sum += it.value() * it.value() * inverse_mass_diagonal_[it.col()];
                return sum;
            };
            for (Index i = 0; i < contacts; ++i) {
                switch (settings_.scaling) {
                    case ComplementarityScaling::effective_mass: {
                        const double normal = effective(normal_force_, i);
                        const double tangential = 0.5 * (effective(tangent_, 2 * i) + effective(tangent_, 2 * i + 1));
                        // A contact on immovable DOFs only: the global scaling keeps its row finite.
                        r_normal_[i] = normal > 0.0 ? h * h * normal : h * h;
                        r_friction_[i] = tangential > 0.0 ? h * tangential : h;
                        break;
                    }
                    case ComplementarityScaling::step_squared:
                        r_normal_[i] = h * h;
                        r_friction_[i] = h;
                        break;
                    case ComplementarityScaling::identity:
                        r_normal_[i] = 1.0;
                        r_friction_[i] = 1.0;
                        break;
                }
            }
        }
        if (contacts > 0) slip_.noalias() = rows.tangent_jacobian * v_iterate_;

        // The momentum residual with the contact forces (eq. 46), and each free row's force scale.
        residual_hat_ = system.residual();
        work_u_.setZero();  // the size of each free row's contact terms
        for (Index i = 0; i < contacts; ++i) {
            for (RowMatrix::InnerIterator it(normal_force_, i); it; ++it) {
                residual_hat_[it.col()] -= it.value() * lambda_n_[i];
                work_u_[it.col()] += std::abs(it.value() * lambda_n_[i]);
            }
            for (Index k = 2 * i; k < 2 * i + 2; ++k)
                for (RowMatrix::InnerIterator it(tangent_, k); it; ++it) {
                    residual_hat_[it.col()] -= it.value() * lambda_f_[k];
                    work_u_[it.col()] += std::abs(it.value() * lambda_f_[k]);
                }
        }
        if (secant_ready_) {
            // The contact forces' change over the last update at the new multipliers, -(G(x_new) -
            // G(x_old))^T lambda_new: what A leaves out (eqs. 70, 71), onto its diagonal (eqs. 73, 74).
            secant_left_out_.setZero();
            const auto add_change = [&](const RowMatrix& rows, const VectorX& previous, const VectorX& lambda) {
                for (Index r = 0; r < rows.outerSize(); ++r)
                    for (Index p = rows.outerIndexPtr()[r]; p < rows.outerIndexPtr()[r + 1]; ++p)
                        secant_left_out_[rows.innerIndexPtr()[p]] -= (rows.valuePtr()[p] - previous[p]) * lambda[r];
            };
            add_change(normal_force_, previous_normal_values_, lambda_n_);
            add_change(tangent_, previous_tangent_values_, lambda_f_);
            diagonal_geometric_stiffness(secant_left_out_, secant_step_, stiffness_shift_);
        }
        bool converged = e.constraint_violation <= settings_.constraint_tolerance;
        double worst_force = 0.0, worst_gap = 0.0, worst_slip = 0.0;  // for a failure's diagnosis
        double force_reference = 0.0;
        for (Index i = 0; i < free; ++i) force_reference = std::max(force_reference, (*e.force_scale)[i] + work_u_[i]);
        // A row with no force at all (a free body's rotation at rest) is held to round-off of the
        // largest force, not to zero.
        const double floor = 1e-14 * force_reference;
        // A full Newton step that moved no DOF by more than round-off (1e-13 of the largest |q|)
        // leaves the force residual at its floating-point floor, which the per-DOF test may not
        // reach: the rounding of a stiff term (a rod's stretching, E A times round-off of its
        // strain) is not bounded by the sizes of the terms in the row (the kernel's Newton has
        // the same exit, kernel/newton.cpp). The complementarity rows are still tested.
        // Only while A is the exact Jacobian: a secant shift on its diagonal (geometric_stiffness)
        // can make a step small where the residual is not.
        const bool forces_at_round_off = iteration > 0 && step_at_round_off && !secant_ready_;
        for (Index i = 0; i < free; ++i) {
            const double allowed = settings_.force_tolerance * ((*e.force_scale)[i] + work_u_[i]) + floor;
            worst_force = std::max(worst_force, std::abs(residual_hat_[i]) / allowed);
            if (std::abs(residual_hat_[i]) > allowed && !forces_at_round_off) converged = false;
        }

        // The complementarity rows at the iterate, scaled to acceleration units.
        const double h2 = h * h;
        for (Index i = 0; i < contacts; ++i) {
            const double r_n = r_normal_[i];
            // A contact that starts the step deeper than max_depenetration_speed h is pushed out
            // by that much this step, not all at once (its gap is shifted by the rest).
            const double gap = rows.gap[i] + gap_shift_[i];
            const NcpValue normal = evaluate_ncp(settings_.function, gap, r_n * lambda_n_[i]);  // eq. 93 / 96
            phi_hat_[i] = normal.value / h2;
            row_scale_[i] = normal.d_first;                                          // eq. 94 / 97
            compliance_[i] = normal.d_second * r_n / h2 + settings_.regularization;  // eq. 95 / 98, 54
            worst_gap = std::max(worst_gap, std::abs(normal.value));
            if (std::abs(normal.value) > settings_.gap_tolerance) converged = false;

            const double limit = rows.friction[i] * lambda_n_[i];  // the bound from the last iterate (section 6.1)
            const Eigen::Vector2d slip(slip_[2 * i], slip_[2 * i + 1]);
            const Eigen::Vector2d force(lambda_f_[2 * i], lambda_f_[2 * i + 1]);
            friction_mix_[i].setIdentity();
            friction_block_[i].setZero();
            friction_normal_[i].setZero();
            if (settings_.friction_jacobian == FrictionJacobian::exact && limit > 0.0) {
                // The derivatives of W lambda_f the fixed point leaves out (eq. 37), in the
                // rows' units (divided by h, the slip's change being h D dx):
                //   d phi_f = (1 + lambda_f dW/da t^T) D dv + (W + dW/d|lambda_f| lambda_f l^T) dlambda_f
                //             + dW/d(mu lambda_n) mu lambda_f dlambda_n,
                // t = slip / |slip|, l = lambda_f / |lambda_f|.
                const double speed = slip.norm(), size = force.norm();
                const FrictionCompliance w = friction_compliance_derivatives(settings_.function, speed, size, limit,
                                                                             r_friction_[i]);
                if (std::isfinite(w.w)) {  // and then finite derivatives (friction_compliance_derivatives)
                    if (speed > 0.0) friction_mix_[i] += w.d_slip * force * (slip / speed).transpose();
                    if (size > 0.0) friction_block_[i] = (w.d_force / h) * force * (force / size).transpose();
                    friction_normal_[i] = (w.d_limit * rows.friction[i] / h) * force;
                }
            }
            for (Index k = 2 * i; k < 2 * i + 2; ++k) {
                const Index row = contacts + k;
                const double w = limit > 0.0 ? friction_compliance(settings_.function, slip.norm(), force.norm(), limit,
                                                                    r_friction_[i])
                                             : 0.0;
                if (limit > 0.0 && std::isfinite(w)) {
                    const double phi = slip_[k] + w * lambda_f_[k];  // eq. 36
                    phi_hat_[row] = phi / h;
                    row_scale_[row] = 1.0;
                    compliance_[row] = w / h + settings_.regularization;
                    worst_slip = std::max(worst_slip, std::abs(phi));
                    if (std::abs(phi) > settings_.slip_tolerance) converged = false;
                } else {  // inactive (eq. 106), or W infinite (friction_compliance): the row drives lambda_f to zero
                    phi_hat_[row] = lambda_f_[k] / h;
                    row_scale_[row] = 0.0;
                    compliance_[row] = 1.0 / h;
                    if (std::abs(lambda_f_[k]) > settings_.force_tolerance * force_reference) converged = false;
                }
            }
        }
        // The paper's fixed count accepts unsettled friction and force balance, never a gap or a
        // joint outside its tolerance: those retry the step smaller.
        const bool accepted = settings_.fixed_iterations > 0 && iteration >= settings_.fixed_iterations &&
                              worst_gap <= settings_.gap_tolerance &&
                              e.constraint_violation <= settings_.constraint_tolerance;
        if (converged || accepted) {
            statistics_.newton_iterations = iterations_before + iteration;
            return {};
        }
        if (iteration == settings_.max_iterations) {
            statistics_.newton_iterations = iterations_before + iteration;
            return system.diagnose(
                step_, fmt::format("ncp_newton did not converge in {} iterations ({} contacts): the largest force "
                                   "residual is {:.3g} times its tolerance, |phi_n| {:.3g} m (gap_tolerance {:.3g}), "
                                   "|phi_f| {:.3g} m/s (slip_tolerance {:.3g}); the residuals below leave out the "
                                   "contact forces",
                                   iteration, contacts, worst_force, worst_gap, settings_.gap_tolerance, worst_slip,
                                   settings_.slip_tolerance));
        }
        if (secant_ready_ && !system.shift_jacobian_diagonal(stiffness_shift_))
            return system.diagnose(step_, "ncp_newton: geometric_stiffness diagonal: this system cannot shift its "
                                          "Jacobian's diagonal");
        if (!system.factorize()) return system.diagnose(step_, "ncp_newton: " + system.linear_solver_error());
        std::string why;
        if (!solve_newton_step(system, why)) return system.diagnose(step_, "ncp_newton: " + why);
        const std::vector<Index>& free_dofs = system.free_dofs();
        step_at_round_off = at_round_off(free, h, e.configuration_scale);
        for (Index i = 0; i < free; ++i) x_[free_dofs[static_cast<std::size_t>(i)]] += t * dx_[i];
        if (unknowns > free) lambda_b_ += t * dx_.tail(unknowns - free);
        lambda_n_ += t * dlambda_.head(contacts);
        lambda_f_ += t * dlambda_.tail(2 * contacts);
        // Each friction force back onto its cone |lambda_f| <= mu lambda_n (ncp_newton.hpp: the
        // fixed-point W gives a sticking contact inside its cone no compliance, and redundant
        // sticking contacts then pass the whole load back and forth without the projection).
        for (Index i = 0; settings_.project_friction && i < contacts; ++i) {
            const double limit = system.contact_rows().friction[i] * std::max(lambda_n_[i], 0.0);
            const double norm = std::hypot(lambda_f_[2 * i], lambda_f_[2 * i + 1]);
            if (norm > limit && norm > 0.0) {
                lambda_f_[2 * i] *= limit / norm;
                lambda_f_[2 * i + 1] *= limit / norm;
            }
        }
        if (!x_.allFinite() || !lambda_n_.allFinite() || !lambda_f_.allFinite())
            return system.diagnose(step_, "ncp_newton: the iterate is not finite");
        if (settings_.geometric_stiffness == GeometricStiffness::diagonal && contacts > 0) {
            // The rows at this iterate and the step from it, for the next iteration's secant.
            std::copy_n(normal_force_.valuePtr(), normal_force_.nonZeros(), previous_normal_values_.data());
            std::copy_n(tangent_.valuePtr(), tangent_.nonZeros(), previous_tangent_values_.data());
            secant_step_ = t * dx_.head(free);
            secant_ready_ = true;
        }
    }
}

bool NcpNewton::at_round_off(Index free, double h, double configuration_scale) const {
    // q moves by h^2 dx; a multiplier (a contact's or a joint's force) by its own step, measured
    // against the largest multiplier of its kind (a force in N, a joint's force or torque).
    const Index unknowns = dx_.size();
    const auto largest = [](const auto& v) { return v.size() > 0 ? v.cwiseAbs().maxCoeff() : 0.0; };
    if (free > 0 && h * h * largest(dx_.head(free)) > 1e-13 * configuration_scale) return false;
    const double contact_scale = std::max(largest(lambda_n_), largest(lambda_f_));
    if (largest(dlambda_) > 1e-13 * contact_scale) return false;
    return largest(dx_.tail(unknowns - free)) <= 1e-13 * largest(lambda_b_);
}

void NcpNewton::mix_friction_rows(VectorX& rows) const {
    if (settings_.friction_jacobian != FrictionJacobian::exact) return;  // the mix is the identity
    const Index contacts = r_normal_.size();
    for (Index i = 0; i < contacts; ++i) {
        const Eigen::Vector2d v(rows[contacts + 2 * i], rows[contacts + 2 * i + 1]);
        const Eigen::Vector2d m = friction_mix_[i] * v;
        rows[contacts + 2 * i] = m[0];
        rows[contacts + 2 * i + 1] = m[1];
    }
}

bool NcpNewton::solve_newton_step(System& system, std::string& why) {
    const Index contacts = r_normal_.size();
    const Index rows_total = 3 * contacts;
    // B_f^T v (the contact rows' forces; alpha G_f on the normal rows) and B_q w (their rates;
    // alpha G_q), each a pass over the row-major storage.
    const auto apply_bt = [&](const VectorX& v, VectorX& out) {
        out.setZero();
        for (Index i = 0; i < contacts; ++i)
            for (RowMatrix::InnerIterator it(normal_force_, i); it; ++it) out[it.col()] += row_scale_[i] * it.value() * v[i];
        for (Index k = 0; k < 2 * contacts; ++k)
            for (RowMatrix::InnerIterator it(tangent_, k); it; ++it)
                out[it.col()] += row_scale_[contacts + k] * it.value() * v[contacts + k];
    };
    const auto apply_b = [&](const VectorX& w, VectorX& out) {
        for (Index i = 0; i < contacts; ++i) {
            double sum = 0.0;
            for (RowMatrix::InnerIterator it(normal_position_, i); it; ++it) sum += it.value() * w[it.col()];
            out[i] = row_scale_[i] * sum;
        }
        for (Index k = 0; k < 2 * contacts; ++k) {
            double sum = 0.0;
            for (RowMatrix::InnerIterator it(tangent_, k); it; ++it) sum += it.value() * w[it.col()];
            out[contacts + k] = row_scale_[contacts + k] * sum;
        }
    };

    if (!system.solve_linear(residual_hat_, y0_)) {  // y0 = A^-1 F_hat
        why = system.linear_solver_error();
        return false;
    }
    if (contacts == 0) {
        dx_ = -y0_;
        return true;
    }
    apply_b(y0_, rhs_);
    mix_friction_rows(rhs_);
    rhs_ -= phi_hat_;  // -phi_hat + B_q A^-1 F_hat (eq. 59)

    if (settings_.linear_solver == SchurSolver::direct) {
        // The dense Schur complement B_q A^-1 B_f^T + C, one solve per contact row.
        for (Index r = 0; r < rows_total; ++r) {
            work_rows_.setZero();
            work_rows_[r] = 1.0;
            apply_bt(work_rows_, work_u_);
            bt_dense_.col(r) = work_u_;
        }
        if (!system.solve_linear(bt_dense_, a_inverse_bt_)) {
            why = system.linear_solver_error();
            return false;
        }
        for (Index r = 0; r < rows_total; ++r) {
            work_u_ = a_inverse_bt_.col(r);
            apply_b(work_u_, work_rows_);
            mix_friction_rows(work_rows_);
            schur_.col(r) = work_rows_;
        }
        schur_.diagonal() += compliance_;
        for (Index i = 0; settings_.friction_jacobian == FrictionJacobian::exact && i < contacts; ++i) {
            schur_.block<2, 2>(contacts + 2 * i, contacts + 2 * i) += friction_block_[i];
            schur_.block<2, 1>(contacts + 2 * i, i) += friction_normal_[i];
        }
        schur_lu_.compute(schur_);
        dlambda_ = schur_lu_.solve(rhs_);
        dx_.noalias() = a_inverse_bt_ * dlambda_;
        dx_ -= y0_;  // eq. 60
        if (!dlambda_.allFinite()) why = "the Schur complement is singular (redundant contacts with regularization 0?)";
        return dlambda_.allFinite();
    }

    // Preconditioned conjugate residual on the Schur complement, matrix-free: each product is
    // one solve with A's factorization (section 8.2). The Jacobi preconditioner uses A's diagonal.
    for (Index i = 0; i < contacts; ++i) {
        double sum = 0.0;
        RowMatrix::InnerIterator f(normal_force_, i);
        for (RowMatrix::InnerIterator q(normal_position_, i); q; ++q, ++f)
            sum += q.value() * f.value() * inverse_mass_diagonal_[q.col()];
        inverse_schur_diagonal_[i] = 1.0 / (row_scale_[i] * row_scale_[i] * sum + compliance_[i]);
    }
    for (Index k = 0; k < 2 * contacts; ++k) {
        double sum = 0.0;
        for (RowMatrix::InnerIterator it(tangent_, k); it; ++it) sum += it.value() * it.value() * inverse_mass_diagonal_[it.col()];
        const double s = row_scale_[contacts + k];
        inverse_schur_diagonal_[contacts + k] = 1.0 / (s * s * sum + compliance_[contacts + k]);
    }
    bool solved = true;
    const bool exact_friction = settings_.friction_jacobian == FrictionJacobian::exact;
    const auto apply_schur = [&](const VectorX& v, VectorX& out) {
        apply_bt(v, work_u_);
        if (!system.solve_linear(work_u_, work_u2_)) solved = false;
        apply_b(work_u2_, out);
        mix_friction_rows(out);
        out += compliance_.cwiseProduct(v);
        for (Index i = 0; exact_friction && i < contacts; ++i) {
            const Eigen::Vector2d extra = friction_block_[i] * Eigen::Vector2d(v[contacts + 2 * i], v[contacts + 2 * i + 1]) +
                                          friction_normal_[i] * v[i];
            out[contacts + 2 * i] += extra[0];
            out[contacts + 2 * i + 1] += extra[1];
        }
    };
    KrylovOptions options;
    options.max_iterations = settings_.linear_iterations;
    options.relative_tolerance = settings_.linear_tolerance;
    dlambda_.setZero();
    const KrylovReport krylov =
        settings_.linear_solver == SchurSolver::gmres
            ? gmres(apply_schur, inverse_schur_diagonal_, rhs_, dlambda_, gmres_, options)
            : conjugate_residual(apply_schur, inverse_schur_diagonal_, rhs_, dlambda_, krylov_, options);
    statistics_.linear_iterations += krylov.iterations;
    if (!solved) {
        why = system.linear_solver_error();
        return false;
    }
    apply_bt(dlambda_, work_u_);
    if (!system.solve_linear(work_u_, dx_)) {
        why = system.linear_solver_error();
        return false;
    }
    dx_ -= y0_;
    if (!dlambda_.allFinite()) why = "the conjugate residual iteration broke down (a singular Schur complement?)";
    return dlambda_.allFinite();
}

// Written only with warm_start, so checkpoints of scenes without it are those of earlier versions.
void NcpNewton::save_checkpoint(CheckpointWriter& out) const {
    if (settings_.warm_start) warm_start_.save_checkpoint(out);
}

void NcpNewton::restore_checkpoint(CheckpointReader& in) {
    if (settings_.warm_start) warm_start_.restore_checkpoint(in);
}

}  // namespace soma::ncp
