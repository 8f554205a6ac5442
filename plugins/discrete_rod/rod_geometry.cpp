// Node positions of a rod (MAT-DiSMech §6.1: the geometry is a list of node positions).
#include "rod_geometry.hpp"

#include "soma/input_file.hpp"
#include "soma/input_limits.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <stdexcept>

namespace soma::rod {
namespace {

/// Before anything is allocated: at least 3 nodes, at most kMaxNodesPerElement.
void require_nodes(double nodes) {
    if (nodes < 3)
        throw std::invalid_argument("a rod needs at least 3 nodes, got " + std::to_string(static_cast<long>(nodes)));
    require_at_most(nodes, static_cast<double>(kMaxNodesPerElement), "nodes", "use fewer nodes");
}

}  // namespace

std::vector<Vec3> line_nodes(const Vec3& from, const Vec3& to, long nodes) {
    require_nodes(nodes);
    if ((to - from).norm() == 0.0) throw std::invalid_argument("`from` and `to` are the same point");
    std::vector<Vec3> x(static_cast<std::size_t>(nodes));
    for (long i = 0; i < nodes; ++i)
        x[static_cast<std::size_t>(i)] = from + (to - from) * (static_cast<double>(i) / static_cast<double>(nodes - 1));
    return x;
}

std::vector<Vec3> helix_nodes(const Vec3& center, double radius, double pitch, double turns,
                              long nodes) {
    require_nodes(nodes);
    if (!(radius > 0.0)) throw std::invalid_argument("the helix radius must be positive");
    if (!(turns > 0.0)) throw std::invalid_argument("the helix must have a positive number of turns");
    std::vector<Vec3> x(static_cast<std::size_t>(nodes));
    const double total = 2.0 * std::numbers::pi * turns;
    for (long i = 0; i < nodes; ++i) {
        const double phi = total * static_cast<double>(i) / static_cast<double>(nodes - 1);
        x[static_cast<std::size_t>(i)] =
            center + Vec3(radius * std::cos(phi), radius * std::sin(phi), pitch * phi / (2.0 * std::numbers::pi));
    }
    return x;
}

std::vector<Vec3> nodes_from_coordinates(std::span<const double> c) {
    if (c.size() % 3 != 0)
        throw std::invalid_argument("coordinates must be x, y, z triples: got " +
                                    std::to_string(c.size()) + " numbers, not a multiple of 3");
    require_nodes(static_cast<double>(c.size() / 3));
    std::vector<Vec3> x(c.size() / 3);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = Vec3(c[3 * i], c[3 * i + 1], c[3 * i + 2]);
    return x;
}

std::vector<Vec3> read_xyz_nodes(std::istream& input, const std::string& source, long max_nodes) {
    std::vector<Vec3> x;
    std::string line;
    int line_number = 0;
    while (std::getline(input, line)) {
        ++line_number;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        for (char& ch : line)
            if (ch == ',') ch = ' ';
        std::istringstream fields(line);
        double values[3];
        int count = 0;
        std::string token;
        while (fields >> token) {
            if (count == 3)
                throw std::invalid_argument(source + ":" + std::to_string(line_number) +
                                            ": expected 3 numbers (x y z), found more");
            // Decimal only (std::stod would read 0x10 as 16), an optional leading '+'.
            const char* first = token.data() + (token.size() > 1 && token[0] == '+' ? 1 : 0);
            const char* last = token.data() + token.size();
            const auto [end, ec] = std::from_chars(first, last, values[count]);
            if (ec != std::errc() || end != last || !std::isfinite(values[count]))
                throw std::invalid_argument(source + ":" + std::to_string(line_number) +
                                            ": '" + token + "' is not a number");
            ++count;
        }
        if (count == 0) continue;
        if (x.size() >= static_cast<std::size_t>(max_nodes))  // before the vector grows past it
            throw std::invalid_argument(source + ":" + std::to_string(line_number) + ": the file has more than " +
                                        std::to_string(max_nodes) +
                                        " points, the maximum of nodes per element (docs/reliability.md, Input "
                                        "limits): use fewer nodes");
        if (count != 3)
            throw std::invalid_argument(source + ":" + std::to_string(line_number) + ": expected 3 numbers (x y z), found " +
                                        std::to_string(count));
        x.emplace_back(values[0], values[1], values[2]);
    }
    if (x.size() < 3)
        throw std::invalid_argument(source + ": a rod needs at least 3 points, found " + std::to_string(x.size()));
    return x;
}

std::vector<Vec3> read_xyz_file(const std::string& path) {
    std::ifstream file = open_input_file(path, "node file");
    return read_xyz_nodes(file, path);
}

}  // namespace soma::rod
