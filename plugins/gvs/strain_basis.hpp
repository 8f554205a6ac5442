#pragma once
/// \file strain_basis.hpp
/// \brief The strain basis of a soft Cosserat rod: the screw strain is
/// xi(X) = Phi(X) q + xi*(X), X in [0, L] (Mathew et al., eq. 1).
///
/// The six strain components are, in this order, [torsion, bending about y, bending about z,
/// elongation, shear along y, shear along z] (angular part first, as every screw here). Each
/// component is either inactive, frozen at its reference value xi*, or active with its own set of
/// basis functions and one coefficient per function. Phi is therefore block-sparse: the columns of
/// component c are nonzero only in row c, and the coefficients are ordered component by component.
///
/// A basis of order k on a component means polynomials of degree up to k, k + 1 coefficients: the
/// paper's DoF counts follow from this (the cable-driven manipulator's angular order 4 and linear
/// order 2 give 3 x 5 + 3 x 3 = 24 coefficients, Mathew et al., section 4.5). The equilibrium depends
/// only on the span of the basis, so the Legendre, monomial and Chebyshev families of the same
/// orders describe the same rod; they differ only in conditioning (monomials are the worst).

#include "gvs_types.hpp"

#include <array>
#include <functional>
#include <string_view>
#include <vector>

namespace soma::gvs {

/// Number of components of a screw strain.
inline constexpr int kStrainComponents = 6;

/// \brief Index of each strain component in xi and in the rows of Phi.
enum StrainComponent : int {
    torsion = 0,     ///< k_x: twist about the rod axis
    bending_y = 1,   ///< k_y: curvature about the section's y axis
    bending_z = 2,   ///< k_z: curvature about the section's z axis
    elongation = 3,  ///< v_x: stretch along the axis (1 in a straight, unstretched rod)
    shear_y = 4,     ///< v_y
    shear_z = 5,     ///< v_z
};

/// \brief The component's name as the scene and error messages spell it ("bending_y", ...).
std::string_view strain_component_name(int component);

/// \brief Families of basis functions; s = X / L in [0, 1].
enum class BasisFamily {
    legendre,          ///< shifted Legendre polynomials P_j(2 s - 1), j = 0..k
    monomial,          ///< s^j, j = 0..k
    chebyshev,         ///< shifted Chebyshev polynomials of the first kind T_j(2 s - 1), j = 0..k
    piecewise_linear,  ///< hat functions on k equal elements: k + 1 nodal values
    custom,            ///< caller-supplied functions f_j(X)
};

/// \brief Which strain components are active and at which order.
///
/// order[c] = -1: component c is inactive (frozen at xi*). Otherwise, for the polynomial families,
/// order[c] = k >= 0 gives k + 1 functions; for piecewise_linear, order[c] = N >= 1 elements give
/// N + 1 hat functions; for custom, order[c] + 1 must equal the number of functions supplied.
struct StrainModeSelection {
    std::array<int, kStrainComponents> order{-1, -1, -1, -1, -1, -1};

    /// \brief All six components: the three angular ones at order \p angular, the three linear
    /// ones at order \p linear (the cable-driven manipulator: 4 and 2; a pillar of the parallel
    /// robot: 3 and 1; Mathew et al., sections 4.5 and 6.1).
    static StrainModeSelection angular_linear(int angular, int linear);
    /// \brief A Kirchhoff rod: no shear; torsion, both bendings and elongation at \p order.
    static StrainModeSelection kirchhoff(int order);
    /// \brief An inextensible Kirchhoff rod: no shear, no elongation; torsion and both bendings
    /// at \p order (the flagella of the underwater vehicle, Mathew et al., section 6.3).
    static StrainModeSelection inextensible_kirchhoff(int order);
};

/// A basis function of the custom family, f(X) with X in [0, L] (not normalised to [0, 1]).
using BasisFunction = std::function<double(double)>;
/// The custom functions of each strain component (empty for an inactive component).
using CustomBasisFunctions = std::array<std::vector<BasisFunction>, kStrainComponents>;

/// \brief The strain basis Phi(X) of one soft rod (Mathew et al., eq. 1): an immutable
/// description, evaluated into caller-provided buffers without allocation.
class StrainBasis {
public:
    /// Highest polynomial order accepted (beyond it monomials are numerically singular and the
    /// strain field is better described by more rods or a piecewise basis).
    static constexpr int kMaxPolynomialOrder = 20;
    /// Most elements of the piecewise_linear family; also the highest custom order (at most
    /// kMaxElements + 1 custom functions per component).
    static constexpr int kMaxElements = 256;

    /// \brief Builds the basis of a rod of length \p length.
    /// \param[in] family  the family of every active component
    /// \param[in] modes   the active components and their orders
    /// \param[in] length  the rod's length L > 0 (m)
    /// \param[in] custom  the functions of each active component, only with BasisFamily::custom
    /// \throws std::invalid_argument naming the component and the valid range: an order below -1
    ///   or above the maximum, piecewise_linear with 0 elements, L <= 0 or not finite, custom
    ///   functions missing, empty or in a different number than order + 1, or custom functions
    ///   given to another family.
    StrainBasis(BasisFamily family, const StrainModeSelection& modes, double length,
                CustomBasisFunctions custom = {});

    BasisFamily family() const { return family_; }
    const StrainModeSelection& modes() const { return modes_; }
    /// \brief n: the number of strain coordinates q of the rod (columns of Phi).
    Index dof_count() const { return offset_[kStrainComponents]; }
    double length() const { return length_; }
    /// \brief Whether component \p component has basis functions (else it is frozen at xi*).
    bool is_active(int component) const { return modes_.order[component] >= 0; }
    /// \brief Number of coefficients of component \p component (0 when inactive).
    Index component_dof_count(int component) const;
    /// \brief Column of Phi of the first coefficient of component \p component.
    Index component_offset(int component) const { return offset_[component]; }

    /// \brief Phi(X), the 6 x dof_count() basis matrix at X (Mathew et al., eq. 1). Allocates nothing.
    /// \param[in]  X    arc length in [0, L] (round-off beyond the ends is tolerated)
    /// \param[out] out  6 x dof_count(); every entry is written
    /// \throws std::invalid_argument if out has the wrong number of columns; std::out_of_range if
    ///   X is outside [0, L] by more than 1e-12 L.
    void evaluate(double X, Eigen::Ref<Matrix6X> out) const;

private:
    BasisFamily family_;
    StrainModeSelection modes_;
    double length_;
    std::array<Index, kStrainComponents + 1> offset_{};
    CustomBasisFunctions custom_;
};

}  // namespace soma::gvs
