#pragma once
/// \file rod_geometry.hpp
/// \brief Node positions of a rod from the scene's `geometry` alternatives: a straight line, a
/// helix, a flat list of coordinates, or an xyz text file (MAT-DiSMech §6.1).
///
/// Every function throws std::invalid_argument with a message meant for the user when the input
/// cannot describe a rod (fewer than 3 nodes, more than kMaxNodesPerElement (soma/input_limits.hpp),
/// checked before anything is allocated, a malformed file); the factory turns it into an
/// InputError that points at the scene key.

#include "soma/input_limits.hpp"
#include "soma/types.hpp"

#include <istream>
#include <span>
#include <string>
#include <vector>

namespace soma::rod {

/// \brief `nodes` equally spaced points from `from` to `to` (both included), nodes >= 3.
std::vector<Vec3> line_nodes(const Vec3& from, const Vec3& to, long nodes);

/// \brief `nodes` points equally spaced in angle on a helix about the z axis:
///
///     x(phi) = center + (R cos phi, R sin phi, pitch phi / (2 pi)),  phi in [0, 2 pi turns]
///
/// pitch is the rise per turn (negative: left-handed); the axis is fixed to z.
std::vector<Vec3> helix_nodes(const Vec3& center, double radius, double pitch, double turns,
                              long nodes);

/// \brief Points from a flat list x0, y0, z0, x1, ... (size a multiple of 3, at least 9).
std::vector<Vec3> nodes_from_coordinates(std::span<const double> coordinates);

/// \brief Points from "xyz" text: one point per line, three numbers separated by whitespace
/// and/or commas; '#' starts a comment; blank lines are skipped. At least 3 points.
/// \param[in] input  the text
/// \param[in] source name used in error messages ("file.xyz")
/// \param[in] max_nodes more points are refused at the line that exceeds them
std::vector<Vec3> read_xyz_nodes(std::istream& input, const std::string& source,
                                 long max_nodes = kMaxNodesPerElement);

/// \brief read_xyz_nodes on the file at `path`, which must be a regular file of at most
/// kMaxDataFileBytes (soma/input_file.hpp).
std::vector<Vec3> read_xyz_file(const std::string& path);

}  // namespace soma::rod
