#pragma once
/// \file energy_term.hpp
/// \brief Adding an elastic energy's derivatives to F and J (assembly.hpp):
///
///     F[s] += grad E,    J[s, s] += c_q Hess E
///
/// for a local energy E over the DOFs of one stencil s (a spring, a hinge, a triangle). An element
/// evaluates its energies in one of three ways: the energy alone (potential_energy, no
/// assembly), with the gradient (a residual-only evaluation: a Newton trial point, or c_q = 0),
/// or with gradient and Hessian. EnergyEvaluation decides which once per evaluation;
/// add_energy_term calls the matching function of a term and adds what it computed.

#include "soma/assembly.hpp"

namespace soma {

/// \brief What one evaluation of an element's energy terms computes and where it adds it.
struct EnergyEvaluation {
    /// \param[in] target  where grad E and c_q Hess E are added; null for the energy alone
    /// \param[in] weight_q  c_q, the weight of dF/dq: the Hessian is computed only when the
    ///            assembly wants a Jacobian and c_q is not 0
    EnergyEvaluation(Assembly* target, double weight_q)
        : assembly(target), c_q(weight_q), hessian(target != nullptr && target->wants_jacobian() && weight_q != 0.0) {}

    Assembly* assembly;  ///< null: the energy alone
    double c_q;          ///< weight of the Hessian in J
    bool hessian;        ///< whether to compute and add the Hessian

    /// Whether gradients are wanted (there is an assembly to add them to).
    bool gradient() const { return assembly != nullptr; }
};

/// \brief Adds the derivatives of one local energy, computed by the caller, on \p stencil: F +=
/// \p gradient and, when the evaluation wants the Hessian, J += c_q \p hessian. For terms whose
/// local vectors need rearranging before they are added (mid-edge wing slots). Requires
/// evaluation.gradient().
template <class GradientType, class HessianType>
inline void add_energy_derivatives(const EnergyEvaluation& evaluation, StencilId stencil,
                                   const Eigen::MatrixBase<GradientType>& gradient,
                                   const Eigen::MatrixBase<HessianType>& hessian) {
    evaluation.assembly->add_residual(stencil, gradient);
    if (evaluation.hessian) evaluation.assembly->add_jacobian(stencil, hessian, evaluation.c_q);
}

/// \brief Evaluates one local energy term over the N DOFs of \p stencil as \p evaluation asks and
/// adds its derivatives; returns the energy. Inline, and the local gradient and Hessian are
/// fixed-size: no allocation.
/// \param[in] energy  `double()`: E
/// \param[in] energy_gradient  `double(VecN<N>& g)`: E, with g = grad E
/// \param[in] energy_gradient_hessian  `double(VecN<N>& g, MatN<N>& H)`: E, g and H = Hess E
template <int N, class Energy, class EnergyGradient, class EnergyGradientHessian>
inline double add_energy_term(const EnergyEvaluation& evaluation, StencilId stencil, Energy&& energy,
                              EnergyGradient&& energy_gradient, EnergyGradientHessian&& energy_gradient_hessian) {
    if (!evaluation.gradient()) return energy();
    VecN<N> g;
    if (!evaluation.hessian) {
        const double e = energy_gradient(g);
        evaluation.assembly->add_residual(stencil, g);
        return e;
    }
    MatN<N> H;
    const double e = energy_gradient_hessian(g, H);
    evaluation.assembly->add_residual(stencil, g);
    evaluation.assembly->add_jacobian(stencil, H, evaluation.c_q);
    return e;
}

}  // namespace soma
