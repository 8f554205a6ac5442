#include "vtu_file.hpp"

#include "file_writing.hpp"

#include <fmt/format.h>

#include <bit>
#include <type_traits>
#include <stdexcept>

namespace soma::outputs {

namespace {

const char* vtk_type(const VtkDataArray& array) {
    switch (array.values.index()) {
        case 0: return "Float64";
        case 1: return "Int32";
        case 2: return "Int64";
        default: return "UInt8";
    }
}

std::size_t value_count(const VtkDataArray& array) {
    return std::visit([](const auto& v) { return v.size(); }, array.values);
}

/// Writes a DataArray element; appended arrays add their bytes to `appended` and point at them.
class ArrayWriter {
public:
    explicit ArrayWriter(VtkEncoding encoding) : encoding_(encoding) {}

    void write(std::string& xml, const VtkDataArray& array, const std::string& indent) {
        xml += fmt::format("{}<DataArray type=\"{}\" Name=\"{}\"", indent, vtk_type(array), xml_escape(array.name));
        if (array.components != 1) xml += fmt::format(" NumberOfComponents=\"{}\"", array.components);
        if (encoding_ == VtkEncoding::appended_raw) {
            xml += fmt::format(" format=\"appended\" offset=\"{}\"/>\n", appended_.size());
            std::visit([&](const auto& values) { append_block(values); }, array.values);
            return;
        }
        xml += " format=\"ascii\">\n";
        std::visit([&](const auto& values) { append_ascii(xml, values, array.components, indent + "  "); },
                   array.values);
        xml += indent + "</DataArray>\n";
    }

    const std::string& appended() const { return appended_; }

private:
    template <class T>
    void append_block(const std::vector<T>& values) {
        // header_type="UInt64": each block starts with its size in bytes, native byte order
        // (the file's byte_order attribute says which).
        const std::uint64_t bytes = values.size() * sizeof(T);
        appended_.append(reinterpret_cast<const char*>(&bytes), sizeof bytes);
        if (bytes) appended_.append(reinterpret_cast<const char*>(values.data()), bytes);
    }

    template <class T>
    static void append_ascii(std::string& xml, const std::vector<T>& values, int components,
                             const std::string& indent) {
        // One tuple per line keeps files diffable and readable.
        const std::size_t per_line = static_cast<std::size_t>(components);
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (i % per_line == 0) xml += indent;
            if constexpr (std::is_floating_point_v<T>)
                xml += exact_real(values[i]);
            else
                xml += fmt::format("{}", static_cast<std::int64_t>(values[i]));
            xml += (i % per_line == per_line - 1 || i + 1 == values.size()) ? '\n' : ' ';
        }
    }

    VtkEncoding encoding_;
    std::string appended_;
};

void check_sizes(const UnstructuredGrid& grid) {
    const std::size_t points = grid.points.size() / 3;
    const std::size_t cells = grid.types.size();
    if (grid.points.size() % 3 != 0 || grid.offsets.size() != cells ||
        (cells && static_cast<std::size_t>(grid.offsets.back()) != grid.connectivity.size()))
        throw std::logic_error("vtu: inconsistent points/cells arrays");
    for (const auto& a : grid.point_data)
        if (value_count(a) != points * static_cast<std::size_t>(a.components))
            throw std::logic_error("vtu: point array '" + a.name + "' has the wrong size");
    for (const auto& a : grid.cell_data)
        if (value_count(a) != cells * static_cast<std::size_t>(a.components))
            throw std::logic_error("vtu: cell array '" + a.name + "' has the wrong size");
}

std::string comment_text(const std::string& text) {
    // "--" may not appear inside an XML comment.
    std::string out;
    for (const char c : text) {
        if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
        out += c;
    }
    if (!out.empty() && out.back() == '-') out += ' ';
    return out;
}

}  // namespace

std::string vtu_text(const UnstructuredGrid& grid, VtkEncoding encoding) {
    check_sizes(grid);
    const char* byte_order = std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian";
    std::string xml = "<?xml version=\"1.0\"?>\n";
    xml += fmt::format("<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"{}\" header_type=\"UInt64\">\n",
                       byte_order);
    xml += "  <UnstructuredGrid>\n";
    for (const auto& comment : grid.comments) xml += "    <!-- " + comment_text(comment) + " -->\n";
    xml += fmt::format("    <Piece NumberOfPoints=\"{}\" NumberOfCells=\"{}\">\n", grid.points.size() / 3,
                       grid.types.size());

    ArrayWriter arrays(encoding);
    xml += "      <PointData>\n";
    for (const auto& a : grid.point_data) arrays.write(xml, a, "        ");
    xml += "      </PointData>\n      <CellData>\n";
    for (const auto& a : grid.cell_data) arrays.write(xml, a, "        ");
    xml += "      </CellData>\n      <Points>\n";
    arrays.write(xml, {"Points", 3, grid.points}, "        ");
    xml += "      </Points>\n      <Cells>\n";
    arrays.write(xml, {"connectivity", 1, grid.connectivity}, "        ");
    arrays.write(xml, {"offsets", 1, grid.offsets}, "        ");
    arrays.write(xml, {"types", 1, grid.types}, "        ");
    xml += "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n";
    if (encoding == VtkEncoding::appended_raw) {
        // The underscore marks the first byte of data; offsets count from the byte after it.
        xml += "  <AppendedData encoding=\"raw\">\n   _";
        xml += arrays.appended();
        xml += "\n  </AppendedData>\n";
    }
    xml += "</VTKFile>\n";
    return xml;
}

}  // namespace soma::outputs
