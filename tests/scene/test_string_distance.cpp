// "Did you mean": edit distance and closest names.
#include "string_distance.hpp"

#include <catch2/catch.hpp>

using soma::closest_names;
using soma::edit_distance;

TEST_CASE("edit_distance counts insertions, deletions and substitutions", "[scene][string_distance]") {
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("abc", "") == 3);
    CHECK(edit_distance("", "abc") == 3);
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("dt", "dtt") == 1);
    CHECK(edit_distance("youngs_modulis", "youngs_modulus") == 1);
    CHECK(edit_distance("flaw", "lawn") == 2);
    CHECK(edit_distance("abc", "abc") == 0);
}

TEST_CASE("closest_names keeps names within max(2, |name|/3) edits, best first", "[scene][string_distance]") {
    const std::vector<std::string> keys{"density", "youngs_modulus", "poisson_ratio", "dt", "damping"};
    CHECK(closest_names("youngs_modulis", keys) == std::vector<std::string>{"youngs_modulus"});
    CHECK(closest_names("densty", keys) == std::vector<std::string>{"density"});
    CHECK(closest_names("xyzzy_quux", keys).empty());
    // Short names still allow two edits: "d" is 1 from "dt".
    CHECK(closest_names("d", keys) == std::vector<std::string>{"dt"});
    // Ties keep the candidates' order; the count is capped.
    const std::vector<std::string> many{"ab", "ac", "ad", "ae"};
    CHECK(closest_names("aa", many) == std::vector<std::string>{"ab", "ac", "ad"});
    CHECK(closest_names("aa", many, 2) == std::vector<std::string>{"ab", "ac"});
    // Closer first.
    CHECK(closest_names("dampin", {"damping_ratio", "damping"}) == std::vector<std::string>{"damping"});
}

TEST_CASE("closest_names falls back to candidates that extend a short prefix", "[scene]") {
    CHECK(soma::closest_names("poisson", {"density", "youngs_modulus", "poisson_ratio"}) ==
          std::vector<std::string>{"poisson_ratio"});
    CHECK(soma::closest_names("po", {"poisson_ratio"}).empty());  // too short to be a prefix hint
}
