// Manifold blocks' coordinates in the global configuration (manifold_coordinates.hpp).
#include "manifold_coordinates.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace soma {

void ManifoldCoordinates::place(const std::vector<std::unique_ptr<Element>>& elements, const DofMap& dofs) {
    slots_.clear();
    Index next_coordinate = dofs.global_count();
    for (std::size_t e = 0; e < elements.size(); ++e) {
        Element& element = *elements[e];
        const auto blocks = element.manifold_blocks();
        std::vector<Index> coordinates;
        const auto& map = dofs.element_map(static_cast<Index>(e));
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            const ManifoldBlock& block = blocks[b];
            if (block.tangent_size < 1 || block.tangent_size > kMaxManifoldTangent || block.coordinate_count < 1 ||
                block.coordinate_count > kMaxManifoldCoordinates ||
                block.first_dof < 0 || block.first_dof + block.tangent_size > element.dof_count())
                throw std::logic_error(fmt::format("element '{}' declares an invalid manifold block {} ('{}')",
                                                   element.name(), b, block.name));
            Slot slot;
            slot.element = &element;
            slot.block = static_cast<Index>(b);
            slot.coordinate = next_coordinate;
            slot.tangent_size = block.tangent_size;
            slot.coordinate_count = block.coordinate_count;
            for (int k = 0; k < block.tangent_size; ++k) slot.tangent[k] = map[static_cast<std::size_t>(block.first_dof + k)];
            slots_.push_back(slot);
            coordinates.push_back(next_coordinate);
            next_coordinate += block.coordinate_count;
        }
        element.bind(map, std::move(coordinates));
    }
    configuration_size_ = next_coordinate;
}

void ManifoldCoordinates::initialize(VectorX& q, const std::vector<char>& shared) const {
    for (const Slot& slot : slots_) slot.element->initial_block_configuration(slot.block, q.data() + slot.coordinate);
    for (const Slot& slot : slots_)
        for (int k = 0; k < slot.tangent_size; ++k)
            if (shared[static_cast<std::size_t>(slot.tangent[k])])
                throw std::logic_error(fmt::format("element '{}': a DOF of manifold block {} is shared with another "
                                                   "element; only vector-space DOFs can be shared",
                                                   slot.element->name(), slot.block));
}

bool ManifoldCoordinates::contains(Index global) const {
    for (const Slot& slot : slots_)
        for (int k = 0; k < slot.tangent_size; ++k)
            if (slot.tangent[k] == global) return true;
    return false;
}

void ManifoldCoordinates::update(const VectorX& base, VectorX& q, bool fold) const {
    std::array<double, kMaxManifoldTangent> d{};
    for (const Slot& slot : slots_) {
        for (int k = 0; k < slot.tangent_size; ++k) d[k] = q[slot.tangent[k]];
        slot.element->integrate_block(slot.block, base.data() + slot.coordinate, d.data(), q.data() + slot.coordinate);
        if (fold)
            for (int k = 0; k < slot.tangent_size; ++k) q[slot.tangent[k]] = 0.0;
    }
}

void ManifoldCoordinates::integrate(Index dof_count, const VectorX& q, const VectorX& dv, VectorX& out) const {
    // Blocks read q's coordinates, so work on a copy when out aliases q.
    const VectorX base = q;
    out = base;
    out.head(dof_count) += dv;
    if (slots_.empty()) return;
    // A tangent entry of q may hold a displacement not yet folded in; fold the sum.
    update(base, out, true);
}

void ManifoldCoordinates::difference(Index dof_count, const VectorX& q1, const VectorX& q0, VectorX& dv) const {
    dv = q1.head(dof_count) - q0.head(dof_count);
    std::array<double, kMaxManifoldTangent> d{};
    for (const Slot& slot : slots_) {
        slot.element->difference_block(slot.block, q1.data() + slot.coordinate, q0.data() + slot.coordinate, d.data());
        for (int k = 0; k < slot.tangent_size; ++k) dv[slot.tangent[k]] = d[k] + q1[slot.tangent[k]] - q0[slot.tangent[k]];
    }
}

void ManifoldCoordinates::chart_rate(const VectorX& q0, const VectorX& d, const VectorX& v, VectorX& out) const {
    out = v;
    std::array<double, kMaxManifoldTangent> displacement{}, velocity{}, step{}, ahead{}, behind{};
    std::array<double, kMaxManifoldCoordinates> moved{}, shifted{};
    for (const Slot& slot : slots_) {
        double speed = 0.0;
        for (int k = 0; k < slot.tangent_size; ++k) {
            displacement[k] = d[slot.tangent[k]];
            velocity[k] = v[slot.tangent[k]];
            speed += velocity[k] * velocity[k];
        }
        if (speed == 0.0 || !std::isfinite(speed)) continue;  // at rest the rate is 0, as out holds
        const double* origin = q0.data() + slot.coordinate;
        slot.element->integrate_block(slot.block, origin, displacement.data(), moved.data());
        // (q (+) eps v) (-) q0 on both sides of q = q0 (+) d, eps |v| = 1e-5.
        const double eps = 1e-5 / std::sqrt(speed);
        for (int k = 0; k < slot.tangent_size; ++k) step[k] = eps * velocity[k];
        slot.element->integrate_block(slot.block, moved.data(), step.data(), shifted.data());
        slot.element->difference_block(slot.block, shifted.data(), origin, ahead.data());
        for (int k = 0; k < slot.tangent_size; ++k) step[k] = -eps * velocity[k];
        slot.element->integrate_block(slot.block, moved.data(), step.data(), shifted.data());
        slot.element->difference_block(slot.block, shifted.data(), origin, behind.data());
        for (int k = 0; k < slot.tangent_size; ++k) out[slot.tangent[k]] = (ahead[k] - behind[k]) / (2.0 * eps);
    }
}

}  // namespace soma
