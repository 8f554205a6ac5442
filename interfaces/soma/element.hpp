#pragma once
/// \file element.hpp
/// \brief A body model that owns DOFs (discrete rod, shell, GVS rod, solid, rigid body).

#include "soma/api.hpp"
#include "soma/contributor.hpp"

#include <array>
#include <string>
#include <vector>

namespace soma {

class SceneView;

/// The points an element exposes to forces and output. In this version a point's position is
/// three of the element's DOFs (identity map), which holds for rods, shells and solids.
/// Elements whose points are nonlinear in q (GVS rods) will add a point Jacobian here.
struct Geometry {
    std::vector<std::array<Index, 3>> point_dofs;  ///< global DOFs of x, y, z of each point
    std::vector<double> point_mass;                ///< lumped translational mass (kg)
    std::vector<double> point_length;              ///< Voronoi length (m) along rod edges, 0 for pure-shell points
    std::vector<std::array<Index, 2>> edges;       ///< rod edges (point indices), for output and contact
    std::vector<std::array<Index, 3>> triangles;   ///< surface triangles (point indices)
    std::vector<double> point_radius;              ///< contact radius of each point (m); rods: cross-section radius
    double density = 0.0;                          ///< material density (kg/m^3), for buoyancy
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

    /// Stores the local-to-global DOF map and lets the element build global-index tables.
    void bind(std::vector<Index> local_to_global) {
        global_ = std::move(local_to_global);
        on_bind();
    }
    Index global_dof(Index local) const { return global_[static_cast<std::size_t>(local)]; }
    const std::vector<Index>& global_dofs() const { return global_; }

protected:
    /// Called by bind(); build geometry() and any global index tables here.
    virtual void on_bind() = 0;

private:
    std::vector<Index> global_;
};

}  // namespace soma
