#pragma once
/// \file element_selection.hpp
/// \brief The elements a force acts on, named in its `elements` list: resolved once at bind()
/// with errors that point at the list (forces_basic, imc_contact).

#include "soma/element.hpp"
#include "soma/scene_view.hpp"
#include "soma/settings_errors.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace soma {

/// \brief "a, b, c": the scene's element names, for error messages.
inline std::string element_name_list(const SceneView& scene) {
    std::string list;
    for (const Element* element : scene.elements()) {
        if (!list.empty()) list += ", ";
        list += element->name();
    }
    return list.empty() ? std::string("(none)") : list;
}

/// \brief Resolves element names to elements.
/// \param[in] scene  the built scene
/// \param[in] names  element names; empty selects every element of the scene
/// \param[in] errors where an unknown or repeated name is reported (under \p key)
/// \param[in] key    the settings key holding the names
/// \return the elements, in the order named (scene order when \p names is empty)
inline std::vector<const Element*> select_elements(const SceneView& scene, const std::vector<std::string>& names,
                                                   const SettingsErrors& errors, const std::string& key = "elements") {
    std::vector<const Element*> selected;
    if (names.empty()) {
        for (const Element* element : scene.elements()) selected.push_back(element);
        if (selected.empty()) errors.fail(key, "the scene has no elements to act on");
        return selected;
    }
    for (const std::string& name : names) {
        const Element* element = scene.find_element(name);
        if (!element) errors.fail(key, "no element named '" + name + "'; elements are: " + element_name_list(scene));
        if (std::find(selected.begin(), selected.end(), element) != selected.end())
            errors.fail(key, "element '" + name + "' is listed twice");
        selected.push_back(element);
    }
    return selected;
}

}  // namespace soma
