// Mid-edge normal shell bending of one triangle: digest 000 §2.7 (paper eq. 18-20, Appendix A
// with the digest's corrections). Conventions and the chain-rule form are in the header.
#include "midedge_bending.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <stdexcept>
#include <string>

namespace soma::shells {
namespace {

/// Edge vectors v_k = p_{k+2} - p_{k+1} (edge opposite vertex k, cyclic direction).
std::array<Vec3, 3> edge_vectors(const std::array<Vec3, 3>& x) {
    return {x[2] - x[1], x[0] - x[2], x[1] - x[0]};
}

/// M_ij = (t^i.t^j)^2 and L_i = (l^i)^2 of the frozen edge normals.
void trace_weights(const std::array<Vec3, 3>& t, Mat3& M, Vec3& L) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const double d = t[static_cast<std::size_t>(i)].dot(t[static_cast<std::size_t>(j)]);
            M(i, j) = d * d;
        }
    for (int i = 0; i < 3; ++i) L(i) = t[static_cast<std::size_t>(i)].squaredNorm();
}

/// d^k = c^k (s^k xi^k - n.tau~^k) - a_bar^k.
Vec3 strain_coefficients(const MidedgeTriangle& tri, const MidedgeFrame& frame, const Vec3& normal, const Vec3& xi) {
    Vec3 d;
    for (int k = 0; k < 3; ++k) {
        const double f = normal.dot(frame.face_tau[static_cast<std::size_t>(k)]);
        d(k) = frame.coefficients(k) * (tri.signs(k) * xi(k) - f) - tri.natural_coefficients(k);
    }
    return d;
}

/// E / (k_b A_bar) = (1-nu) d^T M d + nu (L.d)^2.
double reduced_energy(double nu, const Vec3& d, const Mat3& M, const Vec3& L) {
    const double trace = L.dot(d);
    return (1.0 - nu) * d.dot(M * d) + nu * trace * trace;
}

/// Shared gradient / Hessian evaluation (hessian may be null).
double evaluate(const MidedgeTriangle& tri, const std::array<Vec3, 3>& x, const Vec3& xi,
                const std::array<Vec3, 3>& face_tau, VecN<12>& gradient, MatN<12>* hessian) {
    const MidedgeFrame fr = midedge_frame(tri.rest_area, tri.rest_lengths, x, face_tau);
    Mat3 M;
    Vec3 L;
    trace_weights(fr.edge_normals, M, L);
    const double nu = tri.poisson_ratio;
    const double scale = tri.bending_stiffness * tri.rest_area;
    const Vec3 d = strain_coefficients(tri, fr, fr.normal, xi);

    // Jacobian of d (3 x 12): dd^i/dx_k = -c^i (tau~^i.t^k) n / (2A), dd^i/dxi^i = c^i s^i.
    Eigen::Matrix<double, 3, 12> J = Eigen::Matrix<double, 3, 12>::Zero();
    const double inv2A = 1.0 / (2.0 * fr.area);
    for (int i = 0; i < 3; ++i) {
        const Vec3& tau = fr.face_tau[static_cast<std::size_t>(i)];
        for (int k = 0; k < 3; ++k)
            J.block<1, 3>(i, 3 * k) =
                (-fr.coefficients(i) * tau.dot(fr.edge_normals[static_cast<std::size_t>(k)]) * inv2A) * fr.normal.transpose();
        J(i, 9 + i) = fr.coefficients(i) * tri.signs(i);
    }
    // dE/dd = scale * e, d2E/dd2 = scale * Q.
    const Vec3 e = 2.0 * (1.0 - nu) * (M * d) + (2.0 * nu * L.dot(d)) * L;
    gradient.noalias() = scale * (J.transpose() * e);
    if (hessian != nullptr) {
        const Mat3 Q = 2.0 * (1.0 - nu) * M + 2.0 * nu * (L * L.transpose());
        MatN<12>& H = *hessian;
        // Gauss-Newton part: dd^T Q dd. Written as a lazy product of fixed-size factors: the
        // plain J^T Q J goes through Eigen's general matrix product (a third of the assembly).
        const Eigen::Matrix<double, 12, 3> JtQ = J.transpose() * Q;
        H.noalias() = scale * JtQ.lazyProduct(J);
        // Curvature part: sum_i e_i d2d^i = -sum_i e_i c^i d2f^i, with the paper's approximation
        // d2f^i/dx_k1 dx_k2 = (tau~^i.t^k1) (n (x) t^k2 + t^k2 (x) n) / (4A^2) (digest §2.7; the
        // x-xi and xi-xi blocks of d2d are zero: d is affine in xi).
        const double inv4A2 = inv2A * inv2A;
        for (int k1 = 0; k1 < 3; ++k1)
            for (int k2 = 0; k2 < 3; ++k2) {
                const Vec3& t2 = fr.edge_normals[static_cast<std::size_t>(k2)];
                const Mat3 sym = fr.normal * t2.transpose() + t2 * fr.normal.transpose();
                double w = 0.0;
                for (int i = 0; i < 3; ++i)
                    w -= e(i) * fr.coefficients(i) *
                         fr.face_tau[static_cast<std::size_t>(i)].dot(fr.edge_normals[static_cast<std::size_t>(k1)]);
                H.block<3, 3>(3 * k1, 3 * k2) += (scale * w * inv4A2) * sym;
            }
        // Symmetrize. The paper's Hessian drops the derivatives of c, t and A, and its d2f block
        // (k1, k2) carries the factor (tau~.t^k1) while block (k2, k1) carries (tau~.t^k2): the
        // 12x12 result is not symmetric (nor is it the exact Hessian of any function). The
        // kernel's default solvers (LDL^T, CG) read one triangle of a matrix they assume
        // symmetric, so an unsymmetric block would be half ignored, differently for each
        // solver; (H + H^T)/2 is what a symmetric solver can use consistently, and it is the
        // symmetric part of the same approximation (digest §2.7 "Practical note on symmetry").
        // It is also independent of which of the paper's or the code's index conventions for
        // d2f is used: both symmetrize to the same matrix.
        H = 0.5 * (H + H.transpose()).eval();
    }
    return scale * reduced_energy(nu, d, M, L);
}

}  // namespace

double midedge_bending_stiffness(double youngs_modulus, double poisson_ratio, double thickness) {
    if (!(youngs_modulus > 0.0) || !std::isfinite(youngs_modulus))
        throw std::invalid_argument("youngs_modulus must be positive and finite, got " + std::to_string(youngs_modulus));
    if (!(thickness > 0.0) || !std::isfinite(thickness))
        throw std::invalid_argument("thickness must be positive and finite, got " + std::to_string(thickness));
    // nu = 1 divides by zero (the reference code refuses it, digest §2.7). An isotropic linear
    // solid has nu <= 0.5; 0.5 (incompressible) is allowed and is the paper's cantilever value
    // (digest §7.5: with nu = 0.5 the plate bends like a beam when anticlastic curvature is free).
    if (!(poisson_ratio >= 0.0 && poisson_ratio <= 0.5))
        throw std::invalid_argument("poisson_ratio must be in [0, 0.5], got " + std::to_string(poisson_ratio));
    return youngs_modulus * thickness * thickness * thickness / (24.0 * (1.0 - poisson_ratio * poisson_ratio));
}

Vec3 midedge_unit_normal(const std::array<Vec3, 3>& x, double* area) {
    const Vec3 normal = (x[1] - x[0]).cross(x[2] - x[1]);  // v_2 x v_0
    const double twice_area = normal.norm();
    if (area != nullptr) *area = 0.5 * twice_area;
    return normal / twice_area;
}

MidedgeFrame midedge_frame(double rest_area, const Vec3& rest_lengths, const std::array<Vec3, 3>& x,
                           const std::array<Vec3, 3>& face_tau) {
    MidedgeFrame fr;
    fr.normal = midedge_unit_normal(x, &fr.area);
    fr.face_tau = face_tau;
    const std::array<Vec3, 3> v = edge_vectors(x);
    for (std::size_t k = 0; k < 3; ++k) {
        fr.edge_normals[k] = v[k].cross(fr.normal);
        const double l = fr.edge_normals[k].norm();
        const double cosine = fr.edge_normals[k].dot(face_tau[k]) / l;  // t_hat^k.tau~^k
        fr.coefficients(static_cast<Eigen::Index>(k)) = 1.0 / (rest_area * rest_lengths(static_cast<Eigen::Index>(k)) * cosine);
    }
    return fr;
}

Vec3 midedge_natural_coefficients(double rest_area, const Vec3& rest_lengths, const std::array<Vec3, 3>& x_bar,
                                  const std::array<Vec3, 3>& face_tau) {
    const MidedgeFrame fr = midedge_frame(rest_area, rest_lengths, x_bar, face_tau);
    Vec3 a;
    for (int k = 0; k < 3; ++k) a(k) = -fr.coefficients(k) * fr.normal.dot(face_tau[static_cast<std::size_t>(k)]);
    return a;
}

double midedge_energy_frozen(const MidedgeTriangle& tri, const MidedgeFrame& frozen, const Vec3& normal,
                             const Vec3& xi) {
    Mat3 M;
    Vec3 L;
    trace_weights(frozen.edge_normals, M, L);
    const Vec3 d = strain_coefficients(tri, frozen, normal, xi);
    return tri.bending_stiffness * tri.rest_area * reduced_energy(tri.poisson_ratio, d, M, L);
}

double midedge_energy(const MidedgeTriangle& tri, const std::array<Vec3, 3>& x, const Vec3& xi,
                      const std::array<Vec3, 3>& face_tau) {
    const MidedgeFrame fr = midedge_frame(tri.rest_area, tri.rest_lengths, x, face_tau);
    return midedge_energy_frozen(tri, fr, fr.normal, xi);
}

double midedge_energy_gradient(const MidedgeTriangle& tri, const std::array<Vec3, 3>& x, const Vec3& xi,
                               const std::array<Vec3, 3>& face_tau, VecN<12>& gradient) {
    return evaluate(tri, x, xi, face_tau, gradient, nullptr);
}

double midedge_energy_gradient_hessian(const MidedgeTriangle& tri, const std::array<Vec3, 3>& x, const Vec3& xi,
                                       const std::array<Vec3, 3>& face_tau, VecN<12>& gradient, MatN<12>& hessian) {
    return evaluate(tri, x, xi, face_tau, gradient, &hessian);
}

Mat3 midedge_shape_operator(const MidedgeTriangle& tri, const std::array<Vec3, 3>& x, const Vec3& xi,
                            const std::array<Vec3, 3>& face_tau) {
    const MidedgeFrame fr = midedge_frame(tri.rest_area, tri.rest_lengths, x, face_tau);
    Mat3 lambda = Mat3::Zero();
    for (std::size_t k = 0; k < 3; ++k) {
        const auto ek = static_cast<Eigen::Index>(k);
        const double g = tri.signs(ek) * xi(ek) - fr.normal.dot(face_tau[k]);
        lambda += (fr.coefficients(ek) * g) * (fr.edge_normals[k] * fr.edge_normals[k].transpose());
    }
    return lambda;
}

Vec3 midedge_edge_tau(const Vec3& x0, const Vec3& x1, const Vec3& normal_a, const Vec3& normal_b) {
    const Vec3 e_hat = (x1 - x0).normalized();
    const Vec3 n_avg = (normal_a + normal_b).normalized();
    return e_hat.cross(n_avg).normalized();
}

}  // namespace soma::shells
