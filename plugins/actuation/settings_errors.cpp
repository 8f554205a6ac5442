#include "settings_errors.hpp"

namespace soma::actuation {

void SettingsErrors::fail(const std::string& key, const std::string& message) const {
    if (handler_) handler_(key, message);
    // A handler that returns (it should not) still must not let the bad setting through.
    throw InputError(type_name_ + ": " + key + ": " + message);
}

}  // namespace soma::actuation
