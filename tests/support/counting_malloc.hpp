#pragma once
/// \file counting_malloc.hpp
/// \brief Counts every heap allocation of the process, for the "no allocation per call" tests.
///
/// Replaces malloc and its relatives (Eigen allocates with malloc, containers with operator new,
/// which calls malloc in libstdc++); glibc's own entry points do the work. It defines those
/// functions, so include it in exactly one source file of a test executable, and keep that
/// executable out of the sanitizer stage (ASan owns malloc).

#include <atomic>
#include <cstddef>

namespace soma::testing {
/// Heap allocations so far in this process.
inline std::atomic<long> heap_allocations{0};
}  // namespace soma::testing

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void* malloc(std::size_t size) {
    ++soma::testing::heap_allocations;
    return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
    ++soma::testing::heap_allocations;
    return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
    ++soma::testing::heap_allocations;
    return __libc_realloc(p, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
    ++soma::testing::heap_allocations;
    *out = __libc_memalign(alignment, size);
    return *out ? 0 : 12;  // ENOMEM
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
    ++soma::testing::heap_allocations;
    return __libc_memalign(alignment, size);
}
}
