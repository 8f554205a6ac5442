#pragma once
/// \file point_spring.hpp
/// \brief `spring`: an axial spring-damper between two points, or a multi-point spring (a cable
/// or tendon) through via points, each point a point of any element or of the world (ArtiSynth
/// technical notes, sections 0.12 and 0.14).
///
/// Points x_0 .. x_n (n segments), u_i = (x_{i+1} - x_i)/l_i, total length L = sum l_i and rate
/// Ldot = sum (xdot_{i+1} - xdot_i) . u_i. One tension F = k (L - r) + d Ldot acts along every
/// segment (a frictionless cable over its via points): f_i = F v_i with v_0 = u_0,
/// v_n = -u_{n-1}, v_i = u_i - u_{i-1} (eq. 0.14). With `tension_only` (a cable) F = max(0, .).
///
/// The Jacobian is exact: dF/dx_j = -k v_j^T + y_{j-1} - y_j, y_i = (d/l_i)(xdot_{i+1} - xdot_i)^T P_i,
/// du_i/dx_i = -P_i/l_i, du_i/dx_{i+1} = P_i/l_i (P_i = I - u_i u_i^T), df_i/dxdot_j = -d v_i v_j^T
/// (section 0.14 with every segment active, its dLdot/dxdot_j erratum corrected), mapped through
/// each point's J, J_q and dxdot/dq at fixed v (a rigid body's turning point velocity: the
/// unsymmetric terms of section 0.23), plus each point map's geometric stiffness at its force.

#include "soma/element.hpp"
#include "soma/force.hpp"
#include "soma/point_kinematics.hpp"
#include "soma/settings_errors.hpp"

#include <optional>
#include <string>
#include <vector>

namespace soma::forces_basic {

/// One point of a spring as the scene names it.
struct SpringPoint {
    std::string element;        ///< empty: the world point `world`
    std::optional<long> node;   ///< point index (negative counts from the end)
    std::optional<Vec3> at;     ///< or the point nearest this position (initial configuration)
    Vec3 world = Vec3::Zero();
};

struct PointSpringSettings {
    std::vector<SpringPoint> points;     ///< 2 or more: the ends and the via points between them
    double stiffness = 0.0;              ///< k, N/m
    double damping = 0.0;                ///< d, N s/m
    std::optional<double> rest_length;   ///< r, m; absent: the initial length
    bool tension_only = false;           ///< a cable: no force when slack
    /// Prefix of the notes naming the points `at` chose, e.g. "scene.yaml:12:7: forces[1]".
    std::string where = "spring";
};

class PointSpring final : public Force {
public:
    PointSpring(PointSpringSettings settings, SettingsErrors errors);

    void bind(const SceneView& scene) override;
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    std::vector<TermStatistic> statistics() const override;
    double statistic(std::size_t index, const EvalContext& context) const override;
    /// r (m), after bind.
    double rest_length() const { return rest_length_; }

private:
    struct Point {
        const Element* element = nullptr;  ///< null: a world point
        Index index = 0;
        Vec3 world = Vec3::Zero();
        std::vector<Index> columns;  ///< the point's DOFs' columns in the stencil
    };
    /// Positions and velocities of every point into kinematics_; the length and its rate.
    std::pair<double, double> length_and_rate(const EvalContext& context) const;

    PointSpringSettings settings_;
    SettingsErrors errors_;
    std::vector<Point> points_;
    std::vector<Index> dofs_;
    double rest_length_ = 0.0;
    StencilId stencil_ = -1;
    // Per-evaluation scratch, sized at bind.
    mutable std::vector<PointKinematics> kinematics_;
    mutable std::vector<Vec3> position_, velocity_, direction_, tension_direction_;
    mutable std::vector<double> segment_length_;
    mutable std::vector<Eigen::Matrix<double, 3, Eigen::Dynamic>> dr_dq_, dr_dv_;  ///< per point, over the stencil
    VectorX residual_;
    Eigen::MatrixXd jacobian_;
};

}  // namespace soma::forces_basic
