#pragma once
/// \file index_capacity.hpp
/// \brief Totals that must fit Soma's 32-bit Index (soma/types.hpp): the DOF map's flat count,
/// the stencils' DOF lists and scatter maps, the Jacobian's nonzeros.
///
/// Each element is bounded by the input limits (soma/input_limits.hpp), but several large ones
/// together can pass 2^31 - 1 (five rods of 4 million nodes need 2.4e9 scatter entries). The
/// kernel forms these sums in 64 bits and refuses them here, before anything is narrowed or
/// allocated, instead of overflowing into a crash or a wrong pattern.

#include "soma/types.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace soma {

/// \brief `total` as an Index.
/// \throws std::runtime_error (reported as an error of the scene: exit 1 at check time, a
/// stopped run when contact grows the pattern mid-run) when it does not fit.
inline Index checked_index_total(std::int64_t total, const char* what) {
    constexpr Index kMax = std::numeric_limits<Index>::max();
    if (total >= 0 && total <= kMax) return static_cast<Index>(total);
    throw std::runtime_error("the scene needs " + std::to_string(total) + " " + what + ", above the " +
                             std::to_string(kMax) +
                             " that Soma's 32-bit indices hold (docs/reliability.md, Input limits): use fewer or "
                             "coarser elements");
}

}  // namespace soma
