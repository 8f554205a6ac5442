#pragma once
/// \file rigid_transform.hpp
/// \brief The `transform` key of generated and read geometries (a shell's mesh, a rod's
/// geometry): a rotation about the world origin, then a translation,
///
///     x' = R x + t,   R = rotation by `angle_deg` about `axis` (right-hand rule),
///
/// applied to the initial configuration before anything else, so that the natural (stress-free)
/// shape is the transformed one. Shared by the plugins that read geometry: the schema piece
/// (add_transform_parameter) and its translation (transform_from).

#include "soma/parameters.hpp"
#include "soma/types.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <numbers>
#include <string>

namespace soma {

/// A proper rigid transform x -> rotation x + translation (rotation orthonormal, det +1).
struct RigidTransform {
    Mat3 rotation = Mat3::Identity();
    Vec3 translation = Vec3::Zero();

    /// \brief The transformed point R x + t.
    Vec3 apply(const Vec3& x) const { return rotation * x + translation; }
    /// \brief The transformed direction R d (directors, normals: no translation).
    Vec3 rotate(const Vec3& d) const { return rotation * d; }
    /// \brief True when the rotation is the identity (directors are unchanged).
    bool rotates() const { return !rotation.isIdentity(0.0); }
};

/// \brief Adds the optional `transform` block ({translate, rotate: {axis, angle_deg}}) to `schema`.
inline void add_transform_parameter(ParameterSchema& schema) {
    ParameterSchema rotate("rotate", "A rotation about an axis through the world origin (right-hand rule).");
    rotate.vec3("axis", "rotation axis (need not be unit length; must not be zero)").require();
    rotate.real("angle_deg", "rotation angle").unit("deg").require();
    ParameterSchema transform("transform",
                              "A rigid transform of the initial geometry: first `rotate` about the world origin, "
                              "then `translate` (x' = R x + t). The transformed shape is the natural, "
                              "stress-free shape.");
    transform.vec3("translate", "translation t, applied after the rotation").unit("m").fallback(Vec3(0.0, 0.0, 0.0));
    transform.map("rotate", "rotation R about the origin, applied first (default: none)", std::move(rotate));
    schema.map("transform",
               "rigid transform of this geometry: rotate about the world origin, then translate (default: none)",
               std::move(transform));
}

/// \brief The transform of the validated block `p` (identity when `p` has no `transform`).
/// A zero rotation axis is reported with Parameters::fail at `transform.rotate.axis`.
inline RigidTransform transform_from(const Parameters& p) {
    RigidTransform r;
    if (!p.has("transform")) return r;
    const Parameters t = p.block("transform");
    r.translation = t.vec3("translate");
    if (t.has("rotate")) {
        const Parameters rotate = t.block("rotate");
        const Vec3 axis = rotate.vec3("axis");
        const double length = axis.norm();
        if (!(length > 0.0)) rotate.fail("axis", "the rotation axis must not be zero");
        if (!std::isfinite(length)) rotate.fail("axis", "the rotation axis is too long to normalize (its length overflows)");
        const double angle = rotate.real("angle_deg") * std::numbers::pi / 180.0;
        r.rotation = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
    }
    return r;
}

}  // namespace soma
