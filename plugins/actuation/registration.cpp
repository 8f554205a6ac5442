// The actuation plugin's entry point: the `actuation` controller's schema and the translation of
// validated scene parameters into ActuationSettings.
#include "actuation_controller.hpp"

#include "soma/registry.hpp"

#include <memory>

namespace {

using namespace soma;
using namespace soma::actuation;

ParameterSchema actuation_schema() {
    ParameterSchema box("box", "Items whose actuation point (initial position) lies in an axis-aligned box, bounds included.");
    box.vec3("min", "lower corner").unit("m").require();
    box.vec3("max", "upper corner").unit("m").require();
    ParameterSchema plane("plane", "Items whose actuation point (initial position) lies on a plane.");
    plane.vec3("point", "a point of the plane").unit("m").require();
    plane.vec3("normal", "the plane's normal (need not be unit length)").require();
    plane.real("tolerance", "largest distance from the plane").unit("m").fallback(1e-9).non_negative();
    ParameterSchema table("table",
                          "Values from a CSV file: first column t (s), then one column per channel component; "
                          "commas and/or whitespace separate fields, '#' starts a comment, an optional first "
                          "header row is skipped. Times strictly increasing. Linearly interpolated in t; held at "
                          "the first row before it and at the last row after it. Every selected item gets the "
                          "same values.");
    table.string("file", "CSV file, relative to the scene file's folder").require();
    ParameterSchema bend("bend_toward",
                         "Bend toward a world direction with a curvature: for a channel whose components bend the "
                         "element toward directions (a discrete_rod's natural_curvature: kappa1 toward m1, kappa2 "
                         "toward m2), every selected item gets (kappa1, kappa2) = kappa (d.m1, d.m2) / |(d.m1, d.m2)| "
                         "with the item's directors at the initial configuration (for a curved rod, the exact "
                         "directions of its curvature binormal): the rod bends toward d, projected on each spring's "
                         "cross-section plane, with curvature kappa. A direction along the rod at a selected spring "
                         "is an error.");
    bend.vec3("direction", "world direction d (need not be unit length), at the initial configuration").require();
    bend.string("curvature", "muparser expression of the curvature kappa (the channel's unit, 1/m for a rod), same "
                             "variables as `values`, e.g. \"20*min(t, 1)\"")
        .require();

    ParameterSchema s(
        "actuation",
        "Drives one actuation channel of one element over time (MAT-DiSMech §6.1): e.g. the natural curvature "
        "(`natural_curvature`, kappa1 and kappa2 in 1/m) or twist rate (`natural_twist`, tau in rad/m) of a "
        "discrete_rod's bend-twist springs. Before every Newton solve, at the solve's evaluation time t, every "
        "component of every selected item is set from `values` (one muparser expression per component), from "
        "`table` or from `bend_toward` (exactly one of the three). Expression variables: t (s); i, the item's index in the channel (a "
        "rod's spring k sits at node k+1); j, its position in the selection (0..n-1, ascending i); n, the number "
        "of selected items; s = j/(n-1) (0..1 along the selection; 0 if n = 1); x, y, z, the item's actuation "
        "point (m, in the initial configuration: a rod spring's center node, a shell hinge's edge midpoint). Constants _pi, _e; functions sin, cos, tan, "
        "asin, acos, atan, sinh, ..., exp, log, sqrt, abs, sign, rint, min, max, sum, avg, and `a ? b : c`. "
        "Items: the union of `items`, `box` and `plane`; every item when none is given. Instead of `values` or "
        "`table`, `bend_toward` sets a rod's natural curvature from a world direction and one curvature "
        "expression.");
    s.string("element", "name of the element driven").require();
    s.string("channel", "actuation channel of that element: discrete_rod has natural_curvature (kappa1, kappa2) "
                        "and natural_twist (tau), one item per bend-twist spring (actuation point: the spring's "
                        "center node); hinge_shell has natural_hinge_angle (phi, rad, in (-pi, pi)), one item per "
                        "hinge (actuation point: the hinge edge's midpoint); gvs has cable_tension (T, N, >= 0), one "
                        "item per cable (actuation point: its link's base), and joint_force (u, N m or N), one item "
                        "per joint coordinate (actuation point: the joint); an unknown name is reported with the "
                        "element's channels")
        .require();
    s.integer_list("items", "item indices to drive; negative indices count from the end (-1: last item). Default: "
                            "every item (or only the box's / plane's, when given)");
    s.map("box", "also drive the items whose actuation point lies in this box (union with `items`)", std::move(box));
    s.map("plane", "also drive the items whose actuation point lies on this plane (union)", std::move(plane));
    s.string_list("values", "one muparser expression per channel component, in the channel's unit, e.g. for "
                            "natural_curvature: [\"-31.4*min(t, 1)\", \"0\"]");
    s.map("table", "a CSV table (t, then one column per component) instead of `values`: the same values for "
                   "every selected item, linear in t between rows, held at the first/last row outside the table",
          std::move(table));
    s.map("bend_toward", "a direction and a curvature instead of `values` (natural_curvature of a discrete_rod)",
          std::move(bend));
    return s;
}

}  // namespace

SOMA_PLUGIN("actuation") {
    registry.add_controller(actuation_schema(), [](const Parameters& p) -> std::unique_ptr<Controller> {
        ActuationSettings s;
        s.element = p.string("element");
        s.channel = p.string("channel");
        if (p.has("items")) s.items = p.integer_list("items");
        if (p.has("box")) {
            const Parameters box = p.block("box");
            s.box = SelectionBox{box.vec3("min"), box.vec3("max")};
        }
        if (p.has("plane")) {
            const Parameters plane = p.block("plane");
            s.plane = SelectionPlane{plane.vec3("point"), plane.vec3("normal"), plane.real("tolerance")};
        }
        if (p.has("values")) s.values = p.string_list("values");
        if (p.has("table")) s.table_file = p.block("table").path("file");
        if (p.has("bend_toward")) {
            const Parameters bend = p.block("bend_toward");
            s.bend_toward = BendToward{bend.vec3("direction"), bend.string("curvature")};
        }
        return std::make_unique<ActuationController>(std::move(s), scene_errors(p));
    });
}
