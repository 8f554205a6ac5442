#pragma once
/// \file broad_phase.hpp
/// \brief Axis-aligned boxes, and candidate pairs among them by a uniform grid over sorted cell
/// keys: the broad phase IMC contact used before FCL's tree (box_tree.hpp) measured 2.8 to 3.4
/// times faster on the gripper's boxes; kept as the benchmark's alternative
/// (bench/broad_phase_benchmarks.cpp). MAT-DiSMech §4.4 tests every pair of edges; neither does.
///
/// Each box is entered in the grid cell of its centre, with cells twice the mean box extent; a
/// box no larger than a cell can only overlap boxes whose centres lie in its cell or the 26
/// around it, which are found by binary search in the sorted cell keys. The cost is O(N log N)
/// for the sort and the searches plus the tests of neighbouring boxes, output-sensitive, against
/// N²/2 for all pairs. A box larger than a cell (an edge far longer than the others) is tested
/// against every box: correct, and rare.
///
/// Two queries: the pairs within one set (edge against edge), and the pairs across two sets
/// (node against triangle), where pairs within either set are never formed: a flat shell's
/// triangles overlap dozens of their neighbours, none of which is a candidate.

#include "soma/types.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace soma::imc_contact {

/// An axis-aligned box.
struct Box {
    Vec3 low;
    Vec3 high;
    bool overlaps(const Box& other) const {
        return (low.array() <= other.high.array()).all() && (other.low.array() <= high.array()).all();
    }
};

/// Finds overlapping boxes. Keeps its buffers between calls (one call per step).
class BoxGrid {
public:
    /// \brief Every pair (i, j), i < j, of overlapping boxes in \p boxes, sorted, each once.
    /// \param[in]  boxes  the boxes (finite coordinates)
    /// \param[out] pairs  the overlapping pairs
    void overlapping_pairs(const std::vector<Box>& boxes, std::vector<std::pair<Index, Index>>& pairs);

    /// \brief Every pair (i, j) of a box i of \p first overlapping a box j of \p second, sorted,
    /// each once.
    void overlapping_pairs(const std::vector<Box>& first, const std::vector<Box>& second,
                           std::vector<std::pair<Index, Index>>& pairs);

private:
    struct Entry {
        std::uint64_t cell;
        Index box;
        bool operator<(const Entry& other) const { return cell != other.cell ? cell < other.cell : box < other.box; }
    };
    /// Enters \p boxes in the grid (cells of size \p cell from \p origin), larger ones in large_.
    void enter(const std::vector<Box>& boxes);
    /// Calls \p visit(j) for every entered box j whose centre cell neighbours \p box's centre cell.
    template <class Visit>
    void visit_neighbours(const Box& box, Visit&& visit) const;
    /// Cell size and origin for \p boxes (and \p more, when given).
    void size_cells(const std::vector<Box>& boxes, const std::vector<Box>* more);
    std::uint64_t key_of(const Box& box) const;

    double cell_ = 1.0;
    Vec3 origin_ = Vec3::Zero();
    std::vector<Entry> entries_;
    std::vector<Index> large_;  ///< boxes larger than a cell, kept out of the grid
};

}  // namespace soma::imc_contact
