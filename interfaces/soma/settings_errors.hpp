#pragma once
/// \file settings_errors.hpp
/// \brief Where a plugin object reports a bad setting found at construction or at bind().
///
/// In a scene the settings come from a validated soma::Parameters block and errors must point at
/// the offending key (`file:line:col: forces[2].elements: no element named 'x'`), which
/// Parameters::fail does. Plugins keep their physics core free of Parameters (so its tests do not
/// need the kernel's scene machinery): registration installs a handler that forwards to
/// Parameters::fail; an object built directly from its settings struct throws a plain
/// soma::InputError naming its type and the key.
///
/// This is the one channel for a setting's error, in every plugin: an object built from settings
/// takes a SettingsErrors and calls fail(key, message), with a dotted key for a nested setting
/// ("material.density"); its registration passes scene_errors(block). Pure helpers that read a file
/// or generate a mesh throw std::invalid_argument, and the registration that called them fails the
/// key their input came from.
///
/// \code
///   return std::make_unique<Gravity>(settings, scene_errors(block));
/// \endcode

#include "soma/parameters.hpp"

#include <functional>
#include <sstream>
#include <string>
#include <utility>

namespace soma {

/// Reports errors in an object's settings, through the scene's Parameters or as a plain InputError.
class SettingsErrors {
public:
    /// Called with (key, message); expected to throw (Parameters::fail does).
    using Handler = std::function<void(const std::string& key, const std::string& message)>;

    /// \brief Errors thrown as `InputError("<type>: <key>: <message>")`.
    explicit SettingsErrors(std::string type_name = "object") : type_name_(std::move(type_name)) {}

    /// \brief Errors forwarded to \p handler (e.g. a lambda holding the scene's Parameters).
    SettingsErrors(std::string type_name, Handler handler)
        : type_name_(std::move(type_name)), handler_(std::move(handler)) {}

    /// \brief Throws an InputError pointing at \p key with \p message; never returns.
    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        if (handler_) handler_(key, message);
        // A handler that returns (it should not) still must not let the bad setting through.
        throw InputError(type_name_ + ": " + key + ": " + message);
    }

private:
    std::string type_name_;
    Handler handler_;
};

/// \brief \p value as an error message shows it ("0.3", "-1", "1e-09"; the stream's default format).
inline std::string setting_text(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

/// \brief Errors located in the scene: fail(key, ...) points at \p block's key (its line and column).
inline SettingsErrors scene_errors(const Parameters& block) {
    return SettingsErrors(block.type_name(),
                          [block](const std::string& key, const std::string& message) { block.fail(key, message); });
}

}  // namespace soma
