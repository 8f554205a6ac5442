// GVS inverse dynamics and its analytical derivatives, per call (Mathew, Boyer, Lebastard, Renda,
// "Analytical Derivatives for Efficient Mechanical Simulations of Hybrid Soft Rigid Robots").
// Models:
//   - cdm: the cable-driven manipulator of section 4.5 (24 DoF, 5 Gauss points, n_p = 7), without
//     its cables (they add nothing to ID);
//   - serial: the hybrid serial robot's tree of section 5.1 (7 revolute joints and a Kirchhoff rod
//     of order 4: 27 DoF);
//   - cdm_sweep_N: the manipulator with Legendre orders giving N = 12, 24, 48, 96 DoF (Gauss points
//     = angular order + 3), for the growth with the DoF count;
//   - scene_<file>[_<element>]: every gvs robot of the scenes in configs/gvs/ (or the folder in
//     SOMA_GVS_SCENES), built by the gvs plugin's own factory from the scene's element block
//     (its registration compiled into this program): the examples as a user runs them, with
//     their wrenches, wall contact and fluid loads (which ID includes), their gravity, K and D.
//     Loop joints are constraints, not part of ID, and are not timed here.
// Per model, with random but fixed q, qdot, qddot (seeded):
//   - id:                ID(q, qdot, qddot) (eq. 8);
//   - id_derivatives:    ID, dID/dq, dID/dqdot and M in one forward and one backward pass (eqs. 21-34);
//   - id_jacobian_fwd:   [dID/dq, dID/dqdot] by forward differences, 2n + 1 calls of ID, step 1e-6;
//   - id_jacobian_ctr:   the same by central differences, 4n calls of ID;
//   - dfd_analytic:      dFD/dq and dFD/dqdot from the derivatives at qddot = FD, a Cholesky of M and
//                        two n x n solves (eqs. 7, 9);
//   - dfd_fwd_m_deriv:   the same by forward differences of FD (eq. 38, step 1e-6), 2n + 1 evaluations
//                        of FD = M^-1 (tau - ID(q, qdot, 0)), M and ID from one call of
//                        inverse_dynamics_derivatives (which also forms dID/dq and dID/dqdot: the
//                        library has no cheaper M today), so its ratio to dfd_analytic is about
//                        2n + 1 by construction: read it beside dfd_fwd_bound;
//   - dfd_fwd_m_unit:    the same with M from n calls of ID at qdot = 0, qddot = e_j, no gravity;
//   - dfd_fwd_bound:     a lower bound of any FD-of-FD Jacobian: 2n + 1 x (ID + Cholesky + solve),
//                        M taken as free.
// tau = -K q - D qdot (the rods' elasticity and damping, eqs. D64, D65) on both sides of the dFD
// comparison; no actuation. Counters: dof, points (the tree's computational points, the root and
// the points after fixed transforms included), paper_np (the paper's n_p), id_calls per iteration,
// and for the Jacobians by differences their mismatch with the analytical one, ||A - B|| / ||A||
// (the paper's metric, eq. 37).
// The timed loops allocate nothing: build with -DEIGEN_RUNTIME_NO_MALLOC and without -DNDEBUG to
// have Eigen abort on any allocation inside them.
#include "gvs_element.hpp"
#include "inverse_dynamics.hpp"

#include "soma/element.hpp"
#include "soma/testing/parameters_from_yaml.hpp"

#include <benchmark/benchmark.h>
#include <yaml-cpp/yaml.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace soma;
using namespace soma::gvs;

const Vec3 kGravity(0.0, 0.0, -9.81);
constexpr double kStep = 1e-6;  // the paper's epsilon (eq. 38)

/// \brief Forbids Eigen's heap allocation while alive, when built with EIGEN_RUNTIME_NO_MALLOC.
struct NoEigenMalloc {
#ifdef EIGEN_RUNTIME_NO_MALLOC
    NoEigenMalloc() { Eigen::internal::set_is_malloc_allowed(false); }
    ~NoEigenMalloc() { Eigen::internal::set_is_malloc_allowed(true); }
#else
    NoEigenMalloc() = default;
#endif
    NoEigenMalloc(const NoEigenMalloc&) = delete;
    NoEigenMalloc& operator=(const NoEigenMalloc&) = delete;
};

/// \brief One benchmarked model and its fixed state.
struct Case {
    std::string name;
    MultibodyModel model;
    Eigen::MatrixXd K, D;  ///< generalised stiffness and damping, n x n (tau = -K q - D qdot)
    int paper_points = 0;  ///< n_p as the paper counts it (0: a scene's robot)
    Vec3 gravity = kGravity;
    VectorX q, qdot, qddot;

    Index n() const { return model.dof_count; }
};

/// The cable-driven manipulator's rod (Mathew et al., section 4.5): L = 0.5 m, radius 3 -> 1.5 cm,
/// E = 1 MPa, nu = 0.5, rho = 1000 kg/m^3, v = 1e4 Pa s, 4th-order Magnus.
RodDiscretization manipulator_rod(const StrainModeSelection& modes, int gauss_points, double base_radius,
                                  double tip_radius) {
    constexpr double length = 0.5;
    const RodDescription rod{
        StrainBasis(BasisFamily::legendre, modes, length),
        CircularProfile{[=](double X) { return base_radius + (tip_radius - base_radius) * X / length; }},
        RodMaterial{1.0e6, 0.5, 1000.0, 1.0e4},
        gauss_points,
        MagnusOrder::fourth,
        {}};
    return RodDiscretization(rod);
}

/// Scale of each strain coordinate of \p basis: 1 for curvatures (1/m), 0.05 for linear strains,
/// written into scale[first, first + n).
void strain_scales(const StrainBasis& basis, Index first, VectorX& scale) {
    for (int c = 0; c < kStrainComponents; ++c) {
        const double s = c < 3 ? 1.0 : 0.05;
        scale.segment(first + basis.component_offset(c), basis.component_dof_count(c)).setConstant(s);
    }
}

/// q, qdot, qddot uniform in [-scale, scale] per coordinate, from a fixed seed.
void random_state(Case& c, const VectorX& scale) {
    std::mt19937 rng(2024);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (VectorX* v : {&c.q, &c.qdot, &c.qddot}) {
        v->resize(c.n());
        for (Index i = 0; i < c.n(); ++i) (*v)[i] = scale[i] * u(rng);
    }
}

/// \brief The manipulator on a fixed base at the world origin, along x, Legendre orders
/// \p angular and \p linear (section 4.5: 4 and 2, 24 DoF, 5 Gauss points).
std::shared_ptr<Case> manipulator(std::string name, int angular, int linear, int gauss_points) {
    auto c = std::make_shared<Case>();
    c->name = std::move(name);
    const RodDiscretization rod =
        manipulator_rod(StrainModeSelection::angular_linear(angular, linear), gauss_points, 0.03, 0.015);
    c->model.dof_count = rod.dof_count();
    add_soft_rod(c->model, 0, rod, 0);
    c->K = rod.K;
    c->D = rod.D;
    c->paper_points = gauss_points + 2;
    VectorX scale(c->n());
    strain_scales(rod.basis, 0, scale);
    random_state(*c, scale);
    return c;
}

/// \brief The hybrid serial robot's tree (section 5.1): 7 rigid links on revolute joints about
/// local x and local y in turn, then a soft link on a fixed joint (L = 0.5 m, radius 1.5 -> 1 cm,
/// the manipulator's material, Kirchhoff basis of order 4: 20 DoF), 27 DoF in all, 6 Gauss points.
///
/// The paper gives neither the links' size nor their inertia: here each is 0.1 m long along its x
/// axis, 0.5 kg, a 0.1 x 0.04 x 0.04 m box (3125 kg/m^3) with its centre of mass halfway; the
/// joint sits at the link's start, the next joint and the rod at its end.
std::shared_ptr<Case> serial_robot() {
    constexpr int links = 7;
    constexpr double link_length = 0.1, link_mass = 0.5, side = 0.04;
    auto c = std::make_shared<Case>();
    c->name = "serial";
    const RodDiscretization rod = manipulator_rod(StrainModeSelection::kirchhoff(4), 6, 0.015, 0.01);
    c->model.dof_count = links + rod.dof_count();

    Mat6 link_inertia = Mat6::Zero();  // at the centre of mass, angular part first
    const double ixx = link_mass * (side * side + side * side) / 12.0;
    const double iyy = link_mass * (link_length * link_length + side * side) / 12.0;
    link_inertia.diagonal() << ixx, iyy, iyy, link_mass, link_mass, link_mass;
    Edge half_link;
    half_link.transform.p = Vec3(link_length / 2.0, 0.0, 0.0);

    Index at = 0;
    for (Index j = 0; j < links; ++j) {
        Edge hinge;
        hinge.kind = EdgeKind::rigid_joint;
        hinge.first_dof = j;
        hinge.dof_count = 1;
        hinge.phi_z1 = Matrix6X::Zero(6, 1);
        hinge.phi_z1(j % 2 == 0 ? 0 : 1, 0) = 1.0;  // about local x, then local y
        at = c->model.add_point(hinge, at, Mat6::Zero());
        at = c->model.add_point(half_link, at, link_inertia);  // the centre of mass
        at = c->model.add_point(half_link, at, Mat6::Zero());  // the link's end
    }
    add_soft_rod(c->model, at, rod, links);  // the fixed joint: the rod's base is the last link's end

    const Index n = c->n();
    c->K.setZero(n, n);
    c->D.setZero(n, n);
    c->K.bottomRightCorner(rod.dof_count(), rod.dof_count()) = rod.K;
    c->D.bottomRightCorner(rod.dof_count(), rod.dof_count()) = rod.D;
    c->paper_points = links * 2 + rod.gauss_points + 2;  // 22: two per rigid link, n_p of the rod
    VectorX scale(n);
    scale.head(links).setConstant(M_PI / 4.0);  // rad, rad/s, rad/s^2
    strain_scales(rod.basis, links, scale);
    random_state(*c, scale);
    return c;
}

/// \brief The gvs robots of the scene file \p file, each built by the gvs plugin's factory from its
/// element block. The state: the robot's initial q plus uniform noise of 0.1 per coordinate (rad,
/// 1/m or a linear strain), qdot and qddot uniform in [-0.1, 0.1], from a fixed seed.
std::vector<std::shared_ptr<Case>> scene_cases(const std::filesystem::path& file,
                                               const soma::testing::RegisteredTypes& types) {
    std::vector<std::shared_ptr<Case>> cases;
    const YAML::Node scene = YAML::LoadFile(file.string());
    std::vector<YAML::Node> robots;
    for (const YAML::Node& element : scene["elements"])
        if (element["type"] && element["type"].as<std::string>() == "gvs") robots.push_back(element);
    for (const YAML::Node& robot : robots) {
        YAML::Node block = YAML::Clone(robot);
        block.remove("type");
        YAML::Emitter yaml;
        yaml << block;
        const std::unique_ptr<Element> element = types.make_element("gvs", yaml.c_str());
        const auto& gvs = dynamic_cast<const GvsElement&>(*element);
        auto c = std::make_shared<Case>();
        c->name = "scene_" + file.stem().string();
        if (robots.size() > 1) c->name += "_" + robot["name"].as<std::string>();
        c->model = gvs.tree().model;
        c->K = gvs.tree().stiffness;
        c->D = gvs.tree().damping;
        c->gravity = gvs.description().gravity;
        random_state(*c, VectorX::Constant(c->n(), 0.1));
        c->q += gvs.tree().initial_q;
        cases.push_back(c);
    }
    return cases;
}

/// \brief Forward dynamics FD(q, qdot) = M^-1 (tau - ID(q, qdot, 0)), tau = -K q - D qdot, with
/// every buffer sized once.
class ForwardDynamics {
public:
    enum class MassFrom { derivatives, unit_accelerations };

    ForwardDynamics(const Case& c, MassFrom mass_from)
        : case_(c), mass_from_(mass_from), data_(c.model), llt_(c.n()), zero_(VectorX::Zero(c.n())),
          unit_(VectorX::Zero(c.n())), bias_(c.n()), mass_(c.n(), c.n()) {}

    /// Calls of ID per evaluation.
    Index id_calls() const { return mass_from_ == MassFrom::derivatives ? 1 : case_.n() + 1; }

    /// \brief out = FD(q, qdot).
    void evaluate(const VectorX& q, const VectorX& qdot, VectorX& out) {
        const Eigen::MatrixXd* mass = &data_.mass;
        if (mass_from_ == MassFrom::derivatives) {
            inverse_dynamics_derivatives(case_.model, data_, q, qdot, zero_, case_.gravity);
            bias_ = data_.id;
        } else {
            inverse_dynamics(case_.model, data_, q, qdot, zero_, case_.gravity);
            bias_ = data_.id;
            // M e_j = ID(q, 0, e_j) without gravity: the velocity and gravity terms vanish.
            for (Index j = 0; j < case_.n(); ++j) {
                unit_[j] = 1.0;
                inverse_dynamics(case_.model, data_, q, zero_, unit_, Vec3::Zero());
                mass_.col(j) = data_.id;
                unit_[j] = 0.0;
            }
            mass = &mass_;
        }
        llt_.compute(*mass);
        out.noalias() = -bias_;
        out.noalias() -= case_.K * q;
        out.noalias() -= case_.D * qdot;
        llt_.solveInPlace(out);
    }

private:
    const Case& case_;
    MassFrom mass_from_;
    MultibodyData data_;
    Eigen::LLT<Eigen::MatrixXd> llt_;
    VectorX zero_, unit_, bias_;
    Eigen::MatrixXd mass_;
};

/// \brief dFD/dq and dFD/dqdot from the analytical derivatives (Mathew et al., eqs. 7, 9):
/// M^-1 (dtau/dq - dID/dq) and M^-1 (dtau/dqdot - dID/dqdot), ID evaluated at qddot = FD.
struct AnalyticForwardJacobian {
    explicit AnalyticForwardJacobian(const Case& c)
        : data(c.model), llt(c.n()), dq(c.n(), c.n()), dqdot(c.n(), c.n()) {}

    void evaluate(const Case& c, const VectorX& q, const VectorX& qdot, const VectorX& qddot) {
        inverse_dynamics_derivatives(c.model, data, q, qdot, qddot, c.gravity);
        llt.compute(data.mass);
        dq = -data.did_dq;
        dq -= c.K;
        llt.solveInPlace(dq);
        dqdot = -data.did_dqdot;
        dqdot -= c.D;
        llt.solveInPlace(dqdot);
    }

    MultibodyData data;
    Eigen::LLT<Eigen::MatrixXd> llt;
    Eigen::MatrixXd dq, dqdot;
};

/// \brief [d f/dq, d f/dqdot] by forward differences (eq. 38): 2n + 1 evaluations of f(q, qdot, out).
template <typename F>
void forward_difference_jacobian(F&& f, VectorX& q, VectorX& qdot, VectorX& base, VectorX& probe,
                                 Eigen::MatrixXd& dq, Eigen::MatrixXd& dqdot) {
    f(q, qdot, base);
    for (VectorX* x : {&q, &qdot}) {
        Eigen::MatrixXd& jacobian = x == &q ? dq : dqdot;
        for (Index j = 0; j < x->size(); ++j) {
            const double saved = (*x)[j];
            (*x)[j] = saved + kStep;
            f(q, qdot, probe);
            (*x)[j] = saved;
            jacobian.col(j) = (probe - base) / kStep;
        }
    }
}

/// \brief The same by central differences: 4n evaluations.
template <typename F>
void central_difference_jacobian(F&& f, VectorX& q, VectorX& qdot, VectorX& plus, VectorX& minus,
                                 Eigen::MatrixXd& dq, Eigen::MatrixXd& dqdot) {
    for (VectorX* x : {&q, &qdot}) {
        Eigen::MatrixXd& jacobian = x == &q ? dq : dqdot;
        for (Index j = 0; j < x->size(); ++j) {
            const double saved = (*x)[j];
            (*x)[j] = saved + kStep;
            f(q, qdot, plus);
            (*x)[j] = saved - kStep;
            f(q, qdot, minus);
            (*x)[j] = saved;
            jacobian.col(j) = (plus - minus) / (2.0 * kStep);
        }
    }
}

double mismatch(const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& approximate) {
    return (approximate - analytic).norm() / analytic.norm();
}

void common_counters(benchmark::State& state, const Case& c, double id_calls) {
    state.counters["dof"] = static_cast<double>(c.n());
    state.counters["points"] = static_cast<double>(c.model.point_count());
    state.counters["paper_np"] = c.paper_points;
    state.counters["id_calls"] = id_calls;
}

void bench_id(benchmark::State& state, const Case& c) {
    MultibodyData data(c.model);
    {
        [[maybe_unused]] const NoEigenMalloc guard;
        for (auto _ : state) {
            inverse_dynamics(c.model, data, c.q, c.qdot, c.qddot, c.gravity);
            benchmark::DoNotOptimize(data.id.data());
            benchmark::ClobberMemory();
        }
    }
    common_counters(state, c, 1);
}

void bench_id_derivatives(benchmark::State& state, const Case& c) {
    MultibodyData data(c.model);
    {
        [[maybe_unused]] const NoEigenMalloc guard;
        for (auto _ : state) {
            inverse_dynamics_derivatives(c.model, data, c.q, c.qdot, c.qddot, c.gravity);
            benchmark::DoNotOptimize(data.did_dq.data());
            benchmark::ClobberMemory();
        }
    }
    common_counters(state, c, 1);
}

/// The ID Jacobian by differences; \p central picks central (4n calls) over forward (2n + 1).
void bench_id_jacobian(benchmark::State& state, const Case& c, bool central) {
    const Index n = c.n();
    MultibodyData data(c.model), reference(c.model);
    inverse_dynamics_derivatives(c.model, reference, c.q, c.qdot, c.qddot, c.gravity);
    VectorX q = c.q, qdot = c.qdot, a(n), b(n);
    Eigen::MatrixXd dq(n, n), dqdot(n, n);
    const auto id = [&](const VectorX& x, const VectorX& v, VectorX& out) {
        inverse_dynamics(c.model, data, x, v, c.qddot, c.gravity);
        out = data.id;
    };
    {
        [[maybe_unused]] const NoEigenMalloc guard;
        for (auto _ : state) {
            if (central)
                central_difference_jacobian(id, q, qdot, a, b, dq, dqdot);
            else
                forward_difference_jacobian(id, q, qdot, a, b, dq, dqdot);
            benchmark::DoNotOptimize(dq.data());
            benchmark::DoNotOptimize(dqdot.data());
            benchmark::ClobberMemory();
        }
    }
    common_counters(state, c, static_cast<double>(central ? 4 * n : 2 * n + 1));
    state.counters["mismatch_q"] = mismatch(reference.did_dq, dq);
    state.counters["mismatch_qdot"] = mismatch(reference.did_dqdot, dqdot);
}

/// qddot = FD(q, qdot): where a simulator evaluates the Jacobian, it has just computed it.
VectorX acceleration(const Case& c) {
    ForwardDynamics fd(c, ForwardDynamics::MassFrom::derivatives);
    VectorX qddot(c.n());
    fd.evaluate(c.q, c.qdot, qddot);
    return qddot;
}

void bench_dfd_analytic(benchmark::State& state, const Case& c) {
    const VectorX qddot = acceleration(c);
    AnalyticForwardJacobian jacobian(c);
    {
        [[maybe_unused]] const NoEigenMalloc guard;
        for (auto _ : state) {
            jacobian.evaluate(c, c.q, c.qdot, qddot);
            benchmark::DoNotOptimize(jacobian.dq.data());
            benchmark::DoNotOptimize(jacobian.dqdot.data());
            benchmark::ClobberMemory();
        }
    }
    common_counters(state, c, 1);
}

/// dFD by forward differences of FD, M from \p mass_from.
void bench_dfd_forward(benchmark::State& state, const Case& c, ForwardDynamics::MassFrom mass_from) {
    const Index n = c.n();
    AnalyticForwardJacobian reference(c);
    reference.evaluate(c, c.q, c.qdot, acceleration(c));
    ForwardDynamics fd(c, mass_from);
    VectorX q = c.q, qdot = c.qdot, base(n), probe(n);
    Eigen::MatrixXd dq(n, n), dqdot(n, n);
    const auto f = [&](const VectorX& x, const VectorX& v, VectorX& out) { fd.evaluate(x, v, out); };
    {
        [[maybe_unused]] const NoEigenMalloc guard;
        for (auto _ : state) {
            forward_difference_jacobian(f, q, qdot, base, probe, dq, dqdot);
            benchmark::DoNotOptimize(dq.data());
            benchmark::DoNotOptimize(dqdot.data());
            benchmark::ClobberMemory();
        }
    }
    common_counters(state, c, static_cast<double>((2 * n + 1) * fd.id_calls()));
    state.counters["mismatch_q"] = mismatch(reference.dq, dq);
    state.counters["mismatch_qdot"] = mismatch(reference.dqdot, dqdot);
}

/// A lower bound of any forward-difference dFD: 2n + 1 x (ID(q, qdot, 0) + Cholesky of M + one
/// solve), M itself taken as free (the factorised matrix is the one at the unperturbed q).
void bench_dfd_bound(benchmark::State& state, const Case& c) {
    const Index n = c.n();
    MultibodyData data(c.model);
    inverse_dynamics_derivatives(c.model, data, c.q, c.qdot, VectorX::Zero(n), c.gravity);
    const Eigen::MatrixXd mass = data.mass;
    Eigen::LLT<Eigen::MatrixXd> llt(n);
    const VectorX zero = VectorX::Zero(n);
    VectorX q = c.q, qdot = c.qdot, base(n), probe(n);
    Eigen::MatrixXd dq(n, n), dqdot(n, n);
    const auto f = [&](const VectorX& x, const VectorX& v, VectorX& out) {
        inverse_dynamics(c.model, data, x, v, zero, c.gravity);
        llt.compute(mass);
        out.noalias() = -data.id;
        out.noalias() -= c.K * x;
        out.noalias() -= c.D * v;
        llt.solveInPlace(out);
    };
    {
        [[maybe_unused]] const NoEigenMalloc guard;
        for (auto _ : state) {
            forward_difference_jacobian(f, q, qdot, base, probe, dq, dqdot);
            benchmark::DoNotOptimize(dq.data());
            benchmark::DoNotOptimize(dqdot.data());
            benchmark::ClobberMemory();
        }
    }
    common_counters(state, c, static_cast<double>(2 * n + 1));
}

void register_case(const std::shared_ptr<Case>& c) {
    const auto add = [&](const std::string& what, auto body) {
        benchmark::RegisterBenchmark((c->name + "/" + what).c_str(),
                                     [c, body](benchmark::State& state) { body(state, *c); })
            ->Unit(benchmark::kMicrosecond);
    };
    add("id", bench_id);
    add("id_derivatives", bench_id_derivatives);
    add("id_jacobian_fwd", [](benchmark::State& s, const Case& c) { bench_id_jacobian(s, c, false); });
    add("id_jacobian_ctr", [](benchmark::State& s, const Case& c) { bench_id_jacobian(s, c, true); });
    add("dfd_analytic", bench_dfd_analytic);
    add("dfd_fwd_m_deriv", [](benchmark::State& s, const Case& c) {
        bench_dfd_forward(s, c, ForwardDynamics::MassFrom::derivatives);
    });
    add("dfd_fwd_m_unit", [](benchmark::State& s, const Case& c) {
        bench_dfd_forward(s, c, ForwardDynamics::MassFrom::unit_accelerations);
    });
    add("dfd_fwd_bound", bench_dfd_bound);
}

}  // namespace

/// The gvs plugin's registration entry point (plugins/gvs/registration.cpp, compiled into this
/// program), whose factory builds the scenes' robots.
extern "C" void soma_register_plugin(soma::Registry& registry);

int main(int argc, char** argv) {
    register_case(manipulator("cdm", 4, 2, 5));
    register_case(serial_robot());
    // DoF = 3 (angular + 1) + 3 (linear + 1); Gauss points = angular order + 3.
    register_case(manipulator("cdm_sweep_12", 2, 0, 5));
    register_case(manipulator("cdm_sweep_24", 4, 2, 7));
    register_case(manipulator("cdm_sweep_48", 9, 5, 12));
    register_case(manipulator("cdm_sweep_96", 20, 10, 23));
    // The examples as built from their scene files (the folder: SOMA_GVS_SCENES, or configs/gvs).
    const soma::testing::RegisteredTypes types(soma_register_plugin);
    const char* folder = std::getenv("SOMA_GVS_SCENES");
    std::vector<std::filesystem::path> scenes;
    for (const auto& entry : std::filesystem::directory_iterator(folder ? folder : SOMA_GVS_SCENE_DIR))
        if (entry.path().extension() == ".yaml") scenes.push_back(entry.path());
    std::sort(scenes.begin(), scenes.end());
    for (const auto& scene : scenes) {
        try {
            for (const auto& c : scene_cases(scene, types)) register_case(c);
        } catch (const std::exception& e) {
            std::cerr << scene.string() << ": " << e.what() << "\n";
            return 1;
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
