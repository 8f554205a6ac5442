#pragma once
/// \file time_table.hpp
/// \brief Values tabulated in time, read from a CSV file, linearly interpolated (MAT-DiSMech §6.1:
/// the reference code reads actuation histories from .xls/.txt tables).
///
/// File format:
///  - one row per time: t, v_1, ..., v_m (fields separated by commas and/or whitespace);
///  - '#' starts a comment; blank lines are skipped;
///  - the first row may be a header (its first field is not a number): it is skipped, but must
///    have as many fields as the data rows;
///  - at least one row; times strictly increasing; every value finite;
///  - at most kMaxTableValues numbers (soma/input_limits.hpp), in a regular file of at most
///    kMaxDataFileBytes (soma/input_file.hpp).
///
/// Between two rows the values are interpolated linearly in t; before the first row and after
/// the last they are held at that row's values (a table that starts at t = 0 and ends when the
/// actuation is complete is then held there, the usual "ramp, then hold").

#include "soma/input_limits.hpp"

#include <istream>
#include <span>
#include <string>
#include <vector>

namespace soma::actuation {

/// A table t -> (v_1 .. v_m).
class TimeTable {
public:
    /// \brief Builds a table from its rows.
    /// \param[in] times  strictly increasing times (s), at least one
    /// \param[in] values one row of m values per time (m >= 1, the same for every row)
    /// \throws std::invalid_argument naming the offending row
    TimeTable(std::vector<double> times, std::vector<std::vector<double>> values);

    /// \brief Reads the CSV format described in the file comment.
    /// \param[in] input  the text
    /// \param[in] source name for messages (the file path)
    /// \param[in] max_values more numbers are refused at the line that exceeds them
    /// \throws std::invalid_argument "source:line: message"
    static TimeTable read_csv(std::istream& input, const std::string& source, long max_values = kMaxTableValues);
    /// \brief Reads a CSV file. \throws std::invalid_argument (also when it cannot be opened)
    static TimeTable read_csv_file(const std::string& path);

    /// Number of value columns m (excluding the time column).
    std::size_t columns() const { return columns_; }
    std::size_t rows() const { return times_.size(); }
    double first_time() const { return times_.front(); }
    double last_time() const { return times_.back(); }

    /// \brief Values at time t: linear interpolation between rows, held outside [first, last].
    /// Allocates nothing.
    /// \param[out] out m values
    void evaluate(double t, std::span<double> out) const;

private:
    std::vector<double> times_;
    std::vector<double> values_;  ///< row-major, rows() x columns()
    std::size_t columns_ = 0;
};

}  // namespace soma::actuation
