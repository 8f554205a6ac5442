#pragma once
/// \file testing/dense_assembly.hpp
/// \brief Dense assembly of contributors over all DOFs, for derivative tests of plugins.
///
/// Header-only so that in-tree and out-of-tree plugin tests can check F and J of a contributor
/// against central finite differences without the kernel's sparse machinery:
/// \code
///   soma::testing::DenseAssembly dense(n_dofs);
///   rod.declare_pattern(dense.pattern());
///   auto [F, J] = dense.evaluate(rod, context);   // J = c_q dF/dq + c_v dF/dv + c_a dF/da
/// \endcode

#include "soma/contributor.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

namespace soma::testing {

/// Records stencils over n DOFs and scatters them into a dense column-major matrix.
class DenseAssembly {
public:
    explicit DenseAssembly(Index n) : n_(n), recorder_(*this) { begin_.push_back(0); scatter_begin_.push_back(0); }

    PatternBuilder& pattern() { return recorder_; }

    /// Residual and combined Jacobian of one contributor at a context (all DOFs free).
    std::pair<VectorX, Eigen::MatrixXd> evaluate(Contributor& term, const EvalContext& context,
                                                  bool with_jacobian = true) {
        VectorX residual = VectorX::Zero(n_);
        Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(n_, n_);
        Assembly assembly;
        assembly.residual = residual.data();
        assembly.jacobian_values = with_jacobian ? jacobian.data() : nullptr;
        assembly.stencil_dof_begin = begin_.data();
        assembly.stencil_dofs = dofs_.data();
        assembly.stencil_scatter_begin = scatter_begin_.data();
        assembly.scatter = scatter_.data();
        term.add_residual_and_jacobian(context, assembly);
        return {residual, jacobian};
    }

    /// Forgets the stencils (for contributors whose pattern changes).
    void clear() {
        begin_.assign(1, 0);
        scatter_begin_.assign(1, 0);
        dofs_.clear();
        scatter_.clear();
    }

private:
    struct Recorder final : PatternBuilder {
        explicit Recorder(DenseAssembly& owner) : owner(owner) {}
        StencilId add_stencil(std::span<const Index> global_dofs) override {
            auto& o = owner;
            const Index n = static_cast<Index>(global_dofs.size());
            for (Index d : global_dofs) o.dofs_.push_back(d);
            o.begin_.push_back(static_cast<Index>(o.dofs_.size()));
            for (Index c = 0; c < n; ++c)
                for (Index r = 0; r < n; ++r) o.scatter_.push_back(global_dofs[c] * o.n_ + global_dofs[r]);
            o.scatter_begin_.push_back(static_cast<Index>(o.scatter_.size()));
            return static_cast<StencilId>(o.begin_.size() - 2);
        }
        DenseAssembly& owner;
    };

    Index n_;
    std::vector<Index> begin_, dofs_, scatter_begin_, scatter_;
    Recorder recorder_;
};

/// Central finite-difference derivative of a residual function F(x) with step h.
template <class Function>
Eigen::MatrixXd finite_difference_jacobian(Function&& residual_of, const VectorX& x, double h) {
    const Index n = static_cast<Index>(x.size());
    VectorX f0 = residual_of(x);
    Eigen::MatrixXd jacobian(f0.size(), n);
    VectorX xp = x, xm = x;
    for (Index j = 0; j < n; ++j) {
        xp(j) = x(j) + h;
        xm(j) = x(j) - h;
        jacobian.col(j) = (residual_of(xp) - residual_of(xm)) / (2.0 * h);
        xp(j) = x(j);
        xm(j) = x(j);
    }
    return jacobian;
}

/// Central finite-difference gradient of a scalar function f(x) with step h.
template <class Function>
VectorX finite_difference_gradient(Function&& f, const VectorX& x, double h) {
    VectorX gradient(x.size());
    VectorX xp = x, xm = x;
    for (Index i = 0; i < static_cast<Index>(x.size()); ++i) {
        xp(i) = x(i) + h;
        xm(i) = x(i) - h;
        gradient(i) = (f(xp) - f(xm)) / (2.0 * h);
        xp(i) = xm(i) = x(i);
    }
    return gradient;
}

/// max |analytic - numeric| / max |analytic|: the error relative to the largest entry.
inline double max_relative_error(const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& numeric) {
    return (analytic - numeric).cwiseAbs().maxCoeff() / std::max(analytic.cwiseAbs().maxCoeff(), 1e-300);
}

}  // namespace soma::testing
