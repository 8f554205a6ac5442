// The frame-joint rows (joint_rows.hpp): value, gradient and hessian of the axis product, the
// offsets along a world axis and along a turning axis, and the angle, against central finite
// differences of the frames' motions (x_i + dx_i, exp([dphi_i]) R_i).
#include "../joint_rows.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <functional>

using namespace soma;
using namespace soma::joints;

namespace {

/// Two element frames at general poses, with arms and joint axes fixed in them.
struct FramePair {
    std::array<Vec3, 2> origin{Vec3(0.1, -0.2, 0.3), Vec3(-0.25, 0.15, 0.05)};
    std::array<Mat3, 2> rotation{Mat3(Eigen::AngleAxisd(0.7, Vec3(1, 2, -1).normalized())),
                                 Mat3(Eigen::AngleAxisd(-1.1, Vec3(0.3, -1, 2).normalized()))};
    std::array<Vec3, 2> local_arm{Vec3(0.2, 0.1, -0.3), Vec3(-0.1, 0.25, 0.2)};
    std::array<Mat3, 2> local_axes{Mat3(Eigen::AngleAxisd(0.4, Vec3(0, 1, 1).normalized())),
                                   Mat3(Eigen::AngleAxisd(0.9, Vec3(1, 0, 2).normalized()))};

    /// The joint frames after the motion \p d = [dx_1, dphi_1, dx_2, dphi_2].
    JointFramePair moved(const VecN<12>& d) const {
        JointFramePair f;
        for (std::size_t i = 0; i < 2; ++i) {
            const auto n = static_cast<Index>(6 * i);
            const Mat3 R = Mat3(rotation_exp(Vec3(d.segment<3>(n + 3)))) * rotation[i];
            f.origin[i] = origin[i] + d.segment<3>(n);
            f.arm[i] = R * local_arm[i];
            f.axes[i] = R * local_axes[i];
        }
        return f;
    }
};

/// Checks \p row_of's gradient and hessian at the pair's pose against central differences.
void check_row(const FramePair& pair, const std::function<void(const JointFramePair&, JointRow&)>& row_of) {
    JointRow row;
    row_of(pair.moved(VecN<12>::Zero()), row);
    // Step 1e-6 on unit-size frames: truncation ~1e-12, round-off ~1e-10; 1e-7 absolute holds both.
    const double h = 1e-6;
    for (Index j = 0; j < 12; ++j) {
        VecN<12> d = VecN<12>::Zero();
        d[j] = h;
        JointRow plus, minus;
        row_of(pair.moved(d), plus);
        row_of(pair.moved(-d), minus);
        INFO("motion component " << j);
        CHECK(std::abs((plus.value - minus.value) / (2 * h) - row.gradient[j]) < 1e-7);
        CHECK(((plus.gradient - minus.gradient) / (2 * h) - row.hessian.col(j)).cwiseAbs().maxCoeff() < 1e-7);
    }
}

}  // namespace

TEST_CASE("joint rows: the axis product's derivatives match finite differences", "[joints][joint_rows]") {
    const FramePair pair;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            INFO("axes " << a << ", " << b);
            check_row(pair, [&](const JointFramePair& f, JointRow& row) { axis_product_row(f.axis(0, a), f.axis(1, b), row); });
        }
}

TEST_CASE("joint rows: offsets along world and turning axes match finite differences", "[joints][joint_rows]") {
    const FramePair pair;
    for (int k = 0; k < 3; ++k) {
        INFO("axis " << k);
        check_row(pair, [&](const JointFramePair& f, JointRow& row) { offset_row(f, Vec3::Unit(k), false, row); });
        check_row(pair, [&](const JointFramePair& f, JointRow& row) { offset_row(f, f.axis(1, k), true, row); });
    }
    // The value is the separation of the joint points along the axis.
    const JointFramePair f = pair.moved(VecN<12>::Zero());
    JointRow row;
    offset_row(f, f.axis(1, 2), true, row);
    CHECK(row.value == Approx(f.axis(1, 2).dot(f.point(0) - f.point(1))).margin(1e-15));
}

TEST_CASE("joint rows: the angle about a common axis and its derivatives", "[joints][joint_rows]") {
    // Frame 1 turned from frame 2 by theta about their common z, plus a small misalignment: the
    // angle is theta at alignment, and its derivatives hold away from it.
    for (const double theta : {0.3, -2.0, 3.0}) {
        FramePair pair;
        pair.local_axes[0] = pair.rotation[0].transpose() * pair.rotation[1] * pair.local_axes[1] *
                             Mat3(Eigen::AngleAxisd(theta, Vec3::UnitZ()));
        std::array<JointRow, 2> scratch;
        JointRow aligned;
        angle_row(pair.moved(VecN<12>::Zero()), aligned, scratch);
        CHECK(aligned.value == Approx(theta).margin(1e-12));
        // Turning frame 1 about the common axis by dphi changes theta by dphi.
        const Vec3 z = pair.moved(VecN<12>::Zero()).axis(1, 2);
        CHECK(aligned.gradient.segment<3>(3).dot(z) == Approx(1.0).margin(1e-12));
        CHECK(aligned.gradient.segment<3>(9).dot(z) == Approx(-1.0).margin(1e-12));
        pair.local_axes[0] = pair.local_axes[0] * Mat3(Eigen::AngleAxisd(0.05, Vec3(1, 1, 0).normalized()));
        INFO("theta " << theta);
        check_row(pair, [&](const JointFramePair& f, JointRow& row) { angle_row(f, row, scratch); });
    }
}
