#include "file_writing.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace soma::outputs {

std::string exact_real(double value) {
    // fmt prints the shortest round-trip form (Dragonbox) with "{}": full precision, no noise
    // digits. Non-finite values get the spellings strtod, numpy and pandas all accept.
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return fmt::format("{}", value);
}

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

void write_file_atomically(const std::filesystem::path& target, std::string_view contents) {
    // The temporary lives beside the target so the rename never crosses file systems.
    std::filesystem::path temporary = target;
    temporary += ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot open '" + temporary.string() + "' for writing");
        out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
        out.flush();
        if (!out) throw std::runtime_error("cannot write '" + temporary.string() + "' (disk full?)");
    }
    std::error_code error;
    std::filesystem::rename(temporary, target, error);
    if (error)
        throw std::runtime_error("cannot rename '" + temporary.string() + "' to '" + target.string() +
                                 "': " + error.message());
}

}  // namespace soma::outputs
