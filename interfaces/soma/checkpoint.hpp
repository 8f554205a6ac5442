#pragma once
/// \file checkpoint.hpp
/// \brief What an object writes into a checkpoint, and reads back on restart.
///
/// A checkpoint holds the state a run carries from one step to the next, so a restarted run
/// continues bit for bit as the uninterrupted one would have (`soma run --restart`). The
/// configuration q, velocity v, acceleration a, time and constraint multipliers are the
/// kernel's; an object saves only what it keeps itself across steps: a rod's reference frames
/// and reference twists, an integrator's predictor history, an output's position in its files.
/// Everything rebuilt from the scene (rest shapes, masses, stencils) is not saved.
///
/// Each object writes into its own section, as named records in a fixed order, and reads them
/// back in that order. Real numbers are stored as their bits (no decimal round trip). A record
/// whose name or size differs from what the object asks for is an error naming the section and
/// the record: the checkpoint belongs to another scene (or another version of the plugin).

#include "soma/api.hpp"
#include "soma/types.hpp"

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace soma {

/// A checkpoint that does not fit the scene (another scene, another plugin version) or a file
/// that is not a checkpoint.
class SOMA_API CheckpointError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
    ~CheckpointError() override;
};

/// One named record: real numbers, integers or text (one of the three is used).
struct CheckpointRecord {
    std::string name;
    std::vector<double> reals;
    std::vector<std::int64_t> integers;
    std::string text;
    enum class Kind : std::uint8_t { reals = 0, integers = 1, text = 2 } kind = Kind::reals;
};

/// Appends an object's records to its section.
class SOMA_API CheckpointWriter {
public:
    explicit CheckpointWriter(std::vector<CheckpointRecord>& section) : section_(&section) {}

    void reals(std::string_view name, std::span<const double> values);
    void real(std::string_view name, double value) { reals(name, std::span<const double>(&value, 1)); }
    void integers(std::string_view name, std::span<const std::int64_t> values);
    void integer(std::string_view name, std::int64_t value) { integers(name, std::span<const std::int64_t>(&value, 1)); }
    void text(std::string_view name, std::string_view value);
    void vector(std::string_view name, const VectorX& values) {
        reals(name, std::span<const double>(values.data(), static_cast<std::size_t>(values.size())));
    }
    /// Three reals per entry.
    void vec3s(std::string_view name, const std::vector<Vec3>& values);

private:
    std::vector<CheckpointRecord>* section_;
};

/// Reads an object's records back, in the order they were written. Every read checks the
/// record's name, kind and size and throws CheckpointError (a std::runtime_error) naming the
/// section and record on a mismatch.
class SOMA_API CheckpointReader {
public:
    CheckpointReader(const std::vector<CheckpointRecord>& section, std::string section_name)
        : section_(&section), section_name_(std::move(section_name)) {}

    /// Exactly values.size() reals (the size the object has in this scene).
    void reals(std::string_view name, std::span<double> values);
    double real(std::string_view name);
    void integers(std::string_view name, std::span<std::int64_t> values);
    std::int64_t integer(std::string_view name);
    std::string text(std::string_view name);
    /// A record of any size (outputs whose lists grow).
    std::vector<double> reals_of_any_size(std::string_view name);
    /// A vector of any size (an integrator's history, sized by the scene it was saved from).
    VectorX vector_of_any_size(std::string_view name) {
        const std::vector<double> values = reals_of_any_size(name);
        return Eigen::Map<const VectorX>(values.data(), static_cast<Index>(values.size()));
    }
    void vector(std::string_view name, VectorX& values) {
        reals(name, std::span<double>(values.data(), static_cast<std::size_t>(values.size())));
    }
    void vec3s(std::string_view name, std::vector<Vec3>& values);

    /// True when every record was read (the kernel checks it after each object).
    bool finished() const { return next_ == section_->size(); }
    const std::string& section_name() const { return section_name_; }

private:
    const CheckpointRecord& next(std::string_view name, CheckpointRecord::Kind kind);

    const std::vector<CheckpointRecord>* section_;
    std::string section_name_;
    std::size_t next_ = 0;
};

}  // namespace soma
