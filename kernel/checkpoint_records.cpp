// CheckpointWriter and CheckpointReader (interfaces/soma/checkpoint.hpp): named records in a
// section, read back in order with their names, kinds and sizes checked.
#include "soma/checkpoint.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace soma {

namespace {
const char* kind_name(CheckpointRecord::Kind kind) {
    switch (kind) {
        case CheckpointRecord::Kind::reals: return "real numbers";
        case CheckpointRecord::Kind::integers: return "integers";
        case CheckpointRecord::Kind::text: return "text";
    }
    return "?";
}
}  // namespace

void CheckpointWriter::reals(std::string_view name, std::span<const double> values) {
    CheckpointRecord& r = section_->emplace_back();
    r.name = name;
    r.kind = CheckpointRecord::Kind::reals;
    r.reals.assign(values.begin(), values.end());
}

void CheckpointWriter::integers(std::string_view name, std::span<const std::int64_t> values) {
    CheckpointRecord& r = section_->emplace_back();
    r.name = name;
    r.kind = CheckpointRecord::Kind::integers;
    r.integers.assign(values.begin(), values.end());
}

void CheckpointWriter::text(std::string_view name, std::string_view value) {
    CheckpointRecord& r = section_->emplace_back();
    r.name = name;
    r.kind = CheckpointRecord::Kind::text;
    r.text = value;
}

void CheckpointWriter::vec3s(std::string_view name, const std::vector<Vec3>& values) {
    std::vector<double> flat;
    flat.reserve(3 * values.size());
    for (const Vec3& v : values) flat.insert(flat.end(), {v.x(), v.y(), v.z()});
    reals(name, flat);
}

const CheckpointRecord& CheckpointReader::next(std::string_view name, CheckpointRecord::Kind kind) {
    if (next_ >= section_->size())
        throw CheckpointError(fmt::format("checkpoint section '{}' ends before record '{}': the checkpoint was written "
                                          "by another scene or another version of its plugin",
                                          section_name_, name));
    const CheckpointRecord& r = (*section_)[next_];
    if (r.name != name || r.kind != kind)
        throw CheckpointError(fmt::format("checkpoint section '{}': expected record '{}' ({}), found '{}' ({}): the "
                                          "checkpoint was written by another scene or another version of its plugin",
                                          section_name_, name, kind_name(kind), r.name, kind_name(r.kind)));
    ++next_;
    return r;
}

namespace {
template <class T>
void copy_exact(const std::vector<T>& from, std::span<T> to, const std::string& section, std::string_view name) {
    if (from.size() != to.size())
        throw CheckpointError(fmt::format("checkpoint section '{}': record '{}' has {} values where this scene has {}: "
                                          "the checkpoint was written by another scene",
                                          section, name, from.size(), to.size()));
    std::copy(from.begin(), from.end(), to.begin());
}
}  // namespace

void CheckpointReader::reals(std::string_view name, std::span<double> values) {
    copy_exact(next(name, CheckpointRecord::Kind::reals).reals, values, section_name_, name);
}

double CheckpointReader::real(std::string_view name) {
    double value = 0.0;
    reals(name, std::span<double>(&value, 1));
    return value;
}

void CheckpointReader::integers(std::string_view name, std::span<std::int64_t> values) {
    copy_exact(next(name, CheckpointRecord::Kind::integers).integers, values, section_name_, name);
}

std::int64_t CheckpointReader::integer(std::string_view name) {
    std::int64_t value = 0;
    integers(name, std::span<std::int64_t>(&value, 1));
    return value;
}

std::string CheckpointReader::text(std::string_view name) { return next(name, CheckpointRecord::Kind::text).text; }

std::vector<double> CheckpointReader::reals_of_any_size(std::string_view name) {
    return next(name, CheckpointRecord::Kind::reals).reals;
}

void CheckpointReader::vec3s(std::string_view name, std::vector<Vec3>& values) {
    std::vector<double> flat(3 * values.size());
    reals(name, flat);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = Vec3(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]);
}

}  // namespace soma
