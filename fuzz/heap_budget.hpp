#pragma once
/// \file heap_budget.hpp
/// \brief A heap budget per fuzz input: the scene target's way to tell a large model from a bug.
///
/// A scene within the documented input limits may legitimately ask for gigabytes: a rod of
/// 4 million nodes builds a 2 GiB Simulation in 40 s under ASan. libFuzzer would report such an
/// input as out-of-memory or as a timeout, and the run would spend its minute on one model
/// instead of on the loader's logic. So while a HeapBudget is alive, an `operator new` that would
/// take the heap more than `bytes` above its size at the budget's start throws std::bad_alloc,
/// and the target treats whatever the scene then throws as "too large for the fuzzer", not as a
/// finding. The unwinding this causes is itself checked: LeakSanitizer reports anything the
/// kernel or a plugin leaks on a std::bad_alloc.
///
/// heap_budget.cpp replaces every global operator new and delete of the target's process
/// (plugins included, as they resolve them from the executable) with malloc and free, so the
/// sanitizers see consistent pairs.

#include <cstddef>

namespace soma::fuzz {

class HeapBudget {
public:
    explicit HeapBudget(std::size_t bytes);
    ~HeapBudget();
    HeapBudget(const HeapBudget&) = delete;
    HeapBudget& operator=(const HeapBudget&) = delete;

    /// True once an allocation was refused under this budget.
    [[nodiscard]] bool exceeded() const;
};

}  // namespace soma::fuzz
