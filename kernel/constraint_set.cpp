// The scene's constraints in the KKT system (constraint_set.hpp).
#include "constraint_set.hpp"
#include "sparse_value_index.hpp"

#include <algorithm>
#include <cmath>

namespace soma {

void ConstraintSet::add(std::unique_ptr<Constraint> constraint, Parameters parameters) {
    const Index rows = constraint->row_count();
    const auto k = static_cast<Index>(constraint->dofs().size());
    ConstraintEvaluation work;
    work.value = VectorX::Zero(rows);
    work.force_jacobian = Eigen::MatrixXd::Zero(rows, k);
    work.position_jacobian = Eigen::MatrixXd::Zero(rows, k);
    work.curvature = Eigen::MatrixXd::Zero(k, k);
    work_.push_back(std::move(work));
    residual_work_.push_back(VectorX::Zero(k + rows));
    block_work_.push_back(Eigen::MatrixXd::Zero(k + rows, k + rows));
    first_row_.push_back(rows_);
    rows_ += rows;
    constraints_.push_back(std::move(constraint));
    parameters_.push_back(std::move(parameters));
}

const Constraint* ConstraintSet::first_hard() const {
    for (const auto& constraint : constraints_)
        for (Index r = 0; r < constraint->row_count(); ++r)
            if (constraint->compliance(r) == 0.0) return constraint.get();
    return nullptr;
}

void ConstraintSet::finalize(Index dof_count) {
    // One triplet per dense entry of each constraint's Jacobians; duplicates (a DOF listed twice
    // by one constraint) are summed by the sparse matrix, and both entries map to one slot.
    const Index n = dof_count;
    std::vector<Eigen::Triplet<double, Index>> entries;
    for (std::size_t i = 0; i < constraints_.size(); ++i)
        for (Index r = 0; r < constraints_[i]->row_count(); ++r)
            for (Index dof : constraints_[i]->dofs()) entries.emplace_back(first_row_[i] + r, dof, 0.0);
    SparseMatrix pattern(rows_, n);
    pattern.setFromTriplets(entries.begin(), entries.end());
    pattern.makeCompressed();
    slots_.clear();
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        std::vector<Index> slots;
        for (Index r = 0; r < constraints_[i]->row_count(); ++r)
            for (Index dof : constraints_[i]->dofs()) slots.push_back(sparse_value_index(pattern, first_row_[i] + r, dof));
        slots_.push_back(std::move(slots));
    }
    view_.value = VectorX::Zero(rows_);
    view_.compliance = VectorX::Zero(rows_);
    view_.force_jacobian = pattern;
    view_.position_jacobian = pattern;
}

const ConstraintRows& ConstraintSet::rows() {
    // Filled from the last evaluation's per-constraint results, on demand: Newton does not need it.
    ConstraintRows& rows = view_;
    SparseMatrix& g_f = rows.force_jacobian;
    SparseMatrix& g_q = rows.position_jacobian;
    std::fill(g_f.valuePtr(), g_f.valuePtr() + g_f.nonZeros(), 0.0);
    std::fill(g_q.valuePtr(), g_q.valuePtr() + g_q.nonZeros(), 0.0);
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        const ConstraintEvaluation& e = work_[i];
        const Index first = first_row_[i];
        const auto k = static_cast<Index>(constraints_[i]->dofs().size());
        for (Index r = 0; r < constraints_[i]->row_count(); ++r) {
            rows.value[first + r] = e.value[r];
            rows.compliance[first + r] = constraints_[i]->compliance(r);
            for (Index j = 0; j < k; ++j) {
                const Index slot = slots_[i][static_cast<std::size_t>(r * k + j)];
                g_f.valuePtr()[slot] += e.force_jacobian(r, j);
                g_q.valuePtr()[slot] += e.position_jacobian(r, j);
            }
        }
    }
    return rows;
}

void ConstraintSet::declare_stencils(SparseAssembler& assembler, Index dof_count) {
    stencils_.clear();
    const Index n = dof_count;
    std::vector<Index> stencil;
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        stencil = constraints_[i]->dofs();
        for (Index r = 0; r < constraints_[i]->row_count(); ++r) stencil.push_back(n + first_row_[i] + r);
        stencils_.push_back(assembler.add_stencil(stencil));
    }
}

double ConstraintSet::add_rows(const EvalContext& context, const VectorX& lambda, double c_q, Assembly& assembly,
                               bool with_jacobian) {
    if (c_q == 0.0) return add_acceleration_rows(context, lambda, assembly, with_jacobian);
    // Rows scaled by 1/c_q so that the KKT block [[J, -G_f^T], [-G_q, -alpha/c_q]] is symmetric
    // for vector DOFs (architecture.md, "Constraints"): the Newton unknown x moves q by c_q x.
    double largest = 0.0;
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        const Constraint& constraint = *constraints_[i];
        ConstraintEvaluation& e = work_[i];
        const Index rows = constraint.row_count();
        const auto k = static_cast<Index>(constraint.dofs().size());
        const double* multipliers = lambda.data() + first_row_[i];
        constraint.evaluate(context, multipliers, e);
        const Eigen::Map<const VectorX> l(multipliers, rows);
        VectorX& r = residual_work_[i];
        r.head(k).noalias() = -e.force_jacobian.transpose() * l;
        for (Index row = 0; row < rows; ++row) {
            const double violation = e.value[row] + constraint.compliance(row) * l[row];
            largest = std::max(largest, std::abs(violation));
            r[k + row] = -violation / c_q;
        }
        assembly.add_residual(stencils_[i], r);
        if (!with_jacobian) continue;
        Eigen::MatrixXd& block = block_work_[i];
        block.topLeftCorner(k, k) = -c_q * e.curvature;
        block.topRightCorner(k, rows) = -e.force_jacobian.transpose();
        block.bottomLeftCorner(rows, k) = -e.position_jacobian;
        block.bottomRightCorner(rows, rows).setZero();
        for (Index row = 0; row < rows; ++row) block(k + row, k + row) = -constraint.compliance(row) / c_q;
        assembly.add_jacobian(stencils_[i], block, 1.0);
    }
    return largest;
}

double ConstraintSet::add_acceleration_rows(const EvalContext& context, const VectorX& lambda, Assembly& assembly,
                                            bool with_jacobian) {
    // A solve that does not move q (Newmark's consistent initial acceleration) holds a hard row
    // at the acceleration level, C'' = G_f a + (dG_f/dt) v = 0 (ArtiSynth technical notes,
    // section 0.11, the velocity-level constraint differentiated once more). The bias term
    // (dG_f/dt v)_r = v^T K(e_r) v, K(lambda) = d(G_f^T lambda)/dq the constraint's curvature,
    // linear in lambda: one evaluation per row with a unit multiplier. A compliant row is a spring
    // whose force lambda = -C/alpha is known at q: its row stays alpha lambda + C = 0.
    // Runs once per run, so it may allocate.
    const VectorX& a = *context.a;
    const VectorX& v = *context.v;
    double largest = 0.0;
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        const Constraint& constraint = *constraints_[i];
        const std::vector<Index>& dofs = constraint.dofs();
        const Index rows = constraint.row_count();
        const auto k = static_cast<Index>(dofs.size());
        VectorX v_local(k), a_local(k);
        for (Index j = 0; j < k; ++j) {
            const Index dof = dofs[static_cast<std::size_t>(j)];
            v_local[j] = v[dof];
            a_local[j] = a[dof];
        }
        ConstraintEvaluation unit = work_[i];  // sized as the constraint expects (add())
        VectorX e_row = VectorX::Zero(rows);
        VectorX bias(rows);
        for (Index row = 0; row < rows; ++row) {
            e_row.setZero();
            e_row[row] = 1.0;
            constraint.evaluate(context, e_row.data(), unit);
            bias[row] = v_local.dot(unit.curvature * v_local);
        }
        ConstraintEvaluation& e = work_[i];
        const double* multipliers = lambda.data() + first_row_[i];
        constraint.evaluate(context, multipliers, e);
        const Eigen::Map<const VectorX> l(multipliers, rows);
        VectorX& r = residual_work_[i];
        r.head(k).noalias() = -e.force_jacobian.transpose() * l;
        const VectorX acceleration_value = e.force_jacobian * a_local + bias;
        for (Index row = 0; row < rows; ++row) {
            const double alpha = constraint.compliance(row);
            const double violation = alpha > 0.0 ? e.value[row] + alpha * l[row] : acceleration_value[row];
            largest = std::max(largest, std::abs(violation));
            r[k + row] = -violation;
        }
        assembly.add_residual(stencils_[i], r);
        if (!with_jacobian) continue;
        Eigen::MatrixXd& block = block_work_[i];
        block.topLeftCorner(k, k).setZero();  // c_q = 0: the curvature does not enter
        block.topRightCorner(k, rows) = -e.force_jacobian.transpose();
        block.bottomLeftCorner(rows, k) = -context.coefficients.c_a * e.force_jacobian;
        block.bottomRightCorner(rows, rows).setZero();
        for (Index row = 0; row < rows; ++row) {
            const double alpha = constraint.compliance(row);
            if (alpha > 0.0) {
                block.row(k + row).head(k).setZero();
                block(k + row, k + row) = -alpha;
            }
        }
        assembly.add_jacobian(stencils_[i], block, 1.0);
    }
    return largest;
}

}  // namespace soma
