// Hinge bending: MAT-DiSMech §3.3.1, eq. 17 (gradient and Hessian in the Tamstorf-Grinspun form of
// the reference code), with the reference code's stiffness (the paper's, after eq. 17, is half).
#include "hinge_bending.hpp"

#include <Eigen/Geometry>

#include <cmath>

namespace soma::shells {

double hinge_bending_stiffness(double youngs_modulus, double thickness) {
    // (2/sqrt(3)) E h^3/12: reference code value, twice the paper's (MAT-DiSMech, after eq. 17).
    return 2.0 / std::sqrt(3.0) * youngs_modulus * thickness * thickness * thickness / 12.0;
}

double hinge_angle(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3) {
    const Vec3 e0 = x1 - x0;
    const Vec3 n0 = e0.cross(x2 - x0);
    const Vec3 n1 = (x3 - x0).cross(e0);
    return std::atan2(n0.cross(n1).dot(e0) / e0.norm(), n0.dot(n1));
}

namespace {

/// Quantities shared by the gradient and the Hessian of the hinge angle (MAT-DiSMech eq. 17).
struct HingeTerms {
    Vec3 e0, e1, e2, e3, e4;
    double l0, l1, l2, l3, l4;
    double cosA1, cosA2, cosA3, cosA4;
    Vec3 nn1, nn2;
    double h1, h2, h3, h4, h01, h02;
};

HingeTerms hinge_terms(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3) {
    HingeTerms t;
    t.e0 = x1 - x0;
    t.e1 = x2 - x0;
    t.e2 = x3 - x0;
    t.e3 = x2 - x1;
    t.e4 = x3 - x1;
    t.l0 = t.e0.norm();
    t.l1 = t.e1.norm();
    t.l2 = t.e2.norm();
    t.l3 = t.e3.norm();
    t.l4 = t.e4.norm();
    const Vec3 c1 = t.e0.cross(t.e1), c2 = t.e0.cross(t.e2), c3 = t.e0.cross(t.e3), c4 = t.e0.cross(t.e4);
    t.cosA1 = t.e0.dot(t.e1) / (t.l0 * t.l1);
    t.cosA2 = t.e0.dot(t.e2) / (t.l0 * t.l2);
    t.cosA3 = -t.e0.dot(t.e3) / (t.l0 * t.l3);
    t.cosA4 = -t.e0.dot(t.e4) / (t.l0 * t.l4);
    const double sinA1 = c1.norm() / (t.l0 * t.l1);
    const double sinA2 = c2.norm() / (t.l0 * t.l2);
    const double sinA3 = -c3.norm() / (t.l0 * t.l3);
    const double sinA4 = -c4.norm() / (t.l0 * t.l4);
    t.nn1 = c3.normalized();
    t.nn2 = -c4.normalized();
    t.h1 = t.l0 * sinA1;
    t.h2 = t.l0 * sinA2;
    t.h3 = -t.l0 * sinA3;
    t.h4 = -t.l0 * sinA4;
    t.h01 = t.l1 * sinA1;
    t.h02 = t.l2 * sinA2;
    return t;
}

void angle_gradient(const HingeTerms& t, VecN<12>& g) {
    g.segment<3>(0) = t.cosA3 * t.nn1 / t.h3 + t.cosA4 * t.nn2 / t.h4;
    g.segment<3>(3) = t.cosA1 * t.nn1 / t.h1 + t.cosA2 * t.nn2 / t.h2;
    g.segment<3>(6) = -t.nn1 / t.h01;
    g.segment<3>(9) = -t.nn2 / t.h02;
}

Mat3 outer(const Vec3& a, const Vec3& b) { return a * b.transpose(); }
Mat3 mmt(const Mat3& m) { return m + m.transpose(); }

}  // namespace

double hinge_angle_gradient(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3,
                            VecN<12>& gradient) {
    angle_gradient(hinge_terms(x0, x1, x2, x3), gradient);
    return hinge_angle(x0, x1, x2, x3);
}

double hinge_angle_gradient_hessian(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3,
                                    VecN<12>& gradient, MatN<12>& hessian) {
    const HingeTerms t = hinge_terms(x0, x1, x2, x3);
    angle_gradient(t, gradient);

    // Helper vectors and matrices of the reference code's hinge Hessian (MAT-DiSMech eq. 17).
    const Vec3 m1 = t.nn1.cross(t.e1) / t.l1;
    const Vec3 m2 = -t.nn2.cross(t.e2) / t.l2;
    const Vec3 m3 = -t.nn1.cross(t.e3) / t.l3;
    const Vec3 m4 = t.nn2.cross(t.e4) / t.l4;
    const Vec3 m01 = -t.nn1.cross(t.e0) / t.l0;
    const Vec3 m02 = t.nn2.cross(t.e0) / t.l0;

    const Mat3 M331 = t.cosA3 / (t.h3 * t.h3) * outer(m3, t.nn1);
    const Mat3 M311 = t.cosA3 / (t.h3 * t.h1) * outer(m1, t.nn1);
    const Mat3 M131 = t.cosA1 / (t.h1 * t.h3) * outer(m3, t.nn1);
    const Mat3 M3011 = t.cosA3 / (t.h3 * t.h01) * outer(m01, t.nn1);
    const Mat3 M111 = t.cosA1 / (t.h1 * t.h1) * outer(m1, t.nn1);
    const Mat3 M1011 = t.cosA1 / (t.h1 * t.h01) * outer(m01, t.nn1);
    const Mat3 M442 = t.cosA4 / (t.h4 * t.h4) * outer(m4, t.nn2);
    const Mat3 M422 = t.cosA4 / (t.h4 * t.h2) * outer(m2, t.nn2);
    const Mat3 M242 = t.cosA2 / (t.h2 * t.h4) * outer(m4, t.nn2);
    const Mat3 M4022 = t.cosA4 / (t.h4 * t.h02) * outer(m02, t.nn2);
    const Mat3 M222 = t.cosA2 / (t.h2 * t.h2) * outer(m2, t.nn2);
    const Mat3 M2022 = t.cosA2 / (t.h2 * t.h02) * outer(m02, t.nn2);
    const double l0sq = t.l0 * t.l0;
    const Mat3 B1 = outer(t.nn1, m01) / l0sq;
    const Mat3 B2 = outer(t.nn2, m02) / l0sq;
    const Mat3 N13 = outer(t.nn1, m3) / (t.h01 * t.h3);
    const Mat3 N24 = outer(t.nn2, m4) / (t.h02 * t.h4);
    const Mat3 N11 = outer(t.nn1, m1) / (t.h01 * t.h1);
    const Mat3 N22 = outer(t.nn2, m2) / (t.h02 * t.h2);
    const Mat3 N101 = outer(t.nn1, m01) / (t.h01 * t.h01);
    const Mat3 N202 = outer(t.nn2, m02) / (t.h02 * t.h02);

    const Mat3 H00 = mmt(M331) - B1 + mmt(M442) - B2;
    const Mat3 H01 = M311 + M131.transpose() + B1 + M422 + M242.transpose() + B2;
    const Mat3 H02 = M3011 - N13;
    const Mat3 H03 = M4022 - N24;
    const Mat3 H11 = mmt(M111) - B1 + mmt(M222) - B2;
    const Mat3 H12 = M1011 - N11;
    const Mat3 H13 = M2022 - N22;
    const Mat3 H22 = -mmt(N101);
    const Mat3 H33 = -mmt(N202);

    hessian.setZero();
    hessian.block<3, 3>(0, 0) = H00;
    hessian.block<3, 3>(0, 3) = H01;
    hessian.block<3, 3>(0, 6) = H02;
    hessian.block<3, 3>(0, 9) = H03;
    hessian.block<3, 3>(3, 3) = H11;
    hessian.block<3, 3>(3, 6) = H12;
    hessian.block<3, 3>(3, 9) = H13;
    hessian.block<3, 3>(6, 6) = H22;
    hessian.block<3, 3>(9, 9) = H33;
    // Lower blocks are the transposes (H23 = 0).
    hessian.block<3, 3>(3, 0) = H01.transpose();
    hessian.block<3, 3>(6, 0) = H02.transpose();
    hessian.block<3, 3>(9, 0) = H03.transpose();
    hessian.block<3, 3>(6, 3) = H12.transpose();
    hessian.block<3, 3>(9, 3) = H13.transpose();
    return hinge_angle(x0, x1, x2, x3);
}

double hinge_energy(const HingeSpring& spring, const Vec3& x0, const Vec3& x1, const Vec3& x2,
                    const Vec3& x3) {
    const double d = hinge_angle(x0, x1, x2, x3) - spring.natural_angle;
    return 0.5 * spring.stiffness * d * d;
}

double hinge_energy_gradient(const HingeSpring& spring, const Vec3& x0, const Vec3& x1,
                             const Vec3& x2, const Vec3& x3, VecN<12>& gradient) {
    const double d = hinge_angle_gradient(x0, x1, x2, x3, gradient) - spring.natural_angle;
    gradient *= spring.stiffness * d;
    return 0.5 * spring.stiffness * d * d;
}

double hinge_energy_gradient_hessian(const HingeSpring& spring, const Vec3& x0, const Vec3& x1,
                                     const Vec3& x2, const Vec3& x3, VecN<12>& gradient,
                                     MatN<12>& hessian) {
    const double d = hinge_angle_gradient_hessian(x0, x1, x2, x3, gradient, hessian) - spring.natural_angle;
    // grad E = k (phi - phi_bar) grad phi,  Hess E = k [grad phi grad phi^T + (phi - phi_bar) Hess phi]
    hessian = spring.stiffness * (gradient * gradient.transpose() + d * hessian);
    gradient *= spring.stiffness * d;
    return 0.5 * spring.stiffness * d * d;
}

}  // namespace soma::shells
