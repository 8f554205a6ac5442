#pragma once
/// \file point_kinematics.hpp
/// \brief Where a point of an element is, how fast it moves, and how both depend on the DOFs:
/// the data of a mapping x_i(q) (SOFA's mapping: apply, applyJ, applyJT, applyDJT).

#include "soma/types.hpp"
#include "soma/wide_storage.hpp"

#include <array>
#include <span>
#include <vector>

namespace soma {

/// Most DOFs the fixed-size part of a point holds (a rigid body's 3 translations and 3 rotations).
inline constexpr int kMaxPointDofs = 6;

/// One point at one iterate. Columns beyond dof_count are unused.
///
/// A point that depends on more than kMaxPointDofs DOFs is *wide* (a GVS backbone point depends on
/// every coordinate from the robot's base to it): its DOFs and Jacobians live in the `wide_`
/// members instead, which set_dof_count grows (never shrinks) and the element fills: all three
/// Jacobians, every one of the first dof_count columns. Keep the object across evaluations (a
/// member, not a local) and a wide point allocates nothing after its first evaluation, whatever
/// widths it sees. Read a point through dof(), dof_span() and the *_columns() views, which serve
/// both kinds.
struct PointKinematics {
    int dof_count = 3;                          ///< DOFs the point depends on
    std::array<Index, kMaxPointDofs> dofs{};    ///< their global indices (first dof_count; not wide)
    Vec3 position = Vec3::Zero();               ///< x_i(q)
    Vec3 velocity = Vec3::Zero();               ///< xdot_i = J v
    /// J = d xdot / d v: maps DOF velocities to the point's velocity; J^T f is the generalised
    /// force of a world force f at the point (applyJ / applyJT).
    Eigen::Matrix<double, 3, kMaxPointDofs> jacobian = Eigen::Matrix<double, 3, kMaxPointDofs>::Zero();
    /// d x / d q in the Newton step's coordinates (for a rotation, the tangent displacement of
    /// ManifoldBlock): J times the Jacobian of integrate. Equal to `jacobian` for vector DOFs.
    Eigen::Matrix<double, 3, kMaxPointDofs> position_jacobian = Eigen::Matrix<double, 3, kMaxPointDofs>::Zero();
    /// d xdot / d q at fixed v (a rotating body's point velocity turns with it); zero for identity points.
    Eigen::Matrix<double, 3, kMaxPointDofs> velocity_jacobian = Eigen::Matrix<double, 3, kMaxPointDofs>::Zero();

    // A wide point's DOFs and its three Jacobians (3 x dof_count), as above.
    std::vector<Index> wide_dofs;
    Eigen::Matrix<double, 3, Eigen::Dynamic> wide_jacobian, wide_position_jacobian, wide_velocity_jacobian;
    /// Scratch for a wide point's dof_count square geometric stiffness (its top-left block;
    /// Element::wide_point_geometric_stiffness grows it, never shrinks it).
    Eigen::MatrixXd wide_stiffness;

    using Columns = Eigen::Map<Eigen::Matrix<double, 3, Eigen::Dynamic>>;
    using ConstColumns = Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>>;

    bool is_wide() const { return dof_count > kMaxPointDofs; }
    /// \brief Sets dof_count; a wide point's storage grows to it (allocates only when it grows).
    void set_dof_count(int count) {
        dof_count = count;
        if (is_wide()) grow_wide_storage(count, wide_dofs, wide_jacobian, wide_position_jacobian, wide_velocity_jacobian);
    }
    Index dof(int column) const { return is_wide() ? wide_dofs[static_cast<std::size_t>(column)] : dofs[static_cast<std::size_t>(column)]; }
    std::span<const Index> dof_span() const { return {is_wide() ? wide_dofs.data() : dofs.data(), static_cast<std::size_t>(dof_count)}; }
    std::span<Index> dof_span() { return {is_wide() ? wide_dofs.data() : dofs.data(), static_cast<std::size_t>(dof_count)}; }
    // The first dof_count columns of a fixed-size Jacobian are contiguous (column-major, 3 rows).
    ConstColumns jacobian_columns() const { return {is_wide() ? wide_jacobian.data() : jacobian.data(), 3, dof_count}; }
    ConstColumns position_jacobian_columns() const {
        return {is_wide() ? wide_position_jacobian.data() : position_jacobian.data(), 3, dof_count};
    }
    ConstColumns velocity_jacobian_columns() const {
        return {is_wide() ? wide_velocity_jacobian.data() : velocity_jacobian.data(), 3, dof_count};
    }
    Columns jacobian_columns() { return {is_wide() ? wide_jacobian.data() : jacobian.data(), 3, dof_count}; }
    Columns position_jacobian_columns() {
        return {is_wide() ? wide_position_jacobian.data() : position_jacobian.data(), 3, dof_count};
    }
    Columns velocity_jacobian_columns() {
        return {is_wide() ? wide_velocity_jacobian.data() : velocity_jacobian.data(), 3, dof_count};
    }
};

/// d(J^T f)/dq of one point (rows and columns: the point's DOFs, first dof_count).
using PointStiffness = Eigen::Matrix<double, kMaxPointDofs, kMaxPointDofs>;

}  // namespace soma
