#pragma once
/// \file broad_phase.hpp
/// \brief Candidate pairs among axis-aligned boxes by a uniform grid over sorted cell keys: the
/// broad phase of IMC contact (MAT-DiSMech §4.4 tests every pair of edges; this does not).
///
/// Each box is entered in every grid cell it overlaps; boxes sharing a cell are tested for
/// overlap. The cell size is the mean box extent, so a box of typical size covers at most 8
/// cells and the cost is O(N log N) for the sort plus O(K) for K overlapping pairs, against N²/2
/// for all pairs. A box covering more than kMaxCellsPerBox cells (an edge far longer than the
/// others) is not entered in the grid but tested against every box: correct, and rare.

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
    /// Cells one box may cover before it is tested against every box instead.
    static constexpr std::int64_t kMaxCellsPerBox = 64;

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
    std::vector<Index> large_;  ///< boxes kept out of the grid
};

}  // namespace soma::imc_contact
