#include "dof_map.hpp"

#include "index_capacity.hpp"

#include <stdexcept>

namespace soma {

DofMap::DofMap(const std::vector<Index>& local_counts) {
    offsets_.push_back(0);
    for (Index n : local_counts)
        offsets_.push_back(checked_index_total(std::int64_t{offsets_.back()} + n, "degrees of freedom"));
    parent_.resize(static_cast<std::size_t>(offsets_.back()));
    for (Index i = 0; i < offsets_.back(); ++i) parent_[i] = i;
    maps_.resize(local_counts.size());
}

Index DofMap::find_root(Index flat) {
    while (parent_[flat] != flat) {
        parent_[flat] = parent_[parent_[flat]];
        flat = parent_[flat];
    }
    return flat;
}

void DofMap::share(Index element_a, Index local_a, Index element_b, Index local_b) {
    const Index a = find_root(offsets_[element_a] + local_a);
    const Index b = find_root(offsets_[element_b] + local_b);
    // The smaller flat index stays the root, so numbering follows scene order.
    if (a < b) parent_[b] = a;
    else if (b < a) parent_[a] = b;
}

void DofMap::finalize() {
    const Index flat_count = offsets_.back();
    std::vector<Index> root_global(static_cast<std::size_t>(flat_count), kNotFree);
    global_count_ = 0;
    for (Index e = 0; e + 1 < static_cast<Index>(offsets_.size()); ++e) {
        auto& map = maps_[e];
        map.resize(static_cast<std::size_t>(offsets_[e + 1] - offsets_[e]));
        for (Index l = 0; l < static_cast<Index>(map.size()); ++l) {
            const Index root = find_root(offsets_[e] + l);
            if (root_global[root] == kNotFree) {
                root_global[root] = global_count_++;
                owner_.emplace_back(e, l);
            }
            map[l] = root_global[root];
        }
    }
    status_.assign(static_cast<std::size_t>(global_count_), Status::free);
}

void DofMap::number_free() {
    free_index_.assign(static_cast<std::size_t>(global_count_), kNotFree);
    free_dofs_.clear();
    for (Index g = 0; g < global_count_; ++g)
        if (status_[g] == Status::free) {
            free_index_[g] = static_cast<Index>(free_dofs_.size());
            free_dofs_.push_back(g);
        }
    free_count_ = static_cast<Index>(free_dofs_.size());
}

}  // namespace soma
