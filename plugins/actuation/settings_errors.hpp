#pragma once
/// \file settings_errors.hpp
/// \brief Where the actuation controller reports a bad setting found at construction or at
/// bind().
///
/// In a scene the settings come from a validated soma::Parameters block, and errors must point at
/// the offending key (`file:line:col: controllers[0].channel: ...`), which Parameters::fail does.
/// The core of this plugin is built without Parameters, so that its tests do not need the
/// kernel's scene machinery: registration.cpp installs a handler that forwards to
/// Parameters::fail; a controller built directly from its settings struct throws a plain
/// soma::InputError naming the type and the key. (forces_basic has the same small class; plugins
/// share no code, see ARCHITECTURE.md §2.)
///
/// A key may name a nested key with a dot ("table.file"): the handler resolves it.

#include "soma/parameters.hpp"

#include <functional>
#include <string>
#include <utility>

namespace soma::actuation {

/// Reports errors in a controller's settings, through the scene's Parameters or as a plain
/// soma::InputError.
class SettingsErrors {
public:
    /// Called with (key, message); expected to throw (Parameters::fail does).
    using Handler = std::function<void(const std::string& key, const std::string& message)>;

    /// \brief Errors thrown as `InputError("<type>: <key>: <message>")`.
    explicit SettingsErrors(std::string type_name = "actuation") : type_name_(std::move(type_name)) {}

    /// \brief Errors forwarded to \p handler (e.g. a lambda holding the scene's Parameters).
    SettingsErrors(std::string type_name, Handler handler)
        : type_name_(std::move(type_name)), handler_(std::move(handler)) {}

    /// \brief Throws an InputError pointing at \p key with \p message; never returns.
    [[noreturn]] void fail(const std::string& key, const std::string& message) const;

private:
    std::string type_name_;
    Handler handler_;
};

}  // namespace soma::actuation
