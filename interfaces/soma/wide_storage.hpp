#pragma once
/// \file wide_storage.hpp
/// \brief The dynamic part of a wide point or frame (point_kinematics.hpp, frame_kinematics.hpp):
/// a DOF list and Jacobians of fixed rows and as many columns as the DOFs.

#include "soma/types.hpp"

#include <cstddef>
#include <vector>

namespace soma {

/// \brief Grows \p dofs and each of \p jacobians (fixed rows, dynamic columns) to \p count
/// columns. Never shrinks them: a consumer that sees maps of several widths allocates only until
/// it has seen the widest, and reads the first \p count columns.
template <class... Jacobians>
void grow_wide_storage(int count, std::vector<Index>& dofs, Jacobians&... jacobians) {
    if (dofs.size() < static_cast<std::size_t>(count)) dofs.resize(static_cast<std::size_t>(count));
    ((jacobians.cols() < count ? jacobians.resize(Eigen::NoChange, count) : void()), ...);
}

}  // namespace soma
