#include "shell_parameters.hpp"

namespace soma::shells {

void add_shell_parameters(ParameterSchema& s, const std::string& poisson_doc) {
    add_mesh_parameter(s, "mesh");
    s.real("thickness", "shell thickness h").unit("m").require().positive();
    ParameterSchema material("material", "Linear elastic isotropic shell material.");
    material.real("density", "mass density rho").unit("kg/m^3").require().positive();
    material.real("youngs_modulus", "Young's modulus E").unit("Pa").require().positive();
    material.real("poisson_ratio", poisson_doc).fallback(0.3).range(0.0, 0.5);
    s.map("material", "material constants", std::move(material)).require();
    s.vec3("initial_velocity", "initial velocity of every node").unit("m/s").fallback(Vec3(0.0, 0.0, 0.0));
}

}  // namespace soma::shells
