#pragma once
/// \file input_file.hpp
/// \brief Opening a file the user names (the scene, and every geometry, mesh or table file it
/// names) for reading: one helper for the kernel and every plugin.
///
/// Before it opens anything, open_input_file() checks with std::filesystem that the path is a
/// regular file (not a directory, a device such as /dev/zero or /dev/urandom, a FIFO or a
/// socket, which would never end or block) and that it is at most `max_bytes` long
/// (soma/input_limits.hpp). Its errors are std::invalid_argument with the path first:
/// "PATH: is a directory, expected a regular file"; a registration turns them into an error
/// located at the scene key that named the file (soma/settings_errors.hpp).

#include "soma/input_limits.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace soma {

namespace input_file_detail {

inline std::string bytes_text(std::uintmax_t bytes) {
    char text[64];
    if (bytes >= (std::uintmax_t{1} << 30))
        std::snprintf(text, sizeof text, "%ju bytes (%.1f GiB)", bytes,
                      static_cast<double>(bytes) / static_cast<double>(1u << 30));
    else if (bytes >= (std::uintmax_t{1} << 20))
        std::snprintf(text, sizeof text, "%ju bytes (%.1f MiB)", bytes,
                      static_cast<double>(bytes) / static_cast<double>(1u << 20));
    else
        std::snprintf(text, sizeof text, "%ju bytes", bytes);
    return text;
}

inline const char* kind_text(std::filesystem::file_type type) {
    switch (type) {
        case std::filesystem::file_type::directory: return "a directory";
        case std::filesystem::file_type::character: return "a character device";
        case std::filesystem::file_type::block: return "a block device";
        case std::filesystem::file_type::fifo: return "a FIFO (named pipe)";
        case std::filesystem::file_type::socket: return "a socket";
        default: return "not a regular file";
    }
}

}  // namespace input_file_detail

/// \brief What is wrong with reading \p path as a \p what of at most \p max_bytes, without
/// opening it: "" when it is a regular file within the size, else the reason ("is a directory,
/// expected the mesh file to be a regular file"), without the path.
inline std::string input_file_problem(const std::filesystem::path& path, std::uintmax_t max_bytes,
                                      const std::string& what) {
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);  // follows links
    if (status.type() == std::filesystem::file_type::not_found) return what + " not found";
    if (ec) return "cannot read the " + what + ": " + ec.message();
    if (status.type() != std::filesystem::file_type::regular)
        return std::string("is ") + input_file_detail::kind_text(status.type()) + ", expected the " + what +
               " to be a regular file";
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) return "cannot read the size of the " + what + ": " + ec.message();
    if (size > max_bytes)
        return "the " + what + " is " + input_file_detail::bytes_text(size) + ", above the maximum of " +
               input_file_detail::bytes_text(max_bytes) +
               " (docs/reliability.md, Input limits): use a smaller or coarser file";
    return "";
}

/// \brief input_file_problem() as an exception.
/// \throws std::invalid_argument "PATH: reason"
inline void check_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& what) {
    const std::string problem = input_file_problem(path, max_bytes, what);
    if (!problem.empty()) throw std::invalid_argument(path.string() + ": " + problem);
}

/// \brief Opens \p path for reading after check_input_file().
/// \throws std::invalid_argument "PATH: message"
inline std::ifstream open_input_file(const std::filesystem::path& path, const std::string& what = "file",
                                     std::uintmax_t max_bytes = kMaxDataFileBytes) {
    check_input_file(path, max_bytes, what);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::invalid_argument(path.string() + ": cannot open the " + what + " for reading");
    return in;
}

}  // namespace soma
