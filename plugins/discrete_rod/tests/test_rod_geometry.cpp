// Rod geometry generators and cross-section constants.
#include "cross_section.hpp"
#include "rod_geometry.hpp"

#include "soma/input_limits.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace soma;
using namespace soma::rod;

TEST_CASE("line nodes are equally spaced from `from` to `to`", "[discrete_rod][geometry]") {
    const auto x = line_nodes(Vec3(0, 0, 0), Vec3(1, 2, 2), 4);
    REQUIRE(x.size() == 4);
    CHECK((x[3] - Vec3(1, 2, 2)).norm() < 1e-15);
    for (int i = 0; i < 3; ++i) CHECK((x[i + 1] - x[i]).norm() == Approx(1.0).epsilon(1e-14));
    CHECK_THROWS_AS(line_nodes(Vec3(0, 0, 0), Vec3(1, 0, 0), 2), std::invalid_argument);
    CHECK_THROWS_AS(line_nodes(Vec3(1, 0, 0), Vec3(1, 0, 0), 5), std::invalid_argument);
}

TEST_CASE("helix nodes lie on the helix about z", "[discrete_rod][geometry]") {
    const Vec3 c(1.0, -1.0, 0.5);
    const auto x = helix_nodes(c, 0.2, 0.05, 2.0, 41);
    REQUIRE(x.size() == 41);
    for (const Vec3& p : x) CHECK(std::hypot(p.x() - c.x(), p.y() - c.y()) == Approx(0.2).epsilon(1e-14));
    CHECK(x.back().z() - c.z() == Approx(2.0 * 0.05).epsilon(1e-14));  // rise = turns * pitch
    CHECK((x.back() - x.front() - Vec3(0, 0, 0.1)).norm() < 1e-14);     // whole turns: same angle
    CHECK_THROWS_AS(helix_nodes(c, 0.0, 0.1, 1.0, 10), std::invalid_argument);
}

TEST_CASE("coordinates list and xyz text become nodes", "[discrete_rod][geometry]") {
    const std::vector<double> flat{0, 0, 0, 1, 0, 0, 1, 1, 0};
    const auto x = nodes_from_coordinates(flat);
    REQUIRE(x.size() == 3);
    CHECK(x[2] == Vec3(1, 1, 0));
    CHECK_THROWS_AS(nodes_from_coordinates(std::vector<double>{0, 0, 0, 1, 0, 0, 1}), std::invalid_argument);
    CHECK_THROWS_AS(nodes_from_coordinates(std::vector<double>{0, 0, 0, 1, 0, 0}), std::invalid_argument);

    std::istringstream text("# a comment\n0 0 0\n\n1.5, 0, 0  # trailing\n 2,1,0\n3 1 1\n");
    const auto y = read_xyz_nodes(text, "test.xyz");
    REQUIRE(y.size() == 4);
    CHECK(y[1] == Vec3(1.5, 0, 0));
    CHECK(y[3] == Vec3(3, 1, 1));

    std::istringstream bad("0 0 0\n1 0\n2 0 0\n");
    try {
        read_xyz_nodes(bad, "bad.xyz");
        FAIL("expected an error");
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()).find("bad.xyz:2") != std::string::npos);
    }
    std::istringstream word("0 0 0\n1 zero 0\n2 0 0\n");
    CHECK_THROWS_AS(read_xyz_nodes(word, "w.xyz"), std::invalid_argument);
    CHECK_THROWS_AS(read_xyz_file("/nonexistent/rod.xyz"), std::invalid_argument);
}

// Issue 8 item 3: a line of 1e9 or 2^31 nodes allocated gigabytes before failing.
TEST_CASE("generators refuse more nodes than the maximum before allocating", "[discrete_rod][geometry][limits]") {
    const std::string tail = " nodes, above the maximum of 4000000 nodes per element (docs/reliability.md, Input "
                             "limits): use fewer nodes";
    CHECK_THROWS_WITH(line_nodes(Vec3(0, 0, 0), Vec3(1, 0, 0), 2147483648L), "asks for 2147483648" + tail);
    CHECK_THROWS_WITH(line_nodes(Vec3(0, 0, 0), Vec3(1, 0, 0), 1000000000L), "asks for 1000000000" + tail);
    CHECK_THROWS_WITH(helix_nodes(Vec3(0, 0, 0), 0.1, 0.1, 1.0, 10000000L), "asks for 10000000" + tail);
    CHECK(line_nodes(Vec3(0, 0, 0), Vec3(1, 0, 0), kMaxNodesPerElement).size() == 4000000u);  // the maximum itself
}

TEST_CASE("an xyz file is refused at the point beyond the maximum", "[discrete_rod][geometry][limits]") {
    std::istringstream four("0 0 0\n1 0 0\n# a comment\n2 0 0\n3 0 0\n");
    CHECK_THROWS_WITH(read_xyz_nodes(four, "four.xyz", 3),
                      "four.xyz:5: the file has more than 3 points, the maximum of nodes per element "
                      "(docs/reliability.md, Input limits): use fewer nodes");
    std::istringstream three("0 0 0\n1 0 0\n2 0 0\n");
    CHECK(read_xyz_nodes(three, "three.xyz", 3).size() == 3);
}

TEST_CASE("xyz numbers are decimal: no hexadecimal, no trailing text", "[discrete_rod][geometry][limits]") {
    std::istringstream hex("0 0 0\n0x10 0 0\n2 0 0\n");
    CHECK_THROWS_WITH(read_xyz_nodes(hex, "hex.xyz"), "hex.xyz:2: '0x10' is not a number");
    std::istringstream junk("0 0 0\n1.5m 0 0\n2 0 0\n");
    CHECK_THROWS_WITH(read_xyz_nodes(junk, "junk.xyz"), "junk.xyz:2: '1.5m' is not a number");
    std::istringstream signs("+0 0 0\n-1 +1e-3 0\n2 0 .5\n");
    CHECK(read_xyz_nodes(signs, "signs.xyz")[1] == Vec3(-1, 1e-3, 0));
}

TEST_CASE("cross-section constants", "[discrete_rod][geometry]") {
    const double r = 0.01;
    const CrossSection c = circular_cross_section(r);
    CHECK(c.area == Approx(std::numbers::pi * r * r));
    CHECK(c.second_moment1 == Approx(std::numbers::pi * std::pow(r, 4) / 4.0));
    CHECK(c.torsion_constant == Approx(std::numbers::pi * std::pow(r, 4) / 2.0));  // not the pi r^2/2 printed after MAT-DiSMech eq. 16
    CHECK(c.contact_radius == r);
    // MAT-DiSMech §7.2 cantilever section (reference code) b = 0.02, h = 0.001.
    const CrossSection s = rectangular_cross_section(0.02, 0.001);
    CHECK(s.area == Approx(2e-5));
    CHECK(s.second_moment1 == Approx(0.02 * 1e-9 / 12.0));
    CHECK(s.second_moment2 == Approx(0.001 * 8e-6 / 12.0));
    CHECK(s.torsion_constant == Approx(0.02 * 1e-9 / 6.0));
    CHECK(s.contact_radius == Approx(0.0005));
    CHECK(rectangular_cross_section(0.02, 0.001, 1.0e-11).torsion_constant == 1.0e-11);
}
