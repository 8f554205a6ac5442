#pragma once
/// \file obj_mesh.hpp
/// \brief Wavefront OBJ triangle meshes (vertices and faces), read the same way by every plugin
/// that takes a surface from a file (shells, rigid bodies).
///
/// - `v x y z [w]`: a vertex (w ignored).
/// - `f a b c ...`: a face; each corner is `i`, `i/t`, `i//n` or `i/t/n` (only i is used);
///   1-based indices, negative indices count back from the last vertex read so far (-1 = last).
///   Polygons with more than 3 corners are **fan-triangulated** from their first corner
///   (a b c d -> a b c, a c d), which is right for convex, planar polygons; a fan that folds over
///   itself (a non-convex or non-planar face) is refused.
/// - `l` (polylines) and `p` (points) are refused: they are not part of a triangle surface.
/// - Comments (#), blank lines and every other statement (vt, vn, o, g, s, usemtl, mtllib, ...)
///   are ignored.
/// - At most kMaxNodesPerElement vertices and kMaxTrianglesPerElement triangles
///   (soma/input_limits.hpp), refused at the line that exceeds them.

#include "soma/input_file.hpp"
#include "soma/input_limits.hpp"
#include "soma/types.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace soma {

/// A triangle mesh as read from a file: positions and triangles (0-based vertex indices).
struct ObjTriangles {
    std::vector<Vec3> positions;
    std::vector<std::array<Index, 3>> triangles;
};

/// An error in a mesh file: what() is "file:line: message" (line 0 for whole-file errors).
class MeshFileError : public std::runtime_error {
public:
    MeshFileError(const std::string& file, int line, const std::string& message)
        : std::runtime_error(file + ":" + std::to_string(line) + ": " + message),
          file_(file),
          line_(line),
          message_(message) {}
    const std::string& file() const { return file_; }
    int line() const { return line_; }
    const std::string& message() const { return message_; }

private:
    std::string file_;
    int line_ = 0;
    std::string message_;
};

namespace obj_detail {

inline bool parse_finite(const std::string& s, double& value) {
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, value);
    return ec == std::errc() && ptr == end && std::isfinite(value);
}

inline std::string too_many(const std::string& what, long max) {
    return "more than " + std::to_string(max) + " " + what + ", the maximum per element (docs/reliability.md, "
           "Input limits): use a coarser mesh";
}

inline bool parse_integer(const std::string& s, long& value) {
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, value);
    return ec == std::errc() && ptr == end;
}

}  // namespace obj_detail

/// \brief Reads a Wavefront OBJ triangle mesh (see the file comment).
/// \param[in] input  the stream to read
/// \param[in] name   file name used in error messages
/// \param[in] polyline_advice  appended to the message refusing `l` and `p` statements (what to
///            use instead, in the caller's terms); may be empty
/// \param[in] max_vertices, max_triangles  more are refused at the line that exceeds them
/// \throws MeshFileError on malformed lines and out-of-range indices ("name:line: ...")
inline ObjTriangles parse_obj_triangles(std::istream& input, const std::string& name,
                                        const std::string& polyline_advice = "",
                                        long max_vertices = kMaxNodesPerElement,
                                        long max_triangles = kMaxTrianglesPerElement) {
    ObjTriangles mesh;
    std::string raw;
    int line_no = 0;
    std::vector<Index> corners;
    while (std::getline(input, raw)) {
        ++line_no;
        const auto hash = raw.find('#');
        std::istringstream line(hash == std::string::npos ? raw : raw.substr(0, hash));
        std::string keyword;
        if (!(line >> keyword)) continue;
        if (keyword == "v") {
            std::vector<std::string> tokens;
            for (std::string t; tokens.size() < 5 && line >> t;) tokens.push_back(t);  // 5: enough to refuse
            if (tokens.size() < 3 || tokens.size() > 4)
                throw MeshFileError(name, line_no, "a vertex needs 3 coordinates (x y z [w]), got " +
                                                       (tokens.size() > 4 ? std::string("more than 4")
                                                                          : std::to_string(tokens.size())) +
                                                       " values");
            Vec3 x;
            for (int k = 0; k < 3; ++k)
                if (!obj_detail::parse_finite(tokens[static_cast<std::size_t>(k)], x[k]))
                    throw MeshFileError(name, line_no, "'" + tokens[static_cast<std::size_t>(k)] + "' is not a finite number");
            if (mesh.positions.size() >= static_cast<std::size_t>(max_vertices))  // before it grows past
                throw MeshFileError(name, line_no, obj_detail::too_many("vertices", max_vertices));
            mesh.positions.push_back(x);
        } else if (keyword == "f") {
            corners.clear();
            for (std::string t; line >> t;) {
                const std::string index_text = t.substr(0, t.find('/'));
                long i = 0;
                if (!obj_detail::parse_integer(index_text, i) || i == 0)
                    throw MeshFileError(name, line_no, "'" + t + "' is not a vertex index (1-based, or negative from the end)");
                const auto count = static_cast<long>(mesh.positions.size());
                const long zero_based = i > 0 ? i - 1 : count + i;
                if (zero_based < 0 || zero_based >= count)
                    throw MeshFileError(name, line_no, "vertex index " + std::to_string(i) + " is out of range: " +
                                                           std::to_string(count) + " vertices read so far");
                if (corners.size() > static_cast<std::size_t>(max_triangles))  // one endless face
                    throw MeshFileError(name, line_no, obj_detail::too_many("triangles", max_triangles));
                corners.push_back(static_cast<Index>(zero_based));
            }
            if (corners.size() < 3)
                throw MeshFileError(name, line_no, "a face needs at least 3 vertices, got " + std::to_string(corners.size()));
            // Fan triangulation from the first corner, for convex polygons: every fan triangle
            // must face the polygon's own (Newell) normal, otherwise the fan folds over itself.
            const auto at = [&](std::size_t k) -> const Vec3& { return mesh.positions[static_cast<std::size_t>(corners[k])]; };
            if (corners.size() > 3) {
                Vec3 newell = Vec3::Zero();
                for (std::size_t k = 0; k < corners.size(); ++k) newell += at(k).cross(at((k + 1) % corners.size()));
                for (std::size_t k = 1; k + 1 < corners.size(); ++k) {
                    const Vec3 normal = (at(k) - at(0)).cross(at(k + 1) - at(0));
                    if (!(normal.dot(newell) > 0.0))
                        throw MeshFileError(name, line_no, "the face is not convex (or not planar): split it into triangles");
                }
            }
            if (mesh.triangles.size() + corners.size() - 2 > static_cast<std::size_t>(max_triangles))
                throw MeshFileError(name, line_no, obj_detail::too_many("triangles", max_triangles));
            for (std::size_t k = 1; k + 1 < corners.size(); ++k)
                mesh.triangles.push_back({corners[0], corners[k], corners[k + 1]});
        } else if (keyword == "l" || keyword == "p") {
            throw MeshFileError(name, line_no,
                                "'" + keyword + "' (polyline/point) statements are not part of a triangle surface" +
                                    (polyline_advice.empty() ? std::string() : ": " + polyline_advice));
        }
        // Other statements (vt, vn, vp, o, g, s, usemtl, mtllib, ...) do not affect the mesh.
    }
    if (mesh.positions.empty()) throw MeshFileError(name, 0, "no vertices ('v' lines)");
    if (mesh.triangles.empty()) throw MeshFileError(name, 0, "no faces ('f' lines)");
    return mesh;
}

/// \brief Reads the OBJ file at \p path (see parse_obj_triangles), which must be a regular file
/// of at most kMaxDataFileBytes (soma/input_file.hpp).
/// \throws MeshFileError when the file is not a regular file, too large, cannot be opened or is
/// malformed.
inline ObjTriangles read_obj_triangles(const std::string& path, const std::string& polyline_advice = "") {
    if (const std::string problem = input_file_problem(path, kMaxDataFileBytes, "mesh file"); !problem.empty())
        throw MeshFileError(path, 0, problem);
    std::ifstream file(path);
    if (!file) throw MeshFileError(path, 0, "cannot open the mesh file");
    return parse_obj_triangles(file, path, polyline_advice);
}

}  // namespace soma
