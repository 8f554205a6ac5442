// Out-of-line virtual destructors and default hooks of the SDK interfaces. Defining them in
// libsoma_kernel gives every interface one vtable and one typeinfo, so dynamic_cast and
// exceptions work across plugin libraries.
#include "soma/soma.hpp"

#include <stdexcept>

namespace soma {

PatternBuilder::~PatternBuilder() = default;
CheckpointError::~CheckpointError() = default;
Contributor::~Contributor() = default;
double Contributor::potential_energy(const EvalContext&) const { return 0.0; }
void Contributor::begin_step(const State&) {}
std::string Contributor::check_solution(const EvalContext&) const { return {}; }
double Contributor::statistic(std::size_t, const EvalContext&) const { return 0.0; }
void Contributor::commit_step(const State&) {}
void Contributor::reject_step() {}
bool Contributor::declare_added_stencils(PatternBuilder&) { return false; }
void Contributor::save_checkpoint(CheckpointWriter&) const {}
void Contributor::restore_checkpoint(CheckpointReader&) {}
Element::~Element() = default;
void Element::connect(const SceneView&) {}
std::vector<Index> Element::item_nodes(const std::string&, Index) const { return {}; }

namespace {
[[noreturn]] void no_manifold(const Element& e, const char* what) {
    throw std::logic_error("element '" + e.name() + "' declares manifold blocks but does not implement " + what);
}
}  // namespace

void Element::initial_block_configuration(Index, double*) const { no_manifold(*this, "initial_block_configuration"); }
void Element::integrate_block(Index, const double*, const double*, double*) const { no_manifold(*this, "integrate_block"); }
void Element::difference_block(Index, const double*, const double*, double*) const { no_manifold(*this, "difference_block"); }
void Element::point_kinematics(Index point, const EvalContext& context, PointKinematics& out) const {
    if (geometry().mapped_points)
        throw std::logic_error("element '" + name() + "' declares mapped points but does not implement point_kinematics");
    evaluate_point(*this, point, context, out);
}
void Element::add_point_geometric_stiffness(Index, const EvalContext&, const Vec3&, PointStiffness&) const {}
void Element::wide_point_geometric_stiffness(Index point, const EvalContext&, const Vec3&, Eigen::MatrixXd&) const {
    throw std::logic_error("element '" + name() + "' gives a wide point " + std::to_string(point) +
                           " but does not implement wide_point_geometric_stiffness");
}
void Element::point_state(Index point, const VectorX& q, const VectorX& v, Vec3& x, Vec3& xdot) const {
    EvalContext context;
    context.q = &q;
    context.v = &v;
    PointKinematics k;
    evaluate_point(*this, point, context, k);
    x = k.position;
    xdot = k.velocity;
}

void Element::point_states(const VectorX& q, const VectorX& v, std::span<Vec3> positions,
                           std::span<Vec3> velocities) const {
    const std::size_t count = geometry().point_dofs.size();
    if (positions.size() != count || velocities.size() != count)
        throw std::logic_error("element '" + name() + "': point_states needs one entry per point (" +
                               std::to_string(count) + ")");
    EvalContext context;
    context.q = &q;
    context.v = &v;
    PointKinematics k;
    for (std::size_t p = 0; p < count; ++p) {
        evaluate_point(*this, static_cast<Index>(p), context, k);
        positions[p] = k.position;
        velocities[p] = k.velocity;
    }
}

namespace {
[[noreturn]] void no_frame(const Element& e, Index frame) {
    throw std::logic_error("element '" + e.name() + "' has no frame " + std::to_string(frame) + " (it has " +
                           std::to_string(e.frame_count()) + ")");
}
}  // namespace

std::string Element::frame_name(Index frame) const { no_frame(*this, frame); }
Index Element::frame_point(Index frame) const { no_frame(*this, frame); }
void Element::frame_kinematics(Index frame, const EvalContext&, FrameKinematics&) const { no_frame(*this, frame); }
void Element::wide_frame_geometric_stiffness(Index frame, const EvalContext&, const Vec3&, const Vec3&,
                                             Eigen::MatrixXd&) const {
    throw std::logic_error("element '" + name() + "' gives a wide frame " + std::to_string(frame) +
                           " but does not implement wide_frame_geometric_stiffness");
}
void Element::add_frame_geometric_stiffness(Index frame, const EvalContext&, const Vec3&, const Vec3&,
                                            FrameStiffness&) const {
    no_frame(*this, frame);
}

namespace {
[[noreturn]] void no_channel(const Element& e, const std::string& channel) {
    throw std::logic_error("element '" + e.name() + "' has no actuation channel '" + channel + "'");
}
}  // namespace

double Element::actuation(const std::string& channel, Index, int) const { no_channel(*this, channel); }
void Element::set_actuation(const std::string& channel, Index, int, double) { no_channel(*this, channel); }
Vec3 Element::actuation_point(const std::string& channel, Index) const { no_channel(*this, channel); }
Controller::~Controller() = default;
void Controller::save_checkpoint(CheckpointWriter&) const {}
void Controller::restore_checkpoint(CheckpointReader&) {}
Force::~Force() = default;
Constraint::~Constraint() = default;
double Constraint::statistic(std::size_t) const { return 0.0; }
ContactConstraint::~ContactConstraint() = default;
void Constraint::save_checkpoint(CheckpointWriter&) const {}
void Constraint::restore_checkpoint(CheckpointReader&) {}
System::~System() = default;
const ContactRows& System::contact_rows() const {
    static const ContactRows none;  // a System without contact constraints
    return none;
}
Integrator::~Integrator() = default;
void Integrator::save_checkpoint(CheckpointWriter&) const {}
void Integrator::restore_checkpoint(CheckpointReader&) {}
LinearSolver::~LinearSolver() = default;
Observer::~Observer() = default;
void Observer::bind(const SceneView&) {}
void Observer::end(const SceneView&, const RunSummary&) {}
void Observer::save_checkpoint(CheckpointWriter&) const {}
void Observer::resume(const SceneView&, const std::filesystem::path&, CheckpointReader& in) {
    throw CheckpointError("output '" + in.section_name() +
                          "' cannot continue its files from a checkpoint (its plugin does not implement "
                          "Observer::resume); remove it from the scene to restart, or run from the start");
}
SceneView::~SceneView() = default;
bool SceneView::dof_is_free(Index) const { return true; }
void SceneView::note(const std::string&) const {}
std::unique_ptr<ElementJacobian> SceneView::element_jacobian(const Element& element) const {
    throw std::logic_error("this scene view cannot evaluate the Jacobian of element '" + element.name() +
                           "' (only the kernel's simulation assembles elements)");
}
ElementJacobian::~ElementJacobian() = default;
Registry::~Registry() = default;

}  // namespace soma
