#pragma once
/// \file recording_system.hpp
/// \brief A System that forwards every call to a Simulation and records, at each Newton iterate,
/// |F_free| and its ratios to the force scale S (SystemEvaluation::force_scale): what each
/// iterate looked like to the balance test. Its solve() runs the kernel's newton_solve with the options
/// the test gives, over itself, so the recording sees every iterate of the scene's integrator.

#include "simulation.hpp"
#include "soma/newton.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace soma::validation {

class RecordingSystem final : public System {
public:
    /// One evaluation: the residual's norm and its largest row relative to that row's scale.
    struct Iterate {
        double force_norm = 0.0;
        double normwise = 0.0;  ///< |F| / |S| (2-norms over the free rows): the balance test's ratio
        double rowwise = 0.0;   ///< max_i |F_i| / S_i over the free rows (0/0 counts as 0)
    };

    RecordingSystem(Simulation& simulation, const NewtonOptions& options)
        : sim_(simulation), options_(options), work_(simulation) {}

    /// The iterates of every solve since the last clear (one vector per solve).
    std::vector<std::vector<Iterate>> solves;

    Index dof_count() const override { return sim_.dof_count(); }
    Index configuration_size() const override { return sim_.configuration_size(); }
    void integrate(const VectorX& q, const VectorX& dv, VectorX& out) const override { sim_.integrate(q, dv, out); }
    void difference(const VectorX& q1, const VectorX& q0, VectorX& dv) const override { sim_.difference(q1, q0, dv); }
    const State& state() const override { return sim_.state(); }
    NewtonReport solve(const AffineStep& step, VectorX& x) override {
        solves.emplace_back();
        return newton_solve(*this, step, options_, work_, x);
    }
    void commit(State next) override { sim_.commit(std::move(next)); }
    Index unknown_count() const override { return sim_.unknown_count(); }
    const std::vector<Index>& free_dofs() const override { return sim_.free_dofs(); }
    Index constraint_row_count() const override { return sim_.constraint_row_count(); }
    VectorX& multipliers() override { return sim_.multipliers(); }
    std::string begin_solve(const AffineStep& step, VectorX& x) override { return sim_.begin_solve(step, x); }
    SystemEvaluation evaluate(const AffineStep& step, const VectorX& x, const VectorX& lambda, bool with_jacobian,
                              bool with_force_scale) override {
        // newton_solve evaluates a new iterate with the Jacobian first, then without it (trial
        // points); a later evaluation with the Jacobian is the accepted iterate's again.
        SystemEvaluation e = sim_.evaluate(step, x, lambda, with_jacobian, true);
        if (!with_jacobian || solves.back().empty()) {
            Iterate it;
            it.force_norm = e.force_norm;
            const VectorX& r = sim_.residual();
            for (Index i = 0; i < e.force_scale->size(); ++i)
                if (r[i] != 0.0) it.rowwise = std::max(it.rowwise, std::abs(r[i]) / (*e.force_scale)[i]);
            it.normwise = e.force_norm / e.force_scale->norm();
            solves.back().push_back(it);
        }
        if (!with_force_scale) e.force_scale = nullptr;
        return e;
    }
    const VectorX& residual() const override { return sim_.residual(); }
    const SparseMatrix& jacobian() const override { return sim_.jacobian(); }
    bool shift_jacobian_diagonal(const VectorX& shift) override { return sim_.shift_jacobian_diagonal(shift); }
    bool factorize() override { return sim_.factorize(); }
    bool solve_linear(const VectorX& rhs, VectorX& solution) override { return sim_.solve_linear(rhs, solution); }
    bool solve_linear(const Eigen::MatrixXd& rhs, Eigen::MatrixXd& solution) override {
        return sim_.solve_linear(rhs, solution);
    }
    std::string linear_solver_error() const override { return sim_.linear_solver_error(); }
    const ConstraintRows& constraint_rows() override { return sim_.constraint_rows(); }
    std::string diagnose(const AffineStep& step, const std::string& what) override { return sim_.diagnose(step, what); }
    std::string check_solution(const AffineStep& step, const VectorX& x) override { return sim_.check_solution(step, x); }

private:
    Simulation& sim_;
    NewtonOptions options_;
    NewtonWorkspace work_;
};

}  // namespace soma::validation
