#pragma once
/// \file element_jacobian_blocks.hpp
/// \brief The kernel's ElementJacobian: an element evaluated alone into private blocks, one per
/// stencil it declared, through the kernel's stencil tables.
///
/// An element writes through the StencilIds the kernel's PatternBuilder gave it, so it can only
/// be evaluated through the kernel's tables. This class reuses those tables (which stencil holds
/// which DOFs) with its own scatter: entry (r, c) of stencil s goes to value offset(s) + c n + r
/// of a private array, for every DOF, free or not. The offsets are rebuilt (allocation) only
/// after the kernel rebuilt its pattern; evaluate() then allocates nothing.

#include "sparse_assembler.hpp"
#include "soma/element.hpp"
#include "soma/element_jacobian.hpp"

#include <utility>
#include <vector>

namespace soma {

class ElementJacobianBlocks final : public ElementJacobian {
public:
    /// \param element           the element evaluated
    /// \param assembler         the kernel's stencil tables
    /// \param ranges            per contributor, the stencils [first, last) it declared
    /// \param contributor_index the element's position in \p ranges
    /// \param generation        the kernel's pattern counter (bumped by every rebuild)
    /// \param dof_count         number of global DOFs
    ElementJacobianBlocks(Element& element, const SparseAssembler& assembler,
                          const std::vector<std::pair<StencilId, StencilId>>& ranges, std::size_t contributor_index,
                          const long& generation, Index dof_count);

    Index block_count() const override;
    std::span<const Index> block_dofs(Index b) const override;
    void evaluate(const EvalContext& context) override;
    const double* block(Index b) const override;

private:
    /// Re-reads the element's stencils after a pattern rebuild.
    void refresh() const;

    Element& element_;
    const SparseAssembler& assembler_;
    const std::vector<std::pair<StencilId, StencilId>>& ranges_;
    std::size_t index_;
    const long& generation_;
    mutable long seen_generation_ = -1;
    mutable StencilId first_ = 0, last_ = 0;
    mutable std::vector<Index> offset_;    ///< per global stencil id up to last_: start of its block
    mutable std::vector<Index> identity_;  ///< scatter map: value k goes to position k
    mutable std::vector<double> values_;   ///< the blocks, back to back
    VectorX residual_scratch_;             ///< the element's residual, discarded
};

}  // namespace soma
