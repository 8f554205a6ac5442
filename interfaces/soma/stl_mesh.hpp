#pragma once
/// \file stl_mesh.hpp
/// \brief STL triangle meshes (the format of most robots' URDF meshes), read into the same
/// ObjTriangles as an OBJ file, and read_mesh_triangles, which reads either by the file's
/// extension.
///
/// - **Binary** when the file is 84 + 50 n bytes long with n the count at bytes 80-83 (little
///   endian): an 80-byte header, the count, then per triangle a normal and three vertices (12
///   little-endian float32) and a 2-byte attribute. The stored normal is ignored: the vertex
///   order gives it (counter-clockwise seen from outside, as the format specifies).
/// - **ASCII** otherwise, starting with `solid`: `facet normal nx ny nz`, `outer loop`, three
///   `vertex x y z`, `endloop`, `endfacet`, ... `endsolid`. A loop with other than 3 vertices, a
///   vertex, `endloop` or `outer loop` out of place, a value that is not a finite number and an
///   unknown keyword are refused at their line.
/// - STL stores each triangle's own three corners; corners with exactly the same coordinates are
///   welded into one vertex, so a closed solid comes out closed (check_closed_mesh), and a
///   triangle two of whose corners weld together (no area) is dropped.
/// - At most kMaxTrianglesPerElement triangles (soma/input_limits.hpp).

#include "soma/obj_mesh.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace soma {

namespace stl_detail {

/// Welds corners with equal coordinates and appends the triangle unless it has no area.
class Welder {
public:
    explicit Welder(ObjTriangles& mesh) : mesh_(mesh) {}
    void add(const std::array<Vec3, 3>& corners) {
        std::array<Index, 3> t{};
        for (std::size_t k = 0; k < 3; ++k) {
            const std::array<double, 3> key{corners[k].x(), corners[k].y(), corners[k].z()};
            const auto [it, inserted] = index_.try_emplace(key, static_cast<Index>(mesh_.positions.size()));
            if (inserted) mesh_.positions.push_back(corners[k]);
            t[k] = it->second;
        }
        if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]) mesh_.triangles.push_back(t);
    }

private:
    ObjTriangles& mesh_;
    std::map<std::array<double, 3>, Index> index_;
};

inline float little_endian_float(const unsigned char* bytes) {
    const std::uint32_t bits = std::uint32_t(bytes[0]) | (std::uint32_t(bytes[1]) << 8) | (std::uint32_t(bytes[2]) << 16) |
                               (std::uint32_t(bytes[3]) << 24);
    float value = 0.0f;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

inline std::uint32_t little_endian_count(const unsigned char* bytes) {
    return std::uint32_t(bytes[0]) | (std::uint32_t(bytes[1]) << 8) | (std::uint32_t(bytes[2]) << 16) |
           (std::uint32_t(bytes[3]) << 24);
}

}  // namespace stl_detail

/// \brief Parses STL text or bytes (see the file comment); \p name names it in messages.
/// \throws MeshFileError ("name:line: ..."; line 0 for binary files and whole-file errors)
inline ObjTriangles parse_stl_triangles(const std::string& data, const std::string& name,
                                        long max_triangles = kMaxTrianglesPerElement) {
    ObjTriangles mesh;
    stl_detail::Welder welder(mesh);
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
    const std::uint64_t count = data.size() >= 84 ? stl_detail::little_endian_count(bytes + 80) : 0;
    if (data.size() >= 84 && data.size() == 84 + 50 * count) {
        if (count > static_cast<std::uint64_t>(max_triangles))
            throw MeshFileError(name, 0, obj_detail::too_many("triangles", max_triangles));
        for (std::uint64_t t = 0; t < count; ++t) {
            const unsigned char* record = bytes + 84 + 50 * t + 12;  // past the stored normal
            std::array<Vec3, 3> corners;
            for (int k = 0; k < 3; ++k)
                for (int c = 0; c < 3; ++c) {
                    const double value = stl_detail::little_endian_float(record + 12 * k + 4 * c);
                    if (!std::isfinite(value))
                        throw MeshFileError(name, 0, "triangle " + std::to_string(t + 1) + " has a coordinate that is "
                                                     "not a finite number");
                    corners[static_cast<std::size_t>(k)][c] = value;
                }
            welder.add(corners);
        }
    } else {
        std::istringstream text(data);
        std::string raw, keyword;
        int line_no = 0;
        bool started = false;
        std::vector<Vec3> loop;
        bool in_loop = false;
        while (std::getline(text, raw)) {
            ++line_no;
            std::istringstream line(raw);
            if (!(line >> keyword)) continue;
            if (!started) {
                if (keyword != "solid")
                    throw MeshFileError(name, line_no, "neither a binary STL file (its size is not 84 + 50 times the "
                                                       "triangle count at bytes 80-83) nor an ASCII one (which starts "
                                                       "with 'solid')");
                started = true;
            } else if (keyword == "vertex") {
                std::string tokens[3];
                Vec3 x;
                for (int k = 0; k < 3; ++k)
                    if (!(line >> tokens[k]) || !obj_detail::parse_finite(tokens[k], x[k]))
                        throw MeshFileError(name, line_no, "a vertex needs 3 finite coordinates");
                if (!in_loop) throw MeshFileError(name, line_no, "a vertex outside 'outer loop' ... 'endloop'");
                loop.push_back(x);
            } else if (keyword == "outer") {
                if (in_loop) throw MeshFileError(name, line_no, "'outer loop' inside a loop (a missing 'endloop')");
                loop.clear();
                in_loop = true;
            } else if (keyword == "endloop") {
                if (!in_loop) throw MeshFileError(name, line_no, "'endloop' without its 'outer loop'");
                if (loop.size() != 3)
                    throw MeshFileError(name, line_no, "a facet needs 3 vertices, got " + std::to_string(loop.size()));
                if (mesh.triangles.size() >= static_cast<std::size_t>(max_triangles))
                    throw MeshFileError(name, line_no, obj_detail::too_many("triangles", max_triangles));
                welder.add({loop[0], loop[1], loop[2]});
                in_loop = false;
            } else if (keyword != "facet" && keyword != "endfacet" && keyword != "endsolid" && keyword != "solid") {
                throw MeshFileError(name, line_no, "'" + keyword + "' is not an ASCII STL keyword");
            }
        }
        if (in_loop) throw MeshFileError(name, line_no, "the file ends inside a facet");
        if (!started) throw MeshFileError(name, 0, "the file is empty");
    }
    if (mesh.triangles.empty()) throw MeshFileError(name, 0, "no triangles (with area)");
    return mesh;
}

/// \brief Reads the STL file at \p path (see parse_stl_triangles), a regular file of at most
/// kMaxDataFileBytes.
/// \throws MeshFileError when it is not a regular file, too large, cannot be read or is malformed.
inline ObjTriangles read_stl_triangles(const std::string& path) {
    if (const std::string problem = input_file_problem(path, kMaxDataFileBytes, "mesh file"); !problem.empty())
        throw MeshFileError(path, 0, problem);
    std::ifstream file(path, std::ios::binary);
    if (!file) throw MeshFileError(path, 0, "cannot open the mesh file");
    const std::string data((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    return parse_stl_triangles(data, path);
}

/// \brief Reads a triangle mesh by its extension, either case: `.stl` as STL, anything else as
/// Wavefront OBJ (read_obj_triangles, with \p polyline_advice).
inline ObjTriangles read_mesh_triangles(const std::string& path, const std::string& polyline_advice = "") {
    std::string extension = path.size() >= 4 ? path.substr(path.size() - 4) : std::string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".stl" ? read_stl_triangles(path) : read_obj_triangles(path, polyline_advice);
}

}  // namespace soma
