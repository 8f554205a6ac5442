#pragma once
/// \file element.hpp
/// \brief A body model that owns DOFs (discrete rod, shell, GVS rod, solid, rigid body).

#include "soma/api.hpp"
#include "soma/contributor.hpp"
#include "soma/frame_kinematics.hpp"
#include "soma/point_kinematics.hpp"

#include <array>
#include <span>
#include <string>
#include <vector>

namespace soma {

class SceneView;

/// The points an element exposes to forces and output. A point of a rod, shell or solid is
/// three of the element's DOFs (identity map: `point_dofs`). A point of a rigid body (later a
/// GVS rod's backbone) is a function x_i(q) of several DOFs: such an element sets
/// `mapped_points` and implements Element::point_kinematics (point_map.hpp); forces and outputs
/// reach every point through point_map.hpp, so they work unchanged for both. A point that
/// depends on more than kMaxPointDofs DOFs is wide (point_kinematics.hpp); its element also
/// implements Element::wide_point_geometric_stiffness.
struct Geometry {
    std::vector<std::array<Index, 3>> point_dofs;  ///< identity points: global DOFs of x, y, z of each point; mapped points: -1
    bool mapped_points = false;                    ///< true: positions come from Element::point_kinematics
    std::vector<double> point_mass;                ///< lumped translational mass (kg)
    std::vector<double> point_length;              ///< Voronoi length (m) along rod edges, 0 for pure-shell points
    std::vector<std::array<Index, 2>> edges;       ///< rod edges (point indices), for output and contact
    std::vector<std::array<Index, 3>> triangles;   ///< surface triangles (point indices)
    std::vector<double> point_radius;              ///< contact radius of each point (m); rods: cross-section radius
    double density = 0.0;                          ///< material density (kg/m^3), for buoyancy
    /// True when point_mass places the element's whole weight: m_i g at point i is its gravity.
    /// False when the mass sits elsewhere (a GVS rigid link's centre of mass off its frame point):
    /// the element then carries its own gravity and the scene's gravity force refuses it.
    bool weight_at_points = true;
};

/// \brief A surface an element shows in the output and nothing else: no mass, no contact, no
/// point of geometry() (a URDF link's visual mesh, drawn where the collision shapes are coarse).
struct DisplaySurface {
    std::vector<Vec3> vertices;                   ///< world positions at the state asked
    std::vector<Vec3> velocities;                 ///< world velocities of the vertices
    std::vector<std::array<Index, 3>> triangles;  ///< indices into vertices, counter-clockwise seen from outside
};

/// A named family of DOFs a scene can select for boundary conditions, e.g. "nodes" (3 per
/// node: x, y, z) or "edges" (DOFs that live on an edge between two nodes: a rod edge's twist
/// angle, a mid-edge shell edge's xi; each element type documents its own). Item i of "nodes" is point i of
/// geometry(); item i of an "edges" group with as many items as Geometry::edges sits on edge i
/// (`soma inspect` and the VTK output's edge_index rely on this).
struct DofGroup {
    std::string name;
    int dofs_per_item = 1;
    Index count = 0;
    std::vector<std::string> component_names;  ///< e.g. {"x", "y", "z"} or {"twist"}
};

/// DOFs an element's own parameters hold at their initial value, e.g. a planar rod's
/// out-of-plane node components and edge twists (Element::held_dofs).
struct HeldDofs {
    std::string key;           ///< the element parameter that holds them ("planar"), for messages
    std::vector<Index> local;  ///< local DOFs
};

/// A quantity of an element that a controller may drive over time, e.g. "natural_curvature"
/// (one item per bend-twist spring, components kappa1 and kappa2), "natural_twist", or
/// "natural_hinge_angle" (one item per shell hinge).
struct ActuationChannel {
    std::string name;
    Index count = 0;                           ///< number of items
    std::vector<std::string> component_names;  ///< e.g. {"kappa1", "kappa2"}
    std::string unit;                          ///< e.g. "1/m" or "rad"
    std::string doc;
};

/// \brief A part of an element's configuration that is not a vector space, e.g. a rigid body's
/// orientation: 3 velocity DOFs (an angular velocity), 4 configuration coordinates (a unit
/// quaternion).
///
/// The kernel stores the block's coordinates after all DOFs in State::q (at
/// Element::block_coordinate) and keeps its tangent DOFs' own entries of q at zero in every
/// committed state. During a step those entries hold the tangent displacement d from the
/// step-start configuration, and the block's coordinates hold integrate(q_start, d) (refreshed
/// by the kernel at every evaluation). A contributor's derivatives with respect to these DOFs are
/// derivatives with respect to d; at commit the kernel folds d into the coordinates and zeroes it.
/// Pinocchio's joint configuration spaces (integrate, difference) are the model.
/// Largest tangent size of one manifold block (SE(3): 6).
inline constexpr int kMaxManifoldTangent = 6;
/// The most configuration coordinates of one manifold block (a quaternion has 4).
inline constexpr int kMaxManifoldCoordinates = 16;

struct ManifoldBlock {
    Index first_dof = 0;       ///< local DOF of the block's first tangent component
    int tangent_size = 3;      ///< velocity DOFs (consecutive local DOFs from first_dof)
    int coordinate_count = 4;  ///< configuration coordinates
    std::string name;          ///< for messages and docs, e.g. "orientation (unit quaternion w, x, y, z)"
};

/// A body model. The kernel assigns global indices to its local DOFs (two elements may share
/// a node: both local DOFs map to one global DOF) and calls bind() before declare_pattern().
class SOMA_API Element : public Contributor {
public:
    ~Element() override;

    /// Number of local DOFs.
    virtual Index dof_count() const = 0;
    /// Initial configuration and velocity in local DOF order (size dof_count()).
    virtual void initial_state(VectorX& q_local, VectorX& v_local) const = 0;
    /// DOF families for boundary conditions and shared nodes ("nodes" must be the points).
    virtual std::vector<DofGroup> dof_groups() const = 0;
    /// Local DOF of component `component` of item `item` of `group`.
    virtual Index group_dof(const std::string& group, Index item, int component) const = 0;
    /// Human-readable meaning of a local DOF, for Newton diagnostics ("node 12 z").
    virtual std::string describe_dof(Index local) const = 0;
    /// \brief The nodes (items of this element's "nodes" group) that item `item` of DOF group
    /// `group` spans, e.g. the two end nodes of an edge.
    ///
    /// A `fixed` or `prescribed` selection by region (box, plane) selects an "edges" item when the
    /// region holds every one of these nodes. Default: none, so no region ever selects the item
    /// (elements whose group items are not spanned by their own nodes keep the default).
    virtual std::vector<Index> item_nodes(const std::string& group, Index item) const;

    /// Blocks of DOFs whose configuration is not a vector space (none by default).
    virtual std::vector<ManifoldBlock> manifold_blocks() const { return {}; }
    /// Initial coordinates of manifold block \p block (coordinate_count values).
    virtual void initial_block_configuration(Index block, double* coordinates) const;
    /// out = q (+) dv: the coordinates reached from \p q by the tangent displacement \p dv
    /// (Pinocchio's integrate). \p out may not alias \p q.
    virtual void integrate_block(Index block, const double* q, const double* dv, double* out) const;
    /// dv = q1 (-) q0, so that integrate_block(q0, dv) = q1 (Pinocchio's difference).
    virtual void difference_block(Index block, const double* q1, const double* q0, double* dv) const;
    /// Global index in State::q of manifold block \p block's first coordinate (after bind()).
    Index block_coordinate(Index block) const { return block_coordinates_[static_cast<std::size_t>(block)]; }

    /// \brief Position, velocity and Jacobians of point \p point at an iterate (point_map.hpp),
    /// for elements whose Geometry::mapped_points is true. The default is the identity map of
    /// Geometry::point_dofs.
    virtual void point_kinematics(Index point, const EvalContext& context, PointKinematics& out) const;
    /// \brief Positions and velocities of every point at (q, v), global vectors (outputs: once per
    /// frame). \p positions and \p velocities hold one entry per point. The default evaluates
    /// point_kinematics point by point (identity points read q and v); an element whose points all
    /// come from one recursive pass (a GVS robot) computes them at once.
    virtual void point_states(const VectorX& q, const VectorX& v, std::span<Vec3> positions,
                              std::span<Vec3> velocities) const;
    /// \brief Position \p x and velocity \p xdot of point \p point at (q, v), global vectors (an
    /// output probe). The default evaluates point_kinematics (identity points read q and v).
    virtual void point_state(Index point, const VectorX& q, const VectorX& v, Vec3& x, Vec3& xdot) const;
    /// \brief The surface drawn for this element beside geometry() at (q, v) (DisplaySurface);
    /// \p out is cleared first. Default: none. For output only (it may allocate).
    virtual void display_surface(const VectorX& q, const VectorX& v, DisplaySurface& out) const {
        (void)q, (void)v;
        out.vertices.clear();
        out.velocities.clear();
        out.triangles.clear();
    }
    /// \brief Adds to \p stiffness (point_kinematics' dof_count square, Newton coordinates) the
    /// derivative of J^T f with respect to the point's DOFs for a fixed world force \p f (SOFA's
    /// applyDJT): the geometric stiffness of a force applied through the map. Identity: nothing.
    virtual void add_point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& force,
                                               PointStiffness& stiffness) const;
    /// \brief For a wide point (PointKinematics::is_wide): writes to the top-left dof_count square
    /// block of \p stiffness (grown when smaller, never shrunk; Newton coordinates, the DOFs in
    /// point_kinematics' order) d(J^T f)/dq for a fixed world force \p force. Elements with wide
    /// points implement it; the default throws std::logic_error.
    virtual void wide_point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& force,
                                                Eigen::MatrixXd& stiffness) const;

    /// \brief Number of frames the element exposes (frame_kinematics.hpp): a rigid body's body frame,
    /// a rod's end material frames. Joints that transmit torque (a clamp) attach to them. Default: 0.
    virtual Index frame_count() const { return 0; }
    /// \brief The name a scene gives frame \p frame (e.g. "start", "end", "body").
    virtual std::string frame_name(Index frame) const;
    /// \brief The point (of geometry()) at the origin of frame \p frame.
    virtual Index frame_point(Index frame) const;
    /// \brief The frame in which point \p point is fixed (it moves rigidly with it), or -1 (a rod
    /// or shell node, a GVS soft-rod point). A contact at a rigid body's sphere turns the body
    /// through it (contact_constraint.hpp). Default: -1.
    virtual Index rigid_frame_of_point(Index point) const { (void)point; return -1; }
    /// \brief Origin, rotation, velocities and Jacobians of frame \p frame at the iterate of
    /// \p context (frame_kinematics.hpp). Must not allocate.
    virtual void frame_kinematics(Index frame, const EvalContext& context, FrameKinematics& out) const;
    /// \brief Adds to \p stiffness (frame_kinematics' dof_count square, Newton coordinates) the
    /// derivative of J^T [f; tau] with respect to the frame's DOFs for a fixed world force \p force
    /// at the origin and a fixed world torque \p torque (the frame map's geometric stiffness).
    virtual void add_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& force,
                                               const Vec3& torque, FrameStiffness& stiffness) const;
    /// \brief For a wide frame (FrameKinematics::is_wide): writes to the top-left dof_count square
    /// block of \p stiffness (grown when smaller, never shrunk; Newton coordinates, frame_kinematics' DOF order)
    /// d(J^T [f; tau])/dq for a fixed world force \p force at the origin and torque \p torque.
    /// Elements with wide frames implement it; the default throws std::logic_error.
    virtual void wide_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& force,
                                                const Vec3& torque, Eigen::MatrixXd& stiffness) const;

    /// \brief DOFs this element's own parameters hold at their initial value (default: none).
    ///
    /// The kernel fixes them as a `fixed` entry of the element would: a `fixed` entry selecting
    /// one again agrees; a `prescribed` one is an error that names `key`.
    virtual HeldDofs held_dofs() const { return {}; }

    /// Points, edges and triangles in global DOF numbering (valid after bind()).
    virtual const Geometry& geometry() const = 0;
    /// Kinetic energy 1/2 v^T M v at the given global state.
    virtual double kinetic_energy(const EvalContext& context) const = 0;

    /// Quantities controllers may drive (none by default).
    virtual std::vector<ActuationChannel> actuation_channels() const { return {}; }
    /// The initial (natural) value of one component of one item of a channel.
    virtual double actuation(const std::string& channel, Index item, int component) const;
    /// Sets one component of one item of a channel (called by controllers before a solve).
    virtual void set_actuation(const std::string& channel, Index item, int component, double value);
    /// Where an item of a channel sits in the initial configuration (for expressions of x, y, z).
    virtual Vec3 actuation_point(const std::string& channel, Index item) const;
    /// \brief The world directions (initial configuration), one per component, toward which a
    /// positive value of each component of an item of a channel bends the element, for
    /// controllers that drive a channel by a direction (`bend_toward`): a rod's
    /// natural_curvature gives its material directors {m1, m2} at the spring. Default: none
    /// (an empty list: the channel has no directions).
    virtual std::vector<Vec3> actuation_directions(const std::string& /*channel*/, Index /*item*/) const { return {}; }

    /// Called once after every element is bound and the initial state is set, before forces
    /// bind: elements that couple to other elements (rod joints, rod-shell joints) find them
    /// here and may add to any global DOF in their stencils. Report bad references with
    /// Parameters::fail. Default: nothing.
    virtual void connect(const SceneView& scene);

    /// Stores the local-to-global DOF map (and where the kernel put each manifold block's
    /// coordinates) and lets the element build global-index tables.
    void bind(std::vector<Index> local_to_global, std::vector<Index> block_coordinates = {}) {
        global_ = std::move(local_to_global);
        block_coordinates_ = std::move(block_coordinates);
        on_bind();
    }
    Index global_dof(Index local) const { return global_[static_cast<std::size_t>(local)]; }
    const std::vector<Index>& global_dofs() const { return global_; }

protected:
    /// Called by bind(); build geometry() and any global index tables here.
    virtual void on_bind() = 0;

private:
    std::vector<Index> global_;
    std::vector<Index> block_coordinates_;
};

}  // namespace soma
