// The heap budget of heap_budget.hpp: global operator new and delete over malloc and free, with
// a refusal above the budget while one is armed.
#include "heap_budget.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOMA_FUZZ_ASAN 1
#endif
#endif
#ifdef SOMA_FUZZ_ASAN
#include <sanitizer/allocator_interface.h>
#else
#include <malloc.h>
#endif

namespace {

std::atomic<bool> armed{false};
std::atomic<bool> refused{false};
std::size_t start_bytes = 0;
std::size_t budget_bytes = 0;
std::atomic<unsigned> small_allocations{0};

/// Bytes the process holds on its heap now: every malloc, Eigen's and C libraries' included.
std::size_t heap_bytes() {
#ifdef SOMA_FUZZ_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
    return mallinfo2().uordblks;
#endif
}

/// Checking the heap on every small allocation would dominate the run: large requests are
/// checked each time, small ones every 1024th (a model's bulk comes in large arrays, and a
/// million small nodes pass a check within 1024 allocations).
bool over_budget(std::size_t size) {
    if (!armed.load(std::memory_order_relaxed)) return false;
    if (size < 4096 && (small_allocations.fetch_add(1, std::memory_order_relaxed) & 1023u) != 0) return false;
    return heap_bytes() + size > start_bytes + budget_bytes;
}

void* allocate(std::size_t size, std::size_t alignment) {
    if (over_budget(size)) {
        refused.store(true, std::memory_order_relaxed);
        throw std::bad_alloc();
    }
    if (size == 0) size = 1;
    void* p = nullptr;
    if (alignment <= alignof(std::max_align_t)) p = std::malloc(size);
    else if (posix_memalign(&p, alignment, size) != 0) p = nullptr;
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

void* allocate_nothrow(std::size_t size, std::size_t alignment) noexcept {
    try {
        return allocate(size, alignment);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

constexpr std::size_t kPlain = alignof(std::max_align_t);

}  // namespace

namespace soma::fuzz {

HeapBudget::HeapBudget(std::size_t bytes) {
    refused.store(false);
    start_bytes = heap_bytes();
    budget_bytes = bytes;
    armed.store(true);
}

HeapBudget::~HeapBudget() { armed.store(false); }

bool HeapBudget::exceeded() const { return refused.load(); }

}  // namespace soma::fuzz

// NOLINTBEGIN(misc-new-delete-overloads): every replaceable form, so that no pair is mixed.
void* operator new(std::size_t size) { return allocate(size, kPlain); }
void* operator new[](std::size_t size) { return allocate(size, kPlain); }
void* operator new(std::size_t size, std::align_val_t a) { return allocate(size, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t size, std::align_val_t a) { return allocate(size, static_cast<std::size_t>(a)); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate_nothrow(size, kPlain); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate_nothrow(size, kPlain); }
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate_nothrow(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate_nothrow(size, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
// NOLINTEND(misc-new-delete-overloads)
