#pragma once
/// \file column_ranges.hpp
/// \brief A set of coordinate indices kept as sorted, disjoint column ranges: where a point's
/// 6 x n derivative blocks can be non-zero.
///
/// In a tree, the Jacobian of a point depends only on the coordinates of the edges between the
/// root and the point, and the backward sums only on those of the edges below it (the
/// branch-induced sparsity of Featherstone's articulated-body algorithms). Restricting the
/// inverse dynamics' 6 x n products to these columns makes a derivative pass cost, per point, its
/// path's, subtree's and loads' coordinate counts, not n.
#include "gvs_types.hpp"

#include <cstddef>
#include <vector>

namespace soma::gvs {

/// Columns [first, first + count) of a 6 x n block.
struct ColumnRange {
    Index first = 0;
    Index count = 0;
};

/// \brief A union of column ranges, sorted, disjoint and not adjacent (adjacent ranges merge).
///
/// add() never allocates when the capacity set by reserve() holds the result: the inverse
/// dynamics may widen a point's set during an evaluation (a load that couples two branches,
/// MultibodyData::include_load_columns) without allocating. A copy keeps the capacity (not
/// std::vector's default), so a copied MultibodyData widens without allocating too.
class ColumnRanges {
public:
    ColumnRanges() = default;
    ColumnRanges(const ColumnRanges& other) { *this = other; }
    ColumnRanges& operator=(const ColumnRanges& other) {
        if (this == &other) return *this;
        if (ranges_.capacity() < other.ranges_.capacity()) ranges_.reserve(other.ranges_.capacity());
        ranges_.assign(other.ranges_.begin(), other.ranges_.end());
        return *this;
    }
    ColumnRanges(ColumnRanges&&) noexcept = default;
    ColumnRanges& operator=(ColumnRanges&&) noexcept = default;

    /// \brief Adds [first, first + count) (count >= 0; an empty range adds nothing).
    void add(Index first, Index count);
    /// \brief Adds every range of \p other.
    void add(const ColumnRanges& other);
    /// \brief Whether every column of \p other is in this set.
    bool contains(const ColumnRanges& other) const;
    /// \brief Whether column \p column is in this set.
    bool contains(Index column) const;
    /// \brief Room for \p ranges disjoint ranges, so that later add() calls do not allocate.
    void reserve(std::size_t ranges) { ranges_.reserve(ranges); }
    /// \brief The disjoint ranges the set holds without allocating.
    std::size_t capacity() const { return ranges_.capacity(); }
    /// \brief Empties the set (its capacity stays).
    void clear() { ranges_.clear(); }

    std::vector<ColumnRange>::const_iterator begin() const { return ranges_.begin(); }
    std::vector<ColumnRange>::const_iterator end() const { return ranges_.end(); }
    std::size_t range_count() const { return ranges_.size(); }
    /// The number of columns in the set.
    Index column_count() const;

private:
    std::vector<ColumnRange> ranges_;
};

}  // namespace soma::gvs
