#pragma once
/// \file types.hpp
/// \brief Scalar, index and small fixed-size Eigen types shared by the kernel and all plugins.

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <cstdint>
#include <vector>

namespace soma {

/// Index of a DOF, node, edge or stencil. 32-bit: matches Eigen's and PETSc's default indices.
using Index = int;

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using VectorX = Eigen::VectorXd;
template <int N>
using VecN = Eigen::Matrix<double, N, 1>;
template <int N>
using MatN = Eigen::Matrix<double, N, N>;

/// The Jacobian of the free DOFs, compressed column storage (pattern cached by the kernel).
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, Index>;

/// Marks a DOF that is not solved for (fixed or prescribed) in a free-index map.
inline constexpr Index kNotFree = -1;

}  // namespace soma
