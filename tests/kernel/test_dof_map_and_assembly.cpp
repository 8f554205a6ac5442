// DOF numbering with shared and constrained DOFs, and the cached-pattern assembly against a
// dense reference, also after stencils change and the pattern grows.
#include "kernel_test_support.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

using namespace soma;

TEST_CASE("shared DOFs get one global index; free numbering skips constrained DOFs", "[dofs]") {
    DofMap map({6, 6});  // two elements of two 3D nodes
    for (int c = 0; c < 3; ++c) map.share(0, 3 + c, 1, c);  // element 0 node 1 == element 1 node 0
    map.finalize();
    REQUIRE(map.global_count() == 9);
    CHECK(map.element_map(0) == std::vector<Index>{0, 1, 2, 3, 4, 5});
    CHECK(map.element_map(1) == std::vector<Index>{3, 4, 5, 6, 7, 8});
    CHECK(map.owner(4) == std::pair<Index, Index>{0, 4});
    map.fix(0);
    map.prescribe(7);
    map.number_free();
    CHECK(map.free_count() == 7);
    CHECK(map.free_index()[0] == kNotFree);
    CHECK(map.free_index()[7] == kNotFree);
    CHECK(map.free_index()[8] == 6);
    CHECK(map.is_prescribed(7));
}

namespace {

/// A contributor with random dense stencils, overlapping and with repeated DOFs across stencils.
class RandomStencils final : public Contributor {
public:
    explicit RandomStencils(std::vector<std::vector<Index>> stencils) : dofs_(std::move(stencils)) {}
    /// New stencils (declared at the next declare_pattern).
    void set_stencils(std::vector<std::vector<Index>> stencils) { dofs_ = std::move(stencils); }
    void declare_pattern(PatternBuilder& p) override {
        ids_.clear();
        for (const auto& s : dofs_) ids_.push_back(p.add_stencil(s));
    }
    void add_residual_and_jacobian(const EvalContext& c, Assembly& a) override {
        for (std::size_t k = 0; k < dofs_.size(); ++k) {
            const Index n = static_cast<Index>(dofs_[k].size());
            Eigen::VectorXd f(n);
            Eigen::MatrixXd K(n, n);
            for (Index i = 0; i < n; ++i) {
                f(i) = (*c.q)[dofs_[k][i]] * (k + 1);
                for (Index j = 0; j < n; ++j) K(i, j) = 0.1 * (k + 1) + i - 2.0 * j;  // unsymmetric
            }
            a.add_residual(ids_[k], f);
            a.add_jacobian(ids_[k], K, c.coefficients.c_q);
        }
    }

private:
    std::vector<std::vector<Index>> dofs_;
    std::vector<StencilId> ids_;
};

}  // namespace

TEST_CASE("totals beyond the 32-bit Index are refused before anything is allocated", "[dofs][assembly]") {
    using Catch::Matchers::Contains;
    // Elements within the per-element limits whose DOFs together pass 2^31 - 1.
    CHECK_THROWS_WITH(DofMap({1'500'000'000, 1'500'000'000}),
                      Contains("3000000000 degrees of freedom") && Contains("32-bit indices"));
    // One stencil of 46 341 DOFs needs 46 341^2 = 2 147 488 281 scatter entries, just past 2^31 - 1:
    // refused when added, and the assembler is left as it was.
    SparseAssembler assembler;
    const std::vector<Index> small{0, 1, 2};
    assembler.add_stencil(small);
    std::vector<Index> huge(46'341);
    for (std::size_t i = 0; i < huge.size(); ++i) huge[i] = static_cast<Index>(i);
    CHECK_THROWS_WITH(assembler.add_stencil(huge), Contains("2147488290 Jacobian scatter entries"));
    CHECK(assembler.stencil_count() == 1);
    huge.pop_back();  // 46 340^2 + 9 fits
    CHECK_NOTHROW(assembler.add_stencil(huge));
    CHECK(assembler.stencil_count() == 2);
}

TEST_CASE("sparse assembly with a cached scatter map equals dense assembly on the free DOFs", "[assembly]") {
    const Index n = 12;
    std::mt19937 rng(7);
    std::uniform_int_distribution<Index> pick(0, n - 1);
    std::vector<std::vector<Index>> stencils;
    for (int s = 0; s < 20; ++s) {
        std::vector<Index> st;
        for (int k = 0; k < 1 + s % 4; ++k) {
            Index d;
            do d = pick(rng); while (std::find(st.begin(), st.end(), d) != st.end());
            st.push_back(d);
        }
        stencils.push_back(st);
    }
    RandomStencils term(stencils);
    VectorX q = VectorX::LinSpaced(n, 1.0, 2.0);
    EvalContext context;
    context.q = &q;
    context.coefficients = {2.5, 0.0, 0.0};

    soma::testing::DenseAssembly dense(n);
    term.declare_pattern(dense.pattern());
    const auto [dense_f, dense_j] = dense.evaluate(term, context);

    std::vector<Index> free_index(n);
    Index free_count = 0;
    for (Index g = 0; g < n; ++g) free_index[g] = (g % 5 == 3) ? kNotFree : free_count++;
    SparseAssembler sparse;
    term.declare_pattern(sparse);
    sparse.build(free_index, free_count);
    // Two evaluations through the same pattern: values are overwritten, not accumulated.
    for (int repeat = 0; repeat < 2; ++repeat) {
        VectorX residual = VectorX::Zero(n);
        SparseMatrix& J = sparse.jacobian();
        std::fill(J.valuePtr(), J.valuePtr() + J.nonZeros(), 0.0);
        Assembly a = sparse.assembly(residual, true);
        term.add_residual_and_jacobian(context, a);
        CHECK((residual - dense_f).norm() == Approx(0.0).margin(1e-14));
        const Eigen::MatrixXd sparse_dense = Eigen::MatrixXd(J);
        for (Index r = 0; r < n; ++r)
            for (Index c = 0; c < n; ++c) {
                if (free_index[r] == kNotFree || free_index[c] == kNotFree) continue;
                CHECK(sparse_dense(free_index[r], free_index[c]) == Approx(dense_j(r, c)).margin(1e-14));
            }
    }
    // Structural diagonal for every free DOF, even one no stencil touches.
    for (Index c = 0; c < free_count; ++c) {
        bool has_diagonal = false;
        for (SparseMatrix::InnerIterator it(sparse.jacobian(), c); it; ++it) has_diagonal |= it.row() == c;
        CHECK(has_diagonal);
    }
}

namespace {

/// `count` random stencils of 1 to 4 distinct DOFs out of n.
std::vector<std::vector<Index>> random_stencils(std::mt19937& rng, Index n, int count) {
    std::uniform_int_distribution<Index> pick(0, n - 1);
    std::vector<std::vector<Index>> stencils;
    for (int s = 0; s < count; ++s) {
        std::vector<Index> st;
        for (int k = 0; k < 1 + s % 4; ++k) {
            Index d;
            do d = pick(rng); while (std::find(st.begin(), st.end(), d) != st.end());
            st.push_back(d);
        }
        stencils.push_back(st);
    }
    return stencils;
}

/// The (row, col) entries of a CSC pattern.
std::set<std::pair<Index, Index>> entries_of(const SparseMatrix& m) {
    std::set<std::pair<Index, Index>> out;
    for (Index c = 0; c < m.outerSize(); ++c)
        for (SparseMatrix::InnerIterator it(m, c); it; ++it) out.emplace(it.row(), c);
    return out;
}

/// Assembles the terms through `sparse` (declared there already) and checks F and the free-DOF
/// J against dense assembly of terms with the same stencils.
void check_against_dense(SparseAssembler& sparse, const std::vector<RandomStencils*>& terms,
                         const std::vector<std::vector<std::vector<Index>>>& stencils,
                         const std::vector<Index>& free_index, const EvalContext& context) {
    const Index n = static_cast<Index>(free_index.size());
    VectorX dense_f = VectorX::Zero(n);
    Eigen::MatrixXd dense_j = Eigen::MatrixXd::Zero(n, n);
    for (const auto& s : stencils) {
        RandomStencils copy(s);
        soma::testing::DenseAssembly dense(n);
        copy.declare_pattern(dense.pattern());
        const auto [f, j] = dense.evaluate(copy, context);
        dense_f += f;
        dense_j += j;
    }
    VectorX residual = VectorX::Zero(n);
    SparseMatrix& J = sparse.jacobian();
    std::fill(J.valuePtr(), J.valuePtr() + J.nonZeros(), 0.0);
    Assembly a = sparse.assembly(residual, true);
    for (RandomStencils* t : terms) t->add_residual_and_jacobian(context, a);
    CHECK((residual - dense_f).norm() == Approx(0.0).margin(1e-13));
    const Eigen::MatrixXd sparse_dense = Eigen::MatrixXd(J);
    double worst = 0.0;
    for (Index r = 0; r < n; ++r)
        for (Index c = 0; c < n; ++c)
            if (free_index[r] != kNotFree && free_index[c] != kNotFree)
                worst = std::max(worst, std::abs(sparse_dense(free_index[r], free_index[c]) - dense_j(r, c)));
    CHECK(worst == Approx(0.0).margin(1e-13));  // sums of a few O(10) numbers: exact to round-off
}

}  // namespace

TEST_CASE("changed stencils: the pattern grows to the union only for new pairs, old entries kept",
          "[assembly]") {
    const Index n = 12;
    std::mt19937 rng(11);
    std::vector<Index> free_index(n);
    Index free_count = 0;
    for (Index g = 0; g < n; ++g) free_index[g] = (g % 5 == 3) ? kNotFree : free_count++;
    VectorX q = VectorX::LinSpaced(n, 1.0, 2.0);
    EvalContext context;
    context.q = &q;
    context.coefficients = {2.5, 0.0, 0.0};

    const auto steady = random_stencils(rng, n, 6);
    auto contact = std::vector<std::vector<Index>>{{0, 1}, {2, 4}};
    RandomStencils a(steady), b(contact);
    SparseAssembler sparse;
    a.declare_pattern(sparse);
    const StencilId b_first = sparse.stencil_count();
    b.declare_pattern(sparse);
    REQUIRE(sparse.place_stencils(0, free_index, free_count));  // a fresh pattern needs analysis
    check_against_dense(sparse, {&a, &b}, {steady, contact}, free_index, context);
    const auto initial = entries_of(sparse.jacobian());

    SECTION("stencils over pairs already present: same pattern, no analysis") {
        // A subset of the old pairs, a stencil over one DOF, and one reaching a fixed DOF (3)
        // whose only free pair (2, 2) is a diagonal entry.
        contact = {{1, 0}, {4}, {2, 3}};
        sparse.truncate(b_first);
        b.set_stencils(contact);
        b.declare_pattern(sparse);
        CHECK_FALSE(sparse.place_stencils(b_first, free_index, free_count));
        CHECK(entries_of(sparse.jacobian()) == initial);
        check_against_dense(sparse, {&a, &b}, {steady, contact}, free_index, context);
        // Vanished: no stencil at all.
        sparse.truncate(b_first);
        b.set_stencils({});
        b.declare_pattern(sparse);
        CHECK_FALSE(sparse.place_stencils(b_first, free_index, free_count));
        check_against_dense(sparse, {&a, &b}, {steady, {}}, free_index, context);
    }
    SECTION("a new pair: the union, with the earlier stencils' values moved") {
        // The first pair of free DOFs the pattern does not hold yet.
        Index u = -1, w = -1;
        for (Index i = 0; i < n && u < 0; ++i)
            for (Index j = i + 1; j < n && u < 0; ++j)
                if (free_index[i] != kNotFree && free_index[j] != kNotFree &&
                    initial.count({free_index[i], free_index[j]}) == 0) {
                    u = i;
                    w = j;
                }
        REQUIRE(u >= 0);
        contact = {{u, w}, {0, 1}};
        sparse.truncate(b_first);
        b.set_stencils(contact);
        b.declare_pattern(sparse);
        REQUIRE(sparse.place_stencils(b_first, free_index, free_count));
        const auto grown = entries_of(sparse.jacobian());
        CHECK(std::includes(grown.begin(), grown.end(), initial.begin(), initial.end()));
        CHECK(grown.count({free_index[u], free_index[w]}) == 1);
        CHECK(grown.count({free_index[w], free_index[u]}) == 1);
        CHECK(grown.size() == initial.size() + 2);  // (u, w) and (w, u): (0, 1) was there
        check_against_dense(sparse, {&a, &b}, {steady, contact}, free_index, context);
        // Back to the first stencils: every pair is present.
        contact = {{0, 1}, {2, 4}};
        sparse.truncate(b_first);
        b.set_stencils(contact);
        b.declare_pattern(sparse);
        CHECK_FALSE(sparse.place_stencils(b_first, free_index, free_count));
        CHECK(entries_of(sparse.jacobian()) == grown);
        check_against_dense(sparse, {&a, &b}, {steady, contact}, free_index, context);
    }
    SECTION("a contributor that is not the last declares again after the others") {
        // a's old stencils stay in the tables unused; its new ones are appended after b's.
        const auto moved = random_stencils(rng, n, 5);
        const StencilId appended = sparse.stencil_count();
        a.set_stencils(moved);
        a.declare_pattern(sparse);
        sparse.place_stencils(appended, free_index, free_count);
        const auto grown = entries_of(sparse.jacobian());
        CHECK(std::includes(grown.begin(), grown.end(), initial.begin(), initial.end()));
        check_against_dense(sparse, {&a, &b}, {moved, contact}, free_index, context);
    }
}

TEST_CASE("a pair sweeping along the DOFs: the pattern is rebuilt when unused entries outnumber used ones",
          "[assembly]") {
    // A contact pair that slides along a chain (stencil {k, k+1} at step k) would leave every pair
    // it passed in a union pattern: 2 (n - 1) off-diagonal entries. Rebuilt when more than a fifth
    // of its entries are ones no stencil writes, it stays within 5/4 of the live entries.
    const Index n = 40;
    std::vector<Index> free_index(n);
    for (Index g = 0; g < n; ++g) free_index[g] = g;
    VectorX q = VectorX::LinSpaced(n, 1.0, 2.0);
    EvalContext context;
    context.q = &q;
    context.coefficients = {2.5, 0.0, 0.0};
    std::vector<std::vector<Index>> singles;
    for (Index g = 0; g < n; ++g) singles.push_back({g});
    std::vector<std::vector<Index>> pair{{0, 1}};
    RandomStencils masses(singles), contact(pair);
    SparseAssembler sparse;
    masses.declare_pattern(sparse);
    const StencilId contact_first = sparse.stencil_count();
    contact.declare_pattern(sparse);
    sparse.place_stencils(0, free_index, n);
    int rebuilds = 0;
    for (Index k = 1; k + 1 < n; ++k) {
        pair = {{k, k + 1}};
        sparse.truncate(contact_first);
        contact.set_stencils(pair);
        contact.declare_pattern(sparse);
        const auto before = sparse.jacobian().nonZeros();
        REQUIRE(sparse.place_stencils(contact_first, free_index, n));  // a new pair each step
        rebuilds += sparse.jacobian().nonZeros() < before;
        // Live: n diagonal entries and the pair's two. Rebuilt past 5/4 of that, right after a growth.
        CHECK(4 * sparse.jacobian().nonZeros() <= 5 * (n + 2));
        CHECK(entries_of(sparse.jacobian()).count({k, k + 1}) == 1);
        check_against_dense(sparse, {&masses, &contact}, {singles, pair}, free_index, context);
    }
    // Each rebuild leaves n + 2 = 42 entries; growth by 2 per step passes 5/4 of that (52.5)
    // after 6 steps: 38 steps / 6 = 6 rebuilds over the sweep.
    CHECK(rebuilds >= 5);
    CHECK(rebuilds <= 7);
}
