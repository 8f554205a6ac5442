#pragma once
// Boxes as convex polyhedra for the ncp plugin's geometry tests (test_edge_contacts.cpp,
// test_contact_solids.cpp).
#include "../contact_solids.hpp"
#include "../edge_contacts.hpp"

#include <Eigen/Geometry>

#include <vector>

namespace soma::ncp::test {

/// A box as a rigid body builds it (rigid_shape.cpp): corner k has bit 0 -> x, bit 1 -> y,
/// bit 2 -> z; two triangles per face, counter-clockwise seen from outside; rotated by R about
/// its centre, then placed at \p centre.
struct Box {
    ContactSolid solid;
    std::vector<Vec3> x;
    std::vector<PolyhedronEdge> edges;
    std::vector<Vec3> normals;
    std::vector<Vec3> edge_axes;
    PolyhedronFeatures features() const { return {solid, edges, x, normals, edge_axes}; }
};

inline Box make_box(const Vec3& size, const Eigen::Matrix3d& rotation, const Vec3& centre) {
    Box box;
    const Vec3 h = 0.5 * size;
    for (int k = 0; k < 8; ++k)
        box.x.push_back(centre + rotation * Vec3((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z()));
    box.solid.faces = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                       {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    box.solid.vertices = {0, 1, 2, 3, 4, 5, 6, 7};
    box.edges = polyhedron_edges(box.solid.faces, box.x);
    face_normals(box.solid.faces, box.x, box.normals);
    edge_cone_axes(box.edges, box.normals, box.edge_axes);
    return box;
}

inline Eigen::Matrix3d rotation(double angle, const Vec3& axis) {
    return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

}  // namespace soma::ncp::test
