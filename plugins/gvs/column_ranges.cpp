#include "column_ranges.hpp"

#include <algorithm>
#include <stdexcept>

namespace soma::gvs {

void ColumnRanges::add(Index first, Index count) {
    if (first < 0 || count < 0) throw std::invalid_argument("ColumnRanges::add: negative first column or count");
    if (count == 0) return;
    const Index last = first + count;  // one past the end
    // The ranges that overlap or touch [first, last) are a contiguous run [i, j).
    auto i = std::find_if(ranges_.begin(), ranges_.end(), [&](const ColumnRange& r) { return r.first + r.count >= first; });
    auto j = i;
    while (j != ranges_.end() && j->first <= last) ++j;
    if (i == j) {  // nothing to merge with: insert in order (within the reserved capacity, no allocation)
        ranges_.insert(i, ColumnRange{first, count});
        return;
    }
    const Index merged_first = std::min(first, i->first);
    const Index merged_last = std::max(last, (j - 1)->first + (j - 1)->count);
    *i = ColumnRange{merged_first, merged_last - merged_first};
    ranges_.erase(i + 1, j);
}

void ColumnRanges::add(const ColumnRanges& other) {
    for (const ColumnRange& r : other.ranges_) add(r.first, r.count);
}

bool ColumnRanges::contains(Index column) const {
    return std::any_of(ranges_.begin(), ranges_.end(),
                       [&](const ColumnRange& r) { return column >= r.first && column < r.first + r.count; });
}

bool ColumnRanges::contains(const ColumnRanges& other) const {
    // Both sorted: every range of other must lie inside one range of this set (ranges here are
    // not adjacent, so a range of other cannot straddle two of them).
    auto mine = ranges_.begin();
    for (const ColumnRange& r : other.ranges_) {
        while (mine != ranges_.end() && mine->first + mine->count <= r.first) ++mine;
        if (mine == ranges_.end() || mine->first > r.first || mine->first + mine->count < r.first + r.count) return false;
    }
    return true;
}

Index ColumnRanges::column_count() const {
    Index total = 0;
    for (const ColumnRange& r : ranges_) total += r.count;
    return total;
}

}  // namespace soma::gvs
