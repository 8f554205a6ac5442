#include "broad_phase.hpp"

#include <algorithm>
#include <cmath>

namespace soma::imc_contact {

namespace {

/// A cell's key: its integer coordinates mixed into 64 bits. Two cells may share a key (a hash
/// collision): their boxes are then tested for overlap too, which costs time, never a pair.
std::uint64_t cell_key(std::int64_t i, std::int64_t j, std::int64_t k) {
    const auto mix = [](std::uint64_t x) {
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return x;
    };
    return mix(static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL ^ mix(static_cast<std::uint64_t>(j)) * 31 ^
               mix(static_cast<std::uint64_t>(k) + 0x632BE59BD9B4E019ULL));
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
    // At least 2^-40 of the whole span, so that cell coordinates stay far inside 64 bits.
    const double cell = std::max({extent / n, std::ldexp((all.high - all.low).maxCoeff(), -40), 1e-300});
    const Vec3 origin = all.low;

    for (Index b = 0; b < n; ++b) {
        const Eigen::Array3d lo = ((boxes[b].low - origin) / cell).array().floor();
        const Eigen::Array3d hi = ((boxes[b].high - origin) / cell).array().floor();
        const Eigen::Array3d span = hi - lo + 1.0;
        if (span.prod() > static_cast<double>(kMaxCellsPerBox)) {
            large_.push_back(b);
            continue;
        }
        for (double i = lo[0]; i <= hi[0]; ++i)
            for (double j = lo[1]; j <= hi[1]; ++j)
                for (double k = lo[2]; k <= hi[2]; ++k)
                    entries_.push_back({cell_key(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j),
                                                 static_cast<std::int64_t>(k)),
                                        b});
    }
    std::sort(entries_.begin(), entries_.end());
    for (std::size_t begin = 0; begin < entries_.size();) {
        std::size_t end = begin + 1;
        while (end < entries_.size() && entries_[end].cell == entries_[begin].cell) ++end;
        for (std::size_t p = begin; p < end; ++p)
            for (std::size_t q = p + 1; q < end; ++q) {
                const Index a = entries_[p].box, b = entries_[q].box;  // a < b: sorted by box within a cell
                if (boxes[a].overlaps(boxes[b])) pairs.emplace_back(a, b);
            }
        begin = end;
    }
    for (Index large : large_)
        for (Index b = 0; b < n; ++b)
            if (b != large && boxes[large].overlaps(boxes[b])) pairs.emplace_back(std::min(large, b), std::max(large, b));
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
}

}  // namespace soma::imc_contact
