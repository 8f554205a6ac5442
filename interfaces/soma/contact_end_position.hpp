#pragma once
/// \file contact_end_position.hpp
/// \brief Where a contact's end is at a configuration: the world point of a ContactEnd
/// (contact_constraint.hpp), for outputs and scripts that show where contact forces act.

#include "soma/contact_constraint.hpp"
#include "soma/element.hpp"
#include "soma/frame_kinematics.hpp"
#include "soma/point_map.hpp"

namespace soma {

/// \brief The world position of \p end at configuration \p q: its world point, its frame's
/// origin + R offset + arm, or its points' weighted sum. \p frame is scratch (keep it across
/// calls: a wide frame then allocates nothing after the first).
inline Vec3 contact_end_position(const ContactEnd& end, const VectorX& q, FrameKinematics& frame) {
    if (!end.element) return end.world;
    if (end.frame >= 0) {
        EvalContext context;
        context.q = &q;
        end.element->frame_kinematics(end.frame, context, frame);
        return frame.origin + frame.rotation * end.offset + end.arm;
    }
    Vec3 x = Vec3::Zero();
    for (int k = 0; k < end.count; ++k)
        x += end.weights[static_cast<std::size_t>(k)] * point_position(*end.element, end.points[static_cast<std::size_t>(k)], q);
    return x;
}

}  // namespace soma
