#pragma once
/// \file constraint.hpp
/// \brief Constraints C(q) = 0 between DOFs: joints and attachments, solved with Lagrange
/// multipliers in a saddle-point (KKT) system, optionally softened by a compliance.
///
/// Fixed and prescribed DOFs do not use this interface: the kernel eliminates them through the
/// DOF map (docs/architecture.md). A constraint's rows act on the residual as forces G_f^T lambda
/// (lambda: one multiplier per row, a force for a position constraint) and add the rows
///
///     C(q) + alpha lambda = 0        (alpha: the compliance; 0 for a hard constraint)
///
/// to the Newton system, the regularised form of ArtiSynth's technical notes, section 0.11
/// (with alpha = 1/k the constraint is a spring of stiffness k). Every constraint has one
/// stencil: the global DOFs it depends on. An integrator declares which kinds it treats; a scene
/// pairing a constraint with an integrator that cannot treat its kind is refused at load time.

#include "soma/api.hpp"
#include "soma/assembly.hpp"
#include "soma/contributor.hpp"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace soma {

class SceneView;
class CheckpointWriter;
class CheckpointReader;

/// What an integrator must treat to solve a constraint: equality rows C(q) = 0 (joints, in the
/// KKT system); inequality rows C(q) >= 0 ⟂ lambda >= 0 (contacts: contact_constraint.hpp);
/// friction, the Coulomb cones that inequality rows may carry (an integrator that supports it
/// treats their complementarity too).
enum class ConstraintKind { equality, inequality, friction };

/// What Constraint::evaluate writes (the kernel sizes it once: rows x dofs, dofs x dofs).
struct ConstraintEvaluation {
    VectorX value;                    ///< C(q), one entry per row
    /// G_f: the generalised force of the multipliers is G_f^T lambda (for a point on a rigid
    /// body, the point's velocity Jacobian J: point_kinematics.hpp).
    Eigen::MatrixXd force_jacobian;
    /// G_q = dC/dq in the Newton step's coordinates (a rotation's tangent displacement); equal to
    /// force_jacobian for vector-space DOFs.
    Eigen::MatrixXd position_jacobian;
    /// d(G_f^T lambda)/dq at fixed lambda (the constraint's geometric stiffness), Newton coordinates.
    Eigen::MatrixXd curvature;
};

/// \brief Columns of a constraint's dofs() that its rows determine one for one from the other
/// columns: one column per row, and G_q and G_f restricted to them invertible at every iterate (a
/// node attached to a body: C = x_node - x_point(q_body) and G = I on the node's three columns).
/// The kernel may then eliminate those DOFs with the rows from each linear solve (the null-space
/// reduction of attachments: ArtiSynth technical notes, sections 0.17-0.19), which leaves a
/// smaller matrix without the rows' saddle point.
struct EliminableColumns {
    std::vector<Index> columns;  ///< one per row; empty: not eliminable
    /// Columns to eliminate instead where `columns`' DOFs cannot be (another eliminated
    /// constraint determines them: a joint between two nodes, one of them held at a body, offers
    /// its other node). Empty: none. The kernel considers constraints with an alternative after
    /// those without (plugin API 28).
    std::vector<Index> alternative;
    /// Eliminate whatever the linear solver. Otherwise the kernel eliminates the rows only where
    /// that lets a symmetric factorization (LDL^T, CHOLMOD, CG) solve the scene: with LU the
    /// multiplier rows are as cheap (docs/performance.md).
    bool always = false;
};

class SOMA_API Constraint {
public:
    virtual ~Constraint();

    /// The scene name (`name`, or the type).
    const std::string& name() const { return name_; }
    void set_name(std::string name) { name_ = std::move(name); }

    virtual ConstraintKind kind() const { return ConstraintKind::equality; }
    /// Finds its elements and points in the built scene (after elements connect, before forces
    /// bind). Report bad references and inconsistent initial states with Parameters::fail.
    virtual void bind(const SceneView& scene) = 0;
    /// Number of rows (valid after bind()).
    virtual Index row_count() const = 0;
    /// The global DOFs the rows depend on, in the column order of the Jacobians (after bind()).
    virtual const std::vector<Index>& dofs() const = 0;
    /// \brief C, G_f, G_q and, with multipliers \p lambda (row_count() values), the curvature
    /// d(G_f^T lambda)/dq at the iterate of \p context. Must not allocate: \p out is sized.
    virtual void evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const = 0;
    /// Compliance of each row (m/N for a position row), 0 for a hard constraint.
    /// Checkpoint hooks (checkpoint.hpp): state carried across steps (an active contact set).
    /// The defaults save nothing.
    virtual void save_checkpoint(CheckpointWriter& out) const;
    virtual void restore_checkpoint(CheckpointReader& in);
    virtual double compliance(Index row) const { (void)row; return 0.0; }
    /// \brief The columns the rows may be eliminated with (EliminableColumns); asked once, after
    /// bind(). Default: none, the rows stay Lagrange multiplier rows.
    virtual EliminableColumns eliminable_columns() const { return {}; }
    /// The quantities this constraint reports about the last committed step (a CSV probe
    /// `statistic` with `term` its name; contact constraints: their forces). None by default.
    virtual std::vector<TermStatistic> statistics() const { return {}; }
    /// Statistic \p index of statistics() at the last committed step.
    virtual double statistic(std::size_t index) const;

private:
    std::string name_;
};

}  // namespace soma
