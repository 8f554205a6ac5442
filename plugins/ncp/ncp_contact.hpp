#pragma once
/// \file ncp_contact.hpp
/// \brief `ncp_contact`: the contacts of elements with each other and with a floor, found at
/// each step's start, as inequality rows with Coulomb friction for `ncp_newton`
/// (contact_constraint.hpp; Macklin et al. 2019, eqs. 9-16).
///
/// Candidates are the surface points of the named elements (contact_solids.hpp): rod, shell and
/// particle nodes, a rigid body's contact points (a box's corners, a sphere's centre with its
/// radius, a capsule's axis ends). Each meets
/// - the floor (optional), n . x = height: gap = n . x - height - radius;
/// - the solids of the other named elements (a rigid body's convex mesh, sphere or capsule):
///   gap = the point's signed distance to the solid's surface minus its radius, with the
///   surface's material point nearest to it and the normal there fixed for the step.
/// A candidate becomes a contact when its gap, now or predicted over twice the step's motion at
/// the start's velocity and acceleration (gap + 2 h n . (xdot_a - xdot_b) at v + h a), is within
/// `margin`. The margin catches what the prediction cannot see: a point resting on the floor has
/// no acceleration at the step's start (its contact force balanced its weight), and a gap of
/// +1e-16 m would otherwise let it fall through one step unchecked. A contact farther than its
/// gap costs an inactive row, nothing more (lambda_n = 0).
///
/// Broad phase: the candidates sorted along x once per step; each solid's box, grown by the
/// margin, the largest candidate radius and the step's largest motion, selects a range of them
/// by bisection and then by y and z. Not every pair is tested.
///
/// Not found (documented limits): edge-edge contacts between two polyhedra (two boxes meeting
/// edge to edge with no corner inside the other); a capsule's side against another capsule's side
/// or a box's edge (only its axis ends are candidates); a deformable element's own surface as a
/// solid (a rod against a shell: use imc_contact). Bodies held together by a joint or a clamp
/// touch each other unless their pair is in `exclude`: otherwise their contacts fight the joint.

#include "contact_solids.hpp"

#include "soma/contact_constraint.hpp"
#include "soma/settings_errors.hpp"

#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

namespace soma::ncp {

struct FloorSettings {
    double height = 0.0;          ///< the plane n . x = height
    Vec3 normal = Vec3::UnitZ();  ///< out of the floor; normalised
};

struct ContactSettings {
    std::vector<std::string> elements;  ///< empty: every element
    /// Pairs of elements that never touch (bodies held together by a joint or a clamp).
    std::vector<std::pair<std::string, std::string>> exclude;
    std::optional<FloorSettings> floor;
    double friction = 0.0;              ///< Coulomb coefficient mu
    double margin = 1e-3;               ///< detection distance (m)
};

class NcpContact final : public ContactConstraint {
public:
    NcpContact(ContactSettings settings, SettingsErrors errors);

    void bind(const SceneView& scene) override;
    void detect(const SceneView& scene, double dt) override;
    bool has_friction() const override { return settings_.friction > 0.0; }

private:
    struct Candidate {
        std::size_t element = 0;  ///< index into elements_
        Index point = 0;
        double radius = 0.0;
        bool movable = false;     ///< some DOF of the point is free
    };
    struct Solid {
        ContactSolid solid;
        std::size_t element = 0;
        bool movable = false;
    };
    /// Adds a contact when the gap (now or predicted) is within the margin. A rounded candidate
    /// (a sphere's centre, a capsule's axis end with radius r) touches at its surface point
    /// x - r n, fixed in its body's frame for the step, so that friction turns it.
    void consider(const Candidate& c, const ContactEnd& surface, const Vec3& normal, double gap, double relative_normal_speed,
                  double thickness, double dt, const VectorX& q);
    /// A contact end at \p centre + \p arm of element \p e: the centre fixed in the frame that
    /// point \p point moves rigidly with (Element::rigid_frame_of_point: a rigid body's body
    /// frame) at configuration \p q, the arm fixed in the world; \p otherwise when there is none
    /// (a GVS soft rod's point: it bends, and touches at its centre).
    ContactEnd frame_point(const Element& e, Index point, const Vec3& centre, const Vec3& arm,
                           const ContactEnd& otherwise, const VectorX& q);

    ContactSettings settings_;
    SettingsErrors errors_;
    std::vector<const Element*> elements_;
    std::vector<Candidate> candidates_;
    std::vector<Solid> solids_;
    std::set<std::pair<std::size_t, std::size_t>> excluded_;  ///< element indices, smaller first
    // Per step (kept: sized once).
    std::vector<std::vector<Vec3>> positions_, velocities_;  ///< per element, per point: x(q), xdot(q, v + h a)
    std::vector<Vec3> centroids_;                            ///< per element, of its points
    std::vector<std::pair<double, std::size_t>> sorted_;      ///< candidates by x
    VectorX velocity_ahead_;
    FrameKinematics frame_;
};

}  // namespace soma::ncp
