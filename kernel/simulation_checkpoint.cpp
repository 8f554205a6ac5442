// Saving and restoring the state a run carries across steps (simulation.hpp, checkpoint.hpp).
#include "simulation.hpp"

#include <fmt/format.h>

namespace soma {

namespace {

/// Runs an object's restore hook on its section and checks it read every record.
template <class Object>
void restore_section(const CheckpointFile& file, const std::string& section, Object& object) {
    CheckpointReader in(file.section(section), section);
    object.restore_checkpoint(in);
    if (!in.finished())
        throw CheckpointError(fmt::format("checkpoint section '{}' holds records its object did not read: the "
                                          "checkpoint was written by another version of its plugin",
                                          section));
}

}  // namespace

std::string Simulation::section_name(const char* kind, std::size_t index) const {
    if (std::string(kind) == "contributor") return fmt::format("contributor {} '{}'", index, contributors_[index]->name());
    return fmt::format("{} {}", kind, index);
}

void Simulation::save_checkpoint(CheckpointFile& file) const {
    if (!imported_.empty()) {
        // What the imports wrote: a restart reads their files again and must build the same scene.
        CheckpointWriter imports(file.add_section("imports"));
        imports.integer("count", static_cast<std::int64_t>(imported_.size()));
        for (std::size_t i = 0; i < imported_.size(); ++i) {
            imports.text(fmt::format("label {}", i), imported_[i].label);
            imports.text(fmt::format("text {}", i), imported_[i].text);
        }
    }
    CheckpointWriter state(file.add_section("state"));
    state.integer("dof_count", dofs_.global_count());
    state.real("t", state_.t);
    state.vector("q", state_.q);
    state.vector("v", state_.v);
    state.vector("a", state_.a);
    state.vector("multipliers", lambda_);
    for (std::size_t i = 0; i < contributors_.size(); ++i) {
        CheckpointWriter out(file.add_section(section_name("contributor", i)));
        contributors_[i]->save_checkpoint(out);
    }
    CheckpointWriter integrator(file.add_section("integrator"));
    integrator_->save_checkpoint(integrator);
    for (std::size_t i = 0; i < controllers_.size(); ++i) {
        CheckpointWriter out(file.add_section(section_name("controller", i)));
        controllers_[i]->save_checkpoint(out);
    }
    for (std::size_t i = 0; i < constraints_.constraints().size(); ++i) {
        CheckpointWriter out(file.add_section(section_name("constraint", i)));
        constraints_.constraints()[i]->save_checkpoint(out);
    }
    for (std::size_t i = 0; i < contacts_.constraints().size(); ++i) {
        CheckpointWriter out(file.add_section(section_name("contact constraint", i)));
        contacts_.constraints()[i]->save_checkpoint(out);
    }
    for (std::size_t i = 0; i < observers_.size(); ++i) {
        CheckpointWriter out(file.add_section(section_name("output", i)));
        observers_[i]->save_checkpoint(out);
    }
}

void Simulation::restore_checkpoint(const CheckpointFile& file) {
    if (!imported_.empty()) check_imports_unchanged(file);
    CheckpointReader state(file.section("state"), "state");
    const std::int64_t dofs = state.integer("dof_count");
    if (dofs != dofs_.global_count())
        throw CheckpointError(fmt::format("the checkpoint holds {} DOFs where this scene has {}: it was written by "
                                          "another scene",
                                          dofs, dofs_.global_count()));
    state_.t = state.real("t");
    state.vector("q", state_.q);
    state.vector("v", state_.v);
    state.vector("a", state_.a);
    state.vector("multipliers", lambda_);
    for (std::size_t i = 0; i < contributors_.size(); ++i)
        restore_section(file, section_name("contributor", i), *contributors_[i]);
    restore_section(file, "integrator", *integrator_);
    for (std::size_t i = 0; i < controllers_.size(); ++i)
        restore_section(file, section_name("controller", i), *controllers_[i]);
    for (std::size_t i = 0; i < constraints_.constraints().size(); ++i)
        restore_section(file, section_name("constraint", i), *constraints_.constraints()[i]);
    for (std::size_t i = 0; i < contacts_.constraints().size(); ++i)
        restore_section(file, section_name("contact constraint", i), *contacts_.constraints()[i]);
}

void Simulation::check_imports_unchanged(const CheckpointFile& file) const {
    CheckpointReader in(file.section("imports"), "imports");
    const std::int64_t count = in.integer("count");
    if (count != static_cast<std::int64_t>(imported_.size()))
        throw CheckpointError(fmt::format("the checkpoint was written with {} import(s) where this scene has {}: it was "
                                          "written by another scene",
                                          count, imported_.size()));
    for (std::size_t i = 0; i < imported_.size(); ++i) {
        const std::string label = in.text(fmt::format("label {}", i));
        const std::string then = in.text(fmt::format("text {}", i));
        const std::string& now = imported_[i].text;
        if (label != imported_[i].label)
            throw CheckpointError(fmt::format("import {} was {} when the checkpoint was written and is now {}: it was "
                                              "written by another scene",
                                              i + 1, label, imported_[i].label));
        if (then == now) continue;
        // The first line that differs, counted in the text `soma imports` prints.
        std::size_t line = 1, start = 0;
        while (start < then.size() && start < now.size()) {
            const std::size_t then_end = std::min(then.find('\n', start), then.size());
            const std::size_t now_end = std::min(now.find('\n', start), now.size());
            if (then.compare(start, then_end - start, now, start, now_end - start) != 0) break;
            start = then_end + 1;
            ++line;
        }
        const auto line_of = [&](const std::string& text) {
            if (start >= text.size()) return std::string("(the text ends)");
            return text.substr(start, std::min(text.find('\n', start), text.size()) - start);
        };
        throw CheckpointError(fmt::format("{} writes other blocks than when the checkpoint was written (a file it reads "
                                          "changed since?): line {} of its text was\n  {}\nand is now\n  {}\nRestart "
                                          "from the files the checkpoint was written with, or start a new run",
                                          imported_[i].label, line, line_of(then), line_of(now)));
    }
}

}  // namespace soma
