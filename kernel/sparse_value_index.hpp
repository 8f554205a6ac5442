#pragma once
// The position of entry (row, column) among a compressed column-major sparse matrix's values:
// where a fixed-pattern matrix's entry is refilled without a search per evaluation
// (constraint_set.cpp, contact_set.cpp look it up once per layout).
#include "soma/types.hpp"

#include <algorithm>
#include <cassert>

namespace soma {

inline Index sparse_value_index(const SparseMatrix& pattern, Index row, Index column) {
    const Index* begin = pattern.innerIndexPtr() + pattern.outerIndexPtr()[column];
    const Index* end = pattern.innerIndexPtr() + pattern.outerIndexPtr()[column + 1];
    const Index* found = std::lower_bound(begin, end, row);
    assert(found != end && *found == row);
    return static_cast<Index>(found - pattern.innerIndexPtr());
}

}  // namespace soma
