// "Did you mean": Levenshtein distance and the closest candidate names (string_distance.hpp).
#include "string_distance.hpp"

#include "soma/api.hpp"

#include <algorithm>
#include <numeric>

namespace soma {

/// \brief Levenshtein distance (insertions, deletions, substitutions, each of cost 1).
SOMA_API std::size_t edit_distance(const std::string& a, const std::string& b) {
    // One row of the dynamic-programming table is enough.
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
            diagonal = above;
        }
    }
    return row[b.size()];
}

/// \brief Up to `max_count` candidates within max(2, |name|/3) edits of `name`, closest first
/// (ties keep the candidates' order, so messages are deterministic). When nothing is that
/// close, candidates that start with a name of 3+ characters count ("poisson" -> "poisson_ratio").
SOMA_API std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                                std::size_t max_count) {
    const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
    std::vector<std::pair<std::size_t, std::size_t>> scored, prefixed;  // (distance, candidate index)
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const std::size_t d = edit_distance(name, candidates[i]);
        if (d <= limit) scored.emplace_back(d, i);
        else if (name.size() >= 3 && candidates[i].rfind(name, 0) == 0) prefixed.emplace_back(d, i);
    }
    if (scored.empty()) scored = prefixed;
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> result;
    for (const auto& [distance, index] : scored) {
        if (result.size() >= max_count) break;
        if (std::find(result.begin(), result.end(), candidates[index]) == result.end())
            result.push_back(candidates[index]);
    }
    return result;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
    auto close = closest_names(name, candidates);
    if (close.empty()) return "";
    const std::size_t best = edit_distance(name, close.front());
    close.erase(std::remove_if(close.begin(), close.end(),
                               [&](const std::string& c) { return edit_distance(name, c) > best; }),
                close.end());
    std::string s = "; did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) s += (i ? " or '" : "'") + close[i] + "'";
    return s + "?";
}

std::string quoted_list(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", '" : "'") + names[i] + "'";
    return s;
}

}  // namespace soma
