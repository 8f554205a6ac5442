// The scene's constraints in the KKT system (constraint_set.hpp).
#include "constraint_set.hpp"

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
            for (Index dof : constraints_[i]->dofs()) {
                const Index row = first_row_[i] + r;
                const Index* begin = pattern.innerIndexPtr() + pattern.outerIndexPtr()[dof];
                const Index* end = pattern.innerIndexPtr() + pattern.outerIndexPtr()[dof + 1];
                slots.push_back(static_cast<Index>(std::lower_bound(begin, end, row) - pattern.innerIndexPtr()));
            }
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

}  // namespace soma
