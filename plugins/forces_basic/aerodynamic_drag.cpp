#include "aerodynamic_drag.hpp"

#include "soma/element.hpp"

#include <Eigen/Geometry>

#include <cassert>
#include <cmath>
#include <unordered_map>

namespace soma::forces_basic {

namespace {

/// [a×]: the matrix with [a×] b = a × b.
Mat3 cross_matrix(const Vec3& a) {
    Mat3 m;
    m << 0.0, -a.z(), a.y(),  //
        a.z(), 0.0, -a.x(),   //
        -a.y(), a.x(), 0.0;
    return m;
}

/// The positions of an element's points in its initial (undeformed) configuration.
std::vector<Vec3> initial_point_positions(const Element& element) {
    VectorX q_local(element.dof_count()), v_local(element.dof_count());
    element.initial_state(q_local, v_local);
    std::unordered_map<Index, Index> local_of;  // bind-time only
    const std::vector<Index>& globals = element.global_dofs();
    for (std::size_t l = 0; l < globals.size(); ++l) local_of.emplace(globals[l], static_cast<Index>(l));
    const Geometry& g = element.geometry();
    std::vector<Vec3> x(g.point_dofs.size());
    for (std::size_t p = 0; p < g.point_dofs.size(); ++p)
        for (int c = 0; c < 3; ++c) x[p][c] = q_local[local_of.at(g.point_dofs[p][static_cast<std::size_t>(c)])];
    return x;
}

}  // namespace

AerodynamicDrag::AerodynamicDrag(AerodynamicDragSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.medium_density > 0.0) || !std::isfinite(settings_.medium_density))
        errors_.fail("medium_density",
                     "must be a finite value > 0 kg/m^3, got " + std::to_string(settings_.medium_density));
    if (!(settings_.drag_coefficient > 0.0) || !std::isfinite(settings_.drag_coefficient))
        errors_.fail("drag_coefficient", "must be a finite value > 0, got " + std::to_string(settings_.drag_coefficient));
}

void AerodynamicDrag::bind(const SceneView& scene) {
    std::vector<const Element*> elements = select_elements(scene, settings_.elements, errors_);
    if (settings_.elements.empty()) {
        std::erase_if(elements, [](const Element* e) { return e->geometry().triangles.empty(); });
        if (elements.empty())
            errors_.fail("elements", "no element of the scene has triangles, so aerodynamic drag would act on "
                                     "nothing; rods take viscous_drag");
    } else {
        for (const Element* element : elements)
            if (element->geometry().triangles.empty())
                errors_.fail("elements", "element '" + element->name() +
                                             "' has no triangles, so aerodynamic drag would not act on it; rods "
                                             "take viscous_drag");
    }

    // Rigid bodies' triangles move through their map; this force reads node DOFs directly.
    std::vector<const Element*> deformable;
    for (const Element* element : elements) {
        if (!element->geometry().mapped_points) {
            deformable.push_back(element);
            continue;
        }
        if (!settings_.elements.empty())
            errors_.fail("elements", "element '" + element->name() +
                                         "' is a rigid body: aerodynamic drag acts on the triangles of shells only");
    }
    elements.swap(deformable);
    const double scale = settings_.medium_density * settings_.drag_coefficient / 6.0;  // β_k = scale A_k
    triangles_.clear();
    for (const Element* element : elements) {
        const Geometry& g = element->geometry();
        const std::vector<Vec3> rest = initial_point_positions(*element);
        for (std::size_t t = 0; t < g.triangles.size(); ++t) {
            const auto& tri = g.triangles[t];
            for (Index p : tri)
                if (p < 0 || static_cast<std::size_t>(p) >= g.point_dofs.size())
                    errors_.fail("elements", "triangle " + std::to_string(t) + " of element '" + element->name() +
                                                 "' refers to point " + std::to_string(p) + " of " +
                                                 std::to_string(g.point_dofs.size()));
            const Vec3& a = rest[static_cast<std::size_t>(tri[0])];
            const Vec3& b = rest[static_cast<std::size_t>(tri[1])];
            const Vec3& c = rest[static_cast<std::size_t>(tri[2])];
            const double area = 0.5 * (b - a).cross(c - a).norm();
            if (!(area > 0.0))
                errors_.fail("elements", "triangle " + std::to_string(t) + " of element '" + element->name() +
                                             "' has zero undeformed area");
            DragTriangle d;
            for (std::size_t m = 0; m < 3; ++m)
                for (std::size_t k = 0; k < 3; ++k) d.dofs[3 * m + k] = g.point_dofs[static_cast<std::size_t>(tri[m])][k];
            d.coefficient = scale * area;
            triangles_.push_back(d);
        }
    }
}

void AerodynamicDrag::declare_pattern(PatternBuilder& pattern) {
    stencils_.clear();
    for (const DragTriangle& t : triangles_) stencils_.push_back(pattern.add_stencil(t.dofs));
}

void AerodynamicDrag::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(context.q && context.v && stencils_.size() == triangles_.size());
    const VectorX& q = *context.q;
    const VectorX& v = *context.v;
    const double c_q = context.coefficients.c_q;
    const double c_v = context.coefficients.c_v;
    const bool with_jacobian = assembly.wants_jacobian() && (c_q != 0.0 || c_v != 0.0);

    for (std::size_t t = 0; t < triangles_.size(); ++t) {
        const auto& d = triangles_[t].dofs;
        const double beta = triangles_[t].coefficient;
        Vec3 x[3], u[3];
        for (int m = 0; m < 3; ++m) {
            x[m] = Vec3(q[d[3 * m]], q[d[3 * m + 1]], q[d[3 * m + 2]]);
            u[m] = Vec3(v[d[3 * m]], v[d[3 * m + 1]], v[d[3 * m + 2]]);
        }
        const Vec3 n = (x[1] - x[0]).cross(x[2] - x[0]);
        const double length = n.norm();
        if (!(length > 0.0)) continue;  // degenerate at this iterate: no normal, no drag (see header)
        const Vec3 nh = n / length;

        double w[3], w_abs[3];
        VecN<9> residual;
        for (int i = 0; i < 3; ++i) {
            w[i] = u[i].dot(nh);
            w_abs[i] = std::abs(w[i]);
            residual.segment<3>(3 * i) = (beta * w[i] * w_abs[i]) * nh;  // -f_i, eq. 29
        }
        assembly.add_residual(stencils_[t], residual);
        if (!with_jacobian) continue;

        MatN<9> jacobian = MatN<9>::Zero();
        const Mat3 nnT = nh * nh.transpose();
        if (c_q != 0.0) {
            // ∂n̂/∂x_m = (1/|n|)(I - n̂n̂ᵀ)[e_m×], e_a = x_c - x_b, e_b = x_a - x_c, e_c = x_b - x_a.
            const Mat3 projector = (Mat3::Identity() - nnT) / length;
            const Mat3 dn[3] = {projector * cross_matrix(x[2] - x[1]), projector * cross_matrix(x[0] - x[2]),
                                projector * cross_matrix(x[1] - x[0])};
            for (int i = 0; i < 3; ++i) {
                // dF_i/dn̂ = β (2|w| n̂ u_iᵀ + w|w| I)
                const Mat3 dF_dn = beta * (2.0 * w_abs[i] * nh * u[i].transpose() + w[i] * w_abs[i] * Mat3::Identity());
                for (int m = 0; m < 3; ++m) jacobian.block<3, 3>(3 * i, 3 * m).noalias() += c_q * dF_dn * dn[m];
            }
        }
        if (c_v != 0.0)
            for (int i = 0; i < 3; ++i) jacobian.block<3, 3>(3 * i, 3 * i) += (c_v * beta * 2.0 * w_abs[i]) * nnT;
        assembly.add_jacobian(stencils_[t], jacobian, 1.0);
    }
}

}  // namespace soma::forces_basic
