#pragma once
/// \file fuzz_input.hpp
/// \brief What every fuzz target shares: the input as text, and the rule for findings.
///
/// A target feeds the bytes to one reader. A documented refusal (the reader's error type, which
/// the scene turns into a located InputError) is an expected outcome; any other exception
/// escapes LLVMFuzzerTestOneInput, so libFuzzer reports it as a crash (uncaught exception ->
/// std::terminate -> abort), as it does for sanitizer reports, timeouts and memory limits.

#include <cstddef>
#include <cstdint>
#include <string>

namespace soma::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace soma::fuzz
