// Mid-edge normal shell bending of one triangle: MAT-DiSMech eq. 18-20 with tau from the current
// configuration (closed form through the hinge angles) and its exact derivatives. The
// derivation is in the header.
#include "midedge_bending.hpp"

#include "hinge_bending.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <stdexcept>
#include <string>

namespace soma::shells {
namespace {

constexpr int kXi = 9;     // first xi slot of the 21-DOF order
constexpr int kWing = 12;  // first wing slot

/// Edge vectors v_k = p_{k+2} - p_{k+1} (edge opposite vertex k, cyclic direction).
std::array<Vec3, 3> edge_vectors(const std::array<Vec3, 3>& x) { return {x[2] - x[1], x[0] - x[2], x[1] - x[0]}; }

/// phi(theta, xi) of one edge kind and its partial derivatives.
struct EdgeMeasure {
    double value = 0.0;
    double d_theta = 0.0, d_xi = 0.0;
    double d_theta_theta = 0.0, d_theta_xi = 0.0;  // d_xi_xi = 0 for every kind
};

EdgeMeasure edge_measure(MidedgeEdgeKind kind, double s, double xi, double theta) {
    EdgeMeasure m;
    switch (kind) {
    case MidedgeEdgeKind::interior: {
        // phi = s xi sec(theta/2) + tan(theta/2)
        const double sec = 1.0 / std::cos(0.5 * theta), tn = std::tan(0.5 * theta);
        m.value = s * xi * sec + tn;
        m.d_theta = 0.5 * s * xi * sec * tn + 0.5 * sec * sec;
        m.d_xi = s * sec;
        m.d_theta_theta = 0.25 * s * xi * sec * (tn * tn + sec * sec) + 0.5 * sec * sec * tn;
        m.d_theta_xi = 0.5 * s * sec * tn;
        break;
    }
    case MidedgeEdgeKind::boundary:  // phi = s xi
        m.value = s * xi;
        m.d_xi = s;
        break;
    case MidedgeEdgeKind::held:  // phi = sin(theta_g); xi is held by the clamp (no free derivative)
        m.value = std::sin(theta);
        m.d_theta = std::cos(theta);
        m.d_theta_theta = -std::sin(theta);
        break;
    }
    return m;
}

bool has_wing(MidedgeEdgeKind kind) { return kind != MidedgeEdgeKind::boundary; }

/// The 21-DOF slot of hinge block b (x0, x1, x2, x3) for local edge k: (p_{k+1}, p_{k+2}, p_k, w_k).
int hinge_slot(int k, int b) {
    switch (b) {
    case 0: return 3 * ((k + 1) % 3);
    case 1: return 3 * ((k + 2) % 3);
    case 2: return 3 * k;
    default: return kWing + 3 * k;
    }
}

/// Psi(d, v) = (1-nu) sum_ij d_i d_j (v_i.v_j)^2 + nu (sum_i |v_i|^2 d_i)^2 and its derivatives
/// with respect to u = (d_0, d_1, d_2, v_0, v_1, v_2) (12 variables).
double gram_energy(double nu, const Vec3& d, const std::array<Vec3, 3>& v, VecN<12>& g, MatN<12>* H) {
    Mat3 P;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) P(i, j) = v[static_cast<std::size_t>(i)].dot(v[static_cast<std::size_t>(j)]);
    const Mat3 P2 = P.cwiseProduct(P);
    const Vec3 Pdiag = P.diagonal();
    const double T = Pdiag.dot(d);
    const double value = (1.0 - nu) * d.dot(P2 * d) + nu * T * T;

    // w_a = sum_j d_j P_aj v_j (3-vector per a)
    std::array<Vec3, 3> w;
    for (std::size_t a = 0; a < 3; ++a) {
        w[a].setZero();
        for (std::size_t j = 0; j < 3; ++j) w[a] += d(static_cast<Eigen::Index>(j)) * P(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(j)) * v[j];
    }
    const double a1 = 1.0 - nu;
    // Gradient: dPsi/dd_a = (1-nu) 2 sum_j d_j P_aj^2 + nu 2 T P_aa; dPsi/dv_a = (1-nu) 4 d_a w_a + nu 4 T d_a v_a.
    g.head<3>() = a1 * 2.0 * (P2 * d) + (2.0 * nu * T) * Pdiag;
    for (std::size_t a = 0; a < 3; ++a) {
        const double da = d(static_cast<Eigen::Index>(a));
        g.segment<3>(3 + 3 * static_cast<Eigen::Index>(a)) = a1 * 4.0 * da * w[a] + nu * 4.0 * T * da * v[a];
    }
    if (H == nullptr) return value;

    MatN<12>& h = *H;
    // d-d: (1-nu) 2 P_ab^2 + nu 2 P_aa P_bb
    h.topLeftCorner<3, 3>() = a1 * 2.0 * P2 + 2.0 * nu * (Pdiag * Pdiag.transpose());
    // d_b - v_a: (1-nu) [4 delta_ab w_a + 4 d_a P_ab v_b] + nu [2 P_bb 2 d_a v_a + 2 T 2 delta_ab v_a]
    for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = 0; b < 3; ++b) {
            const auto ia = static_cast<Eigen::Index>(a), ib = static_cast<Eigen::Index>(b);
            Vec3 col = a1 * 4.0 * d(ia) * P(ia, ib) * v[b] + nu * 4.0 * Pdiag(ib) * d(ia) * v[a];
            if (a == b) col += a1 * 4.0 * w[a] + nu * 4.0 * T * v[a];
            h.block<3, 1>(3 + 3 * ia, ib) = col;
            h.block<1, 3>(ib, 3 + 3 * ia) = col.transpose();
        }
    // v_a - v_b: (1-nu) 4 d_a [delta_ab sum_j d_j v_j v_j^T + d_b v_b v_a^T + d_b P_ab I]
    //            + nu [8 d_a d_b v_a v_b^T + 4 T d_a delta_ab I]
    Mat3 S = Mat3::Zero();
    for (std::size_t j = 0; j < 3; ++j) S += d(static_cast<Eigen::Index>(j)) * (v[j] * v[j].transpose());
    for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = 0; b < 3; ++b) {
            const auto ia = static_cast<Eigen::Index>(a), ib = static_cast<Eigen::Index>(b);
            Mat3 blk = a1 * 4.0 * d(ia) * d(ib) * (v[b] * v[a].transpose() + P(ia, ib) * Mat3::Identity()) +
                       nu * 8.0 * d(ia) * d(ib) * (v[a] * v[b].transpose());
            if (a == b) blk += a1 * 4.0 * d(ia) * S + nu * 4.0 * T * d(ia) * Mat3::Identity();
            h.block<3, 3>(3 + 3 * ia, 3 + 3 * ib) = blk;
        }
    return value;
}

/// The held normal n^m(xi) and its first two derivatives in xi.
struct HeldNormal {
    Vec3 value, d1, d2;
};

HeldNormal held_normal_derivatives(const MidedgeTriangle& tri, int k, double xi) {
    if (!(std::abs(xi) < 1.0))
        throw std::domain_error("a held edge's xi must lie in (-1, 1) (it is the component of a unit normal), got " +
                                std::to_string(xi));
    const auto uk = static_cast<std::size_t>(k);
    const double c = std::sqrt(1.0 - xi * xi);
    return {c * tri.held_normal[uk] + xi * tri.held_tangent[uk], (-xi / c) * tri.held_normal[uk] + tri.held_tangent[uk],
            (-1.0 / (c * c * c)) * tri.held_normal[uk]};
}

/// The angle theta of local edge k (interior: to the neighbour's face; held: to the ghost face)
/// with, for order >= 1, its gradient (and for order 2 its Hessian) over up to 12 scalar DOFs
/// whose 21-DOF slots are in `slot` (-1: none).
struct EdgeAngle {
    double theta = 0.0;
    VecN<12> gradient;
    MatN<12> hessian;
    std::array<int, 12> slot{};
};

void edge_angle(const MidedgeTriangle& tri, const MidedgeStencil& st, int k, int order, EdgeAngle& out) {
    const auto uk = static_cast<std::size_t>(k);
    const Vec3& x0 = st.x[static_cast<std::size_t>((k + 1) % 3)];
    const Vec3& x1 = st.x[static_cast<std::size_t>((k + 2) % 3)];
    const Vec3& x2 = st.x[uk];
    for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 3; ++c) out.slot[static_cast<std::size_t>(3 * b + c)] = hinge_slot(k, b) + c;
    if (tri.kinds[uk] == MidedgeEdgeKind::interior) {
        if (order >= 2)
            out.theta = hinge_angle_gradient_hessian(x0, x1, x2, st.wing[uk], out.gradient, out.hessian);
        else if (order == 1)
            out.theta = hinge_angle_gradient(x0, x1, x2, st.wing[uk], out.gradient);
        else
            out.theta = hinge_angle(x0, x1, x2, st.wing[uk]);
        return;
    }
    // Held edge: the ghost y = x0 + u x m(xi), u = x1 - x0, is a function of (x0, x1, xi); chain
    // the hinge angle's derivatives through it to the 10 DOFs (x0, x1, x2, xi).
    const HeldNormal m = held_normal_derivatives(tri, k, st.xi(k));
    const Vec3 u = x1 - x0;
    const Vec3 y = midedge_ghost_wing(x0, u, m.value);
    out.slot[9] = kXi + k;
    out.slot[10] = out.slot[11] = -1;
    if (order == 0) {
        out.theta = hinge_angle(x0, x1, x2, y);
        return;
    }
    VecN<12> g;
    MatN<12> h;
    out.theta = order >= 2 ? hinge_angle_gradient_hessian(x0, x1, x2, y, g, h) : hinge_angle_gradient(x0, x1, x2, y, g);
    // A = d(x0, x1, x2, y)/d(x0, x1, x2, xi): dy/dx0 = I + [m]x, dy/dx1 = -[m]x, dy/dxi = u x m'.
    Mat3 m_cross;
    m_cross << 0.0, -m.value.z(), m.value.y(), m.value.z(), 0.0, -m.value.x(), -m.value.y(), m.value.x(), 0.0;
    Eigen::Matrix<double, 12, 10> A = Eigen::Matrix<double, 12, 10>::Zero();
    A.block<9, 9>(0, 0).setIdentity();
    A.block<3, 3>(9, 0) = Mat3::Identity() + m_cross;
    A.block<3, 3>(9, 3) = -m_cross;
    A.block<3, 1>(9, 9) = u.cross(m.d1);
    out.gradient.setZero();
    out.gradient.head<10>() = A.transpose() * g;
    if (order < 2) return;
    out.hessian.setZero();
    const Eigen::Matrix<double, 10, 12> AtH = A.transpose() * h;
    out.hessian.topLeftCorner<10, 10>() = AtH.lazyProduct(A);
    // sum_c (dtheta/dy_c) Hess y_c: y is linear in x for a given xi; g_y.(u x m') = u.(m' x g_y).
    const Vec3 gy = g.tail<3>();
    const Vec3 mixed = m.d1.cross(gy);
    out.hessian.block<1, 3>(9, 3) += mixed.transpose();
    out.hessian.block<3, 1>(3, 9) += mixed;
    out.hessian.block<1, 3>(9, 0) -= mixed.transpose();
    out.hessian.block<3, 1>(0, 9) -= mixed;
    out.hessian(9, 9) += u.dot(m.d2.cross(gy));
}

/// Shared evaluation. `order` 0: energy; 1: + gradient; 2: + Hessian.
double evaluate(const MidedgeTriangle& tri, const MidedgeStencil& st, int order, VecN<21>* gradient,
                MatN<21>* hessian) {
    const double scale = tri.bending_stiffness * tri.rest_area;
    const std::array<Vec3, 3> v = edge_vectors(st.x);

    // Edge measures and, where needed, the angles' derivatives.
    Vec3 d;
    std::array<EdgeMeasure, 3> m;
    std::array<EdgeAngle, 3> angle;
    for (int k = 0; k < 3; ++k) {
        const auto uk = static_cast<std::size_t>(k);
        const MidedgeEdgeKind kind = tri.kinds[uk];
        if (has_wing(kind)) edge_angle(tri, st, k, order, angle[uk]);
        m[uk] = edge_measure(kind, tri.signs(k), st.xi(k), angle[uk].theta);
        d(k) = m[uk].value / (tri.rest_area * tri.rest_lengths(k)) - tri.natural_coefficients(k);
    }

    VecN<12> gu;
    MatN<12> Hu;
    const double psi = gram_energy(tri.poisson_ratio, d, v, gu, order >= 2 ? &Hu : nullptr);
    if (order == 0) return scale * psi;

    // J = du/dz (12 x 21): rows 0..2 the gradients of d^k, rows 3..11 the edge vectors' constant map.
    Eigen::Matrix<double, 12, 21> J = Eigen::Matrix<double, 12, 21>::Zero();
    for (int k = 0; k < 3; ++k) {
        const auto uk = static_cast<std::size_t>(k);
        const double inv = 1.0 / (tri.rest_area * tri.rest_lengths(k));
        J(k, kXi + k) = inv * m[uk].d_xi;
        if (has_wing(tri.kinds[uk]))
            for (int i = 0; i < 12; ++i)
                if (const int s = angle[uk].slot[static_cast<std::size_t>(i)]; s >= 0)
                    J(k, s) += inv * m[uk].d_theta * angle[uk].gradient(i);
        // v_k = p_{k+2} - p_{k+1}
        J.block<3, 3>(3 + 3 * k, 3 * ((k + 2) % 3)) = Mat3::Identity();
        J.block<3, 3>(3 + 3 * k, 3 * ((k + 1) % 3)) = -Mat3::Identity();
    }
    gradient->noalias() = scale * (J.transpose() * gu);
    if (order == 1) return scale * psi;

    // Gauss-Newton part J^T Hu J (exact: v is linear in x), then sum_k dPsi/dd_k * Hess d^k.
    MatN<21>& H = *hessian;
    const Eigen::Matrix<double, 21, 12> JtH = J.transpose().lazyProduct(Hu);
    H.noalias() = JtH.lazyProduct(J);
    for (int k = 0; k < 3; ++k) {
        const auto uk = static_cast<std::size_t>(k);
        if (!has_wing(tri.kinds[uk])) continue;  // d is affine in xi: no second derivative
        const double w = gu(k) / (tri.rest_area * tri.rest_lengths(k));
        const EdgeMeasure& mk = m[uk];
        const EdgeAngle& ak = angle[uk];
        for (int j = 0; j < 12; ++j) {
            const int sj = ak.slot[static_cast<std::size_t>(j)];
            if (sj < 0) continue;
            for (int i = 0; i < 12; ++i) {
                const int si = ak.slot[static_cast<std::size_t>(i)];
                if (si < 0) continue;
                H(si, sj) += w * (mk.d_theta_theta * ak.gradient(i) * ak.gradient(j) + mk.d_theta * ak.hessian(i, j));
            }
            // theta-xi cross terms of phi (interior edges; zero for held ones)
            const double cross = w * mk.d_theta_xi * ak.gradient(j);
            H(sj, kXi + k) += cross;
            H(kXi + k, sj) += cross;
        }
    }
    H *= scale;
    return scale * psi;
}

}  // namespace

double midedge_bending_stiffness(double youngs_modulus, double poisson_ratio, double thickness) {
    if (!(youngs_modulus > 0.0) || !std::isfinite(youngs_modulus))
        throw std::invalid_argument("youngs_modulus must be positive and finite, got " + std::to_string(youngs_modulus));
    if (!(thickness > 0.0) || !std::isfinite(thickness))
        throw std::invalid_argument("thickness must be positive and finite, got " + std::to_string(thickness));
    // nu = 1 divides by zero. An isotropic linear solid has nu <= 0.5; 0.5 (incompressible) is
    // allowed and is the paper's cantilever value (a plate strip then bends like a beam).
    if (!(poisson_ratio >= 0.0 && poisson_ratio <= 0.5))
        throw std::invalid_argument("poisson_ratio must be in [0, 0.5], got " + std::to_string(poisson_ratio));
    return youngs_modulus * thickness * thickness * thickness / (24.0 * (1.0 - poisson_ratio * poisson_ratio));
}

Vec3 midedge_edge_measures(const MidedgeTriangle& tri, const MidedgeStencil& st) {
    Vec3 phi;
    for (int k = 0; k < 3; ++k) {
        const auto uk = static_cast<std::size_t>(k);
        EdgeAngle angle;
        if (has_wing(tri.kinds[uk])) edge_angle(tri, st, k, 0, angle);
        phi(k) = edge_measure(tri.kinds[uk], tri.signs(k), st.xi(k), angle.theta).value;
    }
    return phi;
}

Vec3 midedge_held_normal(const MidedgeTriangle& tri, int k, double xi) { return held_normal_derivatives(tri, k, xi).value; }

Vec3 midedge_natural_coefficients(const MidedgeTriangle& tri, const MidedgeStencil& natural) {
    MidedgeStencil at_rest = natural;
    at_rest.xi.setZero();
    return midedge_edge_measures(tri, at_rest).cwiseQuotient(tri.rest_area * tri.rest_lengths);
}

double midedge_energy(const MidedgeTriangle& tri, const MidedgeStencil& st) {
    return evaluate(tri, st, 0, nullptr, nullptr);
}

double midedge_energy_gradient(const MidedgeTriangle& tri, const MidedgeStencil& st, VecN<21>& gradient) {
    return evaluate(tri, st, 1, &gradient, nullptr);
}

double midedge_energy_gradient_hessian(const MidedgeTriangle& tri, const MidedgeStencil& st, VecN<21>& gradient,
                                       MatN<21>& hessian) {
    return evaluate(tri, st, 2, &gradient, &hessian);
}

Mat3 midedge_shape_operator(const MidedgeTriangle& tri, const MidedgeStencil& st) {
    const std::array<Vec3, 3> v = edge_vectors(st.x);
    const Vec3 n = v[2].cross(v[0]).normalized();
    const Vec3 phi = midedge_edge_measures(tri, st);
    Mat3 lambda = Mat3::Zero();
    for (std::size_t k = 0; k < 3; ++k) {
        const auto ek = static_cast<Eigen::Index>(k);
        const Vec3 t = v[k].cross(n);
        lambda += (phi(ek) / (tri.rest_area * tri.rest_lengths(ek))) * (t * t.transpose());
    }
    return lambda;
}

Vec3 midedge_ghost_wing(const Vec3& edge_start, const Vec3& edge_vector, const Vec3& held_normal) {
    return edge_start + edge_vector.cross(held_normal);
}

}  // namespace soma::shells
