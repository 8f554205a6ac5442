// The Simulation as a System (interfaces/soma/system.hpp): evaluation of the residual and the
// (KKT) Jacobian over the cached pattern, factorization and solves, the constraint rows, step
// commit/reject, manifold coordinates, and the failure diagnosis. The Newton iteration itself
// is newton_solve (kernel/newton.cpp), run over these calls.
#include "simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
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
    // The constraints' stencils come first: they never change, and a contributor that changes
    // (a contact force, declared last) then owns the end of the tables, where it may append.
    const auto start = Clock::now();
    assembler_.clear();
    ++pattern_generation_;
    constraints_.declare_stencils(assembler_, dofs_.global_count());
    constraint_stencils_end_ = assembler_.stencil_count();
    stencil_ranges_.clear();
    for (Contributor* c : contributors_) {
        const StencilId first = assembler_.stencil_count();
        c->declare_pattern(assembler_);
        stencil_ranges_.emplace_back(first, assembler_.stencil_count());
    }
    place_stencils(0);
    timings_.pattern += seconds_since(start);
}

void Simulation::place_stencils(StencilId first) {
    ++timings_.pattern_updates;
    // New nonzeros: the union pattern grew, and the solver analyzes it at the next factorization.
    // Until then the factorization in hand, of the old pattern, still solves (a chord step,
    // NewtonOptions::jacobian_reuse), and patterns that change at several steps in a row without
    // a factorization between them cost one analysis.
    if (assembler_.place_stencils(first, free_index_, static_cast<Index>(free_dofs_.size()))) analysis_pending_ = true;
}

void Simulation::redeclare_changed_stencils() {
    // A force may mirror an element's stencils (rayleigh_damping, through ElementJacobian), so
    // when an element's stencils change, everyone declares again.
    const bool element_changed =
        std::any_of(pattern_changed_.begin(), pattern_changed_.end(), [&](std::size_t i) { return i < elements_.size(); });
    if (element_changed) {
        rebuild_pattern();
        return;
    }
    // A changed contributor whose block is not the last in the tables leaves its old block there,
    // unused, and appends a new one; the last one appends to its block or replaces it in place.
    // When the unused entries would outgrow the used ones (the constraints' and every
    // contributor's block, the new blocks taken at the old ones' size), declaring everything
    // again compacts the tables (the pattern itself is kept). Decided before anyone declares, so
    // that every changed contributor declares once.
    const StencilId end = assembler_.stencil_count();
    Index used = assembler_.scatter_entries(0, constraint_stencils_end_);
    for (const auto& [first, last] : stencil_ranges_) used += assembler_.scatter_entries(first, last);
    Index unused = assembler_.scatter_entries(0, end) - used;
    auto last_block = pattern_changed_.end();
    for (auto it = pattern_changed_.begin(); it != pattern_changed_.end(); ++it) {
        const auto [first, last] = stencil_ranges_[*it];
        if (last != end) unused += assembler_.scatter_entries(first, last);
        else if (first != last) last_block = it;
    }
    if (unused > used) {
        rebuild_pattern();
        return;
    }
    // The last block's owner declares first, while its block is still the last.
    if (last_block != pattern_changed_.end()) std::iter_swap(pattern_changed_.begin(), last_block);

    // Only the contributors that changed declare again: the others' stencil ids stay valid.
    const auto start = Clock::now();
    StencilId first_new = assembler_.stencil_count();
    for (std::size_t i : pattern_changed_) {
        auto& [first, last] = stencil_ranges_[i];
        // The last contributor in the tables may add its new stencils after its old ones (a
        // contact pair that appeared): only those are placed, not all of its stencils again.
        const StencilId table_end = assembler_.stencil_count();
        if (last == table_end && contributors_[i]->declare_added_stencils(assembler_)) {
            last = assembler_.stencil_count();
            first_new = std::min(first_new, table_end);
            continue;
        }
        assert(assembler_.stencil_count() == table_end && "declare_added_stencils returned false after declaring");
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
    const auto start = Clock::now();
    for (std::size_t i = 0; i < contributors_.size(); ++i) {
        const auto term_start = Clock::now();
        contributors_[i]->begin_step(state_);
        timings_.term_step_start[i] += seconds_since(term_start);
    }
    timings_.step_start += seconds_since(start);
    pattern_changed_.clear();  // capacity reserved at construction
    for (std::size_t i = 0; i < contributors_.size(); ++i)
        if (contributors_[i]->pattern_changed()) pattern_changed_.push_back(i);
    if (!pattern_changed_.empty()) redeclare_changed_stencils();
}

void Simulation::detect_contacts(double dt, std::span<const SolvedStep> solved) {
    const auto start = Clock::now();
    contacts_.detect(*this, dt, solved, dofs_.global_count());
    timings_.step_start += seconds_since(start);
}

void Simulation::set_contact_forces(const VectorX& normal, const VectorX& friction) {
    contacts_.set_forces(normal, friction);
}

void Simulation::reject_attempt() {
    for (Contributor* c : contributors_) c->reject_step();
}

std::string Simulation::begin_solve(const AffineStep& step, VectorX& x) {
    // Actuation at the time this solve evaluates the forces (controller.hpp).
    for (const auto& controller : controllers_) controller->apply(step.t_eval);
    boundary_.set_unknowns(step, state_.q, x);
    // A solve with c_q = 0 holds hard constraints at the acceleration level, at the step's end or
    // at the velocity level (AffineStep::explicit_rows); each needs x to move what it holds.
    const JacobianCoefficients& c = step.coefficients;
    using Rows = AffineStep::ExplicitRows;
    if (!constraints_.empty() && c.c_q == 0.0) {
        if (step.explicit_rows == Rows::acceleration && c.c_a == 0.0)
            return "constraints need a solve that moves q or a (c_q > 0 or c_a > 0)";
        if (step.explicit_rows == Rows::end_position &&
            (step.end_c_q <= 0.0 || step.end_displacement.size() != dofs_.global_count()))
            return "constraints held at the step's end need end_c_q > 0 and an end_displacement per DOF";
        if (step.explicit_rows == Rows::velocity && c.c_v == 0.0)
            return "constraints held at the velocity level need a solve that moves v (c_v > 0)";
    }
    return {};
}

void Simulation::set_evaluation_point(const AffineStep& step, const VectorX& x) {
    const JacobianCoefficients& c = step.coefficients;
    const Index n = dofs_.global_count();
    q_.head(n) = step.q_pred + c.c_q * x;
    if (!manifold_.empty()) manifold_.update(state_.q, q_, false);
    v_ = step.v_pred + c.c_v * x;
    a_ = step.a_pred + c.c_a * x;
    context_.t = step.t_eval;
    context_.dt = step.dt;
    context_.load_factor = step.load_factor;
    context_.q = &q_;
    context_.v = &v_;
    context_.a = &a_;
    context_.step_start = &state_;
    context_.coefficients = c;
}

SystemEvaluation Simulation::evaluate(const AffineStep& step, const VectorX& x, const VectorX& lambda,
                                      bool with_jacobian, bool with_force_scale) {
    const auto start = Clock::now();
    const JacobianCoefficients& c = step.coefficients;
    set_evaluation_point(step, x);
    residual_.setZero();
    SparseMatrix& jacobian = assembler_.jacobian();
    if (with_jacobian) std::fill(jacobian.valuePtr(), jacobian.valuePtr() + jacobian.nonZeros(), 0.0);
    Assembly assembly = assembler_.assembly(residual_, with_jacobian);
    if (with_force_scale) {
        residual_scale_.setZero();
        assembly.residual_scale = residual_scale_.data();
    }
    for (std::size_t i = 0; i < contributors_.size(); ++i) {
        const auto term_start = Clock::now();
        contributors_[i]->add_residual_and_jacobian(context_, assembly);
        timings_.term_assembly[i] += seconds_since(term_start);
    }
    if (!constraints_.empty()) {
        if (c.c_q == 0.0 && step.explicit_rows == AffineStep::ExplicitRows::end_position) {
            end_displacement_ = step.end_displacement + step.end_c_q * x;
            constraint_residual_ = constraints_.add_end_rows(context_, lambda, end_displacement_, step.end_c_q, assembly,
                                                             with_jacobian);
        } else if (c.c_q == 0.0 && step.explicit_rows == AffineStep::ExplicitRows::velocity) {
            constraint_residual_ = constraints_.add_velocity_rows(context_, lambda, assembly, with_jacobian);
        } else {
            constraint_residual_ = constraints_.add_rows(context_, lambda, c.c_q, assembly, with_jacobian);
        }
    }
    if (!contacts_.empty()) contacts_.evaluate(context_);
    const Index nf = dofs_.free_count();
    for (Index i = 0; i < static_cast<Index>(free_dofs_.size()); ++i) residual_free_[i] = residual_[free_dofs_[i]];
    SystemEvaluation result;
    if (with_force_scale) {
        for (Index i = 0; i < nf; ++i) force_scale_free_[i] = residual_scale_[free_dofs_[i]];
        result.force_scale = &force_scale_free_;
    }
    timings_.assembly += seconds_since(start);
    ++timings_.evaluations;
    result.force_norm = residual_free_.head(nf).norm();
    result.constraint_violation = constraint_residual_;
    result.merit = residual_free_.norm();
    result.configuration_scale = q_.cwiseAbs().maxCoeff();
    return result;
}

void Simulation::analyze_pattern() {
    if (!analysis_pending_) return;
    const auto start = Clock::now();
    if (elimination_.empty()) {
        solver_->analyze(assembler_.jacobian());
    } else {
        elimination_.analyze(assembler_.jacobian());
        solver_->analyze(elimination_.matrix());
    }
    analysis_pending_ = false;
    ++timings_.analyses;
    timings_.pattern += seconds_since(start);
}

bool Simulation::shift_jacobian_diagonal(const VectorX& shift) {
    SparseMatrix& jacobian = assembler_.jacobian();
    if (shift.size() > dofs_.free_count()) return false;
    // Every free DOF's diagonal is in the pattern (SparseAssembler): coeffRef finds it, inserts nothing.
    for (Index i = 0; i < shift.size(); ++i)
        if (shift[i] != 0.0) jacobian.coeffRef(i, i) += shift[i];
    return true;
}

bool Simulation::factorize() {
    analyze_pattern();
    const auto start = Clock::now();
    // A reduction that fails leaves E and L of another J than the solver's factorization: no
    // solve may mix them until a factorization succeeds again.
    const bool factorized = elimination_.empty() ? solver_->factorize(assembler_.jacobian())
                                                 : elimination_.reduce(assembler_.jacobian()) &&
                                                       solver_->factorize(elimination_.matrix());
    reduced_factorization_ = !elimination_.empty() && factorized;
    timings_.factorization += seconds_since(start);
    ++timings_.factorizations;
    return factorized;
}

bool Simulation::solve_linear(const VectorX& rhs, VectorX& solution) {
    const auto start = Clock::now();
    bool solved = false;
    if (elimination_.empty()) {
        solved = solver_->solve(rhs, solution);
        timings_.linear_solver_iterations += solver_->last_iterations();
    } else if (reduced_factorization_) {
        elimination_.reduce_rhs(rhs, reduced_rhs_);
        solved = solver_->solve(reduced_rhs_, reduced_solution_);
        timings_.linear_solver_iterations += solver_->last_iterations();
        if (solved) elimination_.expand(rhs, reduced_solution_, solution);
    }
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

NewtonReport Simulation::solve(const AffineStep& step, VectorX& x) {
    NewtonReport report = newton_solve(*this, step, newton_, *newton_work_, x);
    timings_.chord_steps += report.chord_steps;
    if (!report.converged) return report;
    std::string refusal = check_solution(step, x);
    if (!refusal.empty()) {
        report.converged = false;
        report.diagnosis = std::move(refusal);
    }
    return report;
}

std::string Simulation::check_solution(const AffineStep& step, const VectorX& x) {
    set_evaluation_point(step, x);
    for (const Contributor* term : contributors_) {
        std::string refusal = term->check_solution(context_);
        if (!refusal.empty())
            return fmt::format("at t = {:.9g} s (dt = {:.3g} s): the solution was refused: {}", step.t_eval, step.dt,
                               refusal);
    }
    return {};
}

void Simulation::commit(State next) {
    // Snap the time to the nominal grid when within round-off of it, so that t = 0.48 and not
    // 0.48000000000000037 after 480 additions of 1e-3.
    const double steps = std::round((next.t - start_time_) / nominal_dt_);
    const double grid = start_time_ + steps * nominal_dt_;
    if (std::abs(next.t - grid) <= 1e-9 * nominal_dt_) next.t = grid;
    boundary_.impose(next);
    // Integrators leave a manifold block's step displacement at its tangent DOFs: fold it in.
    if (!manifold_.empty()) manifold_.update(state_.q, next.q, true);
    state_ = std::move(next);
    for (Contributor* c : contributors_) c->commit_step(state_);
}

void Simulation::integrate(const VectorX& q, const VectorX& dv, VectorX& out) const {
    manifold_.integrate(dofs_.global_count(), q, dv, out);
}

void Simulation::difference(const VectorX& q1, const VectorX& q0, VectorX& dv) const {
    manifold_.difference(dofs_.global_count(), q1, q0, dv);
}

void Simulation::chart_rate(const VectorX& q0, const VectorX& d, const VectorX& v, VectorX& out) const {
    manifold_.chart_rate(q0, d, v, out);
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
