#pragma once
/// \file broad_phase.hpp
/// \brief Candidate pairs among axis-aligned boxes by a uniform grid over sorted cell keys: the
/// broad phase of IMC contact (MAT-DiSMech §4.4 tests every pair of edges; this does not).
///
/// Each box is entered in the grid cell of its centre, with cells twice the mean box extent; a
/// box no larger than a cell can only overlap boxes whose centres lie in its cell or the 26
/// around it, which are found by binary search in the sorted cell keys. Each pair is tested once
/// (from its smaller index), so no duplicates need removing. The cost is O(N log N) for the
/// sort and the searches plus the tests of neighbouring boxes, output-sensitive, against N²/2
/// for all pairs. A box larger than a cell (an edge far longer than the others) is tested
/// against every box: correct, and rare.

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

/// Finds every pair of overlapping boxes. Keeps its buffers between calls (one call per step).
class BoxGrid {
public:
    /// \brief Every pair (i, j), i < j, of overlapping boxes in \p boxes, sorted, each once.
    /// \param[in]  boxes  the boxes (finite coordinates)
    /// \param[out] pairs  the overlapping pairs
    void overlapping_pairs(const std::vector<Box>& boxes, std::vector<std::pair<Index, Index>>& pairs);

private:
    struct Entry {
        std::uint64_t cell;
        Index box;
        bool operator<(const Entry& other) const { return cell != other.cell ? cell < other.cell : box < other.box; }
    };
    std::vector<Entry> entries_;
    std::vector<Index> large_;  ///< boxes larger than a cell, kept out of the grid
};

}  // namespace soma::imc_contact
