// The null-space reduction of attachments (kernel/attachment_elimination.hpp) on KKT matrices
// built by hand: its solves equal a dense LU solve of the full system, with attachments chained
// to attached DOFs too (ArtiSynth's DAG, section 0.18), the reduced matrix is P^T J P (symmetric)
// when J is symmetric, and a singular block is reported. choose_eliminated_blocks chains
// attachments in either list order and refuses a loop.
#include "attachment_elimination.hpp"
#include "constraint_set.hpp"

#include "soma/parameters.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <utility>

using namespace soma;

namespace {

/// A KKT matrix over 14 free DOFs and 8 multiplier rows: two attachments (rows 14-16, 17-19)
/// determine DOFs 3-5 and 9-11 from masters 0-2 and 6 (the first) and 0-2 (the second, sharing
/// the body's DOFs), and a kept constraint of two rows (20-21; \p kept_diagonal on its
/// diagonal: 0 hard, < 0 compliant) on DOFs 0, 4, 12 and 13. J_RS = -I and J_SR = -I as the
/// kernel's rows are (bottom-left -G_q, top-right -G_f^T); G on the masters random, G_f = G_q when
/// \p symmetric; otherwise J_RS is -0.7 I (Newmark's acceleration rows: -c_a G_f) and G_f != G_q.
/// \p chained adds DOFs 14-16 and two attachments of attached DOFs (section 0.18): DOFs 7-8 held
/// at 3, 4 (the first attachment's) and 13, and DOFs 14-16 at 7 (that one's), 9 (the second's)
/// and 12: a grandchild with two parents. They are listed first, children before parents, and
/// the kept constraint then acts on DOFs 7 and 15 too.
struct Kkt {
    Eigen::MatrixXd dense;
    std::vector<EliminatedBlock> blocks;
    Index size = 0, free = 0;
};

Kkt make_kkt(bool symmetric, double kept_diagonal, unsigned seed, bool chained = false) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    const Index nf = chained ? 17 : 14, n = chained ? nf + 13 : nf + 8;
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
    kkt.size = n;
    kkt.free = nf;
    if (chained) {
        kkt.blocks.push_back(attach(nf + 10, {14, 15, 16}, {7, 9, 12}));
        kkt.blocks.push_back(attach(nf + 8, {7, 8}, {3, 4, 13}));
    }
    kkt.blocks.push_back(attach(nf, {3, 4, 5}, {0, 1, 2, 6}));
    kkt.blocks.push_back(attach(nf + 3, {9, 10, 11}, {0, 1, 2}));
    // Chained, the kept constraint also acts on a child's and a grandchild's slaves.
    const std::vector<Index> kept_dofs = chained ? std::vector<Index>{0, 4, 7, 12, 13, 15} : std::vector<Index>{0, 4, 12, 13};
    for (Index row : {nf + 6, nf + 7}) {
        for (Index dof : kept_dofs) {
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
    for (const bool chained : {false, true})
        for (const bool symmetric : {true, false})
            for (const double kept_diagonal : {0.0, -0.01}) {
                INFO("chained " << chained << ", symmetric " << symmetric << ", kept row diagonal " << kept_diagonal);
                const Kkt kkt = make_kkt(symmetric, kept_diagonal, symmetric ? 3u : 7u, chained);
                const SparseMatrix j = sparse_of(kkt.dense);
                AttachmentElimination elimination;
                elimination.set_blocks(kkt.blocks, kkt.size);
                // No zero pivot of the attachments' multipliers is left: the kept unknowns are the
                // DOFs no attachment determines and the kept constraint's 2 rows (8 and 2 unchained,
                // 6 and 2 chained).
                CHECK(elimination.reduced_size() == (chained ? 8 : 10));
                // Parents first: each block's masters are kept or determined by a block before it.
                std::vector<char> determined(static_cast<std::size_t>(kkt.size), 0);
                for (const EliminatedBlock& block : elimination.blocks()) {
                    for (Index m : block.masters) {
                        const bool a_slave = std::any_of(kkt.blocks.begin(), kkt.blocks.end(), [&](const EliminatedBlock& o) {
                            return std::find(o.slaves.begin(), o.slaves.end(), m) != o.slaves.end();
                        });
                        CHECK((!a_slave || determined[static_cast<std::size_t>(m)]));
                    }
                    for (Index slave : block.slaves) determined[static_cast<std::size_t>(slave)] = 1;
                }
                elimination.analyze(j);
                REQUIRE(elimination.reduce(j));
                const Eigen::MatrixXd reduced = Eigen::MatrixXd(elimination.matrix());
                if (symmetric) CHECK((reduced - reduced.transpose()).norm() < 1e-13 * reduced.norm());
                const Eigen::PartialPivLU<Eigen::MatrixXd> reduced_lu(reduced), full_lu(kkt.dense);
                std::mt19937 generator(11);
                std::uniform_real_distribution<double> uniform(-1.0, 1.0);
                for (int trial = 0; trial < 3; ++trial) {
                    VectorX rhs(kkt.size);
                    for (Index i = 0; i < kkt.size; ++i) rhs[i] = uniform(generator);
                    VectorX reduced_rhs, solution;
                    elimination.reduce_rhs(rhs, reduced_rhs);
                    const VectorX reduced_solution = reduced_lu.solve(reduced_rhs);
                    elimination.expand(rhs, reduced_solution, solution);
                    const VectorX exact = full_lu.solve(rhs);
                    // Both are backward stable on matrices of condition 2e2 to 1.2e3 (measured): round-off.
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

namespace {

/// A hard three-row attachment that offers its first three DOFs (a node held at the rest), and
/// with \p alternative the next three (a joint between two nodes).
class FakeAttachment : public Constraint {
public:
    FakeAttachment(std::string name, std::vector<Index> dofs, bool alternative = false)
        : dofs_(std::move(dofs)), alternative_(alternative) {
        set_name(std::move(name));
    }
    void bind(const SceneView&) override {}
    Index row_count() const override { return 3; }
    const std::vector<Index>& dofs() const override { return dofs_; }
    void evaluate(const EvalContext&, const double*, ConstraintEvaluation&) const override {}
    EliminableColumns eliminable_columns() const override {
        EliminableColumns out;
        out.columns = {0, 1, 2};
        if (alternative_) out.alternative = {3, 4, 5};
        return out;
    }

private:
    std::vector<Index> dofs_;
    bool alternative_;
};

/// Nodes p, q and r (DOFs 0-2, 3-5, 6-8) and a body (9-14).
std::vector<Index> node(int k) { return {3 * k, 3 * k + 1, 3 * k + 2}; }
std::vector<Index> held_at(std::vector<Index> slave, const std::vector<Index>& master) {
    slave.insert(slave.end(), master.begin(), master.end());
    return slave;
}
const std::vector<Index> kBody = {9, 10, 11, 12, 13, 14};

struct Offered {
    std::string name;
    std::vector<Index> dofs;
    bool alternative = false;
};

std::vector<std::string> chosen(const std::vector<Offered>& attachments) {
    ConstraintSet set;
    for (const Offered& a : attachments) set.add(std::make_unique<FakeAttachment>(a.name, a.dofs, a.alternative), Parameters());
    std::vector<Index> free_index(15);
    for (Index i = 0; i < 15; ++i) free_index[static_cast<std::size_t>(i)] = i;
    std::vector<std::string> names;
    for (const EliminatedBlock& block : choose_eliminated_blocks(set, free_index, 15)) names.push_back(block.name);
    return names;
}

}  // namespace

TEST_CASE("attachment elimination: attachments to attached nodes are chosen in either order, a loop is not",
          "[kernel][attachments]") {
    // q held at the body, p held at q: a chain (section 0.18), whichever is listed first.
    CHECK(chosen({{"q at body", held_at(node(1), kBody)}, {"p at q", held_at(node(0), node(1))}}) ==
          std::vector<std::string>{"q at body", "p at q"});
    CHECK(chosen({{"p at q", held_at(node(0), node(1))}, {"q at body", held_at(node(1), kBody)}}) ==
          std::vector<std::string>{"p at q", "q at body"});
    // p at q, q at r, r at p: the third closes a loop and keeps its rows.
    CHECK(chosen({{"p at q", held_at(node(0), node(1))}, {"q at r", held_at(node(1), node(2))},
                  {"r at p", held_at(node(2), node(0))}}) == std::vector<std::string>{"p at q", "q at r"});
    // A node determined twice: the second keeps its rows.
    CHECK(chosen({{"p at body", held_at(node(0), kBody)}, {"p at q", held_at(node(0), node(1))}}) ==
          std::vector<std::string>{"p at body"});
    // A joint between q and p that offers p as the alternative: whichever is listed first, q is
    // eliminated with the body's joint and p with the joint between them.
    CHECK(chosen({{"q to p", held_at(node(1), node(0)), true}, {"q at body", held_at(node(1), kBody)}}) ==
          std::vector<std::string>{"q to p", "q at body"});
    CHECK(chosen({{"q to p", held_at(node(1), node(0)), false}, {"q at body", held_at(node(1), kBody)}}) ==
          std::vector<std::string>{"q to p"});
    {
        ConstraintSet set;
        set.add(std::make_unique<FakeAttachment>("q to p", held_at(node(1), node(0)), true), Parameters());
        set.add(std::make_unique<FakeAttachment>("q at body", held_at(node(1), kBody)), Parameters());
        std::vector<Index> free_index(15);
        for (Index i = 0; i < 15; ++i) free_index[static_cast<std::size_t>(i)] = i;
        const std::vector<EliminatedBlock> blocks = choose_eliminated_blocks(set, free_index, 15);
        REQUIRE(blocks.size() == 2);
        CHECK(blocks[0].slaves == node(0));  // p, by the alternative
        CHECK(blocks[0].masters == node(1));
        CHECK(blocks[1].slaves == node(1));  // q, at the body
    }
    // A joint between q and p after p at q: its first choice (q at p) closes a loop, and its
    // alternative (p) is determined already: it keeps its rows.
    CHECK(chosen({{"p at q", held_at(node(0), node(1))}, {"q to p", held_at(node(1), node(0)), true}}) ==
          std::vector<std::string>{"p at q"});
    // Chained blocks in either order factor to the same parents-first order.
    ConstraintSet set;
    set.add(std::make_unique<FakeAttachment>("p at q", held_at(node(0), node(1))), Parameters());
    set.add(std::make_unique<FakeAttachment>("q at body", held_at(node(1), kBody)), Parameters());
    std::vector<Index> free_index(15);
    for (Index i = 0; i < 15; ++i) free_index[static_cast<std::size_t>(i)] = i;
    AttachmentElimination elimination;
    elimination.set_blocks(choose_eliminated_blocks(set, free_index, 15), 15 + 6);
    REQUIRE(elimination.blocks().size() == 2);
    CHECK(elimination.blocks()[0].name == "q at body");
    CHECK(elimination.reduced_size() == 15 + 6 - 12);
}
