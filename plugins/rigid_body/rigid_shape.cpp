#include "rigid_shape.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <map>
#include <numbers>
#include <sstream>
#include <stdexcept>

namespace soma::rigid_body {

namespace {
constexpr double pi = std::numbers::pi;
constexpr int kRimPoints = 32;
}  // namespace

double shape_volume(const RigidShape& s) {
    switch (s.kind) {
        case ShapeKind::box: return s.size.prod();
        case ShapeKind::sphere: return 4.0 / 3.0 * pi * std::pow(s.radius, 3);
        case ShapeKind::cylinder: return pi * s.radius * s.radius * s.length;
        case ShapeKind::capsule: return pi * s.radius * s.radius * s.length + 4.0 / 3.0 * pi * std::pow(s.radius, 3);
        case ShapeKind::mesh: {
            double six_volume = 0.0;
            for (const auto& t : s.triangles)
                six_volume += s.vertices[static_cast<std::size_t>(t[0])].dot(
                    s.vertices[static_cast<std::size_t>(t[1])].cross(s.vertices[static_cast<std::size_t>(t[2])]));
            return six_volume / 6.0;
        }
    }
    return 0.0;
}

MassProperties polyhedron_mass_properties(const std::vector<Vec3>& vertices,
                                          const std::vector<std::array<Index, 3>>& triangles, double density) {
    double volume = 0.0;
    Vec3 first_moment = Vec3::Zero();   // integral of x dV
    Mat3 second_moment = Mat3::Zero();  // integral of x x^T dV
    for (const auto& t : triangles) {
        const Vec3& a = vertices[static_cast<std::size_t>(t[0])];
        const Vec3& b = vertices[static_cast<std::size_t>(t[1])];
        const Vec3& c = vertices[static_cast<std::size_t>(t[2])];
        const double v = a.dot(b.cross(c)) / 6.0;  // signed volume of the tetrahedron (0, a, b, c)
        const Vec3 s = a + b + c;
        volume += v;
        first_moment += v * s / 4.0;
        second_moment += v / 20.0 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
    }
    MassProperties p;
    p.mass = density * volume;
    p.center_of_mass = first_moment / volume;
    const Mat3 central = density * (second_moment - volume * p.center_of_mass * p.center_of_mass.transpose());
    p.inertia = central.trace() * Mat3::Identity() - central;
    return p;
}

void check_closed_mesh(const std::vector<Vec3>& vertices, const std::vector<std::array<Index, 3>>& triangles) {
    const auto n = static_cast<Index>(vertices.size());
    if (n < 4)
        throw std::invalid_argument("a closed mesh needs at least 4 vertices, this one has " + std::to_string(n));
    // Directed edge (i, j) -> the triangle that traverses it; a closed, consistently oriented
    // surface traverses every edge once in each direction.
    std::map<std::pair<Index, Index>, std::size_t> directed;
    for (std::size_t t = 0; t < triangles.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            const Index i = triangles[t][static_cast<std::size_t>(k)], j = triangles[t][static_cast<std::size_t>((k + 1) % 3)];
            if (i < 0 || i >= n || j < 0 || j >= n)
                throw std::invalid_argument("triangle " + std::to_string(t + 1) + " has a vertex index out of range");
            if (i == j) throw std::invalid_argument("triangle " + std::to_string(t + 1) + " repeats a vertex");
            if (!directed.emplace(std::make_pair(i, j), t).second)
                throw std::invalid_argument("the edge between vertices " + std::to_string(i + 1) + " and " +
                                            std::to_string(j + 1) + " is traversed in the same direction by triangles " +
                                            std::to_string(directed.at({i, j}) + 1) + " and " + std::to_string(t + 1) +
                                            ": the mesh is not consistently oriented (or an edge has more than two triangles)");
        }
    for (const auto& [edge, t] : directed)
        if (!directed.count({edge.second, edge.first}))
            throw std::invalid_argument("the edge between vertices " + std::to_string(edge.first + 1) + " and " +
                                        std::to_string(edge.second + 1) + " has only one triangle (" +
                                        std::to_string(t + 1) + "): the mesh is not closed");
    RigidShape shape;
    shape.kind = ShapeKind::mesh;
    shape.vertices = vertices;
    shape.triangles = triangles;
    const double volume = shape_volume(shape);
    if (!(volume > 0.0))
        throw std::invalid_argument("the mesh's signed volume is " + std::to_string(volume) +
                                    " m^3: its triangles must be counter-clockwise seen from outside (normals outwards)");
}

MassProperties uniform_mass_properties(const RigidShape& s, double density) {
    MassProperties p;  // in the shape's axes about its centre, then turned and moved below
    const double r2 = s.radius * s.radius;
    switch (s.kind) {
        case ShapeKind::box: {
            p.mass = density * s.size.prod();
            const Vec3 q = s.size.cwiseProduct(s.size);
            p.inertia = (p.mass / 12.0 * Vec3(q.y() + q.z(), q.x() + q.z(), q.x() + q.y())).asDiagonal();
            break;
        }
        case ShapeKind::sphere:
            p.mass = density * shape_volume(s);
            p.inertia = (0.4 * p.mass * r2) * Mat3::Identity();
            break;
        case ShapeKind::cylinder: {
            p.mass = density * shape_volume(s);
            const double transverse = p.mass * (3.0 * r2 + s.length * s.length) / 12.0;
            p.inertia = Vec3(transverse, transverse, 0.5 * p.mass * r2).asDiagonal();
            break;
        }
        case ShapeKind::capsule: {
            const double L = s.length;
            const double m_cylinder = density * pi * r2 * L;
            const double m_caps = density * 4.0 / 3.0 * pi * r2 * s.radius;  // both hemispheres
            p.mass = m_cylinder + m_caps;
            // Each cap: 2/5 m_h r^2 about the centre of its flat face; its centroid lies 3r/8 from
            // that face, so about the capsule's centre (parallel axis twice) the caps give
            // m_caps (2 r^2/5 + L^2/4 + 3 L r/8) transversally.
            const double transverse = m_cylinder * (3.0 * r2 + L * L) / 12.0 +
                                      m_caps * (0.4 * r2 + 0.25 * L * L + 0.375 * L * s.radius);
            const double axial = 0.5 * m_cylinder * r2 + 0.4 * m_caps * r2;
            p.inertia = Vec3(transverse, transverse, axial).asDiagonal();
            break;
        }
        case ShapeKind::mesh:
            p = polyhedron_mass_properties(s.vertices, s.triangles, density);
            break;
    }
    const Mat3 R = s.orientation.toRotationMatrix();
    p.center_of_mass = s.center + R * p.center_of_mass;
    p.inertia = R * p.inertia * R.transpose();
    return p;
}

MassProperties compound_mass_properties(const std::vector<RigidShape>& shapes, double density) {
    std::vector<MassProperties> parts;
    MassProperties total;
    for (const RigidShape& shape : shapes) {
        parts.push_back(uniform_mass_properties(shape, density));
        total.mass += parts.back().mass;
        total.center_of_mass += parts.back().mass * parts.back().center_of_mass;
    }
    if (!(total.mass > 0.0)) return total;  // check_mass_properties refuses it with its message
    total.center_of_mass /= total.mass;
    for (const MassProperties& part : parts) {
        const Vec3 d = part.center_of_mass - total.center_of_mass;
        total.inertia += part.inertia + part.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    return total;
}

ShapeSurface shape_surface(const RigidShape& s) {
    ShapeSurface out;  // points in the shape's axes about its centre, placed at the end
    switch (s.kind) {
        case ShapeKind::mesh:
            out.points = s.vertices;
            out.radii.assign(out.points.size(), 0.0);
            out.triangles = s.triangles;
            break;
        case ShapeKind::sphere:
            out.points = {Vec3::Zero()};
            out.radii = {s.radius};
            break;
        case ShapeKind::capsule:
            out.points = {Vec3(0, 0, -0.5 * s.length), Vec3(0, 0, 0.5 * s.length)};
            out.radii = {s.radius, s.radius};
            out.edges = {{0, 1}};
            break;
        case ShapeKind::box: {
            const Vec3 h = 0.5 * s.size;
            for (int k = 0; k < 8; ++k)  // corner k: bit 0 -> x, bit 1 -> y, bit 2 -> z
                out.points.push_back(Vec3((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z()));
            out.radii.assign(8, 0.0);
            // Two triangles per face, counter-clockwise seen from outside.
            out.triangles = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                             {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
            break;
        }
        case ShapeKind::cylinder: {
            for (int end = 0; end < 2; ++end)
                for (int k = 0; k < kRimPoints; ++k) {
                    const double phi = 2.0 * pi * k / kRimPoints;
                    out.points.push_back(Vec3(s.radius * std::cos(phi), s.radius * std::sin(phi),
                                              (end == 0 ? -0.5 : 0.5) * s.length));
                }
            out.radii.assign(out.points.size(), 0.0);
            for (int k = 0; k < kRimPoints; ++k) {
                const Index a = k, b = (k + 1) % kRimPoints;
                out.triangles.push_back({a, b, b + kRimPoints});
                out.triangles.push_back({a, b + kRimPoints, a + kRimPoints});
            }
            // End caps as fans (around rim point 0 of each end).
            for (int k = 1; k + 1 < kRimPoints; ++k) {
                out.triangles.push_back({0, k + 1, k});
                out.triangles.push_back({kRimPoints, kRimPoints + k, kRimPoints + k + 1});
            }
            break;
        }
    }
    const Mat3 R = s.orientation.toRotationMatrix();
    for (Vec3& x : out.points) x = s.center + R * x;
    return out;
}

ShapeSurface display_mesh(const RigidShape& s) {
    if (s.kind != ShapeKind::sphere && s.kind != ShapeKind::capsule) {
        ShapeSurface surface = shape_surface(s);
        surface.radii.clear();
        surface.edges.clear();
        return surface;
    }
    // Rings of latitude theta from the north pole down; a capsule's upper half is raised by half
    // its length and its lower half lowered, the equator ring appearing once in each (the side).
    constexpr int kSegments = 24, kHalfRings = 6;
    const double half = s.kind == ShapeKind::capsule ? 0.5 * s.length : 0.0;
    ShapeSurface out;
    out.points.push_back(Vec3(0, 0, s.radius + half));
    std::vector<Index> ring_start;
    const auto add_ring = [&](int i, double offset) {
        const double theta = pi * i / (2 * kHalfRings);
        ring_start.push_back(static_cast<Index>(out.points.size()));
        for (int k = 0; k < kSegments; ++k) {
            const double phi = 2.0 * pi * k / kSegments;
            out.points.push_back(Vec3(s.radius * std::sin(theta) * std::cos(phi), s.radius * std::sin(theta) * std::sin(phi),
                                      s.radius * std::cos(theta) + offset));
        }
    };
    for (int i = 1; i <= kHalfRings; ++i) add_ring(i, half);
    for (int i = half > 0.0 ? kHalfRings : kHalfRings + 1; i < 2 * kHalfRings; ++i) add_ring(i, -half);
    const auto south = static_cast<Index>(out.points.size());
    out.points.push_back(Vec3(0, 0, -s.radius - half));
    const auto at = [&](std::size_t ring, int k) { return ring_start[ring] + (k % kSegments); };
    for (int k = 0; k < kSegments; ++k) {
        out.triangles.push_back({0, at(0, k), at(0, k + 1)});
        for (std::size_t r = 0; r + 1 < ring_start.size(); ++r) {
            out.triangles.push_back({at(r, k), at(r + 1, k), at(r + 1, k + 1)});
            out.triangles.push_back({at(r, k), at(r + 1, k + 1), at(r, k + 1)});
        }
        out.triangles.push_back({south, at(ring_start.size() - 1, k + 1), at(ring_start.size() - 1, k)});
    }
    const Mat3 R = s.orientation.toRotationMatrix();
    for (Vec3& x : out.points) x = s.center + R * x;
    return out;
}

std::string describe_shape(const RigidShape& s) {
    std::ostringstream text;
    switch (s.kind) {
        case ShapeKind::box: text << "box " << s.size.x() << " x " << s.size.y() << " x " << s.size.z() << " m"; break;
        case ShapeKind::sphere: text << "sphere of radius " << s.radius << " m"; break;
        case ShapeKind::cylinder: text << "cylinder of radius " << s.radius << " m and length " << s.length << " m"; break;
        case ShapeKind::capsule: text << "capsule of radius " << s.radius << " m and length " << s.length << " m"; break;
        case ShapeKind::mesh: text << "mesh of " << s.vertices.size() << " vertices and " << s.triangles.size() << " triangles"; break;
    }
    return text.str();
}

void check_mass_properties(const MassProperties& p) {
    if (!(p.mass > 0.0) || !std::isfinite(p.mass)) throw std::invalid_argument("the mass must be positive and finite");
    if (!p.inertia.allFinite()) throw std::invalid_argument("the inertia must be finite");
    const Eigen::SelfAdjointEigenSolver<Mat3> eigen(p.inertia);
    const Vec3 moments = eigen.eigenvalues();  // ascending
    if (!(moments[0] > 0.0))
        throw std::invalid_argument("the inertia must be positive definite (its smallest principal moment is " +
                                    std::to_string(moments[0]) + " kg m^2)");
    // A real mass distribution has I1 + I2 >= I3 (equality for a flat body); allow round-off.
    if (moments[0] + moments[1] < moments[2] * (1.0 - 1e-12))
        throw std::invalid_argument("the principal moments " + std::to_string(moments[0]) + ", " +
                                    std::to_string(moments[1]) + ", " + std::to_string(moments[2]) +
                                    " kg m^2 violate I1 + I2 >= I3: no mass distribution has this inertia");
}

}  // namespace soma::rigid_body
