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

}  // namespace soma
