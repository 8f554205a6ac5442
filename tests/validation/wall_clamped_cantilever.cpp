#include "wall_clamped_cantilever.hpp"

#include <cstdio>

namespace soma::validation {

std::string wall_clamped_cantilever_scene(const WallClampedCantilever& beam, const std::string& integrator,
                                          double duration, const std::string& forces) {
    const double dl = beam.free_length / (beam.nodes - 1.5);
    char text[1024];
    std::snprintf(text, sizeof text,
                  "simulation: {duration: %.17g}\n"
                  "integrator: %s\n"
                  "elements:\n"
                  "  - name: beam\n"
                  "    type: discrete_rod\n"
                  "    geometry: {line: {from: [%.17g, 0, 0], to: [%.17g, 0, 0], nodes: %d}}\n"
                  "    cross_section: {rectangle: {width: %.17g, height: %.17g}}\n"
                  "    material: {density: %.17g, youngs_modulus: %.17g, poisson_ratio: 0.5}\n"
                  "    fixed: {nodes: [0, 1], edges: [0]}\n",
                  duration, integrator.c_str(), beam.clamp_x - 0.5 * dl, beam.clamp_x + beam.free_length, beam.nodes,
                  beam.width, beam.thickness, beam.density, beam.youngs_modulus);
    return text + forces;
}

}  // namespace soma::validation
