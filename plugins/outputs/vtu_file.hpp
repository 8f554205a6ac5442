#pragma once
/// \file vtu_file.hpp
/// \brief An unstructured grid serialised as a VTK XML `.vtu` file (what ParaView reads).
///
/// Format reference: "VTK File Formats", XML section (UnstructuredGrid, DataArray, AppendedData),
/// https://docs.vtk.org/en/latest/design_documents/VTKFileFormats.html

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace soma::outputs {

/// VTK cell type codes used by the outputs (vtkCellType.h).
inline constexpr std::uint8_t kVtkVertex = 1;
inline constexpr std::uint8_t kVtkLine = 3;
inline constexpr std::uint8_t kVtkTriangle = 5;

/// One named point or cell array; the element type picks the VTK type (Float64, Int32, Int64,
/// UInt8).
struct VtkDataArray {
    std::string name;
    int components = 1;
    std::variant<std::vector<double>, std::vector<std::int32_t>, std::vector<std::int64_t>,
                 std::vector<std::uint8_t>>
        values;
};

/// The data of one .vtu piece, in VTK's own layout.
struct UnstructuredGrid {
    std::vector<double> points;               ///< x, y, z of each point
    std::vector<std::int64_t> connectivity;   ///< point indices of all cells, concatenated
    std::vector<std::int64_t> offsets;        ///< end of each cell in connectivity
    std::vector<std::uint8_t> types;          ///< VTK cell type of each cell
    std::vector<VtkDataArray> point_data;
    std::vector<VtkDataArray> cell_data;
    std::vector<std::string> comments;        ///< written as XML comments (e.g. id -> name tables)
};

/// How array values are stored.
enum class VtkEncoding {
    /// Raw bytes after the XML in one <AppendedData encoding="raw"> block, each array preceded
    /// by its byte count as UInt64: exact doubles, about 3x smaller and much faster than text.
    appended_raw,
    /// Decimal text inside each DataArray (exact round-trip digits): diffable, larger.
    ascii,
};

/// \brief The complete .vtu file text (bytes, for appended_raw) of `grid`.
std::string vtu_text(const UnstructuredGrid& grid, VtkEncoding encoding);

}  // namespace soma::outputs
