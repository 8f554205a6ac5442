// Topology of triangle meshes (triangle_mesh.hpp): edges, face signs (MAT-DiSMech eq. 19), hinges
// (§3.3.1), areas, and the refused meshes.
#include "triangle_mesh.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace soma;
using namespace soma::shells;

namespace {

/// Unit square split along its diagonal 0-2: triangles (0,1,2) and (0,2,3), normals +z.
TriangleMesh square() {
    TriangleMesh m;
    m.positions = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(0, 1, 0)};
    m.triangles = {{0, 1, 2}, {0, 2, 3}};
    return m;
}

}  // namespace

TEST_CASE("triangle mesh topology: edges, signs, hinges, measures", "[mesh]") {
    const TriangleMesh m = square();
    const MeshTopology t = build_topology(m);
    REQUIRE(t.edges.size() == 5);
    REQUIRE(t.hinges.size() == 1);
    CHECK(total_area(t) == Approx(1.0));
    CHECK(t.triangle_areas[0] == Approx(0.5));

    // Local edge k of a triangle is opposite vertex k, in cyclic direction.
    CHECK(local_edge_nodes(m.triangles[0], 0) == std::array<Index, 2>{1, 2});
    CHECK(local_edge_nodes(m.triangles[0], 1) == std::array<Index, 2>{2, 0});
    CHECK(local_edge_nodes(m.triangles[0], 2) == std::array<Index, 2>{0, 1});

    int interior = 0;
    for (std::size_t e = 0; e < t.edges.size(); ++e) {
        const MeshEdge& edge = t.edges[e];
        CHECK(edge.faces[0].sign == +1);
        CHECK(t.edge_lengths[e] == Approx((m.positions[edge.nodes[1]] - m.positions[edge.nodes[0]]).norm()));
        for (Index f = 0; f < edge.face_count; ++f) {
            const EdgeFace& face = edge.faces[static_cast<std::size_t>(f)];
            const auto nodes = local_edge_nodes(m.triangles[face.triangle], face.local_edge);
            // The sign compares the global direction with the face's cyclic direction.
            CHECK(face.sign == (nodes == edge.nodes ? +1 : -1));
            CHECK(t.triangle_edges[face.triangle][face.local_edge] == static_cast<Index>(e));
            CHECK(t.triangle_edge_signs[face.triangle][face.local_edge] == face.sign);
        }
        if (edge.face_count == 2) {
            ++interior;
            CHECK(edge.faces[1].sign == -1);
            CHECK(std::set<Index>{edge.nodes[0], edge.nodes[1]} == std::set<Index>{0, 2});
        }
    }
    CHECK(interior == 1);
    // Hinge: x0 -> x1 the diagonal in the first face's direction (2 -> 0 in triangle (0,1,2)),
    // x2 = 1 (wing of face 0), x3 = 3 (wing of face 1).
    const Hinge& h = t.hinges[0];
    CHECK(h.nodes == std::array<Index, 4>{2, 0, 1, 3});
}

TEST_CASE("triangle mesh validation refuses bad meshes with a clear message", "[mesh]") {
    SECTION("index out of range") {
        TriangleMesh m = square();
        m.triangles[1][2] = 7;
        CHECK_THROWS_WITH(build_topology(m), Catch::Contains("refers to node 7"));
    }
    SECTION("repeated node") {
        TriangleMesh m = square();
        m.triangles[1] = {0, 2, 2};
        CHECK_THROWS_WITH(build_topology(m), Catch::Contains("repeats a node"));
    }
    SECTION("degenerate triangle") {
        TriangleMesh m = square();
        m.positions[3] = Vec3(0.5, 0.5, 0.0);  // on the diagonal 0-2
        CHECK_THROWS_WITH(build_topology(m), Catch::Contains("triangle 1") && Catch::Contains("degenerate"));
    }
    SECTION("non-manifold edge") {
        TriangleMesh m = square();
        m.positions.push_back(Vec3(0.5, 0.5, 1.0));
        m.triangles.push_back({2, 0, 4});  // third face on edge 0-2 (oriented like face 0's twin)
        CHECK_THROWS_WITH(build_topology(m), Catch::Contains("non-manifold"));
    }
    SECTION("inconsistent orientation") {
        TriangleMesh m = square();
        m.triangles[1] = {0, 3, 2};
        // Face 0 = (0,1,2) has edge 2 -> 0; (0,3,2) has edge 2 -> 0 too: same direction.
        CHECK_THROWS_WITH(build_topology(m), Catch::Contains("inconsistent orientation"));
    }
    SECTION("unused node") {
        TriangleMesh m = square();
        m.positions.push_back(Vec3(3, 3, 3));
        CHECK_THROWS_WITH(build_topology(m), Catch::Contains("node 4 belongs to no triangle"));
    }
    SECTION("no triangles") {
        TriangleMesh m = square();
        m.triangles.clear();
        CHECK_THROWS_AS(build_topology(m), MeshError);
    }
}
