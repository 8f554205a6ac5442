// TimeTable: CSV reading and linear interpolation held outside the table (time_table.hpp).
#include "time_table.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <sstream>

using namespace soma::actuation;

namespace {

TimeTable parse(const std::string& text) {
    std::istringstream in(text);
    return TimeTable::read_csv(in, "table.csv");
}

std::string error_of(const std::string& text) {
    try {
        parse(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("linear interpolation between rows, held before the first and after the last", "[actuation][table]") {
    const TimeTable table({0.0, 1.0, 3.0}, {{0.0, 10.0}, {2.0, 20.0}, {-2.0, 20.0}});
    CHECK(table.columns() == 2);
    CHECK(table.rows() == 3);
    std::array<double, 2> v{};
    table.evaluate(0.0, v);
    CHECK(v == std::array<double, 2>{0.0, 10.0});
    table.evaluate(0.25, v);
    CHECK(v[0] == Approx(0.5).epsilon(1e-15));
    CHECK(v[1] == Approx(12.5).epsilon(1e-15));
    table.evaluate(1.0, v);  // exactly at a row: that row
    CHECK(v == std::array<double, 2>{2.0, 20.0});
    table.evaluate(2.5, v);
    CHECK(v[0] == Approx(-1.0).epsilon(1e-15));
    CHECK(v[1] == Approx(20.0).epsilon(1e-15));
    table.evaluate(-5.0, v);  // held at the first row
    CHECK(v == std::array<double, 2>{0.0, 10.0});
    table.evaluate(100.0, v);  // held at the last row
    CHECK(v == std::array<double, 2>{-2.0, 20.0});
    const TimeTable constant({0.5}, {{7.0}});
    std::array<double, 1> c{};
    for (double t : {-1.0, 0.5, 3.0}) {
        constant.evaluate(t, c);
        CHECK(c[0] == 7.0);
    }
}

TEST_CASE("CSV: header, comments, commas or whitespace", "[actuation][table]") {
    const TimeTable table = parse("# actuation history\n"
                                  "t, kappa1, kappa2\n"
                                  "\n"
                                  "0, 0, 1   # start\n"
                                  "0.5,1.5e1,1\n"
                                  "1.0  30  -1\n");
    CHECK(table.columns() == 2);
    CHECK(table.rows() == 3);
    CHECK(table.first_time() == 0.0);
    CHECK(table.last_time() == 1.0);
    std::array<double, 2> v{};
    table.evaluate(0.75, v);
    CHECK(v[0] == Approx(22.5).epsilon(1e-15));
    CHECK(v[1] == Approx(0.0).margin(1e-15));
}

TEST_CASE("CSV errors name the file and line", "[actuation][table]") {
    CHECK_THAT(error_of("t,a\n0,1\n1,x\n"), Catch::Contains("table.csv:3:") && Catch::Contains("'x' is not a number"));
    CHECK_THAT(error_of("0,1\n1,,2\n"), Catch::Contains("table.csv:2:") && Catch::Contains("field 2"));
    CHECK_THAT(error_of("0,1\n0.5,2\n0.5,3\n"), Catch::Contains("table.csv:3:") && Catch::Contains("increase strictly"));
    CHECK_THAT(error_of("0,1,2\n1,2\n"), Catch::Contains("table.csv:2:") && Catch::Contains("1 values, but row 1 has 2"));
    CHECK_THAT(error_of("t,a,b\n0,1\n"), Catch::Contains("table.csv:2:") && Catch::Contains("header"));
    CHECK_THAT(error_of("# nothing\n\n"), Catch::Contains("no data rows"));
    CHECK_THAT(error_of("0\n"), Catch::Contains("a time and at least one value"));
    CHECK_THAT(error_of("0,nan\n"), Catch::Contains("not finite"));
    CHECK_THROWS_WITH(TimeTable::read_csv_file("/nonexistent/table.csv"), Catch::Equals("/nonexistent/table.csv: table file not found"));
}

TEST_CASE("a table with more numbers than the maximum is refused at the row beyond it", "[actuation][table][limits]") {
    // Three rows of two numbers: six; a limit of five is passed on line 4 (the header is not counted).
    std::istringstream rows("t, a\n0, 1\n1, 2\n2, 3\n");
    CHECK_THROWS_WITH(TimeTable::read_csv(rows, "big.csv", 5),
                      "big.csv:4: the table has more than 5 numbers, the maximum per table (docs/reliability.md, "
                      "Input limits): use fewer rows");
    std::istringstream fits("t, a\n0, 1\n1, 2\n2, 3\n");
    CHECK(TimeTable::read_csv(fits, "fits.csv", 6).rows() == 3);
}

TEST_CASE("a table file that is a device or a directory is refused before it is read", "[actuation][table][limits]") {
    if (std::filesystem::exists("/dev/zero"))
        CHECK_THROWS_WITH(TimeTable::read_csv_file("/dev/zero"),
                          "/dev/zero: is a character device, expected the table file to be a regular file");
    const std::string dir = std::filesystem::temp_directory_path().string();
    CHECK_THROWS_WITH(TimeTable::read_csv_file(dir), dir + ": is a directory, expected the table file to be a regular file");
}
