#pragma once
// A System (interfaces/soma/system.hpp) over a nonlinear algebraic system F(x) = 0 with a
// Jacobian written by hand: the unknowns are the DOFs, all free, q = x (AffineStep with c_q = 1,
// q_pred = 0). For testing newton_solve's iterations on problems from the literature, apart from
// any element.
#include "soma/system.hpp"

#include <Eigen/LU>

#include <functional>
#include <utility>

namespace soma::testing {

class AlgebraicSystem final : public System {
public:
    using Function = std::function<void(const VectorX& x, VectorX& f)>;
    using Jacobian = std::function<void(const VectorX& x, Eigen::MatrixXd& j)>;

    AlgebraicSystem(Index n, Function f, Jacobian j)
        : n_(n), f_(std::move(f)), j_(std::move(j)), residual_(VectorX::Zero(n)), dense_(Eigen::MatrixXd::Zero(n, n)) {
        for (Index i = 0; i < n; ++i) free_.push_back(i);
        state_.q = state_.v = state_.a = VectorX::Zero(n);
        // A full pattern, refilled in place.
        jacobian_.resize(n, n);
        std::vector<Eigen::Triplet<double, Index>> all;
        for (Index c = 0; c < n; ++c)
            for (Index r = 0; r < n; ++r) all.emplace_back(r, c, 1.0);
        jacobian_.setFromTriplets(all.begin(), all.end());
    }

    /// The unknown step: evaluation at q = x.
    static AffineStep statics_step(Index n) {
        AffineStep step;
        step.dt = 1.0;
        step.q_pred = step.v_pred = step.a_pred = VectorX::Zero(n);
        step.coefficients = {1.0, 0.0, 0.0};
        return step;
    }

    int evaluations = 0;  ///< residual evaluations (trial points included)

    Index dof_count() const override { return n_; }
    Index configuration_size() const override { return n_; }
    void integrate(const VectorX& q, const VectorX& dv, VectorX& out) const override { out = q + dv; }
    void difference(const VectorX& q1, const VectorX& q0, VectorX& dv) const override { dv = q1 - q0; }
    const State& state() const override { return state_; }
    NewtonReport solve(const AffineStep&, VectorX&) override { return {}; }  // the tests call newton_solve
    void commit(State next) override { state_ = std::move(next); }
    Index unknown_count() const override { return n_; }
    const std::vector<Index>& free_dofs() const override { return free_; }
    Index constraint_row_count() const override { return 0; }
    VectorX& multipliers() override { return multipliers_; }
    std::string begin_solve(const AffineStep&, VectorX&) override { return {}; }
    SystemEvaluation evaluate(const AffineStep&, const VectorX& x, const VectorX&, bool with_jacobian,
                              bool) override {
        ++evaluations;
        f_(x, residual_);
        if (with_jacobian) {
            j_(x, dense_);
            for (Index c = 0; c < n_; ++c)
                for (SparseMatrix::InnerIterator it(jacobian_, c); it; ++it) it.valueRef() = dense_(it.row(), c);
        }
        SystemEvaluation e;
        e.force_norm = e.merit = residual_.norm();
        e.configuration_scale = x.cwiseAbs().maxCoeff();
        return e;
    }
    const VectorX& residual() const override { return residual_; }
    const SparseMatrix& jacobian() const override { return jacobian_; }
    bool factorize() override {
        lu_.compute(Eigen::MatrixXd(jacobian_));
        return lu_.isInvertible();
    }
    bool solve_linear(const VectorX& rhs, VectorX& solution) override {
        solution = lu_.solve(rhs);
        return true;
    }
    bool solve_linear(const Eigen::MatrixXd& rhs, Eigen::MatrixXd& solution) override {
        solution = lu_.solve(rhs);
        return true;
    }
    std::string check_solution(const AffineStep&, const VectorX&) override { return {}; }
    std::string linear_solver_error() const override { return "singular Jacobian"; }
    const ConstraintRows& constraint_rows() override { return rows_; }
    std::string diagnose(const AffineStep&, const std::string& what) override { return what; }

private:
    Index n_;
    Function f_;
    Jacobian j_;
    std::vector<Index> free_;
    State state_;
    VectorX residual_, multipliers_;
    Eigen::MatrixXd dense_;
    SparseMatrix jacobian_;
    Eigen::FullPivLU<Eigen::MatrixXd> lu_;
    ConstraintRows rows_;
};

}  // namespace soma::testing
