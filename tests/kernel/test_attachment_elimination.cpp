// The null-space reduction of attachments (kernel/attachment_elimination.hpp) on KKT matrices
// built by hand: its solves equal a dense LU solve of the full system, the reduced matrix is
// P^T J P (symmetric) when J is symmetric, and a singular block is reported.
#include "attachment_elimination.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <random>

using namespace soma;

namespace {

/// A KKT matrix over 14 free DOFs and 8 multiplier rows: two attachments (rows 14-16, 17-19)
/// determine DOFs 3-5 and 9-11 from masters 0-2 and 6 (the first) and 0-2 (the second, sharing
/// the body's DOFs), and a kept constraint of two rows (20-21; \p kept_diagonal on its
/// diagonal: 0 hard, < 0 compliant) on DOFs 0, 4, 12 and 13. J_RS = -I and J_SR = -I as the
/// kernel's rows are (bottom-left -G_q, top-right -G_f^T); G on the masters random, G_f = G_q when
/// \p symmetric; otherwise J_RS is -0.7 I (Newmark's acceleration rows: -c_a G_f) and G_f != G_q.
struct Kkt {
    Eigen::MatrixXd dense;
    std::vector<EliminatedBlock> blocks;
};

Kkt make_kkt(bool symmetric, double kept_diagonal, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    const Index nf = 14, n = 22;
    Eigen::MatrixXd j = Eigen::MatrixXd::Zero(n, n);
    // A: SPD with a sparse coupling, plus an unsymmetric part when asked.
    Eigen::MatrixXd b = Eigen::MatrixXd::Zero(nf, nf);
    for (Index r = 0; r < nf; ++r)
        for (Index c = 0; c < nf; ++c)
            if (std::abs(r - c) <= 2 || (r < 3 && c >= 3) || (c < 3 && r >= 3)) b(r, c) = uniform(generator);
    j.topLeftCorner(nf, nf) = b * b.transpose() + 5.0 * Eigen::MatrixXd::Identity(nf, nf);
    if (!symmetric)
        for (Index r = 0; r < nf; ++r)
            for (Index c = 0; c < nf; ++c)
                if (j(r, c) != 0.0 && r != c) j(r, c) += 0.1 * uniform(generator);
    const double row_scale = symmetric ? 1.0 : 0.7;
    const auto attach = [&](Index first_row, std::vector<Index> slaves, std::vector<Index> masters) {
        for (std::size_t a = 0; a < slaves.size(); ++a) {
            const Index row = first_row + static_cast<Index>(a);
            j(row, slaves[a]) = -row_scale;
            j(slaves[a], row) = -1.0;
            for (Index m : masters) {
                const double g = uniform(generator);
                j(row, m) = -row_scale * g;
                j(m, row) = symmetric ? -g : -(g + 0.3 * uniform(generator));
            }
        }
        std::vector<Index> rows;
        for (std::size_t a = 0; a < slaves.size(); ++a) rows.push_back(first_row + static_cast<Index>(a));
        return EliminatedBlock{0, "attachment", rows, slaves, masters};
    };
    Kkt kkt;
    kkt.blocks.push_back(attach(14, {3, 4, 5}, {0, 1, 2, 6}));
    kkt.blocks.push_back(attach(17, {9, 10, 11}, {0, 1, 2}));
    for (Index row : {20, 21}) {
        for (Index dof : {0, 4, 12, 13}) {
            const double g = uniform(generator);
            j(row, dof) = -g;
            j(dof, row) = symmetric ? -g : -(g + 0.2 * uniform(generator));
        }
        j(row, row) = kept_diagonal;
    }
    kkt.dense = j;
    return kkt;
}

SparseMatrix sparse_of(const Eigen::MatrixXd& dense) {
    SparseMatrix s = dense.sparseView();
    s.makeCompressed();
    return s;
}

}  // namespace

TEST_CASE("attachment elimination: the reduced solve equals the full KKT solve", "[kernel][attachments]") {
    for (const bool symmetric : {true, false})
        for (const double kept_diagonal : {0.0, -0.01}) {
            INFO("symmetric " << symmetric << ", kept row diagonal " << kept_diagonal);
            const Kkt kkt = make_kkt(symmetric, kept_diagonal, symmetric ? 3u : 7u);
            const SparseMatrix j = sparse_of(kkt.dense);
            AttachmentElimination elimination;
            elimination.set_blocks(kkt.blocks, 22);
            CHECK(elimination.reduced_size() == 22 - 12);
            elimination.analyze(j);
            REQUIRE(elimination.reduce(j));
            const Eigen::MatrixXd reduced = Eigen::MatrixXd(elimination.matrix());
            // No zero pivot of the attachments' multipliers is left: the kept unknowns are the 8
            // DOFs and the kept constraint's 2 rows.
            if (symmetric) CHECK((reduced - reduced.transpose()).norm() < 1e-13 * reduced.norm());
            const Eigen::PartialPivLU<Eigen::MatrixXd> reduced_lu(reduced), full_lu(kkt.dense);
            std::mt19937 generator(11);
            std::uniform_real_distribution<double> uniform(-1.0, 1.0);
            for (int trial = 0; trial < 3; ++trial) {
                VectorX rhs(22);
                for (Index i = 0; i < 22; ++i) rhs[i] = uniform(generator);
                VectorX reduced_rhs, solution;
                elimination.reduce_rhs(rhs, reduced_rhs);
                const VectorX reduced_solution = reduced_lu.solve(reduced_rhs);
                elimination.expand(rhs, reduced_solution, solution);
                const VectorX exact = full_lu.solve(rhs);
                // Both are backward stable on matrices of condition ~1e2-1e3: round-off.
                CHECK((solution - exact).norm() < 1e-12 * exact.norm());
                CHECK((kkt.dense * solution - rhs).norm() < 1e-12 * rhs.norm());
            }
        }
}

TEST_CASE("attachment elimination: the reduced matrix follows J's values, and a singular block is reported",
          "[kernel][attachments]") {
    Kkt kkt = make_kkt(true, 0.0, 5u);
    SparseMatrix j = sparse_of(kkt.dense);
    AttachmentElimination elimination;
    elimination.set_blocks(kkt.blocks, 22);
    elimination.analyze(j);
    REQUIRE(elimination.reduce(j));
    // New values on the same pattern (a later Newton iterate): the plan is reused.
    for (Index k = 0; k < j.nonZeros(); ++k) j.valuePtr()[k] *= 1.5;
    REQUIRE(elimination.reduce(j));
    const Eigen::MatrixXd scaled = Eigen::MatrixXd(j);
    VectorX rhs = VectorX::LinSpaced(22, -1.0, 1.0), reduced_rhs, solution;
    elimination.reduce_rhs(rhs, reduced_rhs);
    const VectorX reduced_solution = Eigen::PartialPivLU<Eigen::MatrixXd>(Eigen::MatrixXd(elimination.matrix())).solve(reduced_rhs);
    elimination.expand(rhs, reduced_solution, solution);
    CHECK((scaled * solution - rhs).norm() < 1e-12 * rhs.norm());
    // The first attachment's rows no longer determine DOF 3.
    kkt.dense(14, 3) = 0.0;
    const SparseMatrix singular = sparse_of(kkt.dense);
    AttachmentElimination broken;
    broken.set_blocks(kkt.blocks, 22);
    SparseMatrix pattern = j;  // the full pattern (entry (14, 3) stored as an explicit zero)
    for (Index c = 0; c < pattern.outerSize(); ++c)
        for (SparseMatrix::InnerIterator it(pattern, c); it; ++it) it.valueRef() = singular.coeff(it.row(), it.col());
    broken.analyze(pattern);
    CHECK(!broken.reduce(pattern));
    CHECK_THAT(broken.error(), Catch::Contains("'attachment'") && Catch::Contains("eliminate: false"));
}
