// The `outputs` plugin: registers the `csv` and `vtk` observers. This file is the only one that
// reads soma::Parameters; it translates them into the plain settings structs the observers are
// built from, so the observers (and their tests) do not depend on the scene machinery.
#include "csv_series.hpp"
#include "vtk_frames.hpp"

#include "soma/parameters.hpp"
#include "soma/registry.hpp"

#include <array>
#include <memory>
#include <string>

namespace {

using soma::ParameterSchema;
using soma::Parameters;
using soma::outputs::CsvProbe;

ParameterSchema node_probe_schema(const std::string& name, const std::string& doc) {
    ParameterSchema node(name, doc);
    node.string("element", "scene name of the element").require();
    node.integer("node", "node (point) index; negative counts from the end, -1 is the last node")
        .fallback(-1L);
    node.vec3("at",
              "instead of `node`: the node nearest to this position in the initial configuration (`soma check` "
              "prints the node chosen and its distance; the columns name it)")
        .unit("m");
    return node;
}

ParameterSchema body_probe_schema(const std::string& name, const std::string& doc) {
    ParameterSchema body(name, doc);
    body.string("element", "scene name of an element with an orientation (a rigid_body)").require();
    return body;
}

ParameterSchema csv_schema() {
    ParameterSchema schema(
        "csv",
        "Time series of probes (node positions and velocities, energies, solver statistics) as CSV. "
        "Columns: `time`, then each probe's columns in order: `<element>.node<i>.x|y|z` (positions), "
        "`<element>.node<i>.vx|vy|vz` (velocities, i counted from the start even when written negative), "
        "`<element>.qw|qx|qy|qz` (orientation), `<element>.wx|wy|wz` (angular velocity), "
        "`energy.<which>`, `<term>.<statistic>`, `newton_iterations`, `linear_iterations`, `step_time_s`, `dt`. One row per written "
        "step, flushed "
        "at once, numbers in the shortest text that reads back exactly.");
    // `name` is a common key the kernel's registry adds to every observer schema (declaring it
    // here too would be refused as a duplicate); it names the default file.
    schema.integer("every", "write every N accepted steps (the initial state and the final state are always written)")
        .fallback(1L)
        .min_value(1);
    schema.string("file",
                  "CSV file, relative to the output folder (default `<name>.csv`, or `series.csv` "
                  "without a name); it must stay inside that folder (no absolute path, no `..` above it), and "
                  "two outputs may not write one file (both refused by `soma check`)");

    ParameterSchema probe("probe", "one probe: exactly one of the keys below");
    probe.map("node_position", "position of one node (columns `<element>.node<i>.x|y|z`, m)",
              node_probe_schema("node_position", "a node of an element"));
    probe.map("node_velocity", "velocity of one node (columns `<element>.node<i>.vx|vy|vz`, m/s)",
              node_probe_schema("node_velocity", "a node of an element"));
    probe.map("orientation",
              "orientation of a body, body to world, as the unit quaternion (columns `<element>.qw|qx|qy|qz`; "
              "q and -q are the same rotation: the sign follows the motion continuously)",
              body_probe_schema("orientation", "an element with an orientation"));
    probe.map("angular_velocity",
              "angular velocity of a body in its own (body) axes (columns `<element>.wx|wy|wz`, rad/s; the world "
              "angular velocity is R w, R the rotation of `orientation`)",
              body_probe_schema("angular_velocity", "an element with an orientation"));
    probe.string("energy",
                 "`kinetic`, `potential`, `total` (all terms) or the scene name of one element or "
                 "force (its potential energy); column `energy.<value>`, J");
    ParameterSchema statistic("statistic", "a quantity a scene term reports");
    statistic.string("term", "the scene name of the element, force or constraint").require();
    statistic.string("name",
                     "the quantity, among those the term reports (imc_contact: candidate_pairs, active_pairs, "
                     "normal_force, deepest_gap; a contact constraint such as ncp_contact, at the step's end: "
                     "contacts, active_contacts, normal_force, friction_force)")
        .require();
    probe.map("statistic",
              "a quantity a scene term reports about itself at the written state (column `<term>.<name>`), e.g. "
              "a contact force's touching pairs or total normal force",
              std::move(statistic));
    probe.boolean("newton_iterations", "`true`: Newton iterations of the accepted attempt (column `newton_iterations`)");
    probe.boolean("linear_iterations",
                  "`true`: Krylov iterations of the accepted attempt (column `linear_iterations`): an iterative "
                  "linear solver's (a direct one has none) and an integrator's own (ncp_newton's conjugate residual or "
                  "GMRES on its Schur complement)");
    probe.boolean("step_time", "`true`: wall time of the step, retries included (column `step_time_s`, s)");
    probe.boolean("dt", "`true`: size of the step just taken (column `dt`, s)");
    schema.map_list("probes", "what to record, one item per probe, in column order", std::move(probe));
    return schema;
}

CsvProbe read_probe(const Parameters& item) {
    static constexpr std::array<const char*, 10> keys{"node_position", "node_velocity", "orientation",
                                                      "angular_velocity", "energy", "statistic",
                                                      "newton_iterations", "linear_iterations", "step_time", "dt"};
    std::string chosen;
    for (const char* key : keys) {
        if (!item.has(key)) continue;
        if (!chosen.empty())
            item.fail(key, "a probe holds exactly one of node_position, node_velocity, orientation, "
                           "angular_velocity, energy, statistic, newton_iterations, linear_iterations, step_time, dt; "
                           "this one also has '" +
                               chosen + "' (write two items)");
        chosen = key;
    }
    if (chosen.empty())
        item.fail("", "a probe needs one of node_position, node_velocity, orientation, angular_velocity, energy, "
                      "statistic, newton_iterations, linear_iterations, step_time, dt");

    CsvProbe probe;
    probe.where = item.location(chosen).str();
    using Kind = CsvProbe::Kind;
    if (chosen == "node_position" || chosen == "node_velocity") {
        const Parameters node = item.block(chosen);
        probe.kind = chosen == "node_position" ? Kind::node_position : Kind::node_velocity;
        probe.element = node.string("element");
        probe.node = node.integer("node");
        if (node.has("at")) {
            if (node.has("node"))
                node.fail("at", "give either `node` (an index) or `at` (a position), not both");
            probe.at = node.vec3("at");
            probe.where = node.location("at").str();
        }
        return probe;
    }
    if (chosen == "orientation" || chosen == "angular_velocity") {
        probe.kind = chosen == "orientation" ? Kind::orientation : Kind::angular_velocity;
        probe.element = item.block(chosen).string("element");
        return probe;
    }
    if (chosen == "energy") {
        probe.kind = Kind::energy;
        probe.energy = item.string("energy");
        return probe;
    }
    if (chosen == "statistic") {
        const Parameters block = item.block(chosen);
        probe.kind = Kind::statistic;
        probe.term = block.string("term");
        probe.statistic = block.string("name");
        return probe;
    }
    // The remaining probes are switches; `false` would silently record nothing.
    if (!item.boolean(chosen)) item.fail(chosen, "write `" + chosen + ": true`, or remove this probe");
    probe.kind = chosen == "newton_iterations" ? Kind::newton_iterations
               : chosen == "linear_iterations" ? Kind::linear_iterations
               : chosen == "step_time"         ? Kind::step_time
                                               : Kind::dt;
    return probe;
}

std::unique_ptr<soma::Observer> make_csv(const Parameters& params) {
    soma::outputs::CsvSeriesSettings settings;
    if (params.has("name")) settings.name = params.string("name");  // the registry's common key
    settings.every = params.integer("every");
    if (params.has("file")) settings.file = params.string("file");
    for (const Parameters& item : params.blocks("probes")) settings.probes.push_back(read_probe(item));
    return std::make_unique<soma::outputs::CsvSeries>(std::move(settings));
}

ParameterSchema vtk_schema() {
    ParameterSchema schema(
        "vtk",
        "ParaView frames: one VTK XML unstructured grid (.vtu) per written step holding every element "
        "(points with point data element_id, node_index, velocity, radius; edges as lines, triangles, and a "
        "vertex for each point no edge or triangle uses, with cell data element_id, edge_index and "
        "triangle_index, -1 on cells of another kind: click a point or cell in ParaView to read the index "
        "a scene selects; then each element's visual shapes, a rigid_body's `visuals`: their points with "
        "node_index -1 and their triangles with cell data visual = 1, 0 on every other cell: threshold on it "
        "to show either), plus the collection `<prefix>.pvd` in the "
        "output folder listing every frame with its time (open it in ParaView). Each frame is complete on disk "
        "before the collection names it, and the collection grows by one write per frame, so a run that stops "
        "early leaves a valid one. A scene with "
        "a contact constraint (ncp_contact, or a joint_limit) also gets contact frames `<prefix>_contacts_000000.vtu`, ... "
        "with their collection `<prefix>_contacts.pvd`: a vertex per contact of the step just taken, where "
        "its force acts on its first body, with point data normal (from the second body towards the "
        "first), normal_force (N), friction_force and force (world vectors on the first body, N), gap "
        "(m), element_a and element_b (element_id, -1 for the floor) and constraint (glyph `force` in "
        "ParaView to see the forces). A joint_limit is a contact constraint too: its stops near the joint "
        "appear as contacts 1 m from a revolute axis (normal_force is then the stop's torque, N m); "
        "threshold on `constraint` (the frames' comments name each) to keep only ncp_contact's.");
    schema.integer("every", "write every N accepted steps (the initial state and the final state are always written)")
        .fallback(1L)
        .min_value(1);
    schema.string("prefix", "frames are `<prefix>_000000.vtu`, ...; the collection is `<prefix>.pvd`")
        .fallback(std::string("frames"));
    schema.string("folder",
                  "folder of the .vtu frames, relative to the output folder and inside it (two outputs may not "
                  "write one frame or collection: give a second vtk output another `prefix`)")
        .fallback(std::string("vtk"));
    schema.string("format",
                  "`binary`: exact doubles as raw bytes appended after the XML (smaller, faster; "
                  "ParaView's 'appended' mode); `ascii`: decimal text, diffable")
        .fallback(std::string("binary"))
        .one_of_strings({"binary", "ascii"});
    schema.boolean("contacts", "with a contact constraint in the scene, also write its contact frames and their "
                               "collection `<prefix>_contacts.pvd` (false: not)")
        .fallback(true);
    return schema;
}

std::unique_ptr<soma::Observer> make_vtk(const Parameters& params) {
    soma::outputs::VtkFramesSettings settings;
    settings.every = params.integer("every");
    settings.prefix = params.string("prefix");
    // A separator in the prefix would put the collection outside the output folder's top level.
    if (settings.prefix.empty() || settings.prefix.find_first_of("/\\") != std::string::npos)
        params.fail("prefix", "must be a non-empty file name stem without '/' (use `folder` for frames' folder)");
    settings.folder = params.string("folder");
    settings.encoding = params.string("format") == "ascii" ? soma::outputs::VtkEncoding::ascii
                                                           : soma::outputs::VtkEncoding::appended_raw;
    settings.contacts = params.boolean("contacts");
    return std::make_unique<soma::outputs::VtkFrames>(std::move(settings));
}

}  // namespace

SOMA_PLUGIN("outputs") {
    registry.add_observer(csv_schema(), make_csv);
    registry.add_observer(vtk_schema(), make_vtk);
}
