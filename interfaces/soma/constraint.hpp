#pragma once
/// \file constraint.hpp
/// \brief Constraints C(q) = 0 (or >= 0, or friction cones) with Jacobian G and compliance.
///
/// Fixed and prescribed DOFs do not use this interface: the kernel eliminates them through the
/// DOF map (docs/architecture.md). Joints, attachments and NCP contact rows will. An integrator
/// declares which kinds it treats; a scene pairing a constraint with an integrator that cannot
/// treat its kind is refused at load time.

#include "soma/api.hpp"
#include "soma/contributor.hpp"

namespace soma {

enum class ConstraintKind { equality, inequality, friction };

class SOMA_API Constraint {
public:
    virtual ~Constraint();
    virtual ConstraintKind kind() const = 0;
    virtual Index row_count() const = 0;
    /// C(q) and G = dC/dq (rows x global DOFs, as triplets appended to `jacobian`).
    virtual void evaluate(const EvalContext& context, Eigen::Ref<VectorX> value,
                          std::vector<Eigen::Triplet<double, Index>>& jacobian) const = 0;
    /// Compliance (regularisation) of each row, 0 for a hard constraint.
    virtual double compliance(Index row) const { (void)row; return 0.0; }
};

}  // namespace soma
