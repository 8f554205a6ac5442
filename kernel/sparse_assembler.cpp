#include "sparse_assembler.hpp"

#include "index_capacity.hpp"

#include <algorithm>

namespace soma {

StencilId SparseAssembler::add_stencil(std::span<const Index> global_dofs) {
    // Both totals are checked before anything is stored, so a refused stencil leaves no trace.
    const auto n = static_cast<std::int64_t>(global_dofs.size());
    const Index dofs_end = checked_index_total(static_cast<std::int64_t>(dofs_.size()) + n, "stencil DOF entries");
    const Index scatter_end = checked_index_total(std::int64_t{scatter_begin_.back()} + n * n, "Jacobian scatter entries");
    dofs_.insert(dofs_.end(), global_dofs.begin(), global_dofs.end());
    dof_begin_.push_back(dofs_end);
    scatter_begin_.push_back(scatter_end);
    return static_cast<StencilId>(dof_begin_.size() - 2);
}

void SparseAssembler::clear() { truncate(0); }

void SparseAssembler::truncate(StencilId first) {
    if (first < stencil_count()) stencils_dropped_ = true;
    dofs_.resize(static_cast<std::size_t>(dof_begin_[first]));
    dof_begin_.resize(static_cast<std::size_t>(first) + 1);
    scatter_.resize(std::min(scatter_.size(), static_cast<std::size_t>(scatter_begin_[first])));
    scatter_begin_.resize(static_cast<std::size_t>(first) + 1);
}

void SparseAssembler::build(const std::vector<Index>& free_index, Index free_count) {
    start_diagonal_pattern(free_count);
    place_stencils(0, free_index, free_count);
}

void SparseAssembler::start_diagonal_pattern(Index free_count) {
    // Every free DOF keeps its diagonal so factorizations see a structurally full diagonal.
    jacobian_ = SparseMatrix(free_count, free_count);
    jacobian_.resizeNonZeros(free_count);
    for (Index c = 0; c < free_count; ++c) {
        jacobian_.outerIndexPtr()[c] = c;
        jacobian_.innerIndexPtr()[c] = c;
    }
    jacobian_.outerIndexPtr()[free_count] = free_count;
    std::fill(jacobian_.valuePtr(), jacobian_.valuePtr() + free_count, 0.0);
}

bool SparseAssembler::place_stencils(StencilId first, const std::vector<Index>& free_index, Index free_count) {
    const bool fresh = jacobian_.rows() != free_count;
    if (fresh) start_diagonal_pattern(free_count);
    scatter_stencils(first, free_index);
    if (missing_.empty()) return fresh;
    grow_pattern(first);
    scatter_stencils(first, free_index);  // every pair is present now
    // The union only grows while contact pairs come and go (a rod sliding along another leaves
    // every pair it passed in the pattern, and fill-in makes each factorization pay for them).
    // When more than a fifth of the entries are ones no stencil writes, the pattern is built
    // afresh from the stencils: it has just grown, so the solver analyses it again anyway, and
    // the rebuild costs one placement of every stencil. Measured on the entanglement gripper
    // (docs/performance.md): a union 1.75 times the live entries had 2.2 times the factor's
    // fill and 2.3 times the factorization time.
    // Only dropped stencils unwrite entries (a growth adds written ones), so the count is needed
    // only after a truncate(): a contributor that appends its new stencils skips it.
    if (!fresh && first > 0 && stencils_dropped_) {
        stencils_dropped_ = false;
        if (std::int64_t{live_entries()} * 5 < std::int64_t{jacobian_.nonZeros()} * 4) {
            start_diagonal_pattern(free_count);
            scatter_stencils(0, free_index);
            grow_pattern(0);
            scatter_stencils(0, free_index);
        }
    }
    return true;
}

Index SparseAssembler::live_entries() {
    // Stencils left unused in the tables (a contributor's previous block, until compaction) count
    // as live: the estimate errs toward keeping entries.
    live_.assign(static_cast<std::size_t>(jacobian_.nonZeros()), 0);
    const Index* outer = jacobian_.outerIndexPtr();
    const Index* inner = jacobian_.innerIndexPtr();
    for (Index c = 0; c < jacobian_.cols(); ++c)  // every free DOF keeps its diagonal
        live_[static_cast<std::size_t>(std::lower_bound(inner + outer[c], inner + outer[c + 1], c) - inner)] = 1;
    for (const Index position : scatter_)
        if (position >= 0) live_[static_cast<std::size_t>(position)] = 1;
    return static_cast<Index>(std::count(live_.begin(), live_.end(), char{1}));
}

void SparseAssembler::scatter_stencils(StencilId first, const std::vector<Index>& free_index) {
    missing_.clear();
    scatter_.resize(static_cast<std::size_t>(scatter_begin_.back()));
    const Index* outer = jacobian_.outerIndexPtr();
    const Index* inner = jacobian_.innerIndexPtr();
    const Index stencils = stencil_count();
    for (Index s = first; s < stencils; ++s) {
        const Index* d = dofs_.data() + dof_begin_[s];
        const Index n = dof_begin_[s + 1] - dof_begin_[s];
        Index* map = scatter_.data() + scatter_begin_[s];
        for (Index c = 0; c < n; ++c) {
            const Index fc = free_index[d[c]];
            if (fc == kNotFree) {
                std::fill(map + c * n, map + (c + 1) * n, Index{-1});
                continue;
            }
            const Index* begin = inner + outer[fc];
            const Index* end = inner + outer[fc + 1];
            const Index* previous = nullptr;  // where the previous row of this column was found
            for (Index r = 0; r < n; ++r) {
                const Index fr = free_index[d[r]];
                Index& position = map[c * n + r];
                position = -1;
                if (fr == kNotFree) {
                    previous = nullptr;
                    continue;
                }
                // A node's DOFs are consecutive rows of a stencil and of the pattern: after the
                // first is found by binary search, the next are usually the following entries.
                const Index* found = previous && previous + 1 < end && previous[1] == fr
                                         ? previous + 1
                                         : std::lower_bound(begin, end, fr);
                if (found != end && *found == fr) {
                    position = static_cast<Index>(found - inner);
                    previous = found;
                } else {
                    missing_.emplace_back(fc, fr);
                    previous = nullptr;
                }
            }
        }
    }
}

void SparseAssembler::grow_pattern(StencilId first) {
    std::sort(missing_.begin(), missing_.end());
    missing_.erase(std::unique(missing_.begin(), missing_.end()), missing_.end());
    const Index n = jacobian_.cols();
    const Index* outer = jacobian_.outerIndexPtr();
    const Index* inner = jacobian_.innerIndexPtr();
    const Index old_nonzeros = outer[n];

    // Merge each column's sorted rows with its new rows (none of which it holds), recording
    // where every old entry moves.
    std::vector<Index> new_outer(static_cast<std::size_t>(n) + 1, 0);
    const Index new_nonzeros = checked_index_total(
        std::int64_t{old_nonzeros} + static_cast<std::int64_t>(missing_.size()), "Jacobian nonzeros");
    std::vector<Index> new_inner;
    new_inner.reserve(static_cast<std::size_t>(new_nonzeros));
    std::vector<Index> moved(static_cast<std::size_t>(old_nonzeros));
    auto next_missing = missing_.begin();
    for (Index c = 0; c < n; ++c) {
        Index k = outer[c];
        while (k < outer[c + 1] || (next_missing != missing_.end() && next_missing->first == c)) {
            const bool take_old = k < outer[c + 1] &&
                                  (next_missing == missing_.end() || next_missing->first != c || inner[k] < next_missing->second);
            if (take_old) {
                moved[k] = static_cast<Index>(new_inner.size());
                new_inner.push_back(inner[k++]);
            } else {
                new_inner.push_back((next_missing++)->second);
            }
        }
        new_outer[c + 1] = static_cast<Index>(new_inner.size());
    }

    jacobian_ = SparseMatrix(n, n);
    jacobian_.resizeNonZeros(static_cast<Index>(new_inner.size()));
    std::copy(new_outer.begin(), new_outer.end(), jacobian_.outerIndexPtr());
    std::copy(new_inner.begin(), new_inner.end(), jacobian_.innerIndexPtr());
    std::fill(jacobian_.valuePtr(), jacobian_.valuePtr() + new_inner.size(), 0.0);

    // Earlier stencils (live or no longer referenced) keep their entries at the moved positions.
    const Index end = scatter_begin_[first];
    for (Index i = 0; i < end; ++i)
        if (scatter_[i] >= 0) scatter_[i] = moved[scatter_[i]];
}

Assembly SparseAssembler::assembly(VectorX& residual, bool with_jacobian) {
    Assembly a;
    a.residual = residual.data();
    a.jacobian_values = with_jacobian ? jacobian_.valuePtr() : nullptr;
    a.stencil_dof_begin = dof_begin_.data();
    a.stencil_dofs = dofs_.data();
    a.stencil_scatter_begin = scatter_begin_.data();
    a.scatter = scatter_.data();
    return a;
}

}  // namespace soma
