#include "broad_phase.hpp"

#include <algorithm>
#include <cmath>

namespace soma::imc_contact {

namespace {

/// Cells per axis are kept below 2^20 (the cell size is at least 2^-20 of the span), so a cell's
/// three coordinates pack exactly into one 64-bit key, 21 bits each: no two cells share a key.
constexpr int kCellBits = 21;
constexpr double kMaxCellsPerAxis = 1 << 20;

std::uint64_t cell_key(std::int64_t i, std::int64_t j, std::int64_t k) {
    return (static_cast<std::uint64_t>(i) << (2 * kCellBits)) | (static_cast<std::uint64_t>(j) << kCellBits) |
           static_cast<std::uint64_t>(k);
}

}  // namespace

void BoxGrid::overlapping_pairs(const std::vector<Box>& boxes, std::vector<std::pair<Index, Index>>& pairs) {
    pairs.clear();
    entries_.clear();
    large_.clear();
    const Index n = static_cast<Index>(boxes.size());
    if (n < 2) return;

    double extent = 0.0;
    Box all = boxes[0];
    for (const Box& b : boxes) {
        extent += (b.high - b.low).maxCoeff();
        all.low = all.low.cwiseMin(b.low);
        all.high = all.high.cwiseMax(b.high);
    }
    const double span = (all.high - all.low).maxCoeff();
    // Twice the mean extent: a box no larger than a cell overlaps only boxes whose centres lie in
    // its own cell or the 26 around it. Larger boxes are tested against every box.
    const double cell = std::max({2.0 * extent / n, span / kMaxCellsPerAxis, 1e-300});
    const Vec3 origin = all.low;

    for (Index b = 0; b < n; ++b) {
        if ((boxes[b].high - boxes[b].low).maxCoeff() > cell) {
            large_.push_back(b);
            continue;
        }
        const Eigen::Array3d c = ((0.5 * (boxes[b].low + boxes[b].high) - origin) / cell).array().floor();
        // +1 so that the neighbours' coordinates (c - 1) are never negative.
        entries_.push_back({cell_key(static_cast<std::int64_t>(c[0]) + 1, static_cast<std::int64_t>(c[1]) + 1,
                                     static_cast<std::int64_t>(c[2]) + 1),
                            b});
    }
    std::sort(entries_.begin(), entries_.end());
    const auto cell_of = [&](std::uint64_t key) {
        return std::equal_range(entries_.begin(), entries_.end(), Entry{key, 0},
                                [](const Entry& x, const Entry& y) { return x.cell < y.cell; });
    };
    constexpr std::uint64_t kMask = (std::uint64_t{1} << kCellBits) - 1;
    for (const Entry& e : entries_) {
        const auto i = static_cast<std::int64_t>(e.cell >> (2 * kCellBits));
        const auto j = static_cast<std::int64_t>((e.cell >> kCellBits) & kMask);
        const auto k = static_cast<std::int64_t>(e.cell & kMask);
        for (std::int64_t di = -1; di <= 1; ++di)
            for (std::int64_t dj = -1; dj <= 1; ++dj)
                for (std::int64_t dk = -1; dk <= 1; ++dk) {
                    const auto [begin, end] = cell_of(cell_key(i + di, j + dj, k + dk));
                    for (auto other = begin; other != end; ++other)  // each pair once: from its smaller box
                        if (other->box > e.box && boxes[e.box].overlaps(boxes[other->box]))
                            pairs.emplace_back(e.box, other->box);
                }
    }
    for (Index large : large_)
        for (Index b = 0; b < n; ++b)
            if (b != large && boxes[large].overlaps(boxes[b])) pairs.emplace_back(std::min(large, b), std::max(large, b));
    std::sort(pairs.begin(), pairs.end());
    // Two large boxes find each other twice.
    if (large_.size() > 1) pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
}

}  // namespace soma::imc_contact
