#include "element_jacobian_blocks.hpp"

#include "simulation.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace soma {

ElementJacobianBlocks::ElementJacobianBlocks(Element& element, const SparseAssembler& assembler,
                                             const std::vector<std::pair<StencilId, StencilId>>& ranges,
                                             std::size_t contributor_index, const long& generation, Index dof_count)
    : element_(element),
      assembler_(assembler),
      ranges_(ranges),
      index_(contributor_index),
      generation_(generation),
      residual_scratch_(VectorX::Zero(dof_count)) {}

void ElementJacobianBlocks::refresh() const {
    if (seen_generation_ == generation_) return;
    if (index_ >= ranges_.size())
        throw std::logic_error("the Jacobian of element '" + element_.name() +
                               "' was read before the element declared its pattern (read it in declare_pattern or "
                               "later, not in bind)");
    std::tie(first_, last_) = ranges_[index_];
    offset_.assign(static_cast<std::size_t>(last_) + 1, 0);
    Index total = 0;
    for (StencilId s = first_; s < last_; ++s) {
        offset_[s] = total;
        const Index n = static_cast<Index>(assembler_.stencil_dofs(s).size());
        total += n * n;
    }
    offset_[last_] = total;
    identity_.resize(static_cast<std::size_t>(total));
    std::iota(identity_.begin(), identity_.end(), Index{0});
    values_.assign(static_cast<std::size_t>(total), 0.0);
    seen_generation_ = generation_;
}

Index ElementJacobianBlocks::block_count() const {
    refresh();
    return last_ - first_;
}

std::span<const Index> ElementJacobianBlocks::block_dofs(Index b) const {
    refresh();
    return assembler_.stencil_dofs(first_ + b);
}

void ElementJacobianBlocks::evaluate(const EvalContext& context) {
    refresh();
    std::fill(values_.begin(), values_.end(), 0.0);
    Assembly assembly;
    assembly.residual = residual_scratch_.data();  // the residual is not wanted; it lands here
    assembly.jacobian_values = values_.data();
    assembly.stencil_dof_begin = assembler_.stencil_dof_begin_table();
    assembly.stencil_dofs = assembler_.stencil_dof_table();
    assembly.stencil_scatter_begin = offset_.data();
    assembly.scatter = identity_.data();
    element_.add_residual_and_jacobian(context, assembly);
}

const double* ElementJacobianBlocks::block(Index b) const {
    return values_.data() + offset_[first_ + b];
}

std::unique_ptr<ElementJacobian> Simulation::element_jacobian(const Element& element) const {
    for (std::size_t e = 0; e < elements_.size(); ++e)
        if (elements_[e].get() == &element)  // elements come first among the contributors
            return std::make_unique<ElementJacobianBlocks>(*elements_[e], assembler_, stencil_ranges_, e,
                                                           pattern_generation_, dofs_.global_count());
    throw std::logic_error("element '" + element.name() + "' is not part of this simulation");
}

}  // namespace soma
