#pragma once
/// \file view_command.hpp
/// \brief `soma view` and `soma plot`: look at a run's outputs.
///
/// `soma view OUTPUT_DIR` serves the browser viewer (static assets in <prefix>/share/soma/viewer,
/// three.js from Debian's libjs-three copied there by CMake) and the run's .pvd/.vtu frames on
/// 127.0.0.1 with a small GET-only HTTP server; `--snapshot` renders one frame in headless
/// Chromium instead. `soma plot RUN.csv` runs <prefix>/share/soma/soma_plot.py with a Python that
/// has matplotlib. docs/viewer.md describes both; docs/architecture.md says why they are built so.
///
/// Errors the user can fix (no .pvd in the folder, no Chromium, a missing column) are thrown as
/// std::runtime_error with a message naming the file or package.

#include <filesystem>
#include <string>
#include <vector>

namespace soma {

struct ViewOptions {
    std::string output;          ///< an output folder (its .pvd) or a .pvd file
    int port = 0;                ///< 0: a free port
    std::string snapshot;        ///< render one frame to this PNG instead of serving
    long frame = -1;             ///< the frame to snapshot; negative counts from the end
    std::string size = "1280x800";  ///< snapshot window size, WIDTHxHEIGHT pixels
    std::string field;           ///< colour by this point field (empty: by element)
    double timeout = 60.0;       ///< seconds Chromium may take for a snapshot
};

struct PlotOptions {
    std::string csv;                   ///< a CSV series written by the `csv` output
    std::vector<std::string> columns;  ///< names or glob patterns; empty: every column but time
    std::string output;                ///< PNG path (empty: the CSV's path with .png)
    bool overlay = false;              ///< all columns on one axes instead of one panel each
    std::string size = "800x600";      ///< image size, WIDTHxHEIGHT pixels
};

/// Returns the process exit code (0; bad input throws).
int view_command(const ViewOptions& options);
int plot_command(const PlotOptions& options);

/// The folder with the viewer's page (index.html, viewer.js, three/): $SOMA_VIEWER_DIR, else
/// <executable>/../share/soma/viewer (build tree and install tree alike).
std::filesystem::path viewer_asset_folder();

}  // namespace soma
