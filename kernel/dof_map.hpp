#pragma once
/// \file dof_map.hpp
/// \brief Global DOF numbering: elements' local DOFs, shared nodes, fixed and prescribed DOFs.
///
/// Each element numbers its DOFs locally. The map gives every local DOF a global index; DOFs
/// that the scene declares shared (a node common to two rods, a rod-shell joint) receive the
/// same global index. Fixed and prescribed DOFs are eliminated from the solve: the free map
/// sends each global DOF to its row in the Jacobian, or kNotFree.

#include "soma/types.hpp"

#include <string>
#include <vector>

namespace soma {

class DofMap {
public:
    /// Starts a layout for elements with these local DOF counts.
    explicit DofMap(const std::vector<Index>& local_counts);

    /// Declares two local DOFs to be the same global DOF (union of equivalence classes).
    void share(Index element_a, Index local_a, Index element_b, Index local_b);
    /// Assigns global indices (call once, after every share()).
    void finalize();

    Index global_count() const { return global_count_; }
    /// Local-to-global map of one element (after finalize()).
    const std::vector<Index>& element_map(Index element) const { return maps_[element]; }
    /// The (first) element and local DOF owning a global DOF, for diagnostics.
    std::pair<Index, Index> owner(Index global) const { return owner_[global]; }

    /// Constrains a global DOF. Prescribed DOFs follow a time function; both are not free.
    void fix(Index global) { status_[global] = Status::fixed; }
    void prescribe(Index global) { status_[global] = Status::prescribed; }
    bool is_free(Index global) const { return status_[global] == Status::free; }
    bool is_prescribed(Index global) const { return status_[global] == Status::prescribed; }

    /// Numbers the free DOFs 0..free_count()-1 in global order (call after fix/prescribe).
    void number_free();
    Index free_count() const { return free_count_; }
    const std::vector<Index>& free_index() const { return free_index_; }   ///< global -> free or kNotFree
    const std::vector<Index>& free_dofs() const { return free_dofs_; }     ///< free -> global

private:
    enum class Status : unsigned char { free, fixed, prescribed };
    Index find_root(Index flat);

    std::vector<Index> offsets_;  // flat index of element e's local DOF 0
    std::vector<Index> parent_;   // union-find over flat indices
    std::vector<std::vector<Index>> maps_;
    std::vector<std::pair<Index, Index>> owner_;
    std::vector<Status> status_;
    std::vector<Index> free_index_, free_dofs_;
    Index global_count_ = 0;
    Index free_count_ = 0;
};

}  // namespace soma
