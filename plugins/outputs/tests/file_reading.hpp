#pragma once
// Reading back what the observers wrote, with no XML library: a scratch folder per test, whole
// files as bytes, a strict little tag scanner (balanced tags, quoted attributes, one root), and
// the arrays of a .vtu in either encoding.

#include <catch2/catch.hpp>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace soma::outputs::testing {

/// A fresh folder under the system temp folder, removed at the end of the test.
class ScratchDir {
public:
    ScratchDir() {
        std::random_device random;
        path_ = std::filesystem::temp_directory_path() / ("soma_outputs_test_" + std::to_string(random()));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

inline std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, separator)) parts.push_back(part);
    return parts;
}

/// One start, end or empty-element tag.
struct XmlTag {
    std::string name;
    std::map<std::string, std::string> attributes;
    bool self_closing = false;
    std::size_t end = 0;  ///< position just after '>'
};

inline std::string xml_unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '&') { out += s[i]; continue; }
        const std::size_t semi = s.find(';', i);
        const std::string entity = s.substr(i, semi - i + 1);
        if (entity == "&amp;") out += '&';
        else if (entity == "&lt;") out += '<';
        else if (entity == "&gt;") out += '>';
        else if (entity == "&quot;") out += '"';
        else if (entity == "&apos;") out += '\'';
        else throw std::runtime_error("unknown entity " + entity);
        i = semi;
    }
    return out;
}

/// The start and empty-element tags of `text`, in order. Throws on anything malformed: unclosed
/// or mismatched tags, unquoted attributes, text outside the root, a '<' or '&' out of place.
/// The content of <AppendedData> is skipped as opaque bytes (it is raw binary), up to the last
/// "</AppendedData>".
inline std::vector<XmlTag> parse_xml(const std::string& text) {
    std::vector<XmlTag> tags;
    std::vector<std::string> open;
    bool root_seen = false;
    std::size_t i = 0;
    if (text.rfind("<?xml", 0) != 0) throw std::runtime_error("no XML declaration");
    i = text.find("?>") + 2;
    while (i < text.size()) {
        if (text[i] != '<') {
            if (open.empty() && !std::isspace(static_cast<unsigned char>(text[i])))
                throw std::runtime_error("text outside the root element");
            if (text[i] == '&' && text.find(';', i) == std::string::npos) throw std::runtime_error("bare &");
            ++i;
            continue;
        }
        if (text.compare(i, 4, "<!--") == 0) {
            const std::size_t close = text.find("-->", i + 4);
            if (close == std::string::npos) throw std::runtime_error("unclosed comment");
            if (text.substr(i + 4, close - i - 4).find("--") != std::string::npos)
                throw std::runtime_error("'--' inside a comment");
            i = close + 3;
            continue;
        }
        if (text.compare(i, 2, "</") == 0) {
            const std::size_t close = text.find('>', i);
            const std::string name = text.substr(i + 2, close - i - 2);
            if (open.empty() || open.back() != name) throw std::runtime_error("mismatched </" + name + ">");
            open.pop_back();
            i = close + 1;
            continue;
        }
        XmlTag tag;
        std::size_t j = i + 1;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
        tag.name = text.substr(i + 1, j - i - 1);
        if (tag.name.empty()) throw std::runtime_error("bad tag name");
        while (true) {
            while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
            if (j >= text.size()) throw std::runtime_error("unterminated tag " + tag.name);
            if (text[j] == '>') { ++j; break; }
            if (text.compare(j, 2, "/>") == 0) { tag.self_closing = true; j += 2; break; }
            const std::size_t eq = text.find('=', j);
            const std::string key = text.substr(j, eq - j);
            if (key.empty() || key.find_first_of(" <>\"") != std::string::npos || text[eq + 1] != '"')
                throw std::runtime_error("bad attribute in " + tag.name);
            const std::size_t end_quote = text.find('"', eq + 2);
            const std::string value = text.substr(eq + 2, end_quote - eq - 2);
            if (value.find('<') != std::string::npos) throw std::runtime_error("'<' in an attribute");
            if (!tag.attributes.emplace(key, xml_unescape(value)).second)
                throw std::runtime_error("duplicate attribute " + key);
            j = end_quote + 1;
        }
        if (open.empty() && root_seen) throw std::runtime_error("second root element");
        root_seen = true;
        tag.end = j;
        if (!tag.self_closing) open.push_back(tag.name);
        tags.push_back(tag);
        i = j;
        if (tag.name == "AppendedData" && !tag.self_closing) {
            const std::size_t close = text.rfind("</AppendedData>");
            if (close == std::string::npos || close < i) throw std::runtime_error("unclosed AppendedData");
            i = close;
        }
    }
    if (!open.empty()) throw std::runtime_error("unclosed <" + open.back() + ">");
    if (!root_seen) throw std::runtime_error("no root element");
    return tags;
}

inline std::vector<XmlTag> tags_named(const std::vector<XmlTag>& tags, const std::string& name) {
    std::vector<XmlTag> out;
    for (const auto& t : tags)
        if (t.name == name) out.push_back(t);
    return out;
}

/// A parsed .vtu: piece sizes and each DataArray's values as doubles, keyed "section/Name".
struct VtuContents {
    long points = -1;
    long cells = -1;
    std::map<std::string, std::vector<double>> arrays;
    std::map<std::string, std::string> types;
};

inline VtuContents read_vtu(const std::filesystem::path& path) {
    const std::string text = read_bytes(path);
    const auto tags = parse_xml(text);
    VtuContents vtu;
    REQUIRE(tags.front().name == "VTKFile");
    REQUIRE(tags.front().attributes.at("type") == "UnstructuredGrid");
    const auto pieces = tags_named(tags, "Piece");
    REQUIRE(pieces.size() == 1);
    vtu.points = std::stol(pieces[0].attributes.at("NumberOfPoints"));
    vtu.cells = std::stol(pieces[0].attributes.at("NumberOfCells"));

    std::size_t appended_base = std::string::npos;
    for (const auto& t : tags)
        if (t.name == "AppendedData") {
            REQUIRE(t.attributes.at("encoding") == "raw");
            appended_base = text.find('_', t.end) + 1;
        }

    std::string section;
    for (const auto& t : tags) {
        if (t.name == "PointData" || t.name == "CellData" || t.name == "Points" || t.name == "Cells") section = t.name;
        if (t.name != "DataArray") continue;
        const std::string key = section + "/" + t.attributes.at("Name");
        const std::string type = t.attributes.at("type");
        vtu.types[key] = type;
        std::vector<double>& values = vtu.arrays[key];
        if (t.attributes.at("format") == "ascii") {
            const std::size_t close = text.find("</DataArray>", t.end);
            std::istringstream in(text.substr(t.end, close - t.end));
            std::string token;
            while (in >> token) values.push_back(std::strtod(token.c_str(), nullptr));
            continue;
        }
        REQUIRE(t.attributes.at("format") == "appended");
        REQUIRE(appended_base != std::string::npos);
        const std::size_t at = appended_base + std::stoul(t.attributes.at("offset"));
        std::uint64_t bytes = 0;
        std::memcpy(&bytes, text.data() + at, sizeof bytes);
        REQUIRE(at + sizeof bytes + bytes <= text.size());
        const char* data = text.data() + at + sizeof bytes;
        const auto take = [&](auto sample) {
            using T = decltype(sample);
            REQUIRE(bytes % sizeof(T) == 0);
            for (std::size_t k = 0; k < bytes / sizeof(T); ++k) {
                T v;
                std::memcpy(&v, data + k * sizeof(T), sizeof(T));
                values.push_back(static_cast<double>(v));
            }
        };
        if (type == "Float64") take(double{});
        else if (type == "Int32") take(std::int32_t{});
        else if (type == "Int64") take(std::int64_t{});
        else if (type == "UInt8") take(std::uint8_t{});
        else FAIL("unexpected type " << type);
    }
    return vtu;
}

}  // namespace soma::outputs::testing
