// Mesh input: Wavefront OBJ, MAT-DiSMech text geometry (MAT-DiSMech §6.1, reference code's format) and generated
// near-equilateral meshes (MAT-DiSMech Fig. 6 hexagonal canopy, Fig. 8 equilateral plate mesh).
#include "mesh_input.hpp"

#include "soma/input_file.hpp"
#include "soma/input_limits.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace soma::shells {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string strip_comment(const std::string& line) {
    const auto hash = line.find('#');
    return hash == std::string::npos ? line : line.substr(0, hash);
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

/// Splits on whitespace and commas.
std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::string current;
    for (char c : line) {
        if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
            if (!current.empty()) out.push_back(std::move(current));
            current.clear();
        } else {
            current.push_back(c);
        }
    }
    if (!current.empty()) out.push_back(std::move(current));
    return out;
}

bool parse_double(const std::string& s, double& value) {
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, value);
    return ec == std::errc() && ptr == end && std::isfinite(value);
}

/// A length for messages: shortest round-trip form ("0.005", "5e-11").
std::string length_text(double x) {
    std::ostringstream text;
    text.precision(17);
    text << x;
    double back = 0.0;
    for (int digits = 1; digits <= 17; ++digits) {
        std::ostringstream shorter;
        shorter.precision(digits);
        shorter << x;
        std::istringstream(shorter.str()) >> back;
        if (back == x) return shorter.str();
    }
    return text.str();
}

std::string too_many(const std::string& what, long max) {
    return "more than " + std::to_string(max) + " " + what + ", the maximum per element (docs/reliability.md, "
           "Input limits): use a coarser mesh";
}

bool parse_long(const std::string& s, long& value) {
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, value);
    return ec == std::errc() && ptr == end;
}

}  // namespace

MeshFileFormat mesh_format_from_extension(const std::string& path) {
    const auto dot = path.find_last_of('.');
    if (dot != std::string::npos && lower(path.substr(dot)) == ".obj") return MeshFileFormat::obj;
    return MeshFileFormat::text;
}

TriangleMesh parse_obj(std::istream& input, const std::string& name) {
    ObjTriangles read = parse_obj_triangles(input, name, "declare rods as discrete_rod elements joined to the shell by shared nodes");
    return TriangleMesh{std::move(read.positions), std::move(read.triangles)};
}

TriangleMesh parse_text_geometry(std::istream& input, const std::string& name, long max_nodes, long max_triangles) {
    enum class Section { none, nodes, edges, triangles };
    TriangleMesh mesh;
    Section section = Section::none;
    std::vector<std::pair<int, std::array<long, 3>>> triangles;  // (line, 1-based indices)
    std::string raw;
    int line_no = 0;
    while (std::getline(input, raw)) {
        ++line_no;
        const std::string line = trim(strip_comment(raw));
        if (line.empty()) continue;
        if (line[0] == '*') {
            const std::string s = lower(trim(line.substr(1)));
            if (s == "nodes") section = Section::nodes;
            else if (s == "edges") section = Section::edges;
            else if (s == "triangles") section = Section::triangles;
            else
                throw MeshInputError(name, line_no, "unknown section '" + line + "' (expected *Nodes, *Edges or *Triangles)");
            continue;
        }
        const std::vector<std::string> f = fields(line);
        switch (section) {
            case Section::none:
                throw MeshInputError(name, line_no, "data before the first section header (*Nodes, *Edges, *Triangles)");
            case Section::edges:
                throw MeshInputError(name, line_no,
                                     "rod edge in a shell mesh: a shell element takes triangles only; declare "
                                     "rods as discrete_rod elements joined to the shell by shared nodes");
            case Section::nodes: {
                if (f.size() != 3)
                    throw MeshInputError(name, line_no, "a node needs 3 coordinates x, y, z, got " + std::to_string(f.size()) + " values");
                Vec3 x;
                for (int k = 0; k < 3; ++k)
                    if (!parse_double(f[static_cast<std::size_t>(k)], x[k]))
                        throw MeshInputError(name, line_no, "'" + f[static_cast<std::size_t>(k)] + "' is not a finite number");
                if (mesh.positions.size() >= static_cast<std::size_t>(max_nodes))  // before it grows past
                    throw MeshInputError(name, line_no, too_many("nodes", max_nodes));
                mesh.positions.push_back(x);
                break;
            }
            case Section::triangles: {
                if (f.size() != 3)
                    throw MeshInputError(name, line_no, "a triangle needs 3 node indices i, j, k, got " + std::to_string(f.size()) + " values");
                std::array<long, 3> t{};
                for (std::size_t k = 0; k < 3; ++k) {
                    double d = 0.0;
                    // Accept integers written as reals ("3.0"), as MATLAB exports them; one
                    // beyond 2^53 is no index (and its conversion to long could be undefined).
                    if (!parse_long(f[k], t[k])) {
                        if (!parse_double(f[k], d) || d != std::floor(d) || !(std::abs(d) < 9.0e15))
                            throw MeshInputError(name, line_no, "'" + f[k] + "' is not a node index");
                        t[k] = static_cast<long>(d);
                    }
                }
                if (triangles.size() >= static_cast<std::size_t>(max_triangles))
                    throw MeshInputError(name, line_no, too_many("triangles", max_triangles));
                triangles.emplace_back(line_no, t);
                break;
            }
        }
    }
    const auto n = static_cast<long>(mesh.positions.size());
    if (n == 0) throw MeshInputError(name, 0, "no nodes (*Nodes section)");
    if (triangles.empty()) throw MeshInputError(name, 0, "no triangles (*Triangles section)");
    for (const auto& [line, t] : triangles) {
        std::array<Index, 3> tri{};
        for (std::size_t k = 0; k < 3; ++k) {
            if (t[k] < 1 || t[k] > n)
                throw MeshInputError(name, line, "node index " + std::to_string(t[k]) + " is out of range 1.." + std::to_string(n));
            tri[k] = static_cast<Index>(t[k] - 1);
        }
        mesh.triangles.push_back(tri);
    }
    return mesh;
}

TriangleMesh read_mesh_file(const std::string& path, MeshFileFormat format) {
    if (const std::string problem = input_file_problem(path, kMaxDataFileBytes, "mesh file"); !problem.empty())
        throw MeshInputError(path, 0, problem);
    std::ifstream file(path);
    if (!file) throw MeshInputError(path, 0, "cannot open the mesh file");
    return format == MeshFileFormat::obj ? parse_obj(file, path) : parse_text_geometry(file, path);
}

namespace {

/// Maps the rectangle's row coordinates (u along the rows, w across) to the plane z = origin.z
/// and adds triangles given counter-clockwise in (u, w).
struct RectangleBuilder {
    TriangleMesh mesh;
    Vec3 origin;
    bool along_x = true;

    Index node(double u, double w) {
        mesh.positions.push_back(origin + (along_x ? Vec3(u, w, 0.0) : Vec3(w, u, 0.0)));
        return static_cast<Index>(mesh.positions.size() - 1);
    }
    void triangle(Index a, Index b, Index c) {
        // (u, w) -> (x, y) is a reflection when rows run along y: reverse to keep normals +z.
        if (along_x) mesh.triangles.push_back({a, b, c});
        else mesh.triangles.push_back({a, c, b});
    }
};

/// The coordinate of grid line i of n over a length L; the last line lands exactly on L.
double grid_line(double L, double i, Index n) { return i == n ? L : L * i / static_cast<double>(n); }

/// Near-equilateral rows: even rows nu + 1 nodes at u = i du; odd rows nu + 2 nodes, u = 0,
/// (i + 1/2) du, Lu (the end nodes close the row: half-triangles at both ends).
void equilateral_rows(RectangleBuilder& b, double Lu, double Lw, Index nu, Index nw) {
    std::vector<Index> row_start(static_cast<std::size_t>(nw) + 1);
    for (Index r = 0; r <= nw; ++r) {
        row_start[static_cast<std::size_t>(r)] = static_cast<Index>(b.mesh.positions.size());
        const double w = grid_line(Lw, r, nw);
        if (r % 2 == 0) {
            for (Index i = 0; i <= nu; ++i) b.node(grid_line(Lu, i, nu), w);
        } else {
            b.node(0.0, w);
            for (Index i = 0; i < nu; ++i) b.node(grid_line(Lu, i + 0.5, nu), w);
            b.node(Lu, w);
        }
    }
    for (Index r = 0; r < nw; ++r) {
        const bool even_below = r % 2 == 0;
        // e: the full row's node i (u = i du); o: the offset row's node k (k = 0 and nu + 1 are
        // the row's end nodes, node i + 1 is at u = (i + 1/2) du).
        const Index e0 = row_start[static_cast<std::size_t>(even_below ? r : r + 1)];
        const Index o0 = row_start[static_cast<std::size_t>(even_below ? r + 1 : r)];
        auto e = [&](Index i) { return e0 + i; };
        auto o = [&](Index k) { return o0 + k; };
        if (even_below) {  // full row below, offset row above
            b.triangle(e(0), o(1), o(0));  // half-triangle at u = 0
            for (Index i = 0; i < nu; ++i) b.triangle(e(i), e(i + 1), o(i + 1));
            for (Index i = 0; i + 1 < nu; ++i) b.triangle(o(i + 1), e(i + 1), o(i + 2));
            b.triangle(e(nu), o(nu + 1), o(nu));  // half-triangle at u = Lu
        } else {  // offset row below, full row above
            b.triangle(o(0), o(1), e(0));
            for (Index i = 0; i < nu; ++i) b.triangle(o(i + 1), e(i + 1), e(i));
            for (Index i = 0; i + 1 < nu; ++i) b.triangle(o(i + 1), o(i + 2), e(i + 1));
            b.triangle(o(nu), o(nu + 1), e(nu));
        }
    }
}

/// A structured (nu + 1) x (nw + 1) grid, each cell split into two right triangles.
void right_triangle_grid(RectangleBuilder& b, double Lu, double Lw, Index nu, Index nw, bool alternate) {
    for (Index j = 0; j <= nw; ++j)
        for (Index i = 0; i <= nu; ++i) b.node(grid_line(Lu, i, nu), grid_line(Lw, j, nw));
    auto at = [&](Index i, Index j) { return j * (nu + 1) + i; };
    for (Index j = 0; j < nw; ++j)
        for (Index i = 0; i < nu; ++i) {
            if (!alternate || (i + j) % 2 == 0) {  // diagonal (i, j) - (i + 1, j + 1)
                b.triangle(at(i, j), at(i + 1, j), at(i + 1, j + 1));
                b.triangle(at(i, j), at(i + 1, j + 1), at(i, j + 1));
            } else {  // diagonal (i + 1, j) - (i, j + 1)
                b.triangle(at(i, j), at(i + 1, j), at(i, j + 1));
                b.triangle(at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            }
        }
}

}  // namespace

TriangleMesh rectangle_mesh(const Vec3& origin, double length_x, double length_y, double edge_length,
                            RowDirection rows, RectanglePattern pattern) {
    if (!(length_x > 0.0) || !(length_y > 0.0) || !(edge_length > 0.0))
        throw std::invalid_argument("rectangle: size and edge_length must be positive");
    const bool along_x = rows == RowDirection::x;
    const double Lu = along_x ? length_x : length_y;
    const double Lw = along_x ? length_y : length_x;
    if (edge_length > std::max(length_x, length_y))
        throw std::invalid_argument("edge_length " + length_text(edge_length) + " is larger than the plate (" +
                                    length_text(length_x) + " x " + length_text(length_y) +
                                    "), which would be meshed with a single cell: use an edge_length below its "
                                    "longer side");
    const bool equilateral = pattern == RectanglePattern::equilateral;
    const double row_spacing = equilateral ? edge_length * std::sqrt(3.0) / 2.0 : edge_length;
    // Sizes in double before anything is generated: a tiny edge_length asks for n^2 triangles,
    // which overflows a long long before it can be compared.
    const double nu_d = std::max(1.0, std::round(Lu / edge_length));
    const double nw_d = std::max(1.0, std::round(Lw / row_spacing));
    const double triangles = equilateral ? nw_d * (2.0 * nu_d + 1.0) : 2.0 * nu_d * nw_d;
    const double nodes = (nu_d + 2.0) * (nw_d + 1.0);
    const std::string advice = "use a larger edge_length";
    require_at_most(triangles, static_cast<double>(kMaxTrianglesPerElement), "triangles", advice);
    require_at_most(nodes, static_cast<double>(kMaxNodesPerElement), "nodes", advice);
    const auto nu = static_cast<Index>(nu_d);
    const auto nw = static_cast<Index>(nw_d);

    RectangleBuilder b{TriangleMesh{}, origin, along_x};
    if (equilateral) equilateral_rows(b, Lu, Lw, nu, nw);
    else right_triangle_grid(b, Lu, Lw, nu, nw, pattern == RectanglePattern::right_alternating);
    return std::move(b.mesh);
}

TriangleMesh regular_polygon_mesh(const Vec3& center, double circumradius, int sides, double edge_length) {
    if (sides < 3) throw std::invalid_argument("regular_polygon: sides must be at least 3");
    if (!(circumradius > 0.0) || !(edge_length > 0.0))
        throw std::invalid_argument("regular_polygon: circumradius and edge_length must be positive");
    if (edge_length > 2.0 * circumradius)
        throw std::invalid_argument("edge_length " + length_text(edge_length) + " is larger than the polygon (diameter " +
                                    length_text(2.0 * circumradius) +
                                    "), which would be meshed with a single triangle per side: use an edge_length "
                                    "below its circumradius");
    // Sizes in double before anything is generated (issue 8: 5e-11 with R = 0.5 overflowed the
    // product n^2 sides in a long and hung at 2 GB).
    const double n_d = std::max(1.0, std::round(circumradius / edge_length));
    const double sides_d = sides;
    const std::string advice = "use a larger edge_length or fewer sides";
    require_at_most(sides_d * n_d * n_d, static_cast<double>(kMaxTrianglesPerElement), "triangles", advice);
    require_at_most(sides_d * n_d * (n_d + 1.0) / 2.0 + 1.0, static_cast<double>(kMaxNodesPerElement), "nodes", advice);
    const auto n = static_cast<Index>(n_d);

    TriangleMesh mesh;
    // Merge nodes on shared sector sides by their (quantised) position.
    const double quantum = circumradius / n * 1e-6;
    std::map<std::pair<long long, long long>, Index> node_at;
    auto node = [&](const Vec3& x) {
        const std::pair<long long, long long> key{std::llround((x.x() - center.x()) / quantum),
                                                  std::llround((x.y() - center.y()) / quantum)};
        // Look in the neighbourhood of the key to absorb round-off at cell borders.
        for (long long dx = -1; dx <= 1; ++dx)
            for (long long dy = -1; dy <= 1; ++dy) {
                auto it = node_at.find({key.first + dx, key.second + dy});
                if (it != node_at.end()) return it->second;
            }
        const auto id = static_cast<Index>(mesh.positions.size());
        mesh.positions.push_back(x);
        node_at.emplace(key, id);
        return id;
    };
    const double step = 2.0 * std::numbers::pi / sides;
    std::vector<Index> grid;  // grid[(i, j)] for i + j <= n
    for (int s = 0; s < sides; ++s) {
        const Vec3 a = center + circumradius * Vec3(std::cos(s * step), std::sin(s * step), 0.0);
        const Vec3 b = center + circumradius * Vec3(std::cos((s + 1) * step), std::sin((s + 1) * step), 0.0);
        // Point (i, j) = center + (i/n)(a - center) + (j/n)(b - center), i + j <= n.
        grid.assign(static_cast<std::size_t>((n + 1) * (n + 1)), -1);
        auto at = [&](Index i, Index j) -> Index& { return grid[static_cast<std::size_t>(i * (n + 1) + j)]; };
        for (Index i = 0; i <= n; ++i)
            for (Index j = 0; i + j <= n; ++j)
                at(i, j) = node(center + (static_cast<double>(i) / n) * (a - center) + (static_cast<double>(j) / n) * (b - center));
        // (center, a, b) is counter-clockwise: so is (i,j), (i+1,j), (i,j+1).
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; i + j < n; ++j) {
                mesh.triangles.push_back({at(i, j), at(i + 1, j), at(i, j + 1)});
                if (i + j + 1 < n) mesh.triangles.push_back({at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)});
            }
    }
    return mesh;
}

}  // namespace soma::shells
