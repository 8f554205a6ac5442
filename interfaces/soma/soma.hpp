#pragma once
/// \file soma.hpp
/// \brief Everything a plugin needs: include this one header.

#include "soma/api.hpp"
#include "soma/assembly.hpp"
#include "soma/constraint.hpp"
#include "soma/contributor.hpp"
#include "soma/controller.hpp"
#include "soma/element.hpp"
#include "soma/element_jacobian.hpp"
#include "soma/energy_term.hpp"
#include "soma/force.hpp"
#include "soma/integrator.hpp"
#include "soma/linear_solver.hpp"
#include "soma/lumped_mass.hpp"
#include "soma/nearest_point.hpp"
#include "soma/observer.hpp"
#include "soma/parameters.hpp"
#include "soma/point_map.hpp"
#include "soma/registry.hpp"
#include "soma/scene_view.hpp"
#include "soma/settings_errors.hpp"
#include "soma/types.hpp"
