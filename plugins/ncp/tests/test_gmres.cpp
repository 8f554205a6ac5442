// GMRES with two-sided Jacobi preconditioning (gmres.hpp) on unsymmetric systems, the Schur
// complements of ncp_newton's exact friction Jacobian: it reaches the LU solution, its reported
// P-norm residual is the true one and never rises, n iterations solve an n x n system, an early
// stop returns the best iterate so far (where the conjugate residual method, which assumes
// symmetry, stalls), and repeated solves reuse the workspace's memory.
#include "../gmres.hpp"

#include "seeded_uniform.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <vector>

namespace {

using soma::ncp::testing::uniform;
using soma::VectorX;
using soma::ncp::gmres;
using soma::ncp::GmresWorkspace;
using soma::ncp::KrylovOptions;
using soma::ncp::KrylovReport;

/// A = S + K + D (n x n): S symmetric positive definite (eigenvalues log-uniform over [1e-2, 1e1]),
/// K skew (entries up to \p skew), D a positive diagonal of varying size (so Jacobi scaling
/// matters). Its eigenvalues lie in the right half-plane, as the Schur complements' do.
struct UnsymmetricSystem {
    Eigen::MatrixXd a;
    VectorX inverse_diagonal, rhs;

    UnsymmetricSystem(unsigned seed, int n, double skew) {
        std::mt19937 random(seed);
        Eigen::MatrixXd m(n, n), k(n, n);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                m(i, j) = uniform(random, -1.0, 1.0);
                k(i, j) = uniform(random, -skew, skew);
            }
        const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(m).householderQ();
        VectorX lambda(n);
        for (int i = 0; i < n; ++i) lambda[i] = std::pow(10.0, -2.0 + 3.0 * i / (n - 1));
        a = q * lambda.asDiagonal() * q.transpose() + 0.5 * (k - k.transpose());
        for (int i = 0; i < n; ++i) a(i, i) += uniform(random, 0.0, 5.0);
        inverse_diagonal = a.diagonal().cwiseInverse();
        rhs.resize(n);
        for (int i = 0; i < n; ++i) rhs[i] = uniform(random, -1.0, 1.0);
    }
    auto apply() const {
        return [this](const VectorX& in, VectorX& out) { out.noalias() = a * in; };
    }
    double p_norm_residual(const VectorX& x) const {
        const VectorX r = rhs - a * x;
        return std::sqrt(r.dot(inverse_diagonal.cwiseProduct(r)));
    }
};

}  // namespace

TEST_CASE("GMRES solves an unsymmetric system to the LU solution, its residual never rising", "[ncp][krylov]") {
    const UnsymmetricSystem system(7, 40, 2.0);
    const VectorX exact = system.a.partialPivLu().solve(system.rhs);
    KrylovOptions options;
    options.max_iterations = 40;  // the system's size: the Krylov space is the whole space
    options.relative_tolerance = 1e-13;
    std::vector<double> history;
    options.residual_history = &history;
    GmresWorkspace work;
    VectorX x = VectorX::Zero(40);
    const KrylovReport report = gmres(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    CHECK(report.converged);
    CHECK(report.iterations <= 40);
    // kappa(A) is about 1e3 here: 1e-13 of the residual leaves the solution to ~1e-10.
    CHECK((x - exact).norm() <= 1e-9 * exact.norm());
    // The reported residual is the true P-norm residual (Givens' |g_k|), to round-off.
    CHECK(report.residual == Approx(system.p_norm_residual(x)).margin(1e-12 * report.initial_residual));
    // Minimal residual over nested spaces: never rising (round-off allowed).
    for (std::size_t k = 1; k < history.size(); ++k) CHECK(history[k] <= history[k - 1] * (1.0 + 1e-12));
}

TEST_CASE("GMRES stopped early returns the best iterate so far; the conjugate residual method does not converge on "
          "the unsymmetric system",
          "[ncp][krylov]") {
    const UnsymmetricSystem system(8, 60, 3.0);
    KrylovOptions options;
    options.max_iterations = 15;
    options.relative_tolerance = 1e-12;
    GmresWorkspace work;
    VectorX x = VectorX::Zero(60);
    const KrylovReport report = gmres(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    CHECK(report.iterations == 15);
    CHECK_FALSE(report.converged);
    CHECK(report.residual < report.initial_residual);
    CHECK(report.residual == Approx(system.p_norm_residual(x)).margin(1e-12 * report.initial_residual));
    // With 60 iterations it converges; PCR with as many does not reach the tolerance (it assumes
    // A = A^T: its recurrences lose the minimal-residual property).
    options.max_iterations = 60;
    x.setZero();
    CHECK(gmres(system.apply(), system.inverse_diagonal, system.rhs, x, work, options).converged);
    soma::ncp::KrylovWorkspace cr_work;
    VectorX y = VectorX::Zero(60);
    CHECK_FALSE(soma::ncp::conjugate_residual(system.apply(), system.inverse_diagonal, system.rhs, y, cr_work, options).converged);
}

TEST_CASE("GMRES: a zero right-hand side, a start at the solution, and a reused workspace", "[ncp][krylov]") {
    const UnsymmetricSystem system(9, 30, 1.0);
    KrylovOptions options;
    options.max_iterations = 30;
    options.relative_tolerance = 1e-12;
    GmresWorkspace work;
    VectorX x = VectorX::Zero(30);
    const KrylovReport zero = gmres(system.apply(), system.inverse_diagonal, VectorX::Zero(30), x, work, options);
    CHECK(zero.iterations == 0);
    CHECK(x.isZero(0.0));
    // Started at the solution: nothing to do.
    x = system.a.partialPivLu().solve(system.rhs);
    const VectorX solution = x;
    options.absolute_tolerance = 1e-10;
    const KrylovReport at_solution = gmres(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    CHECK(at_solution.iterations == 0);
    CHECK(x == solution);
    // A second solve of the same size keeps every buffer.
    const std::vector<const double*> before = {work.basis.data(), work.hessenberg.data(), work.w.data(), work.product.data()};
    x.setZero();
    gmres(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    const std::vector<const double*> after = {work.basis.data(), work.hessenberg.data(), work.w.data(), work.product.data()};
    CHECK(before == after);
}
