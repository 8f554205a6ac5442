#pragma once
/// \file stretching_spring.hpp
/// \brief Stretching energy of one rod edge (digest 000 §2.1, paper eq. 9-10).
///
///     eps = |e| / l_rest - 1,        E = 1/2 k_s eps^2 l_rest,        k_s = E A
///
/// Local DOFs: [x_0 (3), x_1 (3)] with e = x_1 - x_0.

#include "soma/types.hpp"

namespace soma::rod {

/// Rest length and axial stiffness of one edge.
struct StretchingSpring {
    double rest_length = 1.0;  ///< |e_bar| (m)
    double stiffness = 0.0;    ///< k_s = E A (N)
};

/// \brief Stretching energy 1/2 k_s (|e|/l - 1)^2 l of the edge x0 -> x1 (J).
double stretching_energy(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1);

/// \brief Energy and gradient of the stretching spring, without the Hessian (residual-only
/// evaluations); the same gradient, bit for bit, as stretching_energy_gradient_hessian.
/// \param[out] gradient 6-vector [dE/dx0, dE/dx1]
/// \return the energy
double stretching_energy_gradient(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1,
                                  VecN<6>& gradient);

/// \brief Energy, gradient and Hessian of the stretching spring (digest 000 §2.1).
///
///     dE/dx_1 = -dE/dx_0 = k_s eps t,
///     d2E/dx_a dx_b = +-K,   K = k_s [ (1/l - 1/|e|) I + e e^T / |e|^3 ]
///
/// \param[in]  spring  rest length and stiffness
/// \param[in]  x0, x1  node positions
/// \param[out] gradient 6-vector [dE/dx0, dE/dx1]
/// \param[out] hessian  6x6 (symmetric)
/// \return the energy
double stretching_energy_gradient_hessian(const StretchingSpring& spring, const Vec3& x0,
                                          const Vec3& x1, VecN<6>& gradient, MatN<6>& hessian);

}  // namespace soma::rod
