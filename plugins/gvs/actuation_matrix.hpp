#pragma once
/// \file actuation_matrix.hpp
/// \brief The actuation term B(q) u of the internal generalised force tau = B(q) u - K q - D qdot
/// (Mathew et al., eq. 35) and its derivative (dB/dq) u (eq. 36a): tendons routed through a soft
/// rod (Mathew et al., eqs. D60-D63) and actuated multi-DoF rigid joints (eqs. D66, D67).
///
/// Tendons. Cable k runs through the rod at d_k(X) = [0, y_k(X), z_k(X)] in the cross-section
/// frame. With xi = [k; v] = Phi q + xi* its point moves along the rod at the rate
/// dp_c/dX = R(X) Tc(X), Tc = k x d + v + d' (the first three rows of xi^ [d; 1] + [d'; 0], eq. D62),
/// so its length between the rod's ends is L_c(q) = integral_0^L |Tc| dX, and with t = Tc / |Tc| (D61)
///
///     B u = sum_i w_i Phi_i^T sum_k [d~_ik t_ik; t_ik] u_k                              (eq. D60)
///     (dB/dq) u = sum_i w_i Phi_i^T sum_k (u_k / |Tc_ik|) [[d~ t~^2 d~, -d~ t~^2], [t~^2 d~, -t~^2]]_ik Phi_i   (D63)
///
/// Column k of B is exactly dL_c,k/dq with the same quadrature (d|Tc|/dxi = [d~ t; t]), and
/// (dB/dq) u is u_k times the Hessian of L_c,k: symmetric. Sign: tau = B u, so u_k > 0 drives q
/// towards a LONGER cable path: the paper's u PUSHES and bends the rod away from the cable. A
/// cable pulled with tension T_k >= 0 (N) does the virtual work -T_k delta L_c,k, so its
/// generalised force is B (-T): u = -T. The `tension` functions take T and apply this sign;
/// the `force` functions take the paper's u. In a residual r = ID + K q + D qdot - B u the actuation
/// enters as -B u = +B T, and the Jacobian as -(dB/dq) u.
///
/// Rigid joints. A joint xi = Phi q + xi* with the wrench Phi u applied to its child frame, in
/// that frame, receives the generalised force
///
///     B u = Phi^T T(xi)^T Ad*_{exp(xi^)} Phi u = S^T F0,   F0 = Ad*_{exp(xi^)} Phi u   (eq. D66)
///
/// (S = T Phi the joint's motion subspace in its base frame), u_k being the components of that
/// body-frame wrench along the columns of Phi. For a joint with xi* = 0 and one unit axis
/// (revolute, prismatic) B = 1 and dB/dq = 0: u is then the joint torque or force itself. For a
/// helical joint Phi = [a; h a] with a unit axis a, B = Phi^T Phi = 1 + h^2 (constant): u scales the wrench Phi u.
///
/// Both are immutable descriptions; every function adds into caller-provided vectors and
/// matrices and allocates nothing.

#include "gvs_types.hpp"
#include "rod_discretization.hpp"

#include <Eigen/Core>

#include <vector>

namespace soma::gvs {

/// \brief The path of one cable through a soft rod: its position d(X) = [0, y(X), z(X)] in the
/// cross-section frame (m) and the derivatives along the rod, d'(X) = [0, y'(X), z'(X)]
/// (Mathew et al., eqs. D60, D62). X in [0, L] (m), as for the rod's other fields.
struct CableRoute {
    ScalarField y;       ///< y(X) (m)
    ScalarField z;       ///< z(X) (m)
    ScalarField dy_dX;   ///< y'(X), dimensionless
    ScalarField dz_dX;   ///< z'(X), dimensionless

    /// \brief A cable parallel to the axis of the undeformed rod at the constant offset (y, z).
    static CableRoute straight(double y, double z);
};

/// \brief The tendons of one soft rod (Mathew et al., eqs. D60-D63): B(q) u, (dB/dq) u, B(q)
/// itself and the cables' lengths, at the rod's Gauss points. Immutable once built.
///
/// q, u and the outputs are the rod's own: for a rod whose coordinates start at first_dof in a
/// model's q, pass q.segment(first_dof, n) and add into force.segment(first_dof, n) and
/// jacobian.block(first_dof, first_dof, n, n).
class TendonActuation {
public:
    /// \brief Evaluates the cables' routes at the Gauss points of \p rod (the base and the tip
    /// carry weight 0 and are not used) and copies the basis and reference strain there.
    /// \throws std::invalid_argument naming the cable and the field: a field missing, or not
    ///   finite at a Gauss point.
    TendonActuation(const RodDiscretization& rod, std::vector<CableRoute> cables);

    /// \brief n: the rod's strain coordinates.
    Index dof_count() const { return dof_count_; }
    /// \brief n_a: the number of cables.
    Index cable_count() const { return cable_count_; }

    /// \brief force += B(q) u, the paper's sign: u_k > 0 pushes (Mathew et al., eq. D60).
    /// \param[in] q      the rod's coordinates (n)
    /// \param[in] u      one input per cable (n_a), N
    /// \param[in,out] force  n
    /// \throws std::invalid_argument on a size mismatch; std::domain_error if a cable's tangent
    ///   Tc vanishes at a Gauss point (a cable collapsed to zero length: t is undefined).
    void add_force(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u,
                   Eigen::Ref<VectorX> force) const;

    /// \brief force += B(q) u and jacobian += (dB/dq) u (Mathew et al., eqs. D60, D63).
    /// \param[in,out] jacobian  n x n; what is added is symmetric
    /// \throws as add_force().
    void add_force_and_derivative(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u,
                                  Eigen::Ref<VectorX> force, Eigen::Ref<Eigen::MatrixXd> jacobian) const;

    /// \brief force += B(q) (-T): the generalised force of cables pulled with tensions T >= 0,
    /// which bends the rod towards each cable (u = -T in the paper's convention).
    /// \param[in] tension  one tension per cable (n_a), N, each >= 0
    /// \throws as add_force(); std::invalid_argument if a tension is negative or not finite (a
    ///   cable cannot push: use add_force() for an actuator that can).
    void add_tension_force(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& tension,
                           Eigen::Ref<VectorX> force) const;

    /// \brief force += B(q) (-T) and jacobian += (dB/dq) (-T) (Mathew et al., eqs. D60, D63).
    /// \throws as add_tension_force().
    void add_tension_force_and_derivative(const Eigen::Ref<const VectorX>& q,
                                          const Eigen::Ref<const VectorX>& tension, Eigen::Ref<VectorX> force,
                                          Eigen::Ref<Eigen::MatrixXd> jacobian) const;

    /// \brief B(q) itself, n x n_a (written, not added): column k is dL_c,k/dq (eq. D60).
    void actuation_matrix(const Eigen::Ref<const VectorX>& q, Eigen::Ref<Eigen::MatrixXd> B) const;

    /// \brief The cables' lengths L_c,k(q) = sum_i w_i |Tc_ik| (m), by the same Gauss quadrature
    /// as B, whose columns are their gradients (written, not added; n_a).
    void cable_lengths(const Eigen::Ref<const VectorX>& q, Eigen::Ref<VectorX> lengths) const;

private:
    /// The unit tangent t and |Tc| of cable k at Gauss point i for the strain xi.
    double tangent(std::size_t i, std::size_t k, const Vec6& xi, Vec3& t) const;
    void check_sizes(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u) const;
    void accumulate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u, double sign,
                    Eigen::Ref<VectorX> force, Eigen::Ref<Eigen::MatrixXd>* jacobian) const;

    Index dof_count_ = 0;
    Index cable_count_ = 0;
    // Gauss points only (weight > 0).
    std::vector<double> X_, weight_;
    std::vector<Matrix6X> phi_;
    std::vector<Vec6> xi_star_;
    // Per Gauss point i and cable k, at i * cable_count_ + k.
    std::vector<Vec3> d_, d_prime_;
};

/// \brief An actuated rigid joint xi = Phi q + xi* with 1 to 6 coordinates: the generalised force
/// of the body-frame wrench Phi u on its child (Mathew et al., eqs. D66, D67). Immutable.
///
/// q, u and the outputs are the joint's own (its dof_count()); slice a model's vectors as for
/// TendonActuation.
class JointActuation {
public:
    /// A joint basis: 6 rows, at most 6 columns, stored without heap allocation.
    using Basis = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;

    /// \param[in] basis    Phi, 6 x n_k with 1 <= n_k <= 6 (e.g. [I_3; 0] for a spherical joint)
    /// \param[in] xi_star  the joint's reference strain (as in evaluate_rigid_joint)
    /// \throws std::invalid_argument if Phi has no columns or more than 6, or an entry that is not finite.
    explicit JointActuation(const Matrix6X& basis, const Vec6& xi_star = Vec6::Zero());

    Index dof_count() const { return static_cast<Index>(basis_.cols()); }

    /// \brief force += B(q) u = Phi^T T^T Ad*_{exp(xi^)} Phi u (Mathew et al., eq. D66).
    /// \throws std::invalid_argument on a size mismatch.
    void add_force(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u,
                   Eigen::Ref<VectorX> force) const;

    /// \brief force += B(q) u and jacobian += (dB/dq) u (Mathew et al., eqs. D66, D67).
    /// \throws std::invalid_argument on a size mismatch.
    void add_force_and_derivative(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u,
                                  Eigen::Ref<VectorX> force, Eigen::Ref<Eigen::MatrixXd> jacobian) const;

    /// \brief B(q), n_k x n_k (written, not added) (eq. D66).
    void actuation_matrix(const Eigen::Ref<const VectorX>& q, Eigen::Ref<Eigen::MatrixXd> B) const;

private:
    void check_sizes(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u) const;

    Basis basis_;
    Vec6 xi_star_;
};

}  // namespace soma::gvs
