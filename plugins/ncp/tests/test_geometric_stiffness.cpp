// The diagonal geometric stiffness of Macklin et al. 2019, section 8.3 (geometric_stiffness.hpp):
// on a residual g(x) = A x + K x whose matrix A leaves out a diagonal K, the secant over one step
// recovers K where it stiffens and drops it where it softens (eq. 74); with nothing left out it
// adds nothing (eq. 73 as printed would add 2 M); negligible steps add nothing.
#include "../geometric_stiffness.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::ncp;

TEST_CASE("diagonal geometric stiffness: the secant recovers what the matrix left out, stiffening part only",
          "[ncp][geometric_stiffness]") {
    const Eigen::Vector4d left_out_stiffness(3.0, -2.0, 0.0, 5.0);  // K's diagonal
    VectorX step(4), left_out(4), shift(4);
    step << 0.1, -0.2, 0.3, 1e-12;  // the last entry is negligible beside the largest (0.3)
    // g(x + dx) - g(x) - A dx = K dx exactly for a linear g.
    left_out = left_out_stiffness.cwiseProduct(step);
    diagonal_geometric_stiffness(left_out, step, shift);
    CHECK(shift[0] == Approx(3.0).epsilon(1e-15));
    CHECK(shift[1] == 0.0);  // softening: left out so the matrix stays positive definite (eq. 74)
    CHECK(shift[2] == 0.0);  // nothing left out: nothing added (eq. 73 as printed: 2 M)
    CHECK(shift[3] == 0.0);  // a step of round-off size: its quotient would be noise
}

TEST_CASE("diagonal geometric stiffness: a zero step adds nothing", "[ncp][geometric_stiffness]") {
    VectorX step = VectorX::Zero(3), left_out = VectorX::Constant(3, 1.0), shift = VectorX::Constant(3, 7.0);
    diagonal_geometric_stiffness(left_out, step, shift);
    CHECK(shift.isZero(0.0));
}
