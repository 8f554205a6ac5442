#pragma once
/// \file sparse_assembler.hpp
/// \brief The cached sparsity pattern and scatter map behind soma::Assembly.
///
/// Setup: contributors declare stencils (PatternBuilder); place_stencils() puts them in the
/// free-DOF CSC pattern and records, for every stencil entry, the position of its value in the
/// matrix. Newton iterations then zero the values and scatter with no search and no
/// allocation (ARCHITECTURE.md section 7).
///
/// Stencils that change between steps (contact): the pattern is a union that only grows. A
/// contributor's stencils can be declared again (appended to the tables, or replacing the last
/// stencils after truncate()); place_stencils() looks their (row, col) pairs up in the current
/// pattern and grows it only when a pair is new, keeping every old entry (a vanished stencil's
/// entries stay, with value zero). The caller re-runs the linear solver's analysis only then.

#include "soma/assembly.hpp"

#include <utility>
#include <vector>

namespace soma {

class SparseAssembler final : public PatternBuilder {
public:
    StencilId add_stencil(std::span<const Index> global_dofs) override;

    /// Forgets all stencils (before contributors declare them again). The pattern is kept.
    void clear();
    /// Forgets stencils [first, stencil_count()): the last stencils, about to be declared again.
    void truncate(StencilId first);
    /// Builds the pattern afresh from every declared stencil (diagonal included) and the
    /// scatter map. \param free_index global DOF -> free row, or kNotFree
    void build(const std::vector<Index>& free_index, Index free_count);
    /// Places stencils [first, stencil_count()) in the pattern: computes their scatter map and,
    /// if one of their free (row, col) pairs is not in the pattern yet, grows the pattern to the
    /// union (old entries kept, the value positions of earlier stencils remapped). When that
    /// leaves more than a fifth of the entries unwritten by any stencil (pairs that came and
    /// went), the pattern is rebuilt from the stencils instead. A pattern of another size than
    /// \p free_count is first replaced by the diagonal.
    /// \return true when the pattern changed (new nonzeros): the solver must analyze it again
    bool place_stencils(StencilId first, const std::vector<Index>& free_index, Index free_count);

    /// The Jacobian (pattern fixed between pattern changes; values overwritten by each evaluation).
    SparseMatrix& jacobian() { return jacobian_; }
    const SparseMatrix& jacobian() const { return jacobian_; }
    /// An Assembly writing into `residual` (global size) and, if requested, the Jacobian.
    Assembly assembly(VectorX& residual, bool with_jacobian);

    Index stencil_count() const { return static_cast<Index>(dof_begin_.size()) - 1; }
    /// Global DOFs of stencil s.
    std::span<const Index> stencil_dofs(StencilId s) const {
        return {dofs_.data() + dof_begin_[s], static_cast<std::size_t>(dof_begin_[s + 1] - dof_begin_[s])};
    }
    /// Scatter-map entries (n * n per stencil) of stencils [first, last): the work of placing them.
    Index scatter_entries(StencilId first, StencilId last) const { return scatter_begin_[last] - scatter_begin_[first]; }
    /// The flat stencil tables, as Assembly::stencil_dof_begin and Assembly::stencil_dofs.
    const Index* stencil_dof_begin_table() const { return dof_begin_.data(); }
    const Index* stencil_dof_table() const { return dofs_.data(); }

private:
    /// Replaces the pattern by the diagonal of \p free_count free DOFs.
    void start_diagonal_pattern(Index free_count);
    /// Scatter map of stencils [first, count) by binary search in the pattern; a free pair not in
    /// the pattern is appended to missing_ (as (col, row)) and mapped to -1 for now.
    void scatter_stencils(StencilId first, const std::vector<Index>& free_index);
    /// Adds missing_ to the pattern and remaps the value positions of stencils [0, first).
    void grow_pattern(StencilId first);
    /// Pattern entries some declared stencil writes, the diagonal included.
    Index live_entries();

    std::vector<Index> dof_begin_{0}, dofs_, scatter_begin_{0}, scatter_;
    SparseMatrix jacobian_;
    std::vector<std::pair<Index, Index>> missing_;  ///< (col, row) pairs found by scatter_stencils
    std::vector<char> live_;                        ///< live_entries' marks, one per nonzero
    bool stencils_dropped_ = false;                 ///< truncate() removed stencils since the last count
};

}  // namespace soma
