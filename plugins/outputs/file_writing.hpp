#pragma once
/// \file file_writing.hpp
/// \brief What the output writers share: exact number text, XML escaping, atomic file replace.

#include <filesystem>
#include <string>
#include <string_view>

namespace soma::outputs {

/// \brief The shortest decimal text that reads back to exactly `value` (fmt's round-trip
/// formatting: 0.1 is "0.1", not "0.10000000000000001"); "nan" and "inf" as C's strtod reads them.
std::string exact_real(double value);

/// \brief `text` with &, <, >, " and ' replaced by XML entities, for attribute values.
std::string xml_escape(std::string_view text);

/// \brief `text` as one CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma,
/// a quote or a line break; unchanged otherwise.
std::string csv_field(std::string_view text);

/// \brief Writes `contents` to `target` so that readers only ever see the old file or the whole
/// new one: the bytes go to a sibling temporary file, are flushed, and the temporary is renamed
/// over `target` (rename is atomic within one file system on POSIX).
/// \throws std::runtime_error when the file cannot be written.
void write_file_atomically(const std::filesystem::path& target, std::string_view contents);

}  // namespace soma::outputs
