// The strain basis Phi(X) of a soft rod (Mathew et al., eq. 1).
#include "strain_basis.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace soma::gvs {

namespace {

std::string_view family_name(BasisFamily family) {
    switch (family) {
        case BasisFamily::legendre: return "legendre";
        case BasisFamily::monomial: return "monomial";
        case BasisFamily::chebyshev: return "chebyshev";
        case BasisFamily::piecewise_linear: return "piecewise_linear";
        case BasisFamily::custom: return "custom";
    }
    return "unknown";
}

[[noreturn]] void fail(const std::string& message) {
    throw std::invalid_argument("strain basis: " + message);
}

/// The shortest text that reads back as v (std::to_string prints 1e-7 as 0.000000).
std::string str(double v) {
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
    return std::string(buffer, end);
}

std::string name(int component) { return std::string(strain_component_name(component)); }

/// Number of functions of a component of order k (k >= 0) in a family.
int function_count(int order) { return order + 1; }

/// Checks one component's order against its family's range.
void check_order(BasisFamily family, int component, int order) {
    if (order < -1)
        fail("order of " + name(component) + " is " + std::to_string(order) +
             "; use -1 (inactive) or a non-negative order");
    if (order < 0) return;
    if (family == BasisFamily::piecewise_linear) {
        if (order < 1)
            fail("piecewise_linear on " + name(component) +
                 " needs at least 1 element (order = number of elements), got 0");
        if (order > StrainBasis::kMaxElements)
            fail("piecewise_linear on " + name(component) + " has " + std::to_string(order) +
                 " elements, above the maximum " + std::to_string(StrainBasis::kMaxElements));
    } else if (family == BasisFamily::custom) {
        if (order > StrainBasis::kMaxElements)
            fail("custom order of " + name(component) + " is " + std::to_string(order) +
                 ", above the maximum " + std::to_string(StrainBasis::kMaxElements));
    } else if (order > StrainBasis::kMaxPolynomialOrder) {
        fail(std::string(family_name(family)) + " order of " + name(component) + " is " +
             std::to_string(order) + ", above the maximum " +
             std::to_string(StrainBasis::kMaxPolynomialOrder));
    }
}

}  // namespace

std::string_view strain_component_name(int component) {
    switch (component) {
        case torsion: return "torsion";
        case bending_y: return "bending_y";
        case bending_z: return "bending_z";
        case elongation: return "elongation";
        case shear_y: return "shear_y";
        case shear_z: return "shear_z";
        default: return "invalid component";
    }
}

StrainModeSelection StrainModeSelection::angular_linear(int angular, int linear) {
    return {{angular, angular, angular, linear, linear, linear}};
}

StrainModeSelection StrainModeSelection::kirchhoff(int order) {
    return {{order, order, order, order, -1, -1}};
}

StrainModeSelection StrainModeSelection::inextensible_kirchhoff(int order) {
    return {{order, order, order, -1, -1, -1}};
}

StrainBasis::StrainBasis(BasisFamily family, const StrainModeSelection& modes, double length,
                         CustomBasisFunctions custom)
    : family_(family), modes_(modes), length_(length), custom_(std::move(custom)) {
    if (!(length > 0.0) || !std::isfinite(length))
        fail("length must be positive and finite, got L = " + str(length));
    for (int c = 0; c < kStrainComponents; ++c) check_order(family, c, modes.order[c]);

    if (family == BasisFamily::custom) {
        for (int c = 0; c < kStrainComponents; ++c) {
            const auto given = static_cast<int>(custom_[c].size());
            const int expected = modes.order[c] < 0 ? 0 : function_count(modes.order[c]);
            if (modes.order[c] < 0 && given > 0)
                fail("custom family: " + std::to_string(given) + " function(s) are given for " + name(c) +
                     ", which the strains do not activate: give " + name(c) + " an order in the strains, or "
                     "remove its functions");
            if (given != expected)
                fail("custom family: " + name(c) + " has order " + std::to_string(modes.order[c]) +
                     ", so " + std::to_string(expected) + " function(s) are expected, got " +
                     std::to_string(given));
            for (int j = 0; j < given; ++j)
                if (!custom_[c][j])
                    fail("custom family: function " + std::to_string(j) + " of " + name(c) +
                         " is empty");
        }
    } else {
        for (int c = 0; c < kStrainComponents; ++c)
            if (!custom_[c].empty())
                fail("custom functions were given for " + name(c) + " but the family is " +
                     std::string(family_name(family)) + "; use BasisFamily::custom");
    }

    offset_[0] = 0;
    for (int c = 0; c < kStrainComponents; ++c)
        offset_[c + 1] = offset_[c] + (modes.order[c] < 0 ? 0 : function_count(modes.order[c]));
}

Index StrainBasis::component_dof_count(int component) const {
    return offset_[component + 1] - offset_[component];
}

void StrainBasis::evaluate(double X, Eigen::Ref<Matrix6X> out) const {
    if (out.cols() != dof_count())
        throw std::invalid_argument("strain basis: output has " + std::to_string(out.cols()) +
                                    " columns, the basis has " + std::to_string(dof_count()) +
                                    " coefficients");
    // Quadrature and collocation points are computed as X_a + c h_a and may overshoot L by an ulp.
    const double slack = 1e-12 * length_;
    if (!(X >= -slack && X <= length_ + slack))
        throw std::out_of_range("strain basis: X = " + str(X) + " is outside [0, " + str(length_) + "]");
    const double x = std::clamp(X, 0.0, length_);
    const double s = x / length_;
    const double t = 2.0 * s - 1.0;  // the shifted polynomials' argument in [-1, 1]

    out.setZero();
    for (int c = 0; c < kStrainComponents; ++c) {
        const int k = modes_.order[c];
        if (k < 0) continue;
        auto row = out.row(c).segment(offset_[c], component_dof_count(c));
        switch (family_) {
            case BasisFamily::legendre: {
                // Bonnet: (j + 1) P_{j+1} = (2j + 1) t P_j - j P_{j-1}.
                double p_prev = 1.0, p = t;
                row(0) = 1.0;
                if (k >= 1) row(1) = t;
                for (int j = 1; j < k; ++j) {
                    const double p_next = ((2.0 * j + 1.0) * t * p - j * p_prev) / (j + 1.0);
                    p_prev = p;
                    p = p_next;
                    row(j + 1) = p;
                }
                break;
            }
            case BasisFamily::chebyshev: {
                // T_{j+1} = 2 t T_j - T_{j-1}.
                double p_prev = 1.0, p = t;
                row(0) = 1.0;
                if (k >= 1) row(1) = t;
                for (int j = 1; j < k; ++j) {
                    const double p_next = 2.0 * t * p - p_prev;
                    p_prev = p;
                    p = p_next;
                    row(j + 1) = p;
                }
                break;
            }
            case BasisFamily::monomial: {
                double p = 1.0;
                for (int j = 0; j <= k; ++j, p *= s) row(j) = p;
                break;
            }
            case BasisFamily::piecewise_linear: {
                // Hat function j is 1 at node X_j = j L / k and falls linearly to 0 at the nodes
                // either side; only the two hats of the element holding X are nonzero.
                const double u = s * k;
                for (int j = 0; j <= k; ++j) row(j) = std::max(0.0, 1.0 - std::abs(u - j));
                break;
            }
            case BasisFamily::custom: {
                for (int j = 0; j <= k; ++j) row(j) = custom_[c][j](x);
                break;
            }
        }
    }
}

}  // namespace soma::gvs
