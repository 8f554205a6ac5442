#include "gvs_element.hpp"

#include "inverse_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace soma::gvs {

namespace {

constexpr const char* kTension = "cable_tension";
constexpr const char* kJointForce = "joint_force";

/// The radius of the circle a section's points show and touch with: a circle's own, else the
/// radius of the circle of the same area (a rectangle's contact is approximate, as in the paper's
/// spheres, Mathew et al., section 6.2).
double section_radius(const SoftLinkBody& body, double X, const SectionConstants& section) {
    if (const auto* circle = std::get_if<CircularProfile>(&body.rod.section)) return circle->radius(X);
    return std::sqrt(section.area / M_PI);
}

}  // namespace

GvsElement::GvsElement(GvsElementDescription description)
    : description_(std::move(description)),
      tree_(build_link_tree(description_.robot)),
      data_(tree_.model),
      output_data_(tree_.model) {
    const auto& links = description_.robot.links;
    const Index n = tree_.model.dof_count;
    const Index points = tree_.model.point_count();

    // Cables, in link order.
    Index cables = 0;
    cable_first_.assign(links.size(), 0);
    for (std::size_t l = 0; l < links.size(); ++l) {
        cable_first_[l] = cables;
        if (const auto* soft = std::get_if<SoftLinkBody>(&links[l].body)) {
            for (std::size_t c = 0; c < soft->cables.size(); ++c) cable_link_.push_back(static_cast<Index>(l));
            cables += static_cast<Index>(soft->cables.size());
        }
    }
    tension_.setZero(cables);
    if (description_.initial_tension.size() != 0) {
        if (description_.initial_tension.size() != cables)
            throw std::invalid_argument("the robot has " + std::to_string(cables) + " cables, but " +
                                        std::to_string(description_.initial_tension.size()) + " tensions are given");
        for (Index c = 0; c < cables; ++c)
            if (!(description_.initial_tension[c] >= 0.0) || !std::isfinite(description_.initial_tension[c]))
                throw std::invalid_argument("cable " + std::to_string(c) + ": a tension must be finite and >= 0 N");
        tension_ = description_.initial_tension;
    }

    // Joints: every coordinate can be driven by a force (eq. D66; 0 by default).
    joint_force_.setZero(n);
    joint_actuation_.resize(links.size());
    for (std::size_t l = 0; l < links.size(); ++l) {
        const LinkLayout& layout = tree_.links[l];
        if (layout.joint_dof_count == 0) continue;
        joint_actuation_[l].emplace(layout.joint_basis);
        for (Index k = 0; k < layout.joint_dof_count; ++k) joint_coordinates_.push_back(layout.joint_first_dof + k);
    }

    // The wall (Mathew et al., section 6.2): a sphere of the section's radius at every point of
    // the links that touch it.
    if (description_.wall) {
        tree_.model.wall = *description_.wall;
        for (const Index l : description_.wall_links) {
            const auto lu = static_cast<std::size_t>(l);
            const auto* soft = l >= 0 && lu < links.size() ? std::get_if<SoftLinkBody>(&links[lu].body) : nullptr;
            if (!soft) throw std::invalid_argument("wall contact: link " + std::to_string(l) + " is not a soft link");
            const LinkLayout& layout = tree_.links[lu];
            for (Index k = 1; k < layout.rod->point_count(); ++k) {
                const auto kk = static_cast<std::size_t>(k);
                // A rod tapered to a point has no sphere at its tip.
                const double radius = section_radius(*soft, layout.rod->X[kk], layout.rod->section[kk]);
                if (radius > 0.0) add_wall_contact(tree_.model, layout.first_point + k - 1, radius);
            }
        }
    }

    // World wrenches (Mathew et al., eq. 53) at a link's frame or end.
    for (const WorldWrenchLoad& load : description_.wrenches) {
        if (load.link < 0 || static_cast<std::size_t>(load.link) >= links.size())
            throw std::invalid_argument("world wrench: link " + std::to_string(load.link) + " does not exist");
        const LinkLayout& layout = tree_.links[static_cast<std::size_t>(load.link)];
        wrench_slots_.push_back(add_world_wrench(tree_.model, load.at_end ? layout.end_point : layout.frame_point));
    }

    // The fluid (section 6.3): drag-lift, added mass and buoyancy at the immersed points. A point
    // that carries several links (a rigid link on its parent's frame) gets the sum of theirs; the
    // buoyancy of each is the weight of the fluid it displaces, at its centroid.
    const auto np_ = static_cast<std::size_t>(points);
    buoyant_mass_.assign(np_, 0.0);
    buoyant_moment_.assign(np_, Vec3::Zero());
    const double rho_w = description_.fluid_density;
    std::vector<Mat6> point_drag(np_, Mat6::Zero()), point_added(np_, Mat6::Zero()), point_displaced(np_, Mat6::Zero());
    std::vector<char> immersed(np_, 0);
    for (std::size_t l = 0; l < links.size(); ++l) {
        const LinkLayout& layout = tree_.links[l];
        const auto immerse = [&](Index point, const Mat6& drag, const Mat6& added_mass, double displaced_mass,
                                 const Vec3& centroid) {
            if (!(rho_w > 0.0))
                throw std::invalid_argument("link '" + links[l].name + "': it is immersed (its `fluid`), but the "
                                            "element's fluid_density is not set");
            const auto p = static_cast<std::size_t>(point);
            point_drag[p] += drag;
            point_added[p] += added_mass;
            point_displaced[p] += spatial_inertia(displaced_mass, Mat3::Zero(), centroid);
            buoyant_mass_[p] += displaced_mass;
            buoyant_moment_[p] += displaced_mass * centroid;
            immersed[p] = 1;
        };
        if (const auto* soft = std::get_if<SoftLinkBody>(&links[l].body); soft && soft->fluid) {
            const RodDiscretization& rod = *layout.rod;
            const SoftLinkFluid& f = *soft->fluid;
            for (Index k = 1; k < rod.point_count(); ++k) {
                const auto kk = static_cast<std::size_t>(k);
                if (rod.weight[kk] == 0.0) continue;  // the tip: no length, no load
                const double r = section_radius(*soft, rod.X[kk], rod.section[kk]), w = rod.weight[kk];
                Vec6 drag, added;
                drag << 0.0, 0.0, 0.0, 0.5 * rho_w * 2.0 * r * std::numbers::pi * f.tangential_drag_coefficient * w,
                    0.5 * rho_w * 2.0 * r * f.drag_coefficient * w, 0.5 * rho_w * 2.0 * r * f.drag_coefficient * w;
                const double across = f.added_mass_coefficient * rho_w * std::numbers::pi * r * r * w;
                added << 0.0, 0.0, 0.0, 0.0, across, across;
                immerse(layout.first_point + k - 1, drag.asDiagonal(), added.asDiagonal(),
                        rho_w * rod.section[kk].area * w, Vec3::Zero());
            }
        } else if (const auto* rigid = std::get_if<RigidLinkBody>(&links[l].body); rigid && rigid->fluid) {
            const RigidLinkFluid& f = *rigid->fluid;
            immerse(layout.frame_point, f.drag.asDiagonal(), f.added_mass.asDiagonal(), rho_w * f.volume,
                    rigid->center_of_mass);
        }
    }
    for (std::size_t p = 0; p < np_; ++p)
        if (immersed[p])
            add_point_hydrodynamics(tree_.model, static_cast<Index>(p), point_drag[p], point_added[p], point_displaced[p]);
    data_ = MultibodyData(tree_.model);
    output_data_ = MultibodyData(tree_.model);

    // DOF names, for Newton's diagnostics.
    dof_names_.resize(static_cast<std::size_t>(n));
    for (std::size_t l = 0; l < links.size(); ++l) {
        const LinkLayout& layout = tree_.links[l];
        const std::string stem = "link '" + links[l].name + "' ";
        for (Index k = 0; k < layout.joint_dof_count; ++k)
            dof_names_[static_cast<std::size_t>(layout.joint_first_dof + k)] =
                stem + joint_type_name(links[l].joint.type) + " joint coordinate " + std::to_string(k);
        if (!layout.rod) continue;
        const StrainBasis& basis = layout.rod->basis;
        for (int c = 0; c < kStrainComponents; ++c)
            for (Index j = 0; j < basis.component_dof_count(c); ++j)
                dof_names_[static_cast<std::size_t>(layout.rod_first_dof + basis.component_offset(c) + j)] =
                    stem + std::string(strain_component_name(c)) + " mode " + std::to_string(j);
    }

    // Points for output: every point of the tree; edges join each point to its parent.
    const auto np = static_cast<std::size_t>(points);
    geometry_.mapped_points = true;
    geometry_.weight_at_points = false;  // a rigid link's mass centre lies off its frame point: gravity is ours
    geometry_.point_dofs.assign(np, {-1, -1, -1});
    geometry_.point_mass = tree_.point_mass;
    geometry_.point_length.assign(np, 0.0);
    geometry_.point_radius.assign(np, 0.0);
    for (std::size_t e = 0; e < tree_.model.edges.size(); ++e)
        geometry_.edges.push_back({tree_.model.edges[e].parent, static_cast<Index>(e + 1)});
    for (std::size_t l = 0; l < links.size(); ++l) {
        const auto* soft = std::get_if<SoftLinkBody>(&links[l].body);
        if (!soft) continue;
        const LinkLayout& layout = tree_.links[l];
        for (Index k = 1; k < layout.rod->point_count(); ++k) {
            const auto kk = static_cast<std::size_t>(k);
            geometry_.point_radius[static_cast<std::size_t>(layout.first_point + k - 1)] =
                section_radius(*soft, layout.rod->X[kk], layout.rod->section[kk]);
            geometry_.point_length[static_cast<std::size_t>(layout.first_point + k - 1)] = layout.rod->weight[kk];
        }
    }

    q_.setZero(n);
    v_.setZero(n);
    a_.setZero(n);
    residual_.setZero(n);
    force_scale_.setZero(n);
    term_.setZero(n);
    actuation_force_.setZero(n);
    scaled_.setZero(std::max(cables, n));
    actuation_jacobian_.setZero(n, n);
    output_q_.setZero(n);
    output_v_.setZero(n);
    output_zero_.setZero(n);

    inverse_dynamics(tree_.model, output_data_, tree_.initial_q, output_zero_, output_zero_, Vec3::Zero());
    for (const Pose& g : output_data_.pose) initial_points_.push_back(g.p);
}

void GvsElement::initial_state(VectorX& q_local, VectorX& v_local) const {
    q_local = tree_.initial_q;
    v_local.setZero(tree_.model.dof_count);
}

std::vector<DofGroup> GvsElement::dof_groups() const {
    return {{"coordinates", 1, tree_.model.dof_count, {"q"}}};
}

Index GvsElement::group_dof(const std::string& group, Index item, int component) const {
    if (group != "coordinates" || item < 0 || item >= tree_.model.dof_count || component != 0)
        throw std::logic_error("gvs: the only DOF group is 'coordinates', one component per generalised coordinate");
    return item;
}

std::string GvsElement::describe_dof(Index local) const { return dof_names_[static_cast<std::size_t>(local)]; }

void GvsElement::on_bind() {}

void GvsElement::declare_pattern(PatternBuilder& pattern) {
    // The coordinates of each leaf's path; a path inside another adds nothing.
    const Index n = tree_.model.dof_count;
    std::vector<bool> has_child(data_.parent_point.size(), false);
    for (const Index parent : data_.parent_point)
        if (parent >= 0) has_child[static_cast<std::size_t>(parent)] = true;
    std::vector<const ColumnRanges*> paths;
    for (std::size_t k = 0; k < has_child.size(); ++k)
        if (!has_child[k] && data_.path_columns[k].column_count() > 0) paths.push_back(&data_.path_columns[k]);
    std::stable_sort(paths.begin(), paths.end(),
                     [](const ColumnRanges* a, const ColumnRanges* b) { return a->column_count() > b->column_count(); });
    std::vector<const ColumnRanges*> kept;
    for (const ColumnRanges* path : paths)
        if (std::none_of(kept.begin(), kept.end(), [&](const ColumnRanges* other) { return other->contains(*path); }))
            kept.push_back(path);

    stencils_.clear();
    // owner(i, j): whether entry (i, j) has been given to a stencil; rows likewise.
    Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> owned = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>::Constant(n, n, false);
    std::vector<bool> row_owned(static_cast<std::size_t>(n), false);
    for (const ColumnRanges* path : kept) {
        PathStencil stencil;
        for (const ColumnRange& r : *path)
            for (Index i = r.first; i < r.first + r.count; ++i) stencil.dofs.push_back(i);
        const auto m = static_cast<Index>(stencil.dofs.size());
        for (Index b = 0; b < m; ++b) {
            const Index j = stencil.dofs[static_cast<std::size_t>(b)];
            if (!row_owned[static_cast<std::size_t>(j)]) {
                row_owned[static_cast<std::size_t>(j)] = true;
                stencil.rows.push_back(b);
            }
            for (Index a = 0; a < m; ++a) {
                const Index i = stencil.dofs[static_cast<std::size_t>(a)];
                if (owned(i, j)) continue;
                owned(i, j) = true;
                stencil.entries.emplace_back(a, b);
            }
        }
        std::vector<Index> global(stencil.dofs.size());
        for (std::size_t a = 0; a < global.size(); ++a) global[a] = global_dof(stencil.dofs[a]);
        stencil.id = pattern.add_stencil(global);
        stencil.jacobian.setZero(m, m);
        stencil.residual.setZero(m);
        stencil.force_scale.setZero(m);
        stencils_.push_back(std::move(stencil));
    }
    if (n > 0 && !std::all_of(row_owned.begin(), row_owned.end(), [](bool b) { return b; }))
        throw std::logic_error("gvs: a coordinate lies on no root-to-leaf path of the tree");
}

void GvsElement::gather(const EvalContext& context) {
    const Index n = tree_.model.dof_count;
    for (Index i = 0; i < n; ++i) {
        const Index g = global_dof(i);
        q_[i] = (*context.q)[g];
        v_[i] = context.v ? (*context.v)[g] : 0.0;
        a_[i] = context.a ? (*context.a)[g] : 0.0;
    }
}

void GvsElement::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    gather(context);
    const double load = context.load_factor;
    const Vec3 gravity = load * description_.gravity;
    const bool jacobian = assembly.wants_jacobian();
    for (std::size_t w = 0; w < wrench_slots_.size(); ++w) {
        Vec6& wrench = data_.world_wrench[static_cast<std::size_t>(wrench_slots_[w])];
        for (int c = 0; c < 6; ++c) wrench[c] = load * description_.wrenches[w].wrench[static_cast<std::size_t>(c)](context.t);
    }
    if (jacobian)
        inverse_dynamics_derivatives(tree_.model, data_, q_, v_, a_, gravity);
    else
        inverse_dynamics(tree_.model, data_, q_, v_, a_, gravity);

    // tau_a = B(q) u: cables pulled with tensions T (u = -T, actuation_matrix.hpp) and joint forces.
    actuation_force_.setZero();
    if (jacobian) actuation_jacobian_.setZero();
    for (std::size_t l = 0; l < tree_.links.size(); ++l) {
        const LinkLayout& layout = tree_.links[l];
        if (layout.tendons) {
            const Index f = layout.rod_first_dof, n = layout.rod_dof_count;
            const Index c = layout.tendons->cable_count();
            auto tension = scaled_.head(c);
            tension = load * tension_.segment(cable_first_[l], c);
            if (jacobian)
                layout.tendons->add_tension_force_and_derivative(q_.segment(f, n), tension,
                                                                 actuation_force_.segment(f, n),
                                                                 actuation_jacobian_.block(f, f, n, n));
            else
                layout.tendons->add_tension_force(q_.segment(f, n), tension, actuation_force_.segment(f, n));
        }
        if (joint_actuation_[l]) {
            const Index f = layout.joint_first_dof, n = layout.joint_dof_count;
            auto u = scaled_.head(n);
            u = load * joint_force_.segment(f, n);
            if (u.isZero(0.0)) continue;  // dB/dq u = 0 too
            if (jacobian)
                joint_actuation_[l]->add_force_and_derivative(q_.segment(f, n), u, actuation_force_.segment(f, n),
                                                              actuation_jacobian_.block(f, f, n, n));
            else
                joint_actuation_[l]->add_force(q_.segment(f, n), u, actuation_force_.segment(f, n));
        }
    }

    // F = ID + K q + D qdot - B u (Mathew et al., eq. 35). Each row's force scale (Newton's
    // balance test, newton.hpp) is the sum of the four terms' sizes: |F| itself would make the
    // test unpassable (|F| <= 3e-8 |F|), leaving only the relative one, which a load step that
    // starts near its solution cannot pass.
    const bool scaled = assembly.residual_scale != nullptr;
    residual_ = data_.id - actuation_force_;
    if (scaled) force_scale_ = data_.id.cwiseAbs() + actuation_force_.cwiseAbs();
    term_.noalias() = tree_.stiffness * q_;
    residual_ += term_;
    if (scaled) force_scale_ += term_.cwiseAbs();
    term_.noalias() = tree_.damping * v_;
    residual_ += term_;
    if (scaled) force_scale_ += term_.cwiseAbs();
    for (PathStencil& stencil : stencils_) {
        for (const Index a : stencil.rows) {
            const Index row = stencil.dofs[static_cast<std::size_t>(a)];
            stencil.residual[a] = residual_[row];
            if (scaled) stencil.force_scale[a] = force_scale_[row];
        }
        assembly.add_residual(stencil.id, stencil.residual, stencil.force_scale);
    }
    if (!jacobian) return;
    const JacobianCoefficients& c = context.coefficients;
    // J = c_q (dID/dq + K - dB/dq u) + c_v (dID/dqdot + D) + c_a M, formed entry by entry for
    // the stencils' entries only (sibling branches leave the rest zero).
    for (PathStencil& stencil : stencils_) {
        for (const auto& [a, b] : stencil.entries) {
            const Index i = stencil.dofs[static_cast<std::size_t>(a)], j = stencil.dofs[static_cast<std::size_t>(b)];
            stencil.jacobian(a, b) = c.c_q * (data_.did_dq(i, j) + tree_.stiffness(i, j) - actuation_jacobian_(i, j)) +
                                     c.c_v * (data_.did_dqdot(i, j) + tree_.damping(i, j)) + c.c_a * data_.mass(i, j);
        }
        assembly.add_jacobian(stencil.id, stencil.jacobian, 1.0);
    }
}

std::string GvsElement::check_solution(const EvalContext& context) const {
    const auto& links = description_.robot.links;
    for (std::size_t l = 0; l < links.size(); ++l) {
        const JointType type = links[l].joint.type;
        if (type != JointType::spherical && type != JointType::free) continue;
        const Index first = tree_.links[l].joint_first_dof;  // the rotation vector comes first
        const Vec3 w((*context.q)[global_dof(first)], (*context.q)[global_dof(first + 1)],
                     (*context.q)[global_dof(first + 2)]);
        if (w.norm() >= 2.0 * M_PI)
            return "gvs robot '" + name() + "', link '" + links[l].name + "': its " + joint_type_name(type) +
                   " joint turned to a rotation vector of size " + std::to_string(w.norm()) +
                   " rad, where exponential coordinates are singular (2 pi): the robot cannot turn a joint "
                   "a full turn from its reference yet";
    }
    return {};
}

void GvsElement::output_kinematics(const VectorX& q, const VectorX* v) const {
    const Index n = tree_.model.dof_count;
    for (Index i = 0; i < n; ++i) {
        output_q_[i] = q[global_dof(i)];
        output_v_[i] = v ? (*v)[global_dof(i)] : 0.0;
    }
    inverse_dynamics(tree_.model, output_data_, output_q_, output_v_, output_zero_, Vec3::Zero());
}

double GvsElement::kinetic_energy(const EvalContext& context) const {
    output_kinematics(*context.q, context.v);
    // T = 1/2 sum_k eta_k^T M_k eta_k, the Kane form of 1/2 qdot^T M qdot (Mathew et al., eq. 34).
    double energy = 0.0;
    for (std::size_t k = 0; k < output_data_.eta.size(); ++k)
        energy += 0.5 * output_data_.eta[k].dot(tree_.model.inertia[k] * output_data_.eta[k]);
    return energy;
}

double GvsElement::potential_energy(const EvalContext& context) const {
    output_kinematics(*context.q, nullptr);
    // Elastic 1/2 q^T K q, and the weight's -g . (m x_k + R_k (m c)_k) at each point.
    double energy = 0.5 * output_q_.dot(tree_.stiffness * output_q_);
    // The wall's Hertz energy k_c delta^(p+1) / (p + 1) per sphere (its force is -k_c delta^p u, eq. 57).
    const CylinderWall& wall = tree_.model.wall;
    for (const WallContact& contact : tree_.model.wall_contacts) {
        const Vec3& x = output_data_.pose[static_cast<std::size_t>(contact.point)].p;
        const double delta = x.head<2>().norm() + contact.sphere_radius - wall.radius;
        if (delta > 0.0) energy += wall.stiffness * std::pow(delta, wall.exponent + 1.0) / (wall.exponent + 1.0);
    }
    const Vec3 g = context.load_factor * description_.gravity;
    for (std::size_t k = 0; k < output_data_.pose.size(); ++k) {
        const Pose& pose = output_data_.pose[k];
        energy -= g.dot(tree_.point_mass[k] * pose.p + pose.R * tree_.point_gravity_moment[k]);
        // The buoyancy: the displaced fluid's weight, upwards (section 6.3).
        energy += g.dot(buoyant_mass_[k] * pose.p + pose.R * buoyant_moment_[k]);
    }
    return energy;
}

namespace {

/// A world wrench (moment, then force) at one point of the tree, as a KinematicLoads
/// (inverse_dynamics.hpp).
class PointWrench final : public KinematicLoads {
public:
    PointWrench(Index point, const Vec3& torque, const Vec3& force) : point_(point) {
        wrench_ << torque, force;
    }
    void apply(const MultibodyModel&, MultibodyData& data, bool derivatives) const override {
        subtract_world_wrench(data, point_, wrench_, derivatives);
    }

private:
    Index point_;
    Vec6 wrench_;
};

MultibodyModel without_point_loads(MultibodyModel model) {
    model.world_wrench_points.clear();
    model.wall_contacts.clear();
    model.hydrodynamics.clear();
    return model;
}

}  // namespace

GvsElement::PointMap::PointMap(const MultibodyModel& tree)
    : bare(without_point_loads(tree)), kinematics(bare), stiffness(bare), q(VectorX::Zero(bare.dof_count)),
      v(VectorX::Zero(bare.dof_count)), scratch_q(VectorX::Zero(bare.dof_count)), scratch_v(VectorX::Zero(bare.dof_count)) {}

void GvsElement::gather_coordinates(const VectorX& q, VectorX& local) const {
    for (Index i = 0; i < tree_.model.dof_count; ++i) local[i] = q[global_dof(i)];
}

GvsElement::PointMap& GvsElement::point_map_at(const EvalContext& context) const {
    if (!point_map_) point_map_.emplace(tree_.model);
    PointMap& map = *point_map_;
    gather_coordinates(*context.q, map.scratch_q);
    if (context.v)
        gather_coordinates(*context.v, map.scratch_v);
    else
        map.scratch_v.setZero();
    if (!map.valid || map.scratch_q != map.q || map.scratch_v != map.v) {  // a new iterate: one forward pass
        map.q.swap(map.scratch_q);
        map.v.swap(map.scratch_v);
        forward_kinematics(map.bare, map.kinematics, map.q, map.v, output_zero_, true);
        map.valid = true;
    }
    return map;
}

void GvsElement::point_kinematics(Index point, const EvalContext& context, PointKinematics& out) const {
    if (point < 0 || point >= tree_.model.point_count()) throw std::logic_error("gvs: no point " + std::to_string(point));
    const MultibodyData& data = point_map_at(context).kinematics;
    const auto k = static_cast<std::size_t>(point);
    const Mat3& R = data.pose[k].R;
    const Vec6& eta = data.eta[k];  // [omega; v] in the point's frame
    const Matrix6X& body_jacobian = data.s_b[k];
    out.set_dof_count(static_cast<int>(tree_.model.dof_count));
    const auto dofs = out.dof_span();
    for (std::size_t i = 0; i < dofs.size(); ++i) dofs[i] = global_dof(static_cast<Index>(i));
    out.position = data.pose[k].p;
    out.velocity.noalias() = R * eta.tail<3>();
    // x = p_k, xdot = R_k v_k = R_k [0 I] J_k qdot: J = dx/dq = R_k [0 I] J_k (q is a vector, qdot its rate).
    auto jacobian = out.jacobian_columns();
    jacobian.noalias() = R * body_jacobian.bottomRows<3>();
    out.position_jacobian_columns() = jacobian;
    // d(R_k v_k)/dq = R_k (d v_k/dq - v_k~ J_w,k): the frame turns with dR = R (J_w dq)~, and
    // d eta_k/dq is R^B_k (eqs. 20b, 22a).
    // (Two products: nesting the difference would make Eigen evaluate it into a temporary.)
    auto velocity_jacobian = out.velocity_jacobian_columns();
    velocity_jacobian.noalias() = R * data.r_b[k].bottomRows<3>();
    const Mat3 turn = R * skew(eta.tail<3>());
    velocity_jacobian.noalias() -= turn * body_jacobian.topRows<3>();
}

void GvsElement::point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& torque,
                                           const Vec3& force, Eigen::MatrixXd& stiffness) const {
    if (point < 0 || point >= tree_.model.point_count()) throw std::logic_error("gvs: no point " + std::to_string(point));
    if (!point_map_) point_map_.emplace(tree_.model);
    PointMap& map = *point_map_;
    gather_coordinates(*context.q, map.scratch_q);
    // At rest, without gravity, the bare tree's ID is -J_k^T [tau; f] alone (eq. 53), so
    // d(J_k^T [tau; f])/dq = -dID/dq (the same pass as the loop joints' curvature).
    const PointWrench load(point, torque, force);
    inverse_dynamics_derivatives(map.bare, map.stiffness, map.scratch_q, output_zero_, output_zero_, Vec3::Zero(), &load,
                                 DerivativeSet::static_loads);
    const Index n = tree_.model.dof_count;
    if (stiffness.rows() < n || stiffness.cols() < n) stiffness.resize(n, n);  // grow only (element.hpp)
    stiffness.topLeftCorner(n, n) = -map.stiffness.did_dq;
}

void GvsElement::add_point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& force,
                                               PointStiffness& stiffness) const {
    // A robot of at most kMaxPointDofs coordinates has narrow points (a pendulum).
    const Index n = tree_.model.dof_count;
    if (!point_map_) point_map_.emplace(tree_.model);
    point_geometric_stiffness(point, context, Vec3::Zero(), force, point_map_->narrow_stiffness);
    stiffness.topLeftCorner(n, n) += point_map_->narrow_stiffness.topLeftCorner(n, n);
}

void GvsElement::wide_point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& force,
                                                Eigen::MatrixXd& stiffness) const {
    point_geometric_stiffness(point, context, Vec3::Zero(), force, stiffness);
}

// Frames: the base, then each link's frame (after its joint) and its end frame.
Index GvsElement::frame_count() const { return 1 + 2 * static_cast<Index>(tree_.links.size()); }

std::string GvsElement::frame_name(Index frame) const {
    if (frame < 0 || frame >= frame_count()) throw std::logic_error("gvs: no frame " + std::to_string(frame));
    if (frame == 0) return "base";
    const auto& link = description_.robot.links[static_cast<std::size_t>((frame - 1) / 2)];
    return (frame - 1) % 2 == 0 ? link.name : link.name + ".end";
}

Index GvsElement::frame_point(Index frame) const {
    if (frame < 0 || frame >= frame_count()) throw std::logic_error("gvs: no frame " + std::to_string(frame));
    if (frame == 0) return 0;
    const LinkLayout& layout = tree_.links[static_cast<std::size_t>((frame - 1) / 2)];
    return (frame - 1) % 2 == 0 ? layout.frame_point : layout.end_point;
}

void GvsElement::frame_kinematics(Index frame, const EvalContext& context, FrameKinematics& out) const {
    const auto k = static_cast<std::size_t>(frame_point(frame));
    const MultibodyData& data = point_map_at(context).kinematics;
    const Mat3& R = data.pose[k].R;
    const Vec6& eta = data.eta[k];
    out.set_dof_count(static_cast<int>(tree_.model.dof_count));
    const auto dofs = out.dof_span();
    for (std::size_t i = 0; i < dofs.size(); ++i) dofs[i] = global_dof(static_cast<Index>(i));
    out.origin = data.pose[k].p;
    out.rotation = R;
    out.velocity.noalias() = R * eta.tail<3>();
    out.angular_velocity.noalias() = R * eta.head<3>();
    // [xdot; omega] = blockdiag(R, R) [0 I; I 0] J_k qdot (J_k's rows: angular, then linear); the
    // world rotation vector of a step is R J_w dq (dR = R (J_w dq)~ = (R J_w dq)~ R), so J_q = J.
    auto jacobian = out.jacobian_columns();
    jacobian.topRows<3>().noalias() = R * data.s_b[k].bottomRows<3>();
    jacobian.bottomRows<3>().noalias() = R * data.s_b[k].topRows<3>();
    out.position_jacobian_columns() = jacobian;
}

void GvsElement::add_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& force,
                                               const Vec3& torque, FrameStiffness& stiffness) const {
    const Index n = tree_.model.dof_count;  // at most kMaxFrameDofs coordinates: narrow frames
    if (!point_map_) point_map_.emplace(tree_.model);
    point_geometric_stiffness(frame_point(frame), context, torque, force, point_map_->narrow_stiffness);
    stiffness.topLeftCorner(n, n) += point_map_->narrow_stiffness.topLeftCorner(n, n);
}

void GvsElement::wide_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& force,
                                                const Vec3& torque, Eigen::MatrixXd& stiffness) const {
    point_geometric_stiffness(frame_point(frame), context, torque, force, stiffness);
}

void GvsElement::point_states(const VectorX& q, const VectorX& v, std::span<Vec3> positions,
                              std::span<Vec3> velocities) const {
    if (positions.size() != geometry_.point_dofs.size() || velocities.size() != positions.size())
        throw std::logic_error("gvs: point_states needs one entry per point");
    output_kinematics(q, &v);
    for (std::size_t k = 0; k < positions.size(); ++k) {
        const Pose& pose = output_data_.pose[k];
        positions[k] = pose.p;
        velocities[k] = pose.R * output_data_.eta[k].tail<3>();  // eta = [omega; v] in the point's frame
    }
}

void GvsElement::point_state(Index point, const VectorX& q, const VectorX& v, Vec3& x, Vec3& xdot) const {
    if (point < 0 || point >= tree_.model.point_count())
        throw std::logic_error("gvs: no point " + std::to_string(point));
    output_kinematics(q, &v);  // one forward pass: every point's pose (a probe reads one)
    const Pose& pose = output_data_.pose[static_cast<std::size_t>(point)];
    x = pose.p;
    xdot = pose.R * output_data_.eta[static_cast<std::size_t>(point)].tail<3>();
}

std::vector<ActuationChannel> GvsElement::actuation_channels() const {
    std::vector<ActuationChannel> channels;
    if (cable_count() > 0)
        channels.push_back({kTension, cable_count(), {"T"}, "N",
                            "tension of each cable (>= 0; links in order, a link's cables in order)"});
    if (!joint_coordinates_.empty())
        channels.push_back({kJointForce, static_cast<Index>(joint_coordinates_.size()), {"u"}, "N m or N",
                            "force along each joint coordinate (links in order; Mathew et al., eq. D66): a revolute "
                            "joint's torque, a prismatic joint's force"});
    return channels;
}

void GvsElement::check_channel(const std::string& channel, Index item, int component) const {
    const Index count = channel == kTension     ? cable_count()
                        : channel == kJointForce ? static_cast<Index>(joint_coordinates_.size())
                                                 : -1;
    if (count < 0 || item < 0 || item >= count || component != 0)
        throw std::logic_error("gvs element '" + name() + "': no item " + std::to_string(item) + " component " +
                               std::to_string(component) + " in channel '" + channel + "'");
}

double GvsElement::actuation(const std::string& channel, Index item, int component) const {
    check_channel(channel, item, component);
    if (channel == kTension) return tension_[item];
    return joint_force_[joint_coordinates_[static_cast<std::size_t>(item)]];
}

void GvsElement::set_actuation(const std::string& channel, Index item, int component, double value) {
    check_channel(channel, item, component);
    if (!std::isfinite(value))
        throw std::domain_error("gvs element '" + name() + "': " + channel + " " + std::to_string(item) +
                                " set to a value that is not finite");
    if (channel == kTension) {
        // A cable cannot push (actuation_matrix.hpp): a controller's negative value is an input error.
        if (value < 0.0)
            throw std::domain_error("gvs element '" + name() + "': cable " + std::to_string(item) +
                                    " set to a negative tension " + std::to_string(value) + " N (a cable cannot push)");
        tension_[item] = value;
        return;
    }
    joint_force_[joint_coordinates_[static_cast<std::size_t>(item)]] = value;
}

Vec3 GvsElement::actuation_point(const std::string& channel, Index item) const {
    check_channel(channel, item, 0);
    if (channel == kTension) {
        const auto link = static_cast<std::size_t>(cable_link_[static_cast<std::size_t>(item)]);
        return initial_points_[static_cast<std::size_t>(tree_.links[link].first_point)];
    }
    const Index dof = joint_coordinates_[static_cast<std::size_t>(item)];
    for (const LinkLayout& layout : tree_.links)
        if (dof >= layout.joint_first_dof && dof < layout.joint_first_dof + layout.joint_dof_count)
            return initial_points_[static_cast<std::size_t>(layout.frame_point)];
    return Vec3::Zero();
}

}  // namespace soma::gvs
