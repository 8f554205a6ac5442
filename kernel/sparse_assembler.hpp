#pragma once
/// \file sparse_assembler.hpp
/// \brief The cached sparsity pattern and scatter map behind soma::Assembly.
///
/// Setup: contributors declare stencils (PatternBuilder); build() turns them into the free-DOF
/// CSC pattern once and records, for every stencil entry, the position of its value in the
/// matrix. Newton iterations then zero the values and scatter with no search and no
/// allocation (ARCHITECTURE.md section 7).

#include "soma/assembly.hpp"

#include <vector>

namespace soma {

class SparseAssembler final : public PatternBuilder {
public:
    StencilId add_stencil(std::span<const Index> global_dofs) override;

    /// Forgets all stencils (before contributors declare them again).
    void clear();
    /// Builds the CSC pattern over the free DOFs and the scatter map.
    /// \param free_index global DOF -> free row, or kNotFree
    void build(const std::vector<Index>& free_index, Index free_count);

    /// The Jacobian (pattern fixed after build(); values overwritten by each evaluation).
    SparseMatrix& jacobian() { return jacobian_; }
    /// An Assembly writing into `residual` (global size) and, if requested, the Jacobian.
    Assembly assembly(VectorX& residual, bool with_jacobian);

    Index stencil_count() const { return static_cast<Index>(dof_begin_.size()) - 1; }
    /// Global DOFs of stencil s.
    std::span<const Index> stencil_dofs(StencilId s) const {
        return {dofs_.data() + dof_begin_[s], static_cast<std::size_t>(dof_begin_[s + 1] - dof_begin_[s])};
    }
    /// The flat stencil tables, as Assembly::stencil_dof_begin and Assembly::stencil_dofs.
    const Index* stencil_dof_begin_table() const { return dof_begin_.data(); }
    const Index* stencil_dof_table() const { return dofs_.data(); }

private:
    std::vector<Index> dof_begin_{0}, dofs_, scatter_begin_{0}, scatter_;
    SparseMatrix jacobian_;
};

}  // namespace soma
