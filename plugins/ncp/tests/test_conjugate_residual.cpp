// The Jacobi-preconditioned conjugate residual method of Macklin et al. 2019, §8.2
// (conjugate_residual.hpp), against preconditioned conjugate gradients and a dense LDLT solve on
// an ill-conditioned SPD matrix, and on a singular one.
#include "../conjugate_residual.hpp"

#include "seeded_uniform.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <Eigen/Eigenvalues>

#include <cmath>
#include <ios>
#include <random>
#include <vector>

namespace {

using soma::ncp::testing::uniform;
using soma::VectorX;
using soma::ncp::conjugate_residual;
using soma::ncp::KrylovOptions;
using soma::ncp::KrylovReport;
using soma::ncp::KrylovWorkspace;
using soma::ncp::preconditioned_conjugate_gradient;

/// A = Q diag(lambda) Q^T + D (n x n): lambda log-uniform over [1e-4, 1e2], Q the orthogonal
/// factor of a seeded random matrix (Householder QR), D uniform in [0, diagonal_scale] on the
/// diagonal (so diag(A) varies and the Jacobi preconditioner is not a multiple of the identity).
/// D lifts the small eigenvalues: with seed 11, n = 60, kappa(A) = 1.1e3 for diagonal_scale = 1
/// and 6.7e5 for 1e-4 (Jacobi-scaled: 761 and 6.5e5).
struct IllConditionedSystem {
    Eigen::MatrixXd a;
    VectorX inverse_diagonal;
    VectorX rhs;

    explicit IllConditionedSystem(unsigned seed, int n = 60, double diagonal_scale = 1.0) {
        std::mt19937 random(seed);
        Eigen::MatrixXd m(n, n);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) m(i, j) = uniform(random, -1.0, 1.0);
        const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(m).householderQ();
        VectorX lambda(n);
        for (int i = 0; i < n; ++i) lambda[i] = std::pow(10.0, -4.0 + 6.0 * i / (n - 1));
        a = q * lambda.asDiagonal() * q.transpose();
        a = (0.5 * (a + a.transpose())).eval();  // exactly symmetric
        for (int i = 0; i < n; ++i) a(i, i) += uniform(random, 0.0, diagonal_scale);
        inverse_diagonal = a.diagonal().cwiseInverse();
        rhs.resize(n);
        for (int i = 0; i < n; ++i) rhs[i] = uniform(random, -1.0, 1.0);
    }

    auto apply() const {
        return [this](const VectorX& in, VectorX& out) { out.noalias() = a * in; };
    }
};

/// sqrt(r^T P r) for the true residual r = b - A x.
double true_residual(const IllConditionedSystem& s, const VectorX& x) {
    const VectorX r = s.rhs - s.a * x;
    return std::sqrt(r.dot(s.inverse_diagonal.cwiseProduct(r)));
}

/// How many times the residual history rises by more than \p relative of its previous value.
int rises(const std::vector<double>& history, double relative) {
    int count = 0;
    for (std::size_t k = 1; k < history.size(); ++k)
        if (history[k] > history[k - 1] * (1.0 + relative)) ++count;
    return count;
}

}  // namespace

TEST_CASE("PCR's residual never increases in the P-norm on an ill-conditioned SPD system; PCG's does",
          "[ncp][krylov]") {
    // Sixty iterations (the size of the system: in exact arithmetic both would be done) with no
    // tolerance stop, on two spectra (kappa(A) = 1.1e3 and 6.7e5). PCR minimises ||r||_P over a
    // growing Krylov space, so each entry of its history is at most the one before; 1e-12
    // relative allows the recurrence's round-off. PCG minimises the error in the A-norm and its
    // P-norm residual rises on these spectra (Figs. 11 and 18): with this seed over 20 times by
    // more than 1 % (up to a factor 3.8 and 6.7), not by round-off.
    for (const double diagonal_scale : {1.0, 1e-4}) {
        INFO("diagonal in [0, " << diagonal_scale << "]");
        const IllConditionedSystem system(11, 60, diagonal_scale);
        KrylovOptions options;
        options.max_iterations = 60;
        options.relative_tolerance = 0.0;

        std::vector<double> pcr_history, pcg_history;
        KrylovWorkspace work;
        options.residual_history = &pcr_history;
        VectorX x = VectorX::Zero(60);
        const KrylovReport pcr = conjugate_residual(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
        options.residual_history = &pcg_history;
        VectorX y = VectorX::Zero(60);
        const KrylovReport pcg =
            preconditioned_conjugate_gradient(system.apply(), system.inverse_diagonal, system.rhs, y, work, options);

        REQUIRE(pcr.iterations == 60);
        REQUIRE(pcg.iterations == 60);
        REQUIRE(pcr_history.size() == 61);
        REQUIRE(pcg_history.size() == 61);
        CHECK(pcr_history.front() == pcr.initial_residual);
        CHECK(pcr_history.back() == pcr.residual);
        CHECK(rises(pcr_history, 1e-12) == 0);
        CHECK(rises(pcg_history, 1e-2) > 0);
        // And PCR ends below where it started: by a factor 1e6 at kappa 1e3, only 3 at 6.7e5
        // (finite precision: more than n iterations are needed).
        CHECK(pcr.residual < 0.5 * pcr.initial_residual);
        // Its recurrence tracks the true residual (round-off against ||b||_P: 1e-10 relative).
        CHECK(true_residual(system, x) == Approx(pcr.residual).margin(1e-10 * pcr.initial_residual));
    }
}

TEST_CASE("PCR converges to the LDLT solution within the accuracy the condition number allows",
          "[ncp][krylov]") {
    const IllConditionedSystem system(11);
    KrylovOptions options;
    options.max_iterations = 200;
    options.relative_tolerance = 1e-12;
    KrylovWorkspace work;
    VectorX x = VectorX::Zero(60);
    const KrylovReport report = conjugate_residual(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    CAPTURE(report.iterations, report.residual, report.initial_residual);
    REQUIRE(report.converged);
    CHECK(report.residual <= 1e-12 * report.initial_residual);

    // In the Jacobi-scaled variables (A_s = P^1/2 A P^1/2, x_s = P^-1/2 x, b_s = P^1/2 b, so
    // ||b_s|| = ||r_0||_P from x_0 = 0) the relative error is at most kappa(A_s) times the
    // relative residual, 1e-12; a factor 2 covers the drift of the true residual from the
    // recurrence's (1e-3 relative here) and LDLT's own error (kappa eps = 2e-13). Measured: 7e-13,
    // after 98 iterations (more than n = 60: conjugacy is lost in finite precision).
    const VectorX scale = system.inverse_diagonal.cwiseSqrt();
    const Eigen::MatrixXd scaled = scale.asDiagonal() * system.a * scale.asDiagonal();
    const VectorX eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(scaled).eigenvalues();
    const double kappa = eigenvalues.maxCoeff() / eigenvalues.minCoeff();
    const VectorX reference = system.a.ldlt().solve(system.rhs);
    const VectorX error = (x - reference).cwiseQuotient(scale);
    const double relative_error = error.norm() / reference.cwiseQuotient(scale).norm();
    const double residual = true_residual(system, x);
    INFO(std::scientific << "kappa " << kappa << ", relative error " << relative_error << ", true residual "
                         << residual);
    CHECK(kappa > 500.0);  // the system is ill-conditioned, or this test shows little
    CHECK(relative_error <= kappa * 2e-12);
    CHECK(residual <= 2e-12 * report.initial_residual);
}

TEST_CASE("Repeated Krylov solves of one size reuse the workspace's memory", "[ncp][krylov]") {
    const IllConditionedSystem system(11);
    KrylovOptions options;
    options.max_iterations = 10;
    KrylovWorkspace work;
    VectorX x = VectorX::Zero(60);
    conjugate_residual(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    const std::vector<const double*> before = {work.r.data(), work.z.data(), work.p.data(),
                                               work.w.data(), work.q.data(), work.y.data()};
    x.setZero();
    const KrylovReport second = conjugate_residual(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    preconditioned_conjugate_gradient(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    const std::vector<const double*> after = {work.r.data(), work.z.data(), work.p.data(),
                                              work.w.data(), work.q.data(), work.y.data()};
    CHECK(before == after);
    CHECK(second.iterations == 10);

    // A solve of another size resizes them.
    const IllConditionedSystem smaller(12, 20);
    VectorX z = VectorX::Zero(20);
    conjugate_residual(smaller.apply(), smaller.inverse_diagonal, smaller.rhs, z, work, options);
    CHECK(work.y.size() == 20);
}

TEST_CASE("PCR and PCG stop without NaN on a singular system and at a zero right-hand side", "[ncp][krylov]") {
    // A = [[1, 1], [1, 1]] (positive semi-definite), b = (1, 0): the part (1/2, -1/2) of b is in
    // the null space and no x removes it. PCR takes one step to the least-squares residual
    // ||(1/2, -1/2)|| = sqrt(1/2), then its direction P A p = 0: breakdown, not converged.
    Eigen::Matrix2d a;
    a << 1.0, 1.0, 1.0, 1.0;
    const auto apply = [&a](const VectorX& in, VectorX& out) { out.noalias() = a * in; };
    const VectorX inverse_diagonal = VectorX::Ones(2);
    const VectorX rhs = VectorX::Unit(2, 0);
    KrylovWorkspace work;
    KrylovOptions options;
    options.max_iterations = 10;

    VectorX x = VectorX::Zero(2);
    const KrylovReport pcr = conjugate_residual(apply, inverse_diagonal, rhs, x, work, options);
    CHECK_FALSE(pcr.converged);
    CHECK(pcr.iterations == 1);
    CHECK(pcr.residual == Approx(std::sqrt(0.5)).epsilon(1e-15));  // round-off of one step
    CHECK(x.allFinite());
    CHECK((a * x - VectorX::Constant(2, 0.5)).norm() < 1e-15);  // x1 + x2 = 1/2, the least-squares set

    VectorX y = VectorX::Zero(2);
    const KrylovReport pcg = preconditioned_conjugate_gradient(apply, inverse_diagonal, rhs, y, work, options);
    CHECK_FALSE(pcg.converged);
    CHECK(y.allFinite());
    CHECK(std::isfinite(pcg.residual));

    // b entirely in the null space: rho = z^T A z = 0 at the start, no step is taken.
    VectorX z = VectorX::Zero(2);
    const VectorX null_rhs = (VectorX(2) << 1.0, -1.0).finished();
    const KrylovReport stalled = conjugate_residual(apply, inverse_diagonal, null_rhs, z, work, options);
    CHECK_FALSE(stalled.converged);
    CHECK(stalled.iterations == 0);
    CHECK(z.isZero(0.0));

    // b = 0 from x = 0: converged before any iteration, for either method.
    const VectorX zero = VectorX::Zero(2);
    VectorX u = VectorX::Zero(2);
    CHECK(conjugate_residual(apply, inverse_diagonal, zero, u, work, options).converged);
    CHECK(preconditioned_conjugate_gradient(apply, inverse_diagonal, zero, u, work, options).iterations == 0);
    CHECK(u.isZero(0.0));
}

TEST_CASE("The absolute tolerance and the iteration limit stop PCR where KrylovOptions says", "[ncp][krylov]") {
    const IllConditionedSystem system(11);
    KrylovWorkspace work;
    KrylovOptions options;
    options.max_iterations = 500;
    options.relative_tolerance = 0.0;
    std::vector<double> history;
    options.residual_history = &history;
    VectorX x = VectorX::Zero(60);
    const KrylovReport initial = conjugate_residual(system.apply(), system.inverse_diagonal, system.rhs, x, work,
                                                    KrylovOptions{0, 0.0, 0.0, nullptr});
    CHECK(initial.iterations == 0);
    CHECK_FALSE(initial.converged);

    // Stop at the first iterate below 1e-3 ||r_0||_P: the one before is above it.
    options.absolute_tolerance = 1e-3 * initial.initial_residual;
    const KrylovReport report = conjugate_residual(system.apply(), system.inverse_diagonal, system.rhs, x, work, options);
    REQUIRE(report.converged);
    REQUIRE(history.size() == static_cast<std::size_t>(report.iterations) + 1);
    CHECK(history.back() <= options.absolute_tolerance);
    CHECK(history[history.size() - 2] > options.absolute_tolerance);
}
