// DOF numbering with shared and constrained DOFs, and the cached-pattern assembly against a
// dense reference.
#include "kernel_test_support.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <random>

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
