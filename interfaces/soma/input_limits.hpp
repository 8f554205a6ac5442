#pragma once
/// \file input_limits.hpp
/// \brief The documented maximum sizes of what a scene may ask for, in one place for the kernel
/// and every plugin (docs/reliability.md, "Input limits").
///
/// A generator or reader computes the size its input asks for *before* it generates or reads
/// anything, and refuses it above these limits with require_at_most(), so that a typo such as
/// `nodes: 2147483648` or `edge_length: 5.0e-11` fails in microseconds with a located error
/// instead of allocating gigabytes. The limits are generous for real use: a 4 million node rod
/// or an 8 million triangle shell takes minutes per step on a workstation.

#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace soma {

/// Nodes (rod nodes, mesh vertices, points) of one element.
inline constexpr long kMaxNodesPerElement = 4'000'000;
/// Triangles of one element's mesh.
inline constexpr long kMaxTrianglesPerElement = 8'000'000;
/// Numbers in one table file (rows times fields).
inline constexpr long kMaxTableValues = 16'000'000;
/// Time steps of one run: duration / dt.
inline constexpr double kMaxTimeSteps = 1.0e10;
/// Size of a scene file: scenes are kilobytes; large data belongs in a geometry or table file
/// (a YAML tree takes tens of times its text in memory).
inline constexpr std::uintmax_t kMaxSceneFileBytes = std::uintmax_t{16} << 20;  // 16 MiB
/// Size of a file a scene names (geometry, mesh, table).
inline constexpr std::uintmax_t kMaxDataFileBytes = std::uintmax_t{1} << 30;  // 1 GiB

/// \brief Refuses a count above its maximum. The count is a double so that a product of two
/// large requested sizes (n^2 sides) cannot overflow before it is compared.
/// \param[in] count   what the input asks for (computed before any allocation)
/// \param[in] max     the limit (one of the constants above)
/// \param[in] what    plural noun, e.g. "nodes", "triangles"
/// \param[in] advice  what to change, e.g. "use fewer nodes"
/// \throws std::invalid_argument "asks for N nodes, above the maximum of M nodes per element
/// (docs/reliability.md, Input limits): ADVICE"
inline void require_at_most(double count, double max, const std::string& what, const std::string& advice) {
    if (count <= max) return;
    char asked[32];
    if (count < 1e15) std::snprintf(asked, sizeof asked, "%.0f", count);
    else std::snprintf(asked, sizeof asked, "%.3g", count);
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.0f", max);
    throw std::invalid_argument(std::string("asks for ") + asked + " " + what + ", above the maximum of " + limit +
                                " " + what + " per element (docs/reliability.md, Input limits): " + advice);
}

/// The largest magnitude a real parameter of a given SI unit may take: far beyond any material
/// or scene a soft or hybrid robot has (the stiffest solid, diamond, has E = 1.2e12 Pa; the
/// densest, osmium, 2.3e4 kg/m^3), yet small enough that products of two parameters stay finite
/// in double precision. Validation applies it on top of a parameter's own range; a unit not
/// listed has no ceiling.
struct UnitCeiling {
    std::string_view unit;
    double max_magnitude;
};

inline constexpr UnitCeiling kUnitCeilings[] = {
    {"m", 1e6},          {"m/s", 1e6},      {"m/s^2", 1e7},      {"s", 1e9},        {"Pa", 1e13},
    {"kg/m^3", 1e5},     {"kg", 1e9},       {"kg m^2", 1e12},    {"m^4", 1e12},     {"N", 1e12},
    {"N/m", 1e15},       {"N*s/m", 1e12},   {"N*m*s/rad", 1e12}, {"Pa*s", 1e9},     {"m/N", 1e6},
    {"rad/(N m)", 1e6},  {"rad/s", 1e6},    {"deg", 1e5},        {"Hz", 1e9},       {"1/s", 1e9},
};

/// \brief The ceiling of `unit` (infinity when the unit has none).
inline double unit_ceiling(std::string_view unit) {
    for (const UnitCeiling& c : kUnitCeilings)
        if (c.unit == unit) return c.max_magnitude;
    return std::numeric_limits<double>::infinity();
}

}  // namespace soma
