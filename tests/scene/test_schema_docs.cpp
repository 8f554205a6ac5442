// Schema documentation: markdown for docs/scene-reference.md, text for `soma describe`.
#include "fake_catalog.hpp"

using namespace soma;
using namespace soma::testing_scene;

TEST_CASE("markdown documents every key, nested keys dotted", "[scene][docs]") {
    const std::string md = rod_schema().markdown(2);
    INFO(md);
    CHECK_THAT(md, Catch::StartsWith("## `rod`\n\nA test rod element.\n\n| Key | Type | Unit | Default | Allowed | "
                                     "Description |\n"));
    CHECK_THAT(md, Catch::Contains("| `name` | string |  | **required** |  | name other blocks use to refer to this "
                                   "element |\n"));
    CHECK_THAT(md, Catch::Contains("| `length` | real | m | `1` | > 0 and <= 1e+06 | rest length |\n"));
    CHECK_THAT(md, Catch::Contains("| `mesh` | string |  | `\"\"` |  | optional mesh file, relative to the scene |\n"));
    CHECK_THAT(md, Catch::Contains("| `material` | map |  | **required** |  | bulk material |\n"));
    CHECK_THAT(md, Catch::Contains("| `material.youngs_modulus` | real | Pa | **required** | > 0 and <= 1e+13 | Young's modulus |\n"));
    CHECK_THAT(md, Catch::Contains("| `material.poisson_ratio` | real |  | `0.3` | >= -1 and < 0.5 | Poisson's ratio |\n"));
    CHECK(md == rod_schema().markdown(2));  // deterministic
}

TEST_CASE("markdown shows choices, alternatives, lists and typed blocks", "[scene][docs]") {
    const std::string md = root_schema().markdown();
    INFO(md);
    CHECK_THAT(md, Catch::StartsWith("### `scene`\n"));
    CHECK_THAT(md, Catch::Contains("| `integrator.method` | string |  | `implicit_euler` | one of `implicit_euler`, "
                                   "`explicit_euler` | time integration scheme |\n"));
    CHECK_THAT(md, Catch::Contains("| `gravity` | vector of 3 reals | m/s^2 | `[0, 0, -9.81]` | >= -1e+07 and <= 1e+07 | "
                                   "gravitational acceleration |\n"));
    CHECK_THAT(md, Catch::Contains("| `solver` | one of |  | `direct` | one of `direct`, `iterative` | linear solver |\n"));
    CHECK_THAT(md, Catch::Contains("| `solver.iterative` | map (alternative) |  |  |  | Preconditioned conjugate "
                                   "gradients. |\n"));
    CHECK_THAT(md, Catch::Contains("| `solver.iterative.tolerance` | real |  | `1e-08` | > 0 | relative residual "
                                   "tolerance |\n"));
    CHECK_THAT(md, Catch::Contains("| `outputs[].every` | integer |  | `1` | >= 1 | write every N steps |\n"));
    CHECK_THAT(md, Catch::Contains("| `forces` | list of typed blocks (force) |"));
    CHECK_THAT(md, Catch::Contains("| `weights` | list of reals (3 items) |  |  | >= 0 and <= 1 |"));
}

TEST_CASE("markdown escapes table separators and handles empty schemas", "[scene][docs]") {
    ParameterSchema s("pipe", "Has a | in a doc.");
    s.real("x", "a | b");
    CHECK_THAT(s.markdown(), Catch::Contains("| `x` | real |  |  |  | a \\| b |\n"));
    CHECK(ParameterSchema("nothing", "No keys.").markdown(4) == "#### `nothing`\n\nNo keys.\n\nNo parameters.\n");
}

TEST_CASE("text lists each key with its facts and doc", "[scene][docs]") {
    const std::string text = rod_schema().text();
    INFO(text);
    CHECK_THAT(text, Catch::StartsWith("rod: A test rod element.\n\n"));
    CHECK_THAT(text, Catch::Contains("  material.youngs_modulus  real [Pa], required, > 0 and <= 1e+13\n"
                                     "                           Young's modulus\n"));
    CHECK_THAT(text, Catch::Contains("  length                   real [m], default 1, > 0 and <= 1e+06\n"));
    // Columns are as wide as the longest key (`solver.iterative.tolerance` here).
    CHECK_THAT(root_schema().text(), Catch::Contains("  integrator.method           string, default implicit_euler, "
                                                     "one of implicit_euler, explicit_euler\n"));
}
