#pragma once
/// \file manifold_coordinates.hpp
/// \brief Where the elements' manifold blocks (element.hpp, ManifoldBlock: a rigid body's
/// orientation) live in the global state, and the group operations on the whole q.
///
/// q = [one entry per velocity DOF | each block's coordinates]. In a committed q a block's
/// tangent DOFs hold 0; during a step they hold the displacement d from the step start, and the
/// block's coordinates are q_start (+) d (refreshed at every evaluation, folded in at commit).

#include "dof_map.hpp"

#include "soma/element.hpp"

#include <array>
#include <memory>
#include <vector>

namespace soma {

class ManifoldCoordinates {
public:
    /// Places every element's blocks after the \p dofs' global DOFs, in element order, and binds
    /// each element to its DOF map and block coordinates. Throws std::logic_error for a block an
    /// element declares inconsistently (a plugin bug).
    void place(const std::vector<std::unique_ptr<Element>>& elements, const DofMap& dofs);
    /// Size of q: the DOFs plus every block's coordinates.
    Index configuration_size() const { return configuration_size_; }
    bool empty() const { return slots_.empty(); }
    /// Writes each block's initial coordinates into \p q. \p shared marks DOFs that more than one
    /// element wrote (tangent DOFs may not be shared: std::logic_error).
    void initialize(VectorX& q, const std::vector<char>& shared) const;
    /// True when \p global is a tangent DOF of some block.
    bool contains(Index global) const;
    /// q's block coordinates := base's (+) q's tangent entries; with \p fold, the tangent entries
    /// are then zeroed (a commit).
    void update(const VectorX& base, VectorX& q, bool fold) const;
    /// out = q (+) dv over the whole configuration (System::integrate). \p out may alias \p q.
    void integrate(Index dof_count, const VectorX& q, const VectorX& dv, VectorX& out) const;
    /// dv = q1 (-) q0 (System::difference).
    void difference(Index dof_count, const VectorX& q1, const VectorX& q0, VectorX& dv) const;
    /// The rate of the chart coordinates at \p q0 of q0 (+) d moving with velocities \p v
    /// (System::chart_rate): v on vector DOFs; on a block, a central difference of its integrate
    /// and difference over a displacement of 1e-5 along v (|v| the block's velocity norm, its
    /// components' units mixed for a block that has translations; truncation ~1e-10 |d| |v| and
    /// round-off ~1e-11 |v| for coordinates of order 1, against a correction of order |d| |v|).
    /// No allocation once out is sized.
    void chart_rate(const VectorX& q0, const VectorX& d, const VectorX& v, VectorX& out) const;

private:
    struct Slot {
        const Element* element = nullptr;
        Index block = 0;                ///< index in element->manifold_blocks()
        Index coordinate = 0;           ///< global index in q of its first coordinate
        int tangent_size = 0, coordinate_count = 0;
        std::array<Index, kMaxManifoldTangent> tangent{};  ///< global DOFs of its tangent components
    };
    std::vector<Slot> slots_;
    Index configuration_size_ = 0;
};

}  // namespace soma
