#pragma once
/// \file stretching_spring.hpp
/// \brief Rod edges use the SDK's stretching spring (MAT-DiSMech §3.1, eq. 9-10) with k_s = E A.

#include "soma/springs/stretching_spring.hpp"

namespace soma::rod {

using springs::StretchingSpring;
using springs::stretching_energy;
using springs::stretching_energy_gradient;
using springs::stretching_energy_gradient_hessian;

}  // namespace soma::rod
