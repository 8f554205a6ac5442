// The broad phase (broad_phase.hpp) returns exactly the overlapping pairs that testing every
// pair finds, for crowded, sparse, degenerate and very unequal boxes.
#include "box_tree.hpp"
#include "broad_phase.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace soma;
using namespace soma::imc_contact;

namespace {

std::vector<std::pair<Index, Index>> all_pairs(const std::vector<Box>& boxes) {
    std::vector<std::pair<Index, Index>> pairs;
    for (Index i = 0; i < static_cast<Index>(boxes.size()); ++i)
        for (Index j = i + 1; j < static_cast<Index>(boxes.size()); ++j)
            if (boxes[i].overlaps(boxes[j])) pairs.emplace_back(i, j);
    return pairs;
}

std::vector<Box> random_boxes(std::mt19937& rng, int count, double world, double size) {
    std::uniform_real_distribution<double> where(0.0, world), extent(0.0, size);
    std::vector<Box> boxes;
    for (int i = 0; i < count; ++i) {
        const Vec3 low(where(rng), where(rng), where(rng));
        boxes.push_back({low, low + Vec3(extent(rng), extent(rng), extent(rng))});
    }
    return boxes;
}

}  // namespace

TEST_CASE("the grid finds every overlapping pair and no other", "[imc][broad_phase]") {
    std::mt19937 rng(3);
    BoxGrid grid;
    std::vector<std::pair<Index, Index>> pairs;
    SECTION("crowded and sparse random boxes") {
        for (double world : {0.5, 2.0, 20.0}) {
            const auto boxes = random_boxes(rng, 400, world, 0.3);
            grid.overlapping_pairs(boxes, pairs);
            CHECK(pairs == all_pairs(boxes));
        }
    }
    SECTION("a few boxes far longer than the rest (kept out of the grid)") {
        auto boxes = random_boxes(rng, 300, 5.0, 0.1);
        boxes.push_back({Vec3(0, 0, 0), Vec3(5, 5, 5)});
        boxes.push_back({Vec3(1, 2, 0), Vec3(1.05, 2.05, 5)});
        grid.overlapping_pairs(boxes, pairs);
        CHECK(pairs == all_pairs(boxes));
    }
    SECTION("flat boxes (a planar scene) and touching faces") {
        std::vector<Box> boxes;
        for (int i = 0; i < 50; ++i) boxes.push_back({Vec3(0.1 * i, 0, 0), Vec3(0.1 * (i + 1), 0.1, 0)});
        grid.overlapping_pairs(boxes, pairs);
        CHECK(pairs.size() == 49);  // each box touches the next at a face
        CHECK(pairs == all_pairs(boxes));
    }
    SECTION("fewer than two boxes") {
        grid.overlapping_pairs({}, pairs);
        CHECK(pairs.empty());
        grid.overlapping_pairs({Box{Vec3::Zero(), Vec3::Ones()}}, pairs);
        CHECK(pairs.empty());
    }
}

TEST_CASE("the grid tests far fewer pairs than all pairs on a long rod", "[imc][broad_phase]") {
    // 20 000 unit boxes along a line: all pairs would be 2e8 tests; the grid finds the 19 999
    // neighbours. This bounds the work through the result only (no timing in tests).
    std::vector<Box> boxes;
    for (int i = 0; i < 20000; ++i) boxes.push_back({Vec3(i, 0, 0), Vec3(i + 1, 1, 1)});
    BoxGrid grid;
    std::vector<std::pair<Index, Index>> pairs;
    grid.overlapping_pairs(boxes, pairs);
    std::vector<std::pair<Index, Index>> neighbours;
    for (Index i = 0; i < 19999; ++i) neighbours.emplace_back(i, i + 1);
    CHECK(pairs == neighbours);
}

TEST_CASE("the grid finds every overlapping pair across two sets and none within either", "[imc][broad_phase]") {
    std::mt19937 rng(9);
    BoxGrid grid;
    std::vector<std::pair<Index, Index>> pairs;
    const auto across = [](const std::vector<Box>& a, const std::vector<Box>& b) {
        std::vector<std::pair<Index, Index>> expected;
        for (Index i = 0; i < static_cast<Index>(a.size()); ++i)
            for (Index j = 0; j < static_cast<Index>(b.size()); ++j)
                if (a[i].overlaps(b[j])) expected.emplace_back(i, j);
        return expected;
    };
    for (double world : {0.5, 2.0, 20.0}) {
        // Small points against larger triangles, as node-triangle pairs are.
        const auto points = random_boxes(rng, 300, world, 0.05);
        auto triangles = random_boxes(rng, 200, world, 0.4);
        triangles.push_back({Vec3::Zero(), Vec3::Constant(world)});  // one far larger than a cell
        grid.overlapping_pairs(points, triangles, pairs);
        CHECK(pairs == across(points, triangles));
        grid.overlapping_pairs(triangles, points, pairs);
        CHECK(pairs == across(triangles, points));
    }
    grid.overlapping_pairs({}, random_boxes(rng, 3, 1.0, 0.1), pairs);
    CHECK(pairs.empty());
}

TEST_CASE("the box tree (FCL) finds every overlapping pair, within a set and across two, as boxes move",
          "[imc][broad_phase]") {
    std::mt19937 rng(21);
    BoxTree first, second;
    std::vector<std::pair<Index, Index>> pairs;
    const auto across = [](const std::vector<Box>& a, const std::vector<Box>& b) {
        std::vector<std::pair<Index, Index>> expected;
        for (Index i = 0; i < static_cast<Index>(a.size()); ++i)
            for (Index j = 0; j < static_cast<Index>(b.size()); ++j)
                if (a[i].overlaps(b[j])) expected.emplace_back(i, j);
        return expected;
    };
    // The same objects moved to new boxes each round (a step), then a new count (a new set).
    for (int count : {300, 300, 300, 120}) {
        const auto a = random_boxes(rng, count, 2.0, 0.3);
        const auto b = random_boxes(rng, count / 2, 2.0, 0.5);
        first.set_boxes(a);
        second.set_boxes(b);
        REQUIRE(first.size() == a.size());
        first.overlapping_pairs(pairs);
        CHECK(pairs == all_pairs(a));
        first.overlapping_pairs(second, pairs);
        CHECK(pairs == across(a, b));
        second.overlapping_pairs(first, pairs);
        CHECK(pairs == across(b, a));
    }
    // Touching faces overlap, as Box::overlaps says; empty sets give nothing.
    std::vector<Box> row;
    for (int i = 0; i < 20; ++i) row.push_back({Vec3(0.1 * i, 0, 0), Vec3(0.1 * (i + 1), 0.1, 0.1)});
    first.set_boxes(row);
    first.overlapping_pairs(pairs);
    CHECK(pairs == all_pairs(row));
    CHECK(pairs.size() == 19);
    second.set_boxes({});
    first.overlapping_pairs(second, pairs);
    CHECK(pairs.empty());
}
