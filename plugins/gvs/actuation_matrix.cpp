#include "actuation_matrix.hpp"

#include "screw_theory.hpp"
#include "soma/rotation.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace soma::gvs {
namespace {

/// Joint-sized vectors: at most 6 entries, on the stack.
using JointVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

void check_size(const char* what, Index size, Index expected) {
    if (size != expected)
        throw std::invalid_argument(std::string("GVS actuation: ") + what + " has " + std::to_string(size) +
                                    " entries, expected " + std::to_string(expected));
}

void check_matrix(const char* what, Index rows, Index cols, Index expected_rows, Index expected_cols) {
    if (rows != expected_rows || cols != expected_cols)
        throw std::invalid_argument(std::string("GVS actuation: ") + what + " is " + std::to_string(rows) + " x " +
                                    std::to_string(cols) + ", expected " + std::to_string(expected_rows) + " x " +
                                    std::to_string(expected_cols));
}

double evaluate_route_field(const ScalarField& field, const char* name, std::size_t cable, double X) {
    const std::string where = "GVS tendon: cables[" + std::to_string(cable) + "], field " + name;
    if (!field) throw std::invalid_argument(where + " is missing");
    const double value = field(X);
    if (!std::isfinite(value))
        throw std::invalid_argument(where + " is not finite at X = " + std::to_string(X));
    return value;
}

}  // namespace

CableRoute CableRoute::straight(double y, double z) {
    return CableRoute{[y](double) { return y; }, [z](double) { return z; }, [](double) { return 0.0; },
                      [](double) { return 0.0; }};
}

// ---------------------------------------------------------------------------------------------
// Tendons (Mathew et al., eqs. D60-D63)

TendonActuation::TendonActuation(const RodDiscretization& rod, std::vector<CableRoute> cables)
    : dof_count_(rod.dof_count()), cable_count_(static_cast<Index>(cables.size())) {
    for (Index p = 0; p < rod.point_count(); ++p) {
        const auto i = static_cast<std::size_t>(p);
        if (!(rod.weight[i] > 0.0)) continue;  // the base and the tip: weight 0, no contribution
        const double X = rod.X[i];
        X_.push_back(X);
        weight_.push_back(rod.weight[i]);
        phi_.push_back(rod.phi[i]);
        xi_star_.push_back(rod.xi_star[i]);
        for (std::size_t k = 0; k < cables.size(); ++k) {
            const CableRoute& c = cables[k];
            d_.emplace_back(0.0, evaluate_route_field(c.y, "y", k, X), evaluate_route_field(c.z, "z", k, X));
            d_prime_.emplace_back(0.0, evaluate_route_field(c.dy_dX, "dy_dX", k, X),
                                  evaluate_route_field(c.dz_dX, "dz_dX", k, X));
        }
    }
}

double TendonActuation::tangent(std::size_t i, std::size_t k, const Vec6& xi, Vec3& t) const {
    const std::size_t at = i * static_cast<std::size_t>(cable_count_) + k;
    // Tc = k x d + v + d', the first three rows of xi^ [d; 1] + d' (eq. D62)
    const Vec3 tc = xi.head<3>().cross(d_[at]) + xi.tail<3>() + d_prime_[at];
    const double norm = tc.norm();
    if (!(norm > 0.0) || !std::isfinite(norm))
        throw std::domain_error("GVS tendon: cables[" + std::to_string(k) + "] has a tangent of length " +
                                std::to_string(norm) + " at X = " + std::to_string(X_[i]) +
                                " (the rod is collapsed there)");
    t = tc / norm;  // eq. D61
    return norm;
}

void TendonActuation::check_sizes(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u) const {
    check_size("q", static_cast<Index>(q.size()), dof_count_);
    check_size("the cable inputs", static_cast<Index>(u.size()), cable_count_);
}

void TendonActuation::accumulate(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u,
                                 double sign, Eigen::Ref<VectorX> force,
                                 Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
    const auto cables = static_cast<std::size_t>(cable_count_);
    for (std::size_t i = 0; i < weight_.size(); ++i) {
        const Matrix6X& phi = phi_[i];
        Vec6 xi;
        xi.noalias() = phi * q;
        xi += xi_star_[i];
        Vec6 wrench = Vec6::Zero();
        Mat6 hessian = Mat6::Zero();
        for (std::size_t k = 0; k < cables; ++k) {
            const double uk = sign * u[static_cast<Index>(k)];
            Vec3 t;
            const double norm = tangent(i, k, xi, t);
            const Vec3& d = d_[i * cables + k];
            // d|Tc|/dxi = [d~ t; t] (eq. D60)
            wrench.head<3>() += uk * d.cross(t);
            wrench.tail<3>() += uk * t;
            if (jacobian == nullptr) continue;
            // dt/dxi = (1/|Tc|) (I - t t^T) [-d~, I] = (1/|Tc|) [t~^2 d~, -t~^2] (eq. D63)
            const Mat3 dt = skew(d);
            const Mat3 tt = skew(t) * skew(t);
            const double s = uk / norm;
            hessian.topLeftCorner<3, 3>() += s * (dt * tt * dt);
            hessian.topRightCorner<3, 3>() -= s * (dt * tt);
            hessian.bottomLeftCorner<3, 3>() += s * (tt * dt);
            hessian.bottomRightCorner<3, 3>() -= s * tt;
        }
        const double w = weight_[i];
        force.noalias() += phi.transpose() * (w * wrench);
        if (jacobian == nullptr) continue;
        // jacobian += w Phi^T H Phi, one column at a time (no n-sized temporary)
        for (Index j = 0; j < dof_count_; ++j) {
            const Vec6 column = w * (hessian * phi.col(j));
            jacobian->col(j).noalias() += phi.transpose() * column;
        }
    }
}

void TendonActuation::add_force(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u,
                                Eigen::Ref<VectorX> force) const {
    check_sizes(q, u);
    check_size("the force", static_cast<Index>(force.size()), dof_count_);
    accumulate(q, u, 1.0, force, nullptr);
}

void TendonActuation::add_force_and_derivative(const Eigen::Ref<const VectorX>& q,
                                               const Eigen::Ref<const VectorX>& u, Eigen::Ref<VectorX> force,
                                               Eigen::Ref<Eigen::MatrixXd> jacobian) const {
    check_sizes(q, u);
    check_size("the force", static_cast<Index>(force.size()), dof_count_);
    check_matrix("the Jacobian", static_cast<Index>(jacobian.rows()), static_cast<Index>(jacobian.cols()),
                 dof_count_, dof_count_);
    accumulate(q, u, 1.0, force, &jacobian);
}

namespace {
void check_tensions(const Eigen::Ref<const VectorX>& tension) {
    for (Index k = 0; k < tension.size(); ++k)
        if (!(tension[k] >= 0.0) || !std::isfinite(tension[k]))
            throw std::invalid_argument("GVS tendon: the tension of cables[" + std::to_string(k) + "] is " +
                                        std::to_string(tension[k]) +
                                        " N; a cable can only pull (tension >= 0, finite)");
}
}  // namespace

void TendonActuation::add_tension_force(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& tension,
                                        Eigen::Ref<VectorX> force) const {
    check_sizes(q, tension);
    check_size("the force", static_cast<Index>(force.size()), dof_count_);
    check_tensions(tension);
    accumulate(q, tension, -1.0, force, nullptr);  // u = -T
}

void TendonActuation::add_tension_force_and_derivative(const Eigen::Ref<const VectorX>& q,
                                                       const Eigen::Ref<const VectorX>& tension,
                                                       Eigen::Ref<VectorX> force,
                                                       Eigen::Ref<Eigen::MatrixXd> jacobian) const {
    check_sizes(q, tension);
    check_size("the force", static_cast<Index>(force.size()), dof_count_);
    check_matrix("the Jacobian", static_cast<Index>(jacobian.rows()), static_cast<Index>(jacobian.cols()),
                 dof_count_, dof_count_);
    check_tensions(tension);
    accumulate(q, tension, -1.0, force, &jacobian);  // u = -T
}

void TendonActuation::actuation_matrix(const Eigen::Ref<const VectorX>& q, Eigen::Ref<Eigen::MatrixXd> B) const {
    check_size("q", static_cast<Index>(q.size()), dof_count_);
    check_matrix("B", static_cast<Index>(B.rows()), static_cast<Index>(B.cols()), dof_count_, cable_count_);
    B.setZero();
    const auto cables = static_cast<std::size_t>(cable_count_);
    for (std::size_t i = 0; i < weight_.size(); ++i) {
        Vec6 xi;
        xi.noalias() = phi_[i] * q;
        xi += xi_star_[i];
        for (std::size_t k = 0; k < cables; ++k) {
            Vec3 t;
            tangent(i, k, xi, t);
            Vec6 wrench;
            wrench << d_[i * cables + k].cross(t), t;
            B.col(static_cast<Index>(k)).noalias() += phi_[i].transpose() * (weight_[i] * wrench);
        }
    }
}

void TendonActuation::cable_lengths(const Eigen::Ref<const VectorX>& q, Eigen::Ref<VectorX> lengths) const {
    check_size("q", static_cast<Index>(q.size()), dof_count_);
    check_size("the lengths", static_cast<Index>(lengths.size()), cable_count_);
    lengths.setZero();
    for (std::size_t i = 0; i < weight_.size(); ++i) {
        Vec6 xi;
        xi.noalias() = phi_[i] * q;
        xi += xi_star_[i];
        for (std::size_t k = 0; k < static_cast<std::size_t>(cable_count_); ++k) {
            Vec3 t;
            lengths[static_cast<Index>(k)] += weight_[i] * tangent(i, k, xi, t);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rigid joints (Mathew et al., eqs. D66, D67)

JointActuation::JointActuation(const Matrix6X& basis, const Vec6& xi_star) : xi_star_(xi_star) {
    if (basis.cols() < 1 || basis.cols() > 6)
        throw std::invalid_argument("GVS joint actuation: the joint basis has " + std::to_string(basis.cols()) +
                                    " columns, expected 1 to 6");
    if (!basis.allFinite() || !xi_star.allFinite())
        throw std::invalid_argument("GVS joint actuation: the joint basis or reference strain is not finite");
    basis_ = basis;
}

void JointActuation::check_sizes(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u) const {
    check_size("q", static_cast<Index>(q.size()), dof_count());
    check_size("the joint inputs", static_cast<Index>(u.size()), dof_count());
}

void JointActuation::add_force(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u,
                               Eigen::Ref<VectorX> force) const {
    check_sizes(q, u);
    check_size("the force", static_cast<Index>(force.size()), dof_count());
    const Vec6 Omega = basis_ * q + xi_star_;
    const Vec6 F0 = coAd(exp_twist(Omega)) * (basis_ * u);  // the wrench in the joint's base frame
    force.noalias() += basis_.transpose() * (tangent(Omega).transpose() * F0);  // eq. D66
}

void JointActuation::add_force_and_derivative(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& u,
                                              Eigen::Ref<VectorX> force, Eigen::Ref<Eigen::MatrixXd> jacobian) const {
    check_sizes(q, u);
    check_size("the force", static_cast<Index>(force.size()), dof_count());
    check_matrix("the Jacobian", static_cast<Index>(jacobian.rows()), static_cast<Index>(jacobian.cols()),
                 dof_count(), dof_count());
    const Vec6 Omega = basis_ * q + xi_star_;
    const Vec6 F0 = coAd(exp_twist(Omega)) * (basis_ * u);
    const Basis S = tangent(Omega) * basis_;
    force.noalias() += S.transpose() * F0;  // eq. D66

    // eq. D67. T^T = sum_r f_r (ad^r)^T = sum_r (-1)^r f_r ad*^r, so d(T^T F0)/dq holds
    //  - f_r' dtheta/dq = (f_r'/theta) w^T Phi_w (I_theta picks the angular part),
    //  - d(ad*^r_Omega F0)/dOmega = sum_{u=1}^r ad*^{u-1} adbar*_{ad*^{r-u} F0},
    // and dF0/dq = adbar*_{F0} S (the derivative of Ad*_{exp}, section 4) gives S^T adbar*_{F0} S.
    const auto c = tangent_coefficients(Omega.head<3>().norm());
    const Mat6 ad_star = coad(Omega);
    std::array<Mat6, 5> power;
    std::array<Vec6, 5> power_F0;
    power[0].setIdentity();
    power_F0[0] = F0;
    for (std::size_t r = 1; r <= 4; ++r) {
        power[r].noalias() = ad_star * power[r - 1];
        power_F0[r].noalias() = ad_star * power_F0[r - 1];
    }
    Vec6 angle_term = Vec6::Zero();
    Mat6 power_term = Mat6::Zero();
    for (std::size_t r = 1; r <= 4; ++r) {
        const double sign = (r % 2 == 0) ? 1.0 : -1.0;
        angle_term += (sign * c.df_over_theta[r - 1]) * power_F0[r];
        for (std::size_t v = 1; v <= r; ++v)
            power_term.noalias() += (sign * c.f[r - 1]) * (power[v - 1] * coad_bar(power_F0[r - v]));
    }
    const JointVector left = basis_.transpose() * angle_term;
    const JointVector right = basis_.topRows<3>().transpose() * Omega.head<3>();
    jacobian.noalias() += left * right.transpose();
    jacobian.noalias() += basis_.transpose() * power_term * basis_;
    jacobian.noalias() += S.transpose() * coad_bar(F0) * S;
}

void JointActuation::actuation_matrix(const Eigen::Ref<const VectorX>& q, Eigen::Ref<Eigen::MatrixXd> B) const {
    check_size("q", static_cast<Index>(q.size()), dof_count());
    check_matrix("B", static_cast<Index>(B.rows()), static_cast<Index>(B.cols()), dof_count(), dof_count());
    const Vec6 Omega = basis_ * q + xi_star_;
    const Basis S = tangent(Omega) * basis_;
    const Basis F0 = coAd(exp_twist(Omega)) * basis_;
    B.noalias() = S.transpose() * F0;  // eq. D66, column by column of u
}

}  // namespace soma::gvs
