// Branch-induced sparsity of the inverse dynamics' derivative pass (column_ranges.hpp): the
// column sets of the hybrid tree, the exact zeros they promise, their widening by a load that
// couples two branches, and the same derivatives from a data struct reused across calls.
#include "closed_chain.hpp"
#include "column_ranges.hpp"
#include "gvs_test_trees.hpp"
#include "inverse_dynamics.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using namespace soma;
using namespace soma::gvs;
using namespace soma::gvs::testing;

namespace {

std::vector<std::pair<Index, Index>> ranges_of(const ColumnRanges& columns) {
    std::vector<std::pair<Index, Index>> out;
    for (const ColumnRange& r : columns) out.emplace_back(r.first, r.count);
    return out;
}

using Ranges = std::vector<std::pair<Index, Index>>;

}  // namespace

TEST_CASE("ColumnRanges: sorted, disjoint ranges; overlapping and adjacent ones merge", "[gvs]") {
    ColumnRanges set;
    set.add(10, 3);  // [10, 13)
    set.add(2, 2);   // [2, 4)
    set.add(0, 0);   // empty: nothing
    CHECK(ranges_of(set) == Ranges{{2, 2}, {10, 3}});
    set.add(13, 2);  // adjacent to [10, 13): one range [10, 15)
    CHECK(ranges_of(set) == Ranges{{2, 2}, {10, 5}});
    set.add(6, 1);
    set.add(3, 9);  // [3, 12) bridges [2, 4), [6, 7) and [10, 15)
    CHECK(ranges_of(set) == Ranges{{2, 13}});
    CHECK(set.column_count() == 13);
    CHECK(set.contains(Index{2}));
    CHECK(set.contains(Index{14}));
    CHECK_FALSE(set.contains(Index{15}));

    ColumnRanges inside, straddling, empty;
    inside.add(4, 3);
    inside.add(12, 1);
    straddling.add(14, 2);  // [14, 16): column 15 is missing
    CHECK(set.contains(inside));
    CHECK_FALSE(set.contains(straddling));
    CHECK(set.contains(empty));
    CHECK_THROWS_AS(set.add(-1, 2), std::invalid_argument);

    // A copy keeps the capacity reserved for later add() calls (std::vector's copy would not).
    ColumnRanges reserved;
    reserved.reserve(8);
    reserved.add(1, 2);
    const ColumnRanges copied(reserved);
    CHECK(copied.capacity() >= 8);
    CHECK(ranges_of(copied) == Ranges{{1, 2}});
    ColumnRanges assigned;
    assigned = reserved;
    CHECK(assigned.capacity() >= 8);
    CHECK(ranges_of(assigned) == Ranges{{1, 2}});
}

TEST_CASE("GVS inverse dynamics: each point's blocks live in its path's and subtree's columns", "[gvs][rnea]") {
    // The hybrid tree: hinge q[0] -> body (point 3) -> spherical q[1, 4) -> link (point 5);
    // rod a q[4, 10) (points 6-10) and rod b q[10, 15) (points 11-15) both hang from the body.
    std::mt19937 rng(21);
    const HybridTree tree(rng);
    const Index n = tree.n;
    MultibodyData data(tree.model);
    const Index rod_a_point = HybridTree::rod_a_first + 2, rod_b_point = HybridTree::rod_b_first + 2;
    CHECK(ranges_of(data.path_columns[static_cast<std::size_t>(rod_a_point)]) == Ranges{{0, 1}, {4, 6}});
    CHECK(ranges_of(data.path_columns[static_cast<std::size_t>(HybridTree::link_point)]) == Ranges{{0, 4}});
    CHECK(ranges_of(data.subtree_columns[static_cast<std::size_t>(HybridTree::body_point)]) == Ranges{{1, 14}});
    CHECK(ranges_of(data.subtree_columns[static_cast<std::size_t>(rod_a_point)]) == Ranges{{4, 6}});
    CHECK(ranges_of(data.subtree_columns[0]) == Ranges{{0, n}});
    // No load: U^S + P^S needs no more than the subtree.
    CHECK(ranges_of(data.load_columns[static_cast<std::size_t>(rod_a_point)]) == Ranges{{4, 6}});

    const VectorX q = random_vector(n, rng, 0.5), qdot = random_vector(n, rng, 1.0), qddot = random_vector(n, rng, 1.0);
    const Vec3 gravity(0.0, 0.0, -9.81);
    inverse_dynamics_derivatives(tree.model, data, q, qdot, qddot, gravity);
    // A point's Jacobian is exactly zero outside its path; the sibling rods' blocks of M, dID/dq
    // and dID/dqdot, and the rods' against the spherical joint's, are exactly zero, while each
    // rod's block against the hinge above it is not.
    const Matrix6X& jacobian = data.s_b[static_cast<std::size_t>(rod_a_point)];
    CHECK(jacobian.middleCols(1, 3).isZero(0.0));
    CHECK(jacobian.middleCols(10, 5).isZero(0.0));
    CHECK_FALSE(jacobian.col(0).isZero(0.0));
    for (const Eigen::MatrixXd* block : {&data.mass, &data.did_dq, &data.did_dqdot}) {
        CHECK(block->block(4, 10, 6, 5).isZero(0.0));
        CHECK(block->block(10, 4, 5, 6).isZero(0.0));
        CHECK(block->block(1, 4, 3, 6).isZero(0.0));
        CHECK_FALSE(block->block(4, 0, 6, 1).isZero(0.0));
    }

    // A spherical loop joint between the two rods couples them: its wrench at rod a's point
    // depends on rod b's coordinates, so the point's load columns widen to rod b's path, as do
    // its ancestors' up to the body, and dID/dq gains the rod a x rod b block.
    ClosedChainModel chains;
    LoopJoint ball;
    ball.point_a = rod_a_point;
    ball.point_b = rod_b_point;
    ball.constrained = spherical_directions();
    add_loop_joint(chains, tree.model, ball);
    ClosedChainData chain_data(tree.model, chains);
    chain_data.lambda = random_vector(chains.row_count, rng, 1.0);
    const ConstraintWrenches wrenches(chains, chain_data);
    MultibodyData reused(tree.model);
    inverse_dynamics_derivatives(tree.model, reused, q, qdot, qddot, gravity, &wrenches);
    CHECK(ranges_of(reused.load_columns[static_cast<std::size_t>(rod_a_point)]) == Ranges{{0, 1}, {4, 11}});
    CHECK(ranges_of(reused.load_columns[static_cast<std::size_t>(HybridTree::body_point)]) == Ranges{{0, 15}});
    CHECK(ranges_of(reused.load_columns[static_cast<std::size_t>(HybridTree::rod_a_first + 4)]) == Ranges{{4, 6}});
    CHECK_FALSE(reused.did_dq.block(4, 10, 6, 5).isZero(0.0));
    CHECK(reused.mass.block(4, 10, 6, 5).isZero(0.0));  // the loads do not touch M

    // The same data, reused without the loads at another state, gives what a fresh one gives:
    // nothing is left over in the widened columns.
    const VectorX q2 = random_vector(n, rng, 0.5), qdot2 = random_vector(n, rng, 1.0);
    MultibodyData fresh(tree.model);
    inverse_dynamics_derivatives(tree.model, reused, q2, qdot2, qddot, gravity);
    inverse_dynamics_derivatives(tree.model, fresh, q2, qdot2, qddot, gravity);
    CHECK(reused.did_dq == fresh.did_dq);
    CHECK(reused.did_dqdot == fresh.did_dqdot);
    CHECK(reused.mass == fresh.mass);
    CHECK(reused.id == fresh.id);
}
