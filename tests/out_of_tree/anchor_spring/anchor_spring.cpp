// anchor_spring: a linear spring tying chosen nodes of an element to fixed anchor points,
//   E = 1/2 k |x - x_anchor|^2,   F_residual += k (x - x_anchor),   J += c_q k I.
// A complete out-of-tree force plugin: schema, factory, binding to an element by name,
// pattern declaration, residual and Jacobian, energy.
#include <soma/soma.hpp>

#include <array>
#include <vector>

namespace {

using namespace soma;

class AnchorSpring final : public Force {
public:
    explicit AnchorSpring(const Parameters& p)
        : parameters_(p), stiffness_(p.real("stiffness")), element_name_(p.string("element")), nodes_(p.integer_list("nodes")) {}

    void bind(const SceneView& scene) override {
        const Element* element = scene.find_element(element_name_);
        if (!element) parameters_.fail("element", "no element named '" + element_name_ + "'");
        const Geometry& g = element->geometry();
        const long count = static_cast<long>(g.point_dofs.size());
        for (long node : nodes_) {
            const long index = node < 0 ? node + count : node;
            if (index < 0 || index >= count)
                parameters_.fail("nodes", "node " + std::to_string(node) + " is out of range: '" + element_name_ +
                                              "' has " + std::to_string(count) + " nodes");
            const auto& dofs = g.point_dofs[static_cast<std::size_t>(index)];
            points_.push_back(dofs);
            // The anchor is where the node starts.
            const State& s = scene.state();
            anchors_.push_back(Vec3(s.q[dofs[0]], s.q[dofs[1]], s.q[dofs[2]]));
        }
    }

    void declare_pattern(PatternBuilder& pattern) override {
        stencils_.clear();
        for (const auto& dofs : points_) stencils_.push_back(pattern.add_stencil(dofs));
    }

    void add_residual_and_jacobian(const EvalContext& c, Assembly& assembly) override {
        const Mat3 K = stiffness_ * Mat3::Identity();
        for (std::size_t i = 0; i < points_.size(); ++i) {
            const auto& d = points_[i];
            const Vec3 x((*c.q)[d[0]], (*c.q)[d[1]], (*c.q)[d[2]]);
            assembly.add_residual(stencils_[i], Vec3(stiffness_ * (x - anchors_[i])));
            assembly.add_jacobian(stencils_[i], K, c.coefficients.c_q);
        }
    }

    double potential_energy(const EvalContext& c) const override {
        double energy = 0.0;
        for (std::size_t i = 0; i < points_.size(); ++i) {
            const auto& d = points_[i];
            const Vec3 x((*c.q)[d[0]], (*c.q)[d[1]], (*c.q)[d[2]]);
            energy += 0.5 * stiffness_ * (x - anchors_[i]).squaredNorm();
        }
        return energy;
    }

private:
    Parameters parameters_;
    double stiffness_;
    std::string element_name_;
    std::vector<long> nodes_;
    std::vector<std::array<Index, 3>> points_;
    std::vector<Vec3> anchors_;
    std::vector<StencilId> stencils_;
};

}  // namespace

SOMA_PLUGIN("anchor_spring") {
    ParameterSchema schema("anchor_spring", "Linear springs tying nodes to their initial positions.");
    schema.real("stiffness", "spring stiffness").unit("N/m").require().positive();
    schema.string("element", "element whose nodes are tied").require();
    schema.integer_list("nodes", "node indices (negative counts from the end)").require();
    registry.add_force(std::move(schema), [](const Parameters& p) { return std::make_unique<AnchorSpring>(p); });
}
