#include "broad_phase.hpp"

#include <algorithm>
#include <cmath>

namespace soma::imc_contact {

namespace {

/// Cells per axis are kept below 2^20 (the cell size is at least 2^-20 of the span), so a cell's
/// three coordinates pack exactly into one 64-bit key, 21 bits each: no two cells share a key.
constexpr int kCellBits = 21;
constexpr double kMaxCellsPerAxis = 1 << 20;
constexpr std::uint64_t kMask = (std::uint64_t{1} << kCellBits) - 1;

std::uint64_t cell_key(std::int64_t i, std::int64_t j, std::int64_t k) {
    return (static_cast<std::uint64_t>(i) << (2 * kCellBits)) | (static_cast<std::uint64_t>(j) << kCellBits) |
           static_cast<std::uint64_t>(k);
}

double extent_of(const Box& b) { return (b.high - b.low).maxCoeff(); }

}  // namespace

void BoxGrid::size_cells(const std::vector<Box>& boxes, const std::vector<Box>* more) {
    double extent = 0.0;
    std::size_t count = 0;
    Box all = boxes.empty() ? more->front() : boxes.front();
    for (const std::vector<Box>* set : {&boxes, more}) {
        if (!set) continue;
        for (const Box& b : *set) {
            extent += extent_of(b);
            all.low = all.low.cwiseMin(b.low);
            all.high = all.high.cwiseMax(b.high);
        }
        count += set->size();
    }
    const double span = (all.high - all.low).maxCoeff();
    // Twice the mean extent: a box no larger than a cell overlaps only boxes whose centres lie in
    // its own cell or the 26 around it.
    cell_ = std::max({2.0 * extent / static_cast<double>(count), span / kMaxCellsPerAxis, 1e-300});
    // One cell of room below the lowest centre, so that the neighbours' coordinates are never negative.
    origin_ = all.low - Vec3::Constant(cell_);
}

std::uint64_t BoxGrid::key_of(const Box& box) const {
    const Eigen::Array3d c = ((0.5 * (box.low + box.high) - origin_) / cell_).array().floor();
    return cell_key(static_cast<std::int64_t>(c[0]), static_cast<std::int64_t>(c[1]), static_cast<std::int64_t>(c[2]));
}

void BoxGrid::enter(const std::vector<Box>& boxes) {
    entries_.clear();
    large_.clear();
    for (Index b = 0; b < static_cast<Index>(boxes.size()); ++b) {
        if (extent_of(boxes[static_cast<std::size_t>(b)]) > cell_)
            large_.push_back(b);
        else
            entries_.push_back({key_of(boxes[static_cast<std::size_t>(b)]), b});
    }
    std::sort(entries_.begin(), entries_.end());
}

template <class Visit>
void BoxGrid::visit_neighbours(const Box& box, Visit&& visit) const {
    const std::uint64_t key = key_of(box);
    const auto i = static_cast<std::int64_t>(key >> (2 * kCellBits));
    const auto j = static_cast<std::int64_t>((key >> kCellBits) & kMask);
    const auto k = static_cast<std::int64_t>(key & kMask);
    for (std::int64_t di = -1; di <= 1; ++di)
        for (std::int64_t dj = -1; dj <= 1; ++dj)
            for (std::int64_t dk = -1; dk <= 1; ++dk) {
                const auto [begin, end] =
                    std::equal_range(entries_.begin(), entries_.end(), Entry{cell_key(i + di, j + dj, k + dk), 0},
                                     [](const Entry& x, const Entry& y) { return x.cell < y.cell; });
                for (auto e = begin; e != end; ++e) visit(e->box);
            }
}

void BoxGrid::overlapping_pairs(const std::vector<Box>& boxes, std::vector<std::pair<Index, Index>>& pairs) {
    pairs.clear();
    const Index n = static_cast<Index>(boxes.size());
    if (n < 2) return;
    size_cells(boxes, nullptr);
    enter(boxes);
    for (const Entry& e : entries_)
        visit_neighbours(boxes[static_cast<std::size_t>(e.box)], [&](Index other) {
            // Each pair once: from its smaller box.
            if (other > e.box && boxes[static_cast<std::size_t>(e.box)].overlaps(boxes[static_cast<std::size_t>(other)]))
                pairs.emplace_back(e.box, other);
        });
    for (Index large : large_)
        for (Index b = 0; b < n; ++b)
            if (b != large && boxes[static_cast<std::size_t>(large)].overlaps(boxes[static_cast<std::size_t>(b)]))
                pairs.emplace_back(std::min(large, b), std::max(large, b));
    std::sort(pairs.begin(), pairs.end());
    // Two large boxes find each other twice.
    if (large_.size() > 1) pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
}

void BoxGrid::overlapping_pairs(const std::vector<Box>& first, const std::vector<Box>& second,
                                std::vector<std::pair<Index, Index>>& pairs) {
    pairs.clear();
    if (first.empty() || second.empty()) return;
    size_cells(first, &second);
    enter(second);
    for (Index a = 0; a < static_cast<Index>(first.size()); ++a) {
        const Box& box = first[static_cast<std::size_t>(a)];
        if (extent_of(box) > cell_) {  // larger than a cell: against every box of `second`
            for (Index b = 0; b < static_cast<Index>(second.size()); ++b)
                if (box.overlaps(second[static_cast<std::size_t>(b)])) pairs.emplace_back(a, b);
            continue;
        }
        visit_neighbours(box, [&](Index b) {
            if (box.overlaps(second[static_cast<std::size_t>(b)])) pairs.emplace_back(a, b);
        });
        for (Index b : large_)
            if (box.overlaps(second[static_cast<std::size_t>(b)])) pairs.emplace_back(a, b);
    }
    std::sort(pairs.begin(), pairs.end());
    // A large box of `first` against a large box of `second` is found once (the branch above).
}

}  // namespace soma::imc_contact
