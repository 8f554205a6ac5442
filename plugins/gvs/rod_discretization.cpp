// The computational points of a soft rod: Gauss quadrature (Mathew et al., eq. 3), Zanna
// collocation (eq. C1), section constants and the generalised stiffness and damping (D64, D65).
#include "rod_discretization.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace soma::gvs {

namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument("rod: " + message); }

/// The shortest text that reads back as v (0.6, not 0.59999999999999998).
std::string str(double v) {
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
    return std::string(buffer, end);
}

/// P_n(x) and P_n'(x) by Bonnet's recurrence; P_n' from (x^2 - 1) P_n' = n (x P_n - P_{n-1}),
/// valid for n >= 1 off x = +-1 (Gauss nodes are interior).
void legendre_with_derivative(int n, double x, double& p, double& dp) {
    double p_prev = 1.0;
    p = x;
    for (int j = 2; j <= n; ++j) {
        const double p_next = ((2.0 * j - 1.0) * x * p - (j - 1.0) * p_prev) / j;
        p_prev = p;
        p = p_next;
    }
    dp = n * (x * p - p_prev) / (x * x - 1.0);
}

/// One dimension of a profile at one point: finite and >= 0 everywhere, > 0 where the point
/// carries weight (else K loses rank and the mass matrix is singular).
double profile_value(const ScalarField& f, const char* key, double X, double weight) {
    const double v = f(X);
    if (!std::isfinite(v) || v < 0.0 || (weight > 0.0 && v == 0.0))
        fail(std::string("section.") + key + " at X = " + str(X) + " is " + str(v) +
             "; it must be finite and > 0 (0 is allowed only at the base or the tip)");
    return v;
}

SectionConstants evaluate_section(const SectionProfile& profile, double X, double weight) {
    if (const auto* circle = std::get_if<CircularProfile>(&profile))
        return circular_section(profile_value(circle->radius, "radius", X, weight));
    const auto& rectangle = std::get<RectangularProfile>(profile);
    return rectangular_section(profile_value(rectangle.width, "width", X, weight),
                               profile_value(rectangle.height, "height", X, weight));
}

Vec6 evaluate_xi_star(const StrainField& field, double X) {
    if (!field) return (Vec6() << 0.0, 0.0, 0.0, 1.0, 0.0, 0.0).finished();  // straight rod
    const Vec6 xi = field(X);
    if (!xi.allFinite()) fail("xi_star at X = " + str(X) + " is not finite");
    return xi;
}

void check_material(const RodMaterial& m) {
    if (!(m.young_modulus > 0.0) || !std::isfinite(m.young_modulus))
        fail("young_modulus = " + str(m.young_modulus) + " must be finite and > 0");
    if (!(m.poisson_ratio > -1.0 && m.poisson_ratio <= 0.5))
        fail("poisson_ratio = " + str(m.poisson_ratio) + " must be in (-1, 0.5]");
    if (!(m.density > 0.0) || !std::isfinite(m.density))
        fail("density = " + str(m.density) + " must be finite and > 0");
    if (!(m.damping >= 0.0) || !std::isfinite(m.damping))
        fail("damping = " + str(m.damping) + " must be finite and >= 0");
}


/// Refuses a basis the Gauss points cannot resolve: the component's coefficients are then not
/// independent at the points, and K (and the mass matrix, which uses the same points) is
/// singular. Polynomials of k + 1 coefficients need k + 1 distinct points; hat functions need
/// points that can be matched in order to hats that are nonzero there (the Schoenberg-Whitney
/// condition, checked greedily); custom functions are checked numerically (column-pivoted QR of
/// the samples, relative threshold 1e-10).
void check_basis_resolved(const StrainBasis& basis, const std::vector<double>& X, const std::vector<double>& weight,
                          const std::vector<Matrix6X>& phi) {
    std::vector<Index> gauss;  // the points with weight
    for (std::size_t k = 0; k < X.size(); ++k)
        if (weight[k] > 0.0) gauss.push_back(static_cast<Index>(k));
    const auto points = static_cast<Index>(gauss.size());
    for (int c = 0; c < kStrainComponents; ++c) {
        if (!basis.is_active(c)) continue;
        const Index count = basis.component_dof_count(c), offset = basis.component_offset(c);
        const std::string what = "gauss_points = " + std::to_string(points) + " cannot resolve the " +
                                 std::string(strain_component_name(c)) + " basis (" + std::to_string(count) +
                                 " functions): ";
        switch (basis.family()) {
        case BasisFamily::legendre:
        case BasisFamily::monomial:
        case BasisFamily::chebyshev:
            if (points < count)
                fail(what + "a polynomial of order " + std::to_string(count - 1) + " needs at least " +
                     std::to_string(count) + " Gauss points, or K and the mass matrix are singular");
            break;
        case BasisFamily::piecewise_linear: {
            // Match hats j = 0, 1, ... in order to increasing points where hat j is nonzero.
            Index next_point = 0;
            for (Index j = 0; j < count; ++j) {
                while (next_point < points && phi[static_cast<std::size_t>(gauss[static_cast<std::size_t>(next_point)])](
                                                  c, offset + j) == 0.0)
                    ++next_point;
                if (next_point == points)
                    fail(what + "hat function " + std::to_string(j) +
                         " has no Gauss point of its own; use more Gauss points (at least one per element and one more)");
                ++next_point;
            }
            break;
        }
        case BasisFamily::custom: {
            Eigen::MatrixXd samples(points, count);
            for (Index i = 0; i < points; ++i)
                samples.row(i) = phi[static_cast<std::size_t>(gauss[static_cast<std::size_t>(i)])].block(c, offset, 1, count);
            Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(samples);
            qr.setThreshold(1e-10);
            if (qr.rank() < count)
                fail(what + "its functions sampled at the Gauss points have rank " + std::to_string(qr.rank()) +
                     " (dependent functions, or too few points)");
            break;
        }
        }
    }
}

}  // namespace

GaussLegendreRule gauss_legendre(int n) {
    if (n < 1 || n > kMaxGaussPoints)
        throw std::invalid_argument("gauss_legendre: n = " + std::to_string(n) +
                                    " is outside 1.." + std::to_string(kMaxGaussPoints));
    GaussLegendreRule rule;
    rule.nodes.resize(n);
    rule.weights.resize(n);
    // Roots come in +-x pairs; find the non-negative ones from Tricomi's first guess
    // cos(pi (i + 3/4) / (n + 1/2)), which Newton converges from for every n.
    for (int i = 0; i < (n + 1) / 2; ++i) {
        double x = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5));
        double p = 0.0, dp = 0.0;
        for (int iteration = 0; iteration < 100; ++iteration) {
            legendre_with_derivative(n, x, p, dp);
            const double dx = p / dp;
            x -= dx;
            if (std::abs(dx) <= 1e-15) break;
        }
        if (2 * i + 1 == n) x = 0.0;  // the middle root of an odd rule, exactly
        legendre_with_derivative(n, x, p, dp);
        const double w = 2.0 / ((1.0 - x * x) * dp * dp);
        rule.nodes[n - 1 - i] = x;
        rule.nodes[i] = -x;
        rule.weights[n - 1 - i] = w;
        rule.weights[i] = w;
    }
    return rule;
}

SectionConstants circular_section(double radius) {
    const double r2 = radius * radius;
    SectionConstants s;
    s.area = std::numbers::pi * r2;
    s.second_moment_y = std::numbers::pi * r2 * r2 / 4.0;
    s.second_moment_z = s.second_moment_y;
    s.torsion_constant = std::numbers::pi * r2 * r2 / 2.0;  // = the polar moment for a circle
    return s;
}

SectionConstants rectangular_section(double width, double height) {
    SectionConstants s;
    s.area = width * height;
    s.second_moment_y = width * height * height * height / 12.0;  // integral z^2 dA, z along h
    s.second_moment_z = height * width * width * width / 12.0;    // integral y^2 dA, y along w
    s.torsion_constant = rectangle_torsion_constant(width, height);
    return s;
}

double rectangle_torsion_constant(double width, double height) {
    const double a = std::max(width, height);
    const double b = std::min(width, height);
    if (!(b > 0.0)) return 0.0;
    // sum_{n odd} tanh(n c) / n^5 = (31/32) zeta(5) - sum_{n odd} (1 - tanh(n c)) / n^5: the
    // second sum decays like exp(-2 n c) with c >= pi/2, so a few terms reach round-off where the
    // first form needs thousands (its terms decay only like n^-5).
    constexpr double zeta5 = 1.0369277551433699263;
    const double c = std::numbers::pi * a / (2.0 * b);
    double correction = 0.0;
    for (int n = 1; n < 200; n += 2) {
        const double term = 2.0 / (std::exp(2.0 * n * c) + 1.0) / std::pow(n, 5);  // 1 - tanh(nc)
        correction += term;
        if (term < 1e-18) break;
    }
    const double series = 31.0 / 32.0 * zeta5 - correction;
    const double pi5 = std::pow(std::numbers::pi, 5);
    return a * b * b * b / 3.0 * (1.0 - 192.0 / pi5 * (b / a) * series);
}

Mat6 section_stiffness(const SectionConstants& s, const RodMaterial& m) {
    const double E = m.young_modulus, G = m.shear_modulus();
    return (Vec6() << G * s.torsion_constant, E * s.second_moment_y, E * s.second_moment_z,
            E * s.area, G * s.area, G * s.area)
        .finished()
        .asDiagonal();
}

Mat6 section_damping(const SectionConstants& s, const RodMaterial& m) {
    // Kelvin-Voigt with an incompressible viscosity: the shear-like terms take v, the
    // extension-like ones 3 v (as E = 3 G at nu = 1/2) (Mathew et al., D65).
    return (m.damping * (Vec6() << s.torsion_constant, 3.0 * s.second_moment_y,
                         3.0 * s.second_moment_z, 3.0 * s.area, s.area, s.area)
                            .finished())
        .asDiagonal();
}

Mat6 section_inertia(const SectionConstants& s, const RodMaterial& m) {
    return (m.density * (Vec6() << s.polar_moment(), s.second_moment_y, s.second_moment_z, s.area,
                         s.area, s.area)
                            .finished())
        .asDiagonal();
}

RodDiscretization::RodDiscretization(const RodDescription& rod)
    : basis(rod.basis), magnus_order(rod.magnus_order), gauss_points(rod.gauss_points) {
    if (gauss_points < 1 || gauss_points > kMaxGaussPoints)
        fail("gauss_points = " + std::to_string(gauss_points) + " is outside 1.." +
             std::to_string(kMaxGaussPoints));
    check_material(rod.material);
    if (const auto* circle = std::get_if<CircularProfile>(&rod.section)) {
        if (!circle->radius) fail("section.radius is missing");
    } else {
        const auto& rectangle = std::get<RectangularProfile>(rod.section);
        if (!rectangle.width) fail("section.width is missing");
        if (!rectangle.height) fail("section.height is missing");
    }

    const double L = basis.length();
    const Index n = basis.dof_count();
    const GaussLegendreRule rule = gauss_legendre(gauss_points);

    // Points: the base, the Gauss points mapped to [0, L], the tip (Mathew et al., eq. 3).
    X.reserve(gauss_points + 2);
    weight.reserve(gauss_points + 2);
    X.push_back(0.0);
    weight.push_back(0.0);
    for (int g = 0; g < gauss_points; ++g) {
        X.push_back(0.5 * L * (1.0 + rule.nodes[g]));
        weight.push_back(0.5 * L * rule.weights[g]);
    }
    X.push_back(L);
    weight.push_back(0.0);

    const Index n_p = point_count();
    K = Eigen::MatrixXd::Zero(n, n);
    D = Eigen::MatrixXd::Zero(n, n);
    for (Index k = 0; k < n_p; ++k) {
        phi.emplace_back(6, n);
        basis.evaluate(X[k], phi.back());
        xi_star.push_back(evaluate_xi_star(rod.xi_star, X[k]));
        section.push_back(evaluate_section(rod.section, X[k], weight[k]));
        stiffness.push_back(section_stiffness(section.back(), rod.material));
        damping.push_back(section_damping(section.back(), rod.material));
        inertia.push_back(section_inertia(section.back(), rod.material));
        // K = sum_k w_k Phi_k^T Sigma_k Phi_k, D likewise (Mathew et al., D64, D65).
        if (weight[k] > 0.0) {
            K.noalias() += weight[k] * (phi[k].transpose() * stiffness[k] * phi[k]);
            D.noalias() += weight[k] * (phi[k].transpose() * damping[k] * phi[k]);
        }
    }
    check_basis_resolved(basis, X, weight, phi);
    // The products are symmetric only to round-off; the solvers may rely on exact symmetry.
    K = 0.5 * (K + K.transpose()).eval();
    D = 0.5 * (D + D.transpose()).eval();

    // Intervals and their collocation points (Mathew et al., eq. C1; midpoint at 2nd order).
    const int m = collocation_per_interval();
    const double zanna = std::sqrt(3.0) / 6.0;
    for (Index a = 0; a + 1 < n_p; ++a) {
        h.push_back(X[a + 1] - X[a]);
        if (m == 2) {
            collocation_X.push_back(X[a] + (0.5 - zanna) * h[a]);
            collocation_X.push_back(X[a] + (0.5 + zanna) * h[a]);
        } else {
            collocation_X.push_back(X[a] + 0.5 * h[a]);
        }
    }
    for (double z : collocation_X) {
        collocation_phi.emplace_back(6, n);
        basis.evaluate(z, collocation_phi.back());
        collocation_xi_star.push_back(evaluate_xi_star(rod.xi_star, z));
    }
}

}  // namespace soma::gvs
