// Validation: mass-proportional Rayleigh damping on a free rigid body (plugins/forces_basic
// rayleigh_damping, docs/damping.md).
//
// With D = alpha M and no other force, a free body obeys M v' + (gyroscopic terms) = -alpha M v:
//
//  - the centre of mass: m v' = -alpha m v, so v(t) = v0 exp(-alpha t);
//  - the rotation: dL/dt = -alpha L for the world angular momentum L (the torque -alpha J omega
//    is -alpha L), so |L(t)| = |L0| exp(-alpha t) and L keeps its direction, whatever the
//    inertia and the spin axis (Euler's equations plus the damping torque).
//
// D is evaluated at the step start and is constant in the step, so the integrator's discrete
// factor per step is exact for the translation: implicit midpoint (1 - x)/(1 + x) with
// x = alpha h/2, implicit Euler 1/(1 + alpha h). Against exp(-alpha t) the error is each
// integrator's truncation error (bounds at the checks).
//
// Stiffness-proportional damping (beta) on a rigid body would do nothing (K = 0): it is refused
// with an error at the key.
#include "scene_runner.hpp"

#include "soma/rotation.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kAlpha = 2.0;  // 1/s

std::string free_body(const std::string& integrator, double dt, const std::string& damping) {
    return "simulation: {duration: 1.0}\n"
           "integrator: {type: " + integrator + ", dt: " + num(dt) +
           ", newton: {absolute_tolerance: 1.0e-13, relative_tolerance: 0}, adaptive: {enabled: false}}\n"
           "elements:\n"
           "  - name: body\n"
           "    type: rigid_body\n"
           "    position: [0, 0, 0]\n"
           "    velocity: [0.3, -0.2, 0.5]\n"
           "    angular_velocity: [1.0, 2.0, 3.0]\n"
           "    shape: {box: {size: [0.1, 0.2, 0.3]}}\n"
           "    density: 1000\n"
           "forces:\n"
           "  - " + damping + "\n";
}

/// World angular momentum R J omega_body of the body.
Vec3 angular_momentum(const Simulation& sim) {
    const Element* e = sim.find_element("body");
    REQUIRE(e != nullptr);
    const double* c = sim.state().q.data() + e->block_coordinate(0);
    const Mat3 R = Quaternion(c[0], c[1], c[2], c[3]).toRotationMatrix();
    const VectorX& v = sim.state().v;
    const Vec3 omega_body(v[e->global_dof(3)], v[e->global_dof(4)], v[e->global_dof(5)]);
    // Box 0.1 x 0.2 x 0.3 m, 1000 kg/m^3: m = 6 kg, J = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2).
    const double m = 6.0;
    const Vec3 J = m / 12.0 * Vec3(0.04 + 0.09, 0.01 + 0.09, 0.01 + 0.04);
    return R * J.cwiseProduct(omega_body);
}

}  // namespace

TEST_CASE("rayleigh damping (alpha) on a free rigid body: velocity and angular momentum decay as exp(-alpha t)",
          "[validation][rayleigh][rigid_body]") {
    const double dt = 1e-3;
    for (const std::string integrator : {"implicit_midpoint", "implicit_euler"}) {
        INFO("integrator " << integrator);
        auto sim = build_scene(free_body(integrator, dt, "{type: rayleigh_damping, alpha: " + num(kAlpha) + "}"));
        const Vec3 v0 = node_velocity(*sim, "body", 1);
        const Vec3 L0 = angular_momentum(*sim);
        const double x = kAlpha * dt / 2.0;
        const double factor = integrator == "implicit_euler" ? 1.0 / (1.0 + kAlpha * dt) : (1.0 - x) / (1.0 + x);
        double worst_discrete = 0.0, worst_exp = 0.0, worst_L = 0.0;
        for (int n = 1; n <= 1000; ++n) {
            REQUIRE(step_once(*sim, dt));
            const Vec3 v = node_velocity(*sim, "body", 1);
            worst_discrete = std::max(worst_discrete, (v - v0 * std::pow(factor, n)).norm() / v0.norm());
            worst_exp = std::max(worst_exp, (v - v0 * std::exp(-kAlpha * n * dt)).norm() / v0.norm());
            worst_L = std::max(worst_L, (angular_momentum(*sim) - L0 * std::exp(-kAlpha * n * dt)).norm() / L0.norm());
        }
        INFO("relative errors: discrete factor " << worst_discrete << ", exp(-alpha t) " << worst_exp
                                                 << ", angular momentum " << worst_L);
        // The translation follows the integrator's own factor to the Newton tolerance (1e-13 N on
        // a 6 kg body over 1000 steps: ~1e-12 relative).
        CHECK(worst_discrete < 1e-10);
        if (integrator == "implicit_midpoint") {
            // The midpoint factor's log differs from -alpha h by (alpha h)^3/12 per step; relative
            // to v0 the error n (alpha h)^3/12 exp(-alpha t) peaks at t = 1/alpha at
            // (alpha h)^2/(12 e) = 1.23e-7 (measured 1.23e-7): 2e-7 bounds it.
            CHECK(worst_exp < 2e-7);
            // The rotation adds the midpoint rule's second-order error on the rotation group
            // (measured 2.5e-7 with |omega| ~ 3.7 rad/s); 1e-6 bounds it. A damping matrix in the
            // wrong frame or with a wrong inertia errs by O(1).
            CHECK(worst_L < 1e-6);
        } else {
            // Backward Euler: log error (alpha h)^2/2 per step, peaking at (alpha h)/(2 e) = 3.68e-4
            // relative at t = 1/alpha (measured 3.68e-4): 4e-4 bounds it and still tells
            // exp(-alpha t) from no damping (an O(1) error).
            CHECK(worst_exp < 4e-4);
            // Its rotation adds backward Euler's own first-order dissipation of |omega|
            // (measured 5.1e-4 in all): 1e-3.
            CHECK(worst_L < 1e-3);
        }
    }
}

TEST_CASE("rayleigh damping: beta on a rigid body (no stiffness) is refused at the key", "[validation][rayleigh][rigid_body]") {
    // Explicit element: refused even with alpha, since the requested beta would not apply.
    CHECK_THROWS_WITH(build_scene(free_body("implicit_midpoint", 1e-3,
                                            "{type: rayleigh_damping, alpha: 1.0, beta: 1.0e-3, elements: [body]}")),
                      Catch::Contains("test.yaml:") && Catch::Contains("beta") && Catch::Contains("'body'") &&
                          Catch::Contains("K = 0") && Catch::Contains("alpha alone"));
    // The damping-ratio form sets beta too: the error points at damping_ratio.
    CHECK_THROWS_WITH(build_scene(free_body("implicit_midpoint", 1e-3,
                                            "{type: rayleigh_damping, damping_ratio: 0.02, frequencies: [1, 10]}")),
                      Catch::Contains("damping_ratio") && Catch::Contains("'body'"));
    // alpha alone is accepted.
    CHECK_NOTHROW(build_scene(free_body("implicit_midpoint", 1e-3, "{type: rayleigh_damping, alpha: 1.0}")));
}
