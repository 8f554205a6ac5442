// Writing and reading checkpoint files (checkpoint_file.hpp).
#include "checkpoint_file.hpp"

#include "soma/api.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace soma {

static_assert(std::endian::native == std::endian::little, "checkpoint files are written little-endian");

namespace {

constexpr char kMagic[] = "SOMA-CHECKPOINT\n";
constexpr std::uint32_t kFormatVersion = 1;
constexpr char kEndMarker[] = "END\n";
/// A checkpoint holds a run's state: a million-node scene is tens of megabytes. Larger files
/// are refused before they are read (a device or a wrong file named by mistake).
constexpr std::uintmax_t kMaxCheckpointBytes = std::uintmax_t{8} << 30;

class ByteWriter {
public:
    template <class T>
    void pod(const T& value) {
        const auto* p = reinterpret_cast<const char*>(&value);
        bytes_.append(p, sizeof(T));
    }
    void count(std::size_t n) { pod(static_cast<std::uint64_t>(n)); }
    void string(const std::string& s) {
        count(s.size());
        bytes_.append(s);
    }
    template <class T>
    void array(const std::vector<T>& values) {
        count(values.size());
        bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    }
    void raw(const char* text) { bytes_.append(text); }
    const std::string& bytes() const { return bytes_; }

private:
    std::string bytes_;
};

class ByteReader {
public:
    ByteReader(const std::string& bytes, const std::string& name) : bytes_(bytes), name_(name) {}
    [[noreturn]] void fail(const std::string& what) const {
        throw CheckpointError(fmt::format("{}: not a readable Soma checkpoint: {} (at byte {})", name_, what, at_));
    }
    void expect(const char* text, const char* what) {
        const std::size_t n = std::strlen(text);
        if (bytes_.size() - at_ < n || bytes_.compare(at_, n, text) != 0) fail(what);
        at_ += n;
    }
    template <class T>
    T pod() {
        T value;
        if (bytes_.size() - at_ < sizeof(T)) fail("the file ends early (truncated)");
        std::memcpy(&value, bytes_.data() + at_, sizeof(T));
        at_ += sizeof(T);
        return value;
    }
    /// A count of items of `item_bytes` each that must fit in what is left of the file.
    std::size_t count(std::size_t item_bytes) {
        const auto n = pod<std::uint64_t>();
        if (n > (bytes_.size() - at_) / std::max<std::size_t>(item_bytes, 1)) fail("a length exceeds the file (truncated)");
        return static_cast<std::size_t>(n);
    }
    std::string string() {
        const std::size_t n = count(1);
        std::string s = bytes_.substr(at_, n);
        at_ += n;
        return s;
    }
    template <class T>
    std::vector<T> array() {
        const std::size_t n = count(sizeof(T));
        std::vector<T> values(n);
        if (n) std::memcpy(values.data(), bytes_.data() + at_, n * sizeof(T));
        at_ += n * sizeof(T);
        return values;
    }
    bool at_end() const { return at_ == bytes_.size(); }

private:
    const std::string& bytes_;
    const std::string& name_;
    std::size_t at_ = 0;
};

}  // namespace

std::vector<CheckpointRecord>& CheckpointFile::add_section(const std::string& name) {
    for (const auto& [existing, records] : sections_)
        if (existing == name) throw std::logic_error("checkpoint section '" + name + "' written twice");
    return sections_.emplace_back(name, std::vector<CheckpointRecord>{}).second;
}

const std::vector<CheckpointRecord>& CheckpointFile::section(const std::string& name) const {
    for (const auto& [existing, records] : sections_)
        if (existing == name) return records;
    throw CheckpointError(fmt::format("the checkpoint has no section '{}': it was written by another scene (the scene "
                                      "stored in the checkpoint must build the same objects in the same order)",
                                      name));
}

void CheckpointFile::write(const std::filesystem::path& file) const {
    ByteWriter out;
    out.raw(kMagic);
    out.pod(kFormatVersion);
    out.pod(kPluginApiVersion);
    out.string(scene.file);
    out.string(scene.directory);
    out.string(scene.text);
    out.count(scene.overrides.size());
    for (const auto& o : scene.overrides) out.string(o);
    out.string(scene.output_directory);
    out.count(sections_.size());
    for (const auto& [name, records] : sections_) {
        out.string(name);
        out.count(records.size());
        for (const CheckpointRecord& r : records) {
            out.string(r.name);
            out.pod(static_cast<std::uint8_t>(r.kind));
            switch (r.kind) {
                case CheckpointRecord::Kind::reals: out.array(r.reals); break;
                case CheckpointRecord::Kind::integers: out.array(r.integers); break;
                case CheckpointRecord::Kind::text: out.string(r.text); break;
            }
        }
    }
    out.raw(kEndMarker);

    std::filesystem::path temporary = file;
    temporary += ".tmp";
    {
        std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
        stream.write(out.bytes().data(), static_cast<std::streamsize>(out.bytes().size()));
        stream.flush();
        if (!stream) throw std::runtime_error("cannot write the checkpoint '" + temporary.string() + "'");
    }
    std::error_code error;
    std::filesystem::rename(temporary, file, error);
    if (error)
        throw std::runtime_error("cannot rename '" + temporary.string() + "' to '" + file.string() + "': " +
                                 error.message());
}

CheckpointFile CheckpointFile::read(const std::filesystem::path& file) {
    const std::string name = file.string();
    std::error_code ec;
    const auto status = std::filesystem::status(file, ec);
    if (ec || !std::filesystem::exists(status)) throw CheckpointError(name + ": checkpoint file not found");
    if (!std::filesystem::is_regular_file(status))
        throw CheckpointError(name + ": not a regular file (a checkpoint is a file written by `soma run`)");
    const std::uintmax_t size = std::filesystem::file_size(file, ec);
    if (ec || size > kMaxCheckpointBytes)
        throw CheckpointError(fmt::format("{}: {} bytes, more than a checkpoint may hold ({} bytes)", name, size,
                                          kMaxCheckpointBytes));
    std::ifstream in(file, std::ios::binary);
    if (!in) throw CheckpointError(name + ": cannot open the checkpoint for reading");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return parse(bytes.str(), name);
}

CheckpointFile CheckpointFile::parse(const std::string& bytes, const std::string& name) {
    ByteReader in(bytes, name);
    in.expect(kMagic, "it does not start with the checkpoint signature");
    const auto format = in.pod<std::uint32_t>();
    if (format != kFormatVersion)
        throw CheckpointError(fmt::format("{}: checkpoint format {} (this soma reads format {})", name, format,
                                          kFormatVersion));
    const auto api = in.pod<std::uint32_t>();
    if (api != kPluginApiVersion)
        throw CheckpointError(fmt::format("{}: written with plugin API {} (this soma has {}); restart with the soma that "
                                          "wrote it",
                                          name, api, kPluginApiVersion));
    CheckpointFile file;
    file.scene.file = in.string();
    file.scene.directory = in.string();
    file.scene.text = in.string();
    const std::size_t overrides = in.count(8);
    for (std::size_t i = 0; i < overrides; ++i) file.scene.overrides.push_back(in.string());
    file.scene.output_directory = in.string();
    const std::size_t sections = in.count(16);
    for (std::size_t s = 0; s < sections; ++s) {
        const std::string section_name = in.string();
        std::vector<CheckpointRecord>* records = nullptr;
        try {
            records = &file.add_section(section_name);
        } catch (const std::logic_error&) {
            in.fail("section '" + section_name + "' appears twice");
        }
        const std::size_t count = in.count(17);
        for (std::size_t r = 0; r < count; ++r) {
            CheckpointRecord& record = records->emplace_back();
            record.name = in.string();
            const auto kind = in.pod<std::uint8_t>();
            switch (kind) {
                case 0: record.kind = CheckpointRecord::Kind::reals; record.reals = in.array<double>(); break;
                case 1: record.kind = CheckpointRecord::Kind::integers; record.integers = in.array<std::int64_t>(); break;
                case 2: record.kind = CheckpointRecord::Kind::text; record.text = in.string(); break;
                default: in.fail(fmt::format("record '{}' has an unknown kind {}", record.name, kind));
            }
        }
    }
    in.expect(kEndMarker, "the end marker is missing (the file is truncated or was not written by soma)");
    if (!in.at_end()) in.fail("bytes after the end marker");
    return file;
}

SceneDocument checkpoint_scene_document(const CheckpointFile& checkpoint, const std::vector<std::string>& more) {
    SceneDocument scene = load_scene_text(checkpoint.scene.text, checkpoint.scene.file);
    scene.directory = checkpoint.scene.directory;
    apply_overrides(scene, checkpoint.scene.overrides);
    apply_overrides(scene, more);
    return scene;
}

}  // namespace soma
