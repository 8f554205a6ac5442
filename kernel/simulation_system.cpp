// The Simulation as a System (interfaces/soma/system.hpp): evaluation of the residual and the
// (KKT) Jacobian over the cached pattern, factorization and solves, the constraint rows, step
// commit/reject, manifold coordinates, and the failure diagnosis. The Newton iteration itself
// is newton_solve (kernel/newton.cpp), run over these calls.
#include "simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace soma {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

void Simulation::rebuild_pattern() {
    // Every contributor declares again, so every stencil id (elements' included) may change.
    const auto start = Clock::now();
    assembler_.clear();
    ++pattern_generation_;
    stencil_ranges_.clear();
    for (Contributor* c : contributors_) {
        const StencilId first = assembler_.stencil_count();
        c->declare_pattern(assembler_);
        stencil_ranges_.emplace_back(first, assembler_.stencil_count());
    }
    declare_constraint_stencils();
    place_stencils(0);
    timings_.pattern += seconds_since(start);
}

void Simulation::place_stencils(StencilId first) {
    ++timings_.pattern_updates;
    if (!assembler_.place_stencils(first, free_index_, static_cast<Index>(free_dofs_.size()))) return;
    // New nonzeros: the union pattern grew, and the solver's symbolic analysis is stale.
    solver_->analyze(assembler_.jacobian());
    ++timings_.analyses;
}

void Simulation::redeclare_changed_stencils() {
    // A force may mirror an element's stencils (rayleigh_damping, through ElementJacobian), so
    // when an element's stencils change, everyone declares again.
    const bool element_changed =
        std::any_of(pattern_changed_.begin(), pattern_changed_.end(), [&](std::size_t i) { return i < elements_.size(); });
    // A contributor's old stencils stay in the tables, unused, unless they are the last ones
    // (then they are replaced in place). When the unused entries would outgrow the used ones,
    // declaring everything again compacts the tables (the pattern itself is kept).
    Index unused = assembler_.scatter_entries(0, assembler_.stencil_count());
    Index used = 0;
    for (const auto& [first, last] : stencil_ranges_) used += assembler_.scatter_entries(first, last);
    unused -= used;
    for (std::size_t i : pattern_changed_) {
        const auto [first, last] = stencil_ranges_[i];
        if (last != assembler_.stencil_count()) unused += assembler_.scatter_entries(first, last);
        used -= assembler_.scatter_entries(first, last);
    }
    if (element_changed || unused > used) {
        rebuild_pattern();
        return;
    }

    // Only the contributors that changed declare again: the others' stencil ids stay valid.
    const auto start = Clock::now();
    StencilId first_new = assembler_.stencil_count();
    for (std::size_t i : pattern_changed_) {
        auto& [first, last] = stencil_ranges_[i];
        if (last == assembler_.stencil_count()) assembler_.truncate(first);
        const StencilId begin = assembler_.stencil_count();
        contributors_[i]->declare_pattern(assembler_);
        first = begin;
        last = assembler_.stencil_count();
        first_new = std::min(first_new, begin);
    }
    place_stencils(first_new);
    timings_.pattern += seconds_since(start);
}

void Simulation::begin_attempt() {
    for (Contributor* c : contributors_) c->begin_step(state_);
    pattern_changed_.clear();  // capacity reserved at construction
    for (std::size_t i = 0; i < contributors_.size(); ++i)
        if (contributors_[i]->pattern_changed()) pattern_changed_.push_back(i);
    if (!pattern_changed_.empty()) redeclare_changed_stencils();
}

void Simulation::reject_attempt() {
    for (Contributor* c : contributors_) c->reject_step();
}

double Simulation::prescribed_value(const Prescribed& p, double t) const {
    return p.initial + expressions_[p.expression](t);
}

double Simulation::prescribed_rate(const Prescribed& p, double t, int order) const {
    // Central differences of the expression: truncation O(h^2) times its third (fourth)
    // derivative, round-off O(eps |f| / h^order); h = 1e-4 s resolves the smooth motions
    // scenes prescribe.
    constexpr double h = 1e-4;
    const auto& f = expressions_[p.expression];
    if (order == 1) return (f(t + h) - f(t - h)) / (2.0 * h);
    return (f(t + h) - 2.0 * f(t) + f(t - h)) / (h * h);
}

void Simulation::set_constrained_unknowns(const AffineStep& step, VectorX& x) const {
    // x is chosen so that q = q_pred + c_q x hits the constrained value exactly.
    const double c_q = step.coefficients.c_q;
    if (c_q != 0.0) {
        for (Index dof : fixed_) x[dof] = (state_.q[dof] - step.q_pred[dof]) / c_q;
        for (const Prescribed& p : prescribed_) x[p.dof] = (prescribed_value(p, step.t_eval) - step.q_pred[p.dof]) / c_q;
        return;
    }
    // An acceleration-only solve (c = (0, 0, c_a), Newmark's initial acceleration): constrained
    // DOFs take their own acceleration: 0 when fixed, the expression's second derivative when
    // prescribed (central difference; 1e-4 s resolves the smooth motions scenes prescribe).
    const double c_a = step.coefficients.c_a;
    for (Index dof : fixed_) x[dof] = -step.a_pred[dof] / c_a;
    for (const Prescribed& p : prescribed_) x[p.dof] = (prescribed_rate(p, step.t_eval, 2) - step.a_pred[p.dof]) / c_a;
}

std::string Simulation::begin_solve(const AffineStep& step, VectorX& x) {
    // Actuation at the time this solve evaluates the forces (controller.hpp).
    for (const auto& controller : controllers_) controller->apply(step.t_eval);
    set_constrained_unknowns(step, x);
    if (!constraints_.empty() && step.coefficients.c_q == 0.0)
        return "constraints need a solve that moves q (c_q > 0): an acceleration-only solve (Newmark's initial "
               "acceleration) cannot treat them";
    return {};
}

SystemEvaluation Simulation::evaluate(const AffineStep& step, const VectorX& x, const VectorX& lambda,
                                      bool with_jacobian) {
    const auto start = Clock::now();
    const JacobianCoefficients& c = step.coefficients;
    const Index n = dofs_.global_count();
    q_.head(n) = step.q_pred + c.c_q * x;
    if (!manifold_.empty()) update_manifold_coordinates(state_.q, q_, false);
    v_ = step.v_pred + c.c_v * x;
    a_ = step.a_pred + c.c_a * x;
    residual_.setZero();
    SparseMatrix& jacobian = assembler_.jacobian();
    if (with_jacobian) std::fill(jacobian.valuePtr(), jacobian.valuePtr() + jacobian.nonZeros(), 0.0);
    context_.t = step.t_eval;
    context_.dt = step.dt;
    context_.load_factor = step.load_factor;
    context_.q = &q_;
    context_.v = &v_;
    context_.a = &a_;
    context_.step_start = &state_;
    context_.coefficients = c;
    Assembly assembly = assembler_.assembly(residual_, with_jacobian);
    for (Contributor* term : contributors_) term->add_residual_and_jacobian(context_, assembly);
    if (!constraints_.empty()) add_constraint_rows(lambda, c.c_q, assembly, with_jacobian);
    const Index nf = dofs_.free_count();
    for (Index i = 0; i < static_cast<Index>(free_dofs_.size()); ++i) residual_free_[i] = residual_[free_dofs_[i]];
    timings_.assembly += seconds_since(start);
    ++timings_.evaluations;
    SystemEvaluation result;
    result.force_norm = residual_free_.head(nf).norm();
    result.constraint_violation = constraint_residual_;
    result.merit = residual_free_.norm();
    result.configuration_scale = q_.cwiseAbs().maxCoeff();
    return result;
}

bool Simulation::factorize() {
    const auto start = Clock::now();
    const bool factorized = solver_->factorize(assembler_.jacobian());
    timings_.factorization += seconds_since(start);
    ++timings_.factorizations;
    return factorized;
}

bool Simulation::solve_linear(const VectorX& rhs, VectorX& solution) {
    const auto start = Clock::now();
    const bool solved = solver_->solve(rhs, solution);
    timings_.solve += seconds_since(start);
    return solved;
}

bool Simulation::solve_linear(const Eigen::MatrixXd& rhs, Eigen::MatrixXd& solution) {
    // Column by column through the solver's factorization: for a direct solver that is what a
    // blocked solve does too (two triangular solves per column); the column buffers are members.
    solution.resize(rhs.rows(), rhs.cols());
    for (Index j = 0; j < rhs.cols(); ++j) {
        column_rhs_ = rhs.col(j);
        if (!solve_linear(column_rhs_, column_solution_)) return false;
        solution.col(j) = column_solution_;
    }
    return true;
}

void Simulation::build_constraint_rows() {
    // One triplet per dense entry of each constraint's Jacobians; duplicates (a DOF listed twice
    // by one constraint) are summed by the sparse matrix, and both entries map to one slot.
    const Index n = dofs_.global_count();
    std::vector<Eigen::Triplet<double, Index>> entries;
    for (std::size_t i = 0; i < constraints_.size(); ++i)
        for (Index r = 0; r < constraints_[i]->row_count(); ++r)
            for (Index dof : constraints_[i]->dofs()) entries.emplace_back(constraint_first_row_[i] + r, dof, 0.0);
    SparseMatrix pattern(constraint_rows_, n);
    pattern.setFromTriplets(entries.begin(), entries.end());
    pattern.makeCompressed();
    constraint_row_slots_.clear();
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        std::vector<Index> slots;
        for (Index r = 0; r < constraints_[i]->row_count(); ++r)
            for (Index dof : constraints_[i]->dofs()) {
                const Index row = constraint_first_row_[i] + r;
                const Index* begin = pattern.innerIndexPtr() + pattern.outerIndexPtr()[dof];
                const Index* end = pattern.innerIndexPtr() + pattern.outerIndexPtr()[dof + 1];
                slots.push_back(static_cast<Index>(std::lower_bound(begin, end, row) - pattern.innerIndexPtr()));
            }
        constraint_row_slots_.push_back(std::move(slots));
    }
    constraint_rows_view_.value = VectorX::Zero(constraint_rows_);
    constraint_rows_view_.compliance = VectorX::Zero(constraint_rows_);
    constraint_rows_view_.force_jacobian = pattern;
    constraint_rows_view_.position_jacobian = pattern;
}

const ConstraintRows& Simulation::constraint_rows() {
    // Filled from the last evaluation's per-constraint results, on demand: Newton does not need it.
    ConstraintRows& rows = constraint_rows_view_;
    SparseMatrix& g_f = rows.force_jacobian;
    SparseMatrix& g_q = rows.position_jacobian;
    std::fill(g_f.valuePtr(), g_f.valuePtr() + g_f.nonZeros(), 0.0);
    std::fill(g_q.valuePtr(), g_q.valuePtr() + g_q.nonZeros(), 0.0);
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        const ConstraintEvaluation& e = constraint_work_[i];
        const Index first = constraint_first_row_[i];
        const auto k = static_cast<Index>(constraints_[i]->dofs().size());
        for (Index r = 0; r < constraints_[i]->row_count(); ++r) {
            rows.value[first + r] = e.value[r];
            rows.compliance[first + r] = constraints_[i]->compliance(r);
            for (Index j = 0; j < k; ++j) {
                const Index slot = constraint_row_slots_[i][static_cast<std::size_t>(r * k + j)];
                g_f.valuePtr()[slot] += e.force_jacobian(r, j);
                g_q.valuePtr()[slot] += e.position_jacobian(r, j);
            }
        }
    }
    return rows;
}

void Simulation::declare_constraint_stencils() {
    constraint_stencils_.clear();
    const Index n = dofs_.global_count();
    std::vector<Index> stencil;
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        stencil = constraints_[i]->dofs();
        for (Index r = 0; r < constraints_[i]->row_count(); ++r) stencil.push_back(n + constraint_first_row_[i] + r);
        constraint_stencils_.push_back(assembler_.add_stencil(stencil));
    }
}

void Simulation::add_constraint_rows(const VectorX& lambda, double c_q, Assembly& assembly, bool with_jacobian) {
    // Rows scaled by 1/c_q so that the KKT block [[J, -G_f^T], [-G_q, -alpha/c_q]] is symmetric
    // for vector DOFs (architecture.md, "Constraints"): the Newton unknown x moves q by c_q x.
    constraint_residual_ = 0.0;
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        const Constraint& constraint = *constraints_[i];
        ConstraintEvaluation& e = constraint_work_[i];
        const Index rows = constraint.row_count();
        const auto k = static_cast<Index>(constraint.dofs().size());
        const double* multipliers = lambda.data() + constraint_first_row_[i];
        constraint.evaluate(context_, multipliers, e);
        const Eigen::Map<const VectorX> l(multipliers, rows);
        VectorX& r = constraint_residual_work_[i];
        r.head(k).noalias() = -e.force_jacobian.transpose() * l;
        for (Index row = 0; row < rows; ++row) {
            const double violation = e.value[row] + constraint.compliance(row) * l[row];
            constraint_residual_ = std::max(constraint_residual_, std::abs(violation));
            r[k + row] = -violation / c_q;
        }
        assembly.add_residual(constraint_stencils_[i], r);
        if (!with_jacobian) continue;
        Eigen::MatrixXd& block = constraint_block_work_[i];
        block.topLeftCorner(k, k) = -c_q * e.curvature;
        block.topRightCorner(k, rows) = -e.force_jacobian.transpose();
        block.bottomLeftCorner(rows, k) = -e.position_jacobian;
        block.bottomRightCorner(rows, rows).setZero();
        for (Index row = 0; row < rows; ++row) block(k + row, k + row) = -constraint.compliance(row) / c_q;
        assembly.add_jacobian(constraint_stencils_[i], block, 1.0);
    }
}

NewtonReport Simulation::solve(const AffineStep& step, VectorX& x) {
    return newton_solve(*this, step, newton_, *newton_work_, x);
}

void Simulation::commit(State next) {
    // Snap the time to the nominal grid when within round-off of it, so that t = 0.48 and not
    // 0.48000000000000037 after 480 additions of 1e-3.
    const double steps = std::round((next.t - start_time_) / nominal_dt_);
    const double grid = start_time_ + steps * nominal_dt_;
    if (std::abs(next.t - grid) <= 1e-9 * nominal_dt_) next.t = grid;
    // Prescribed DOFs take their exact value, velocity and acceleration at the new time (the
    // integrators' update formulas would give e.g. 2 v_mid - v_n for the midpoint rule).
    for (const Prescribed& p : prescribed_) {
        next.q[p.dof] = prescribed_value(p, next.t);
        next.v[p.dof] = prescribed_rate(p, next.t, 1);
        next.a[p.dof] = prescribed_rate(p, next.t, 2);
    }
    for (Index dof : fixed_) {
        next.v[dof] = 0.0;
        next.a[dof] = 0.0;
    }
    // Integrators leave a manifold block's step displacement at its tangent DOFs: fold it in.
    if (!manifold_.empty()) update_manifold_coordinates(state_.q, next.q, true);
    state_ = std::move(next);
    for (Contributor* c : contributors_) c->commit_step(state_);
}

void Simulation::update_manifold_coordinates(const VectorX& base, VectorX& q, bool fold) const {
    std::array<double, kMaxManifoldTangent> d{};
    for (const ManifoldSlot& slot : manifold_) {
        for (int k = 0; k < slot.tangent_size; ++k) d[k] = q[slot.tangent[k]];
        slot.element->integrate_block(slot.block, base.data() + slot.coordinate, d.data(), q.data() + slot.coordinate);
        if (fold)
            for (int k = 0; k < slot.tangent_size; ++k) q[slot.tangent[k]] = 0.0;
    }
}

bool Simulation::is_manifold_dof(Index global) const {
    for (const ManifoldSlot& slot : manifold_)
        for (int k = 0; k < slot.tangent_size; ++k)
            if (slot.tangent[k] == global) return true;
    return false;
}

void Simulation::integrate(const VectorX& q, const VectorX& dv, VectorX& out) const {
    const Index n = dofs_.global_count();
    // Blocks read q's coordinates, so work on a copy when out aliases q.
    const VectorX base = q;
    out = base;
    out.head(n) += dv;
    if (manifold_.empty()) return;
    for (const ManifoldSlot& slot : manifold_)
        for (int k = 0; k < slot.tangent_size; ++k) out[slot.tangent[k]] = base[slot.tangent[k]] + dv[slot.tangent[k]];
    // A tangent entry of q may hold a displacement not yet folded in; fold the sum.
    update_manifold_coordinates(base, out, true);
}

void Simulation::difference(const VectorX& q1, const VectorX& q0, VectorX& dv) const {
    const Index n = dofs_.global_count();
    dv = q1.head(n) - q0.head(n);
    std::array<double, kMaxManifoldTangent> d{};
    for (const ManifoldSlot& slot : manifold_) {
        slot.element->difference_block(slot.block, q1.data() + slot.coordinate, q0.data() + slot.coordinate, d.data());
        for (int k = 0; k < slot.tangent_size; ++k) dv[slot.tangent[k]] = d[k] + q1[slot.tangent[k]] - q0[slot.tangent[k]];
    }
}

std::string Simulation::describe_global_dof(Index global) const {
    const auto [element, local] = dofs_.owner(global);
    return fmt::format("{} {}", elements_[element]->name(), elements_[element]->describe_dof(local));
}

std::string Simulation::diagnose(const AffineStep& step, const std::string& what) {
    // Failure path: allocation is fine here. Show the worst free DOFs and, for the worst one,
    // which terms of the residual push on it.
    std::string text = fmt::format("at t = {:.6g} s (dt = {:.3g} s): {}", state_.t, step.dt, what);
    const auto& free_dofs = dofs_.free_dofs();
    std::vector<Index> order(static_cast<std::size_t>(dofs_.free_count()));
    for (Index i = 0; i < dofs_.free_count(); ++i) order[i] = i;
    auto magnitude = [&](Index i) {
        const double r = residual_free_[i];
        return std::isfinite(r) ? std::abs(r) : std::numeric_limits<double>::infinity();
    };
    const std::size_t shown = std::min<std::size_t>(3, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<long>(shown), order.end(),
                      [&](Index a, Index b) { return magnitude(a) > magnitude(b); });
    for (std::size_t k = 0; k < shown; ++k) {
        const Index g = free_dofs[order[k]];
        text += fmt::format("\n  residual {:+.3e} at {} (q = {:.6g})", residual_free_[order[k]], describe_global_dof(g), q_[g]);
    }
    if (shown > 0) {
        const Index g = free_dofs[order[0]];
        // Each term alone into a scratch residual through the live pattern (contributors keep
        // their stencil ids, so the pattern must never be redeclared here).
        VectorX partial = VectorX::Zero(dofs_.global_count());
        for (Contributor* term : contributors_) {
            partial.setZero();
            Assembly assembly = assembler_.assembly(partial, false);
            term->add_residual_and_jacobian(context_, assembly);
            if (partial[g] != 0.0) text += fmt::format("\n    from '{}': {:+.3e}", term->name(), partial[g]);
        }
    }
    return text;
}

}  // namespace soma
