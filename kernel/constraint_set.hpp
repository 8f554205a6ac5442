#pragma once
/// \file constraint_set.hpp
/// \brief The scene's constraints as the kernel assembles them: their rows stacked in scene
/// order, one stencil each over their DOFs and multiplier rows (so the KKT matrix shares the
/// cached pattern), the KKT residual and Jacobian blocks, and the rows' sparse view
/// (system.hpp, ConstraintRows).

#include "sparse_assembler.hpp"

#include "soma/constraint.hpp"
#include "soma/parameters.hpp"
#include "soma/system.hpp"

#include <memory>
#include <vector>

namespace soma {

class ConstraintSet {
public:
    /// Adds a bound constraint (rows after the previous ones) and sizes its work buffers;
    /// \p parameters is its scene block, for located errors.
    void add(std::unique_ptr<Constraint> constraint, Parameters parameters);
    /// Builds the fixed sparse pattern of rows() over \p dof_count global DOF columns.
    void finalize(Index dof_count);

    bool empty() const { return constraints_.empty(); }
    Index row_count() const { return rows_; }
    const std::vector<std::unique_ptr<Constraint>>& constraints() const { return constraints_; }
    const Parameters& parameters(std::size_t i) const { return parameters_[i]; }
    /// The first constraint with a hard row (compliance 0), or null.
    /// The first constraint with a hard row, leaving out those listed in \p skipped (by index).
    const Constraint* first_hard(const std::vector<std::size_t>& skipped = {}) const;

    /// Declares one stencil per constraint: its DOFs, then its multiplier rows (global ids
    /// dof_count + row).
    void declare_stencils(SparseAssembler& assembler, Index dof_count);
    /// \brief Adds -G_f^T lambda to the residual and the rows -(C + alpha lambda)/c_q, with their
    /// Jacobian blocks; returns the largest |C + alpha lambda|.
    ///
    /// The rows are scaled by 1/c_q so that the KKT block [[J, -G_f^T], [-G_q, -alpha/c_q]] is
    /// symmetric for vector DOFs (docs/architecture.md, "Constraints"): x moves q by c_q x.
    /// With c_q = 0 (a solve that does not move q) the hard rows are held at the acceleration
    /// level instead: -(G_f a + dG_f/dt v), Jacobian -G_f c_a (add_acceleration_rows).
    double add_rows(const EvalContext& context, const VectorX& lambda, double c_q, Assembly& assembly,
                    bool with_jacobian);
    /// \brief An explicit step's rows (AffineStep::end_c_q): the constraints held at the step's end
    /// q_end = q (+) d at t + dt, linearised at the evaluation point q, with d = \p end_displacement
    /// (full size: the step's end_displacement + end_c_q x): adds -G_f^T lambda and the rows
    /// -(C(q, t + dt) + G_q d + alpha lambda)/end_c_q, Jacobian [[0, -G_f^T], [-G_q, -alpha/end_c_q]]
    /// (the linearised rows carry no curvature). Returns the largest |C + G_q d + alpha lambda|.
    double add_end_rows(const EvalContext& context, const VectorX& lambda, const VectorX& end_displacement, double end_c_q,
                        Assembly& assembly, bool with_jacobian);
    /// \brief The rows of the second half of a velocity Verlet step (AffineStep::ExplicitRows::velocity):
    /// -(G_f v + dC/dt)/c_v for a hard row, Jacobian [[0, -G_f^T], [-G_f, 0]]; -(C + alpha lambda)
    /// for a compliant one. dC/dt (a prescribed coordinate's rate) by central differences in t.
    /// Returns the largest |G_f v + dC/dt| (|C + alpha lambda| on compliant rows).
    double add_velocity_rows(const EvalContext& context, const VectorX& lambda, Assembly& assembly, bool with_jacobian);
    /// The rows at the last add_rows (filled on demand: Newton does not need it).
    const ConstraintRows& rows();

private:
    double add_acceleration_rows(const EvalContext& context, const VectorX& lambda, Assembly& assembly,
                                 bool with_jacobian);
    /// The loop of every add_*rows: evaluates each constraint into work_[i], runs
    /// prepare(i, evaluation), adds -G_f^T lambda and each row's entry from
    /// row_violation(i, evaluation, row, lambda_row) -> (violation, entry), and the Jacobian block
    /// whose top-left, bottom-left and bottom-right parts fill_block writes (-G_f^T top-right).
    /// Returns the largest |violation|.
    template <class Prepare, class Row, class FillBlock>
    double add_each(const EvalContext& context, const VectorX& lambda, Assembly& assembly, bool with_jacobian,
                    Prepare&& prepare, Row&& row_violation, FillBlock&& fill_block);

    std::vector<std::unique_ptr<Constraint>> constraints_;
    std::vector<Parameters> parameters_;
    std::vector<Index> first_row_;  ///< first row of each constraint
    std::vector<StencilId> stencils_;
    std::vector<ConstraintEvaluation> work_;
    std::vector<ConstraintEvaluation> time_work_;  ///< the rows at other times (add_end_rows, add_velocity_rows)
    std::vector<VectorX> residual_work_;
    std::vector<Eigen::MatrixXd> block_work_;
    Index rows_ = 0;
    ConstraintRows view_;
    /// Per constraint: the value index in view_'s Jacobians of each dense entry (row major).
    std::vector<std::vector<Index>> slots_;
};

}  // namespace soma
