#pragma once
/// \file ncp_contact.hpp
/// \brief `ncp_contact`: the contacts of elements with each other and with a floor, found at
/// each step's start and at the ends of its solves, as inequality rows with Coulomb friction for
/// `ncp_newton` (contact_constraint.hpp; Macklin et al. 2019, eqs. 9-16).
///
/// Candidates are the surface points of the named elements (contact_solids.hpp): rod, shell and
/// particle nodes, a rigid body's contact points (a box's corners, a sphere's centre with its
/// radius, a capsule's axis ends). Each meets
/// - the floor (optional), n . x = height: gap = n . x - height - radius;
/// - the solids of the other named elements (a rigid body's convex mesh, sphere or capsule):
///   gap = the point's signed distance to the solid's surface minus its radius, with the
///   surface's material point and the normal there fixed for the step. On a polyhedron the face
///   is chosen by contact_solids.hpp's FaceChoice, first rule first: a corner of another
///   polyhedron meets the face of this one that separates the two best at the step's start
///   (their contact face, where the corner lies over it); a point whose motion relative to the
///   solid (its velocity against the solid's, fitted to four of its vertices, over 2 h back and
///   ahead) enters the solid meets the face it enters by (inside now, the face it leaves by if
///   nearer; a point moving away has entered nothing); a point outside by more than the margin meets the
///   surface's nearest point (beyond an edge, on the edge, with the normal along the line to it);
///   else the farthest face plane, ties within the margin going to the face turned towards the
///   point's body.
/// A candidate becomes a contact when its gap, now or predicted over twice the step's motion at
/// the start's velocity and acceleration (gap + 2 h n . (xdot_a - xdot_b) at v + h a), is within
/// `margin`. The margin catches what the prediction cannot see: a point resting on the floor has
/// no acceleration at the step's start (its contact force balanced its weight), and a gap of
/// +1e-16 m would otherwise let it fall through one step unchecked. A contact farther than its
/// gap costs an inactive row, nothing more (lambda_n = 0).
///
/// Later looks (ContactConstraint::detect with the ends of the step's solves): the same search
/// at each solved end in turn, from that end's geometry (but for a pair of polyhedra's contact
/// face, their separating face at the step's start, where they were apart), without prediction (gap within the
/// margin there), adds the contacts the looks before did not have: a table knocked into the
/// floor by another within the step, a plate slammed flat whose far edge the start did not pair.
/// A pair the start found is added again, from the end's geometry, only when it ends penetrated
/// by more than a tenth of the margin (the start's row, its normal and points fixed while the
/// bodies turned and slid, did not describe it).
///
/// Edge-edge contacts (edge_contacts.hpp, `edge_contacts`, on by default): two convex polyhedra
/// can touch edge to edge with no corner of either on the other (two bars crossed at 90 degrees,
/// one lying on the other). For each pair of polyhedra of different elements, not excluded, at
/// least one movable, whose boxes come within reach (below), each pair of their edges (where two
/// faces meet at an angle) whose Gauss-map arcs intersect (Gregorius 2013) is a candidate with
/// normal n = +-(da x db)/|da x db| out of B and gap n . (p_a - p_b) between the edges' closest
/// points; it becomes a contact, by the same rule as a point's, when those points lie inside both
/// edges by more than the margin (nearer an end, the corner is a point candidate) and it is not
/// deeper than the pair's best face axis by more than the margin (the separating-axis theorem:
/// a deeper pair is spurious). Its ends are the two edge points (weights 1 - s, s and 1 - t, t),
/// thickness 0. Face crossings (edge_contacts.hpp) add, for nearly opposed faces, the points
/// where an edge of one crosses an edge of the other, by the same rules: the corners of the
/// polygon where two faces lying flat on each other overlap.
///
/// With `polyhedron_pairs: manifold` (polyhedron_manifold.hpp, add_manifold), two polyhedra touch
/// instead along one axis per look, at the points of their contact manifold: the axis of the
/// step's start (the separating-axis theorem with faces preferred, nearly facing faces taken
/// flat, the axis that closes last over the predicted motion where the pair is apart and
/// predicted to overlap), its incident face clipped by its reference face or the closest points
/// of its edge pair; their corners then skip each other's faces, and their edge pairs and face
/// crossings are not used.
///
/// A capsule's side (capsule_contacts.hpp): its axis ends find what touches it at an end; in the
/// middle of its axis it meets another capsule's side (the axes' common perpendicular) and a
/// polyhedron's edge whose cone of face normals holds that perpendicular (a capsule lying across
/// a box with its ends overhanging), inside both by more than the margin, under the depth rule.
/// Its end is on its surface, fixed in its body's frame (friction turns it), like a rounded
/// point's. `edge_contacts: false` leaves out the polyhedra's edges (a capsule's side against
/// them too); capsules' sides still meet each other.
///
/// Broad phase: the candidates sorted along x once per look; each solid's box, grown by the
/// margin, the largest candidate radius and the step's largest motion, selects a range of them
/// by bisection and then by y and z. For edge contacts the polyhedra's boxes, each grown by half
/// of that reach (the margin and the step's largest motion of both sides), sorted along x, are
/// swept (a capsule's grown by its radius too): a pair is tested when its boxes overlap. Not every
/// pair is tested. Within a pair, what cannot be kept is not searched: two polyhedra that a face
/// plane of either separates by more than the reach and the margin have no edge pair to keep
/// (the depth rule drops every one), and a point outside a polyhedron's planes by more than the
/// reach is not searched for its nearest surface point. Each polyhedron's face normals and edge
/// cone axes are computed once per look. A look is a function of its arguments: looking again
/// at the same step (the same start, the same solved ends first) reuses what the earlier looks
/// found and searches only the new ends.
///
/// Not found (documented limits): edges shorter than twice the margin (no point of
/// them is that far from both ends); a deformable element's own surface as a solid (a rod
/// against a shell: use imc_contact). Bodies held together by a joint or a clamp touch each
/// other unless their pair is in `exclude`: otherwise their contacts fight the joint.

#include "contact_solids.hpp"
#include "edge_contacts.hpp"
#include "polyhedron_manifold.hpp"

#include "soma/contact_constraint.hpp"
#include "soma/settings_errors.hpp"

#include <array>
#include <limits>
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
    bool edge_contacts = true;          ///< edge-edge contacts between polyhedra (false: corners only, for comparison)
    /// Two polyhedra touch along their separating axis at the step's start, at the points of
    /// their contact manifold (polyhedron_manifold.hpp), in place of their corners against each
    /// other's faces, their supporting edge pairs and their face crossings.
    bool manifold = false;
};

class NcpContact final : public ContactConstraint {
public:
    NcpContact(ContactSettings settings, SettingsErrors errors);

    void bind(const SceneView& scene) override;
    void detect(const SceneView& scene, double dt, std::span<const SolvedStep> solved) override;
    bool has_friction() const override { return settings_.friction > 0.0; }

private:
    struct Candidate {
        std::size_t element = 0;  ///< index into elements_
        Index point = 0;
        double radius = 0.0;
        bool movable = false;     ///< some DOF of the point is free
        std::size_t solid = kNone; ///< the polyhedron (index into solids_) it is a corner of, if any
    };
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    struct Solid {
        ContactSolid solid;
        std::size_t element = 0;
        bool movable = false;
        std::vector<PolyhedronEdge> edges;  ///< a polyhedron's edges (bind), for edge contacts
        std::vector<Vec3> normals;          ///< a polyhedron's face normals (per look, sized once)
        std::vector<Vec3> start_normals;    ///< a polyhedron's face normals at the step's start
        std::vector<Vec3> edge_axes;        ///< its edges' cone axes (per look, sized once)
        std::vector<Vec3> start_edge_axes;  ///< its edges' cone axes at the step's start
        std::vector<PolyhedronFace> faces;  ///< a polyhedron's faces (bind), for its contact manifolds
        /// Four vertices spanning a polyhedron (bind): its velocity field, affine as it moves
        /// rigidly, is fitted to theirs. Fewer than four for a flat one, a sphere or a capsule.
        std::vector<Index> spanning;
        Vec3 base = Vec3::Zero(), base_velocity = Vec3::Zero();  ///< per look: spanning[0]'s position and velocity
        Mat3 velocity_gradient = Mat3::Zero();                   ///< per look: d(velocity)/d(position)
    };
    /// A length far above the round-off of the gaps and reaches compared (1e-9 of the margin):
    /// the searches skip only what is beyond the reach by more, so they drop nothing the full
    /// search would keep.
    double round_off_slack() const { return 1e-9 * settings_.margin; }
    /// How much better than the best face axis, in margins, an edge pair must separate two
    /// polyhedra to be their manifold's axis: faces win near-ties, whose clipped polygons hold
    /// the edges' crossing anyway (a tenth of the margin: above the gap tolerance, below what a
    /// corner moves in a resting step).
    static constexpr double kEdgeAxisPreference = 0.1;
    /// An overlap deeper than this many margins that a manifold's points do not reach adds the
    /// points of the overlap's own axis (add_manifold): a tenth, the depth at which a solved end
    /// adds a row the start found again (add_contact).
    static constexpr double kDeepOverlap = 0.1;
    /// Whether a contact of gap \p gap closing at \p relative_normal_speed is within the margin,
    /// now or predicted over twice the step (gap + 2 h n . (xdot_a - xdot_b)); at a solved end,
    /// now only.
    bool within_margin(double gap, double relative_normal_speed, double dt) const;
    /// The velocity of \p solid's material point at \p x (its fitted affine field; a solid
    /// without four spanning vertices: its first vertex's velocity).
    Vec3 solid_velocity(const Solid& solid, const Vec3& x) const;
    /// What a contact is between, to find it again: {0, candidate, solid or kFloor, 0, 0} for a
    /// point, {1, solid a, edge of a, solid b, edge of b} for an edge pair, {2, capsule, 0, solid
    /// b, edge of b or 0} for a capsule's side, {3, solid a, axis_name, solid b, the point's name}
    /// for a point of a manifold.
    using ContactKey = std::array<std::size_t, 5>;
    static constexpr std::size_t kFloor = static_cast<std::size_t>(-1);
    /// Adds a contact of ends \p a, \p b (normal from b towards a) with the settings' friction,
    /// unless, at a solved end, an earlier look found \p key (the start, unless \p gap is below
    /// a tenth of the margin).
    void add_contact(const ContactEnd& a, const ContactEnd& b, const Vec3& normal, double thickness, const ContactKey& key,
                     double gap);
    /// Adds a contact when the gap (now or predicted) is within the margin. A rounded candidate
    /// (a sphere's centre, a capsule's axis end with radius r) touches at its surface point
    /// x - r n, fixed in its body's frame for the step, so that friction turns it.
    void consider(const Candidate& c, const ContactEnd& surface, const Vec3& normal, double gap, double relative_normal_speed,
                  double thickness, double dt, const VectorX& q, const ContactKey& key);
    /// Every point's position and velocity at configuration \p q and \p velocity, each element's
    /// centroid and each solid's velocity field; returns the fastest speed.
    double evaluate_points(const VectorX& q, const VectorX& velocity);
    /// The contacts at the points evaluated (configuration \p q): the floor, the solids, the edges,
    /// within the margin now or predicted by the points' speeds (at most \p fastest) over 2 dt.
    void find_contacts(const VectorX& q, double dt, double fastest);
    /// The edge-edge contacts of the polyhedra (edge_contacts.hpp) and the capsules' sides
    /// (capsule_contacts.hpp): a sweep along x over their boxes grown by half of \p reach each,
    /// then supporting_edge_pairs, capsule_edge_pairs or capsule_side_pair, and within_margin;
    /// \p q the look's configuration (a capsule's contact end in its body's frame).
    void detect_edge_contacts(double dt, double reach, const VectorX& q);
    /// The contact manifold of polyhedra \p index_a and \p index_b (`manifold`): along their
    /// separating axis at the step's start, the points within the margin (now or predicted).
    void add_manifold(std::size_t index_a, std::size_t index_b, double dt, double reach);
    /// The manifold axis of polyhedra \p index_a and \p index_b from the step's start
    /// (closing_axis), found once per step: kept in start_axes_ at the start's look.
    SeparatingAxis start_axis(std::size_t index_a, std::size_t index_b);
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
    // Per look (kept: sized once).
    /// Per element, per point, at the look's configuration: x(q), xdot(q, v) (the start's v + h a,
    /// or a solved end's v+).
    std::vector<std::vector<Vec3>> positions_, velocities_;
    /// The points at the step's start (the pairs' reference faces come from there at every look).
    std::vector<std::vector<Vec3>> start_positions_;
    /// The points at the step's start moved by twice the step at the start's velocity ahead (the
    /// prediction's span): a pair of polyhedra's manifold axis closes over that motion.
    std::vector<std::vector<Vec3>> start_ahead_;
    /// The keys of the contacts found at the start with their gaps (sorted once the start is
    /// done), and of those found at the solved ends before (sorted) and at the one being looked at.
    std::vector<std::pair<ContactKey, double>> start_found_;
    std::vector<ContactKey> end_keys_, new_keys_;
    /// The looks at the current step (detect): its start's configuration, velocity ahead and
    /// step, the contacts found there, and per solved end looked at since, its configuration and
    /// velocity, the contacts after it and the keys found at the ends so far.
    struct SolvedLook {
        VectorX q, v;
        std::size_t contacts = 0;
        std::vector<ContactKey> end_keys;
    };
    struct Looks {
        bool valid = false;
        double dt = 0.0;
        VectorX q, v;
        std::size_t start_contacts = 0;
        std::vector<SolvedLook> ends;
        std::size_t end_count = 0;  ///< of ends, those of the current step
    } looks_;
    static constexpr double kInfinity = std::numeric_limits<double>::infinity();
    bool at_solved_end_ = false;  ///< looking at a solved end (no prediction)
    std::vector<Vec3> centroids_;                            ///< per element, of its points
    std::vector<std::pair<double, std::size_t>> sorted_;      ///< candidates by x
    /// Per polyhedron (index into solids_), its pair's reference face against the solid being
    /// searched (FaceChoice::reference) and the search it was found in: every corner of a pair
    /// shares it, so it is computed once per pair and search, not once per corner.
    std::vector<int> pair_reference_;
    std::vector<std::size_t> pair_reference_search_;
    std::size_t search_ = 0;
    /// solids_ swept for edge contacts (bind): polyhedra with edges (with `edge_contacts`) and capsules.
    std::vector<std::size_t> edge_solids_;
    std::vector<std::array<Vec3, 2>> boxes_;                  ///< per edge_solids_: low, high corner
    std::vector<std::pair<double, std::size_t>> edge_solids_by_x_;  ///< edge_solids_ by their boxes' low x
    std::vector<EdgePair> edge_pairs_;                        ///< of one pair of polyhedra
    std::vector<ManifoldPoint> manifold_points_;              ///< of one pair of polyhedra (`manifold`)
    /// The pairs of polyhedra met at the step's start with their manifold axes (sorted once the
    /// start is done).
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, SeparatingAxis>> start_axes_;
    VectorX velocity_ahead_;
    FrameKinematics frame_;
};

}  // namespace soma::ncp
