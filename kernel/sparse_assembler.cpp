#include "sparse_assembler.hpp"

#include <algorithm>

namespace soma {

StencilId SparseAssembler::add_stencil(std::span<const Index> global_dofs) {
    dofs_.insert(dofs_.end(), global_dofs.begin(), global_dofs.end());
    dof_begin_.push_back(static_cast<Index>(dofs_.size()));
    const Index n = static_cast<Index>(global_dofs.size());
    scatter_begin_.push_back(scatter_begin_.back() + n * n);
    return static_cast<StencilId>(dof_begin_.size() - 2);
}

void SparseAssembler::clear() {
    dof_begin_.assign(1, 0);
    dofs_.clear();
    scatter_begin_.assign(1, 0);
    scatter_.clear();
}

void SparseAssembler::build(const std::vector<Index>& free_index, Index free_count) {
    // Column lists of row indices, deduplicated; stencils are small so this is setup-cost only.
    std::vector<std::vector<Index>> columns(static_cast<std::size_t>(free_count));
    const Index stencils = stencil_count();
    for (Index s = 0; s < stencils; ++s) {
        const Index* d = dofs_.data() + dof_begin_[s];
        const Index n = dof_begin_[s + 1] - dof_begin_[s];
        for (Index c = 0; c < n; ++c) {
            const Index fc = free_index[d[c]];
            if (fc == kNotFree) continue;
            for (Index r = 0; r < n; ++r) {
                const Index fr = free_index[d[r]];
                if (fr != kNotFree) columns[fc].push_back(fr);
            }
        }
    }
    // Every free DOF keeps its diagonal so factorizations see a structurally full diagonal.
    for (Index c = 0; c < free_count; ++c) columns[c].push_back(c);

    std::vector<Index> outer(static_cast<std::size_t>(free_count) + 1, 0);
    std::vector<Index> inner;
    for (Index c = 0; c < free_count; ++c) {
        auto& col = columns[c];
        std::sort(col.begin(), col.end());
        col.erase(std::unique(col.begin(), col.end()), col.end());
        inner.insert(inner.end(), col.begin(), col.end());
        outer[c + 1] = static_cast<Index>(inner.size());
    }
    jacobian_ = SparseMatrix(free_count, free_count);
    jacobian_.resizeNonZeros(static_cast<Index>(inner.size()));
    std::copy(outer.begin(), outer.end(), jacobian_.outerIndexPtr());
    std::copy(inner.begin(), inner.end(), jacobian_.innerIndexPtr());
    std::fill(jacobian_.valuePtr(), jacobian_.valuePtr() + inner.size(), 0.0);

    // Scatter map: value position of (row r, col c) of every stencil, by binary search once.
    scatter_.assign(static_cast<std::size_t>(scatter_begin_.back()), -1);
    for (Index s = 0; s < stencils; ++s) {
        const Index* d = dofs_.data() + dof_begin_[s];
        const Index n = dof_begin_[s + 1] - dof_begin_[s];
        Index* map = scatter_.data() + scatter_begin_[s];
        for (Index c = 0; c < n; ++c) {
            const Index fc = free_index[d[c]];
            if (fc == kNotFree) continue;
            const Index* begin = inner.data() + outer[fc];
            const Index* end = inner.data() + outer[fc + 1];
            for (Index r = 0; r < n; ++r) {
                const Index fr = free_index[d[r]];
                if (fr == kNotFree) continue;
                map[c * n + r] = static_cast<Index>(std::lower_bound(begin, end, fr) - inner.data());
            }
        }
    }
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
