#pragma once
/// \file string_distance.hpp
/// \brief "Did you mean": the closest known names to a misspelled one.

#include <string>
#include <vector>

namespace soma {

/// Levenshtein edit distance.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// Up to `max_count` candidates closest to `name` (distance <= max(2, |name|/3), or starting
/// with `name` when it has 3+ characters), best first.
std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t max_count = 3);

/// "; did you mean 'a'?" or "; did you mean 'a' or 'b'?" naming only the nearest candidates
/// (so 'implict_euler' suggests 'implicit_euler', not also 'explicit_euler'); empty when nothing
/// is close.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

/// 'a', 'b', 'c'
std::string quoted_list(const std::vector<std::string>& names);

}  // namespace soma
