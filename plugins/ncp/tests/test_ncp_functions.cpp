// The NCP functions (eq. 18, 23-27) and the friction compliance W (eq. 35, 99-105) of Macklin et
// al. 2019 (ncp_functions.hpp): the paper's one-constraint example of Fig. 9, the friction
// compliance of Fig. 6, its limits on and inside the cone, and the derivatives against finite
// differences.
#include "../ncp_functions.hpp"

#include "seeded_uniform.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>

namespace {

using soma::ncp::testing::uniform;
using soma::ncp::evaluate_ncp;
using soma::ncp::friction_compliance;
using soma::ncp::NcpFunction;
using soma::ncp::NcpValue;

/// Full-step scalar Newton on phi(c(lambda), r lambda) = 0 for Fig. 9's constraint
/// c(lambda) = lambda/4 - 1/8: the number of steps taken before |phi| < 1e-12, and the last lambda.
std::pair<int, double> fig9_newton(NcpFunction f, double r, double lambda) {
    for (int steps = 0; steps < 100; ++steps) {
        const NcpValue phi = evaluate_ncp(f, lambda / 4.0 - 1.0 / 8.0, r * lambda);
        if (std::abs(phi.value) < 1e-12) return {steps, lambda};
        lambda -= phi.value / (phi.d_first / 4.0 + phi.d_second * r);  // chain rule, eq. 93-98
    }
    return {-1, lambda};
}

/// W_FB as the printed eq. 104, with |D^T qdot|^2 as the first term of the denominator (the
/// erratum): the value the implementation must not reproduce.
double printed_w_fb(double a, double friction_norm, double friction_limit, double r) {
    const double b = friction_limit - friction_norm;
    const double s = std::sqrt(a * a + r * r * b * b);
    return r * (s - r * b) / (a * a + r * friction_limit - s);
}

}  // namespace

TEST_CASE("Fig. 9: Newton on the one-constraint NCP takes the expected number of steps per NCP function and r",
          "[ncp][ncp_functions]") {
    // c(lambda) = lambda/4 - 1/8 >= 0 ⟂ lambda >= 0, solution lambda = 1/2. With r = 1/4, the
    // slope of c, the minimum map's two branches are c (for every lambda: c < r lambda) and the
    // problem is linear: one step from any start (§7). The other counts come from an independent
    // script with the plain formulas (a + b - sqrt(a^2 + b^2), tie a <= b to the first argument),
    // counting steps before |phi| < 1e-12 is first seen: this implementation's cancellation-free
    // FB and the same tie give the same counts. Min map with r = 1 from lambda0 = -1 takes two:
    // both arguments negative, r lambda = -1 < c = -3/8 is the minimum, its step lands on
    // lambda = 0, then c's branch gives 1/2. At the root d phi/d lambda = 1/4 for every variant
    // here, so |phi| < 1e-12 puts lambda within 4e-12 of 1/2 (checked to 1e-11).
    struct Case {
        const char* name;
        NcpFunction f;
        double r;
        int steps[3];  // from lambda0 = 0, 2, -1
    };
    const Case cases[] = {{"minimum map, r = 1/4", NcpFunction::minimum, 0.25, {1, 1, 1}},
                          {"minimum map, r = 1", NcpFunction::minimum, 1.0, {1, 1, 2}},
                          {"Fischer-Burmeister, r = 1", NcpFunction::fischer_burmeister, 1.0, {6, 4, 6}},
                          {"Fischer-Burmeister, r = 1/4", NcpFunction::fischer_burmeister, 0.25, {5, 5, 6}}};
    const double starts[] = {0.0, 2.0, -1.0};
    for (const Case& c : cases) {
        for (int k = 0; k < 3; ++k) {
            INFO(c.name << ", lambda0 = " << starts[k]);
            const auto [steps, lambda] = fig9_newton(c.f, c.r, starts[k]);
            CHECK(steps == c.steps[k]);
            CHECK(lambda == Approx(0.5).margin(1e-11));
        }
    }
    // With r = the slope, one step from far away too.
    for (const double start : {-100.0, 0.25, 7.0, 1e6}) {
        INFO("minimum map, r = 1/4, lambda0 = " << start);
        CHECK(fig9_newton(NcpFunction::minimum, 0.25, start).first == 1);
    }
}

TEST_CASE("Fig. 6: the friction compliance W of the minimum map and of Fischer-Burmeister across the cone",
          "[ncp][friction]") {
    // A particle sliding at a = 0.5 m/s, mu lambda_n = 0.5 * 10 N = 5 N, r = 1. The W_FB column
    // (an independent script) is rounded to 5 decimal places, not 5 significant digits (0.05249
    // is 0.0524938 to 7e-5 relative): half a unit of the 5th decimal, 5e-6 absolute. W_min is
    // exact up to the round-off of (a - r b)/(mu lambda_n) (1e-12 relative), and exactly 0
    // inside the cone (a <= r b).
    const double a = 0.5, limit = 5.0, r = 1.0;
    struct Row {
        double friction_norm, w_min, w_fb;
    };
    const Row table[] = {{0.0, 0.0, 0.05249}, {2.0, 0.0, 0.01683}, {4.0, 0.0, 0.02694},
                         {4.5, 0.0, 0.04321}, {4.9, 0.08, 0.08214}, {5.0, 0.1, 0.1},
                         {5.5, 0.2, 0.25185}, {6.0, 0.3, 0.48335}, {8.0, 0.7, 2.45723}};
    for (const Row& row : table) {
        INFO("|lambda_f| = " << row.friction_norm);
        const double w_min = friction_compliance(NcpFunction::minimum, a, row.friction_norm, limit, r);
        const double w_fb = friction_compliance(NcpFunction::fischer_burmeister, a, row.friction_norm, limit, r);
        if (row.w_min == 0.0)
            CHECK(w_min == 0.0);
        else
            CHECK(w_min == Approx(row.w_min).epsilon(1e-12));
        CHECK(w_fb == Approx(row.w_fb).margin(5e-6));
    }
}

TEST_CASE("The friction compliance is a/(mu lambda_n) on the cone, 0 when sticking, and not the printed eq. 104",
          "[ncp][friction]") {
    // On the cone (b = 0) both give the sliding ratio a/(mu lambda_n): W_FB through
    // r a / (a + r mu lambda_n - a), a few roundings (1e-13 relative).
    struct Sliding {
        double a, limit, r;
    };
    for (const Sliding& s : {Sliding{0.5, 5.0, 1.0}, Sliding{0.5, 5.0, 0.0083}, Sliding{2.0, 0.3, 10.0},
                             Sliding{1e-3, 40.0, 0.5}, Sliding{7.0, 1e-2, 1e-4}}) {
        INFO("a = " << s.a << ", mu lambda_n = " << s.limit << ", r = " << s.r);
        CHECK(friction_compliance(NcpFunction::fischer_burmeister, s.a, s.limit, s.limit, s.r) ==
              Approx(s.a / s.limit).epsilon(1e-13));
        CHECK(friction_compliance(NcpFunction::minimum, s.a, s.limit, s.limit, s.r) ==
              Approx(s.a / s.limit).epsilon(1e-13));
    }

    // Sticking (a = 0, strictly inside the cone): no slip, W = 0 exactly, including the 0/0 case
    // |lambda_f| = 0 at rest.
    for (const double friction_norm : {0.0, 1e-12, 2.0, 4.999}) {
        for (const double r : {1.0, 1e-2}) {
            INFO("|lambda_f| = " << friction_norm << ", r = " << r);
            CHECK(friction_compliance(NcpFunction::fischer_burmeister, 0.0, friction_norm, 5.0, r) == 0.0);
            CHECK(friction_compliance(NcpFunction::minimum, 0.0, friction_norm, 5.0, r) == 0.0);
        }
    }

    // Near the 0/0 case W_FB is continuous: a small slip with no force gives about a/(2 mu lambda_n)
    // (expanding s = sqrt(a^2 + r^2 b^2) to second order in a: 1e-6 relative at a = 1e-6).
    CHECK(friction_compliance(NcpFunction::fischer_burmeister, 1e-6, 0.0, 5.0, 1.0) ==
          Approx(1e-6 / 10.0).epsilon(1e-6));

    // The erratum: at a = 0.5 m/s on the cone of 5 N the printed eq. 104 gives 0.10526 at r = 1
    // and -0.0199 at r = 0.0083 (= h for a unit mass), a negative compliance; the derivation
    // from eq. 99-101 gives 0.1 for both (1e-13: a few roundings).
    CHECK(printed_w_fb(0.5, 5.0, 5.0, 1.0) == Approx(0.5 / 4.75).epsilon(1e-12));
    CHECK(printed_w_fb(0.5, 5.0, 5.0, 0.0083) == Approx(-0.0199).epsilon(1e-2));  // printed to 3 digits
    for (const double r : {1.0, 0.0083}) {
        const double w = friction_compliance(NcpFunction::fischer_burmeister, 0.5, 5.0, 5.0, r);
        CHECK(w > 0.0);
        CHECK(w == Approx(0.1).epsilon(1e-13));
    }

    // Outside the cone, where eq. 101 gives no positive force magnitude (a = 0, |lambda_f| >=
    // 2 mu lambda_n), W is the limit +infinity (the force goes to zero), not 0 (which would
    // hold the force) nor a negative compliance; just inside that boundary W is large.
    CHECK(std::isinf(friction_compliance(NcpFunction::fischer_burmeister, 0.0, 12.0, 5.0, 1.0)));
    CHECK(friction_compliance(NcpFunction::fischer_burmeister, 0.0, 9.9, 5.0, 1.0) > 10.0);
}

TEST_CASE("W_FB is one fixed-point step of the r-scaled Fischer-Burmeister friction NCP (eq. 99-103)",
          "[ncp][friction]") {
    // W = (a - psi) / (|lambda_f| + psi / r) with psi = phi_FB(a, r b) from evaluate_ncp, at random
    // slips, forces (inside and outside the cone) and r where that denominator is well positive
    // (> 0.1 mu lambda_n): the two routes share no code beyond phi's value; 1e-10 relative allows
    // the cancellation of a - psi, which the closed form avoids.
    std::mt19937 random(20190704);
    int checked = 0;
    for (int i = 0; i < 200; ++i) {
        const double a = uniform(random, 0.0, 3.0), limit = uniform(random, 0.1, 10.0);
        const double friction_norm = uniform(random, 0.0, 1.8) * limit, r = std::pow(10.0, uniform(random, -3.0, 1.0));
        const double psi = evaluate_ncp(NcpFunction::fischer_burmeister, a, r * (limit - friction_norm)).value;
        const double force_next = friction_norm + psi / r;
        if (force_next < 0.1 * limit) continue;
        ++checked;
        CAPTURE(a, limit, friction_norm, r);
        CHECK(friction_compliance(NcpFunction::fischer_burmeister, a, friction_norm, limit, r) ==
              Approx((a - psi) / force_next).epsilon(1e-10));
    }
    CHECK(checked > 150);
}

TEST_CASE("NCP function values and derivatives match central differences away from their kinks",
          "[ncp][ncp_functions]") {
    // Central differences with step h = 1e-6: truncation h^2 |phi'''| / 6 with |phi'''| of order
    // 1/|(a, b)|^2 <= 100 (FB; the min map is linear) is about 2e-11, round-off
    // 2e-16 |phi| / h about 1e-9: 1e-7 absolute is well above both.
    const double step = 1e-6;
    std::mt19937 random(2019);
    for (const NcpFunction f : {NcpFunction::fischer_burmeister, NcpFunction::minimum}) {
        int checked = 0;
        for (int i = 0; i < 100; ++i) {
            const double a = uniform(random, -2.0, 2.0), b = uniform(random, -2.0, 2.0);
            if (f == NcpFunction::fischer_burmeister ? std::hypot(a, b) < 0.1 : std::abs(a - b) < 0.1) continue;
            ++checked;
            CAPTURE(f == NcpFunction::minimum, a, b);
            const NcpValue phi = evaluate_ncp(f, a, b);
            const double d_first = (evaluate_ncp(f, a + step, b).value - evaluate_ncp(f, a - step, b).value) / (2 * step);
            const double d_second = (evaluate_ncp(f, a, b + step).value - evaluate_ncp(f, a, b - step).value) / (2 * step);
            CHECK(phi.d_first == Approx(d_first).margin(1e-7));
            CHECK(phi.d_second == Approx(d_second).margin(1e-7));
        }
        CHECK(checked > 80);
    }

    // Closed forms: FB(3, 4) = 3 + 4 - 5, alpha = 1 - 3/5, beta = 1 - 4/5 (round-off: 1e-15).
    const NcpValue fb = evaluate_ncp(NcpFunction::fischer_burmeister, 3.0, 4.0);
    CHECK(fb.value == Approx(2.0).epsilon(1e-15));
    CHECK(fb.d_first == Approx(0.4).epsilon(1e-15));
    CHECK(fb.d_second == Approx(0.2).epsilon(1e-15));
    // phi = 0 exactly on the complementarity set (eq. 17) and not off it.
    for (const NcpFunction f : {NcpFunction::fischer_burmeister, NcpFunction::minimum}) {
        CHECK(evaluate_ncp(f, 0.0, 2.0).value == 0.0);
        CHECK(evaluate_ncp(f, 3.0, 0.0).value == 0.0);
        CHECK(evaluate_ncp(f, 1.0, 1.0).value > 0.0);
        CHECK(evaluate_ncp(f, -1.0, 2.0).value < 0.0);
        CHECK(evaluate_ncp(f, 2.0, -1.0).value < 0.0);
    }
    // Near the complementarity set FB is accurate to its own size: FB(1e-10, 1) = 1e-10 - 5e-21
    // (the plain a + b - sqrt(a^2 + b^2) loses 6 digits here to the rounding of 1 + 1e-10).
    CHECK(evaluate_ncp(NcpFunction::fischer_burmeister, 1e-10, 1.0).value == Approx(1e-10 - 5e-21).epsilon(1e-14));
}

TEST_CASE("At the kink the NCP functions take the paper's derivative elements", "[ncp][ncp_functions]") {
    // FB at (0, 0): alpha = 0, beta = 1 (eq. 26-27), so a contact with zero gap and zero force has
    // the row d phi/d lambda = r, like an inactive one.
    const NcpValue fb = evaluate_ncp(NcpFunction::fischer_burmeister, 0.0, 0.0);
    CHECK(fb.value == 0.0);
    CHECK(fb.d_first == 0.0);
    CHECK(fb.d_second == 1.0);
    // The minimum map's tie a = b takes the first argument (active contact, eq. 21-22).
    for (const double t : {-1.0, 0.0, 2.5}) {
        const NcpValue m = evaluate_ncp(NcpFunction::minimum, t, t);
        CHECK(m.value == t);
        CHECK(m.d_first == 1.0);
        CHECK(m.d_second == 0.0);
    }
    // Off the tie, each side.
    const NcpValue left = evaluate_ncp(NcpFunction::minimum, 1.0, 2.0), right = evaluate_ncp(NcpFunction::minimum, 2.0, 1.0);
    CHECK((left.value == 1.0 && left.d_first == 1.0 && left.d_second == 0.0));
    CHECK((right.value == 1.0 && right.d_first == 0.0 && right.d_second == 1.0));
}

TEST_CASE("The friction compliance's derivatives (friction_jacobian: exact) match central differences",
          "[ncp][ncp_functions]") {
    // Random contacts in every regime: sticking inside the cone (|lambda_f| < mu lambda_n, small
    // slip), on it, sliding (large slip), pushed outside it; r from the effective mass's range.
    // Central differences with a step of 1e-6 of each argument's scale: W is smooth away from the
    // min map's switch a = r b and from FB's W = infinity, which the draws avoid; 1e-6 relative
    // of the derivative's size (or of W / scale) leaves room for the truncation, (1e-6)^2 times
    // the curvature, and round-off, 1e-16 / 1e-6 of W.
    using soma::ncp::friction_compliance_derivatives;
    std::mt19937 random(35);
    for (const NcpFunction f : {NcpFunction::fischer_burmeister, NcpFunction::minimum}) {
        int checked = 0;
        for (int i = 0; i < 400; ++i) {
            const double limit = uniform(random, 0.5, 20.0);                 // mu lambda_n (N)
            const double force = limit * uniform(random, 0.0, 1.5);          // |lambda_f|
            const double slip = std::pow(10.0, uniform(random, -4.0, 0.5));  // a (m/s)
            const double r = std::pow(10.0, uniform(random, -3.0, -1.0));
            const double rb = r * (limit - force);
            if (f == NcpFunction::minimum && std::abs(slip - rb) < 0.05 * (slip + std::abs(rb))) continue;
            const auto w = [&](double a, double n, double l) { return friction_compliance(f, a, n, l, r); };
            const double w0 = w(slip, force, limit);
            if (!std::isfinite(w0) || !std::isfinite(w(slip, 1.01 * force, 0.99 * limit))) continue;
            ++checked;
            CAPTURE(f == NcpFunction::minimum, slip, force, limit, r, w0);
            const auto d = friction_compliance_derivatives(f, slip, force, limit, r);
            CHECK(d.w == w0);
            const double ha = 1e-6 * slip, hn = 1e-6 * limit, hl = 1e-6 * limit;
            const double d_slip = (w(slip + ha, force, limit) - w(slip - ha, force, limit)) / (2 * ha);
            const double d_force = (w(slip, force + hn, limit) - w(slip, force - hn, limit)) / (2 * hn);
            const double d_limit = (w(slip, force, limit + hl) - w(slip, force, limit - hl)) / (2 * hl);
            CHECK(d.d_slip == Approx(d_slip).epsilon(1e-6).margin(1e-6 * w0 / slip));
            CHECK(d.d_force == Approx(d_force).epsilon(1e-6).margin(1e-6 * w0 / limit));
            CHECK(d.d_limit == Approx(d_limit).epsilon(1e-6).margin(1e-6 * w0 / limit));
        }
        CHECK(checked > 250);
    }
    // Sliding on the cone (b = 0): W = a / (mu lambda_n), dW/da = 1 / (mu lambda_n), dW/d|lambda_f|
    // = r / (mu lambda_n), dW/d(mu lambda_n) = -(r + W) / (mu lambda_n), for both functions; so
    // lambda_f dW/da t^T = -t t^T, Coulomb's magnitude independent of the slip speed.
    for (const NcpFunction f : {NcpFunction::fischer_burmeister, NcpFunction::minimum}) {
        const auto d = friction_compliance_derivatives(f, 0.5, 5.0, 5.0, 0.01);
        CHECK(d.w == Approx(0.1).epsilon(1e-14));
        CHECK(d.d_slip == Approx(0.2).epsilon(1e-14));
        CHECK(d.d_force == Approx(0.002).epsilon(1e-12));
        CHECK(d.d_limit == Approx(-(0.01 + 0.1) / 5.0).epsilon(1e-12));
    }
}

TEST_CASE("The friction compliance's derivatives are finite (zero) at rest and where the denominator underflows",
          "[ncp][ncp_functions]") {
    // A node resting on a flat surface has slip and friction force exactly 0: W = 0 there (the
    // 0/0 case of friction_compliance), and its derivatives must not be 0/0. A slip of 1e-300
    // underflows a^2 and the denominator. Both give the fixed point's step (zero derivatives).
    using soma::ncp::friction_compliance_derivatives;
    for (const NcpFunction f : {NcpFunction::fischer_burmeister, NcpFunction::minimum})
        for (const double slip : {0.0, 1e-300}) {
            CAPTURE(f == NcpFunction::minimum, slip);
            const auto d = friction_compliance_derivatives(f, slip, 0.0, 5.0, 0.01);
            CHECK(d.w == friction_compliance(f, slip, 0.0, 5.0, 0.01));
            CHECK(std::isfinite(d.d_slip));
            CHECK(std::isfinite(d.d_force));
            CHECK(std::isfinite(d.d_limit));
        }
    const auto at_rest = friction_compliance_derivatives(NcpFunction::fischer_burmeister, 0.0, 0.0, 5.0, 0.01);
    CHECK(at_rest.w == 0.0);
    CHECK(at_rest.d_slip == 0.0);
    CHECK(at_rest.d_force == 0.0);
    CHECK(at_rest.d_limit == 0.0);
}
