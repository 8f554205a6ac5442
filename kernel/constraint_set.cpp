// The scene's constraints in the KKT system (constraint_set.hpp).
#include "constraint_set.hpp"
#include "sparse_value_index.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace soma {

void ConstraintSet::add(std::unique_ptr<Constraint> constraint, Parameters parameters) {
    const Index rows = constraint->row_count();
    const auto k = static_cast<Index>(constraint->dofs().size());
    ConstraintEvaluation work;
    work.value = VectorX::Zero(rows);
    work.force_jacobian = Eigen::MatrixXd::Zero(rows, k);
    work.position_jacobian = Eigen::MatrixXd::Zero(rows, k);
    work.curvature = Eigen::MatrixXd::Zero(k, k);
    time_work_.push_back(work);
    time_work_.push_back(work);
    work_.push_back(std::move(work));
    residual_work_.push_back(VectorX::Zero(k + rows));
    block_work_.push_back(Eigen::MatrixXd::Zero(k + rows, k + rows));
    first_row_.push_back(rows_);
    rows_ += rows;
    constraints_.push_back(std::move(constraint));
    parameters_.push_back(std::move(parameters));
}

const Constraint* ConstraintSet::first_hard(const std::vector<std::size_t>& skipped) const {
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        if (std::find(skipped.begin(), skipped.end(), i) != skipped.end()) continue;
        for (Index r = 0; r < constraints_[i]->row_count(); ++r)
            if (constraints_[i]->compliance(r) == 0.0) return constraints_[i].get();
    }
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

template <class Prepare, class Row, class FillBlock>
double ConstraintSet::add_each(const EvalContext& context, const VectorX& lambda, Assembly& assembly, bool with_jacobian,
                               Prepare&& prepare, Row&& row_violation, FillBlock&& fill_block) {
    // What every form of the rows shares: each constraint evaluated at the iterate, its force
    // -G_f^T lambda on its DOFs, one residual entry per row, and the block
    // [[top-left, -G_f^T], [bottom-left, diagonal]] whose varying parts fill_block writes.
    double largest = 0.0;
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
        const Constraint& constraint = *constraints_[i];
        ConstraintEvaluation& e = work_[i];
        const Index rows = constraint.row_count();
        const auto k = static_cast<Index>(constraint.dofs().size());
        const double* multipliers = lambda.data() + first_row_[i];
        constraint.evaluate(context, multipliers, e);
        const Eigen::Map<const VectorX> l(multipliers, rows);
        prepare(i, e);
        VectorX& r = residual_work_[i];
        r.head(k).noalias() = -e.force_jacobian.transpose() * l;
        for (Index row = 0; row < rows; ++row) {
            const std::pair<double, double> violation_and_entry = row_violation(i, e, row, l[row]);
            largest = std::max(largest, std::abs(violation_and_entry.first));
            r[k + row] = violation_and_entry.second;
        }
        assembly.add_residual(stencils_[i], r);
        if (!with_jacobian) continue;
        Eigen::MatrixXd& block = block_work_[i];
        block.topRightCorner(k, rows) = -e.force_jacobian.transpose();
        block.bottomRightCorner(rows, rows).setZero();
        fill_block(i, e, block.topLeftCorner(k, k), block.bottomLeftCorner(rows, k), block.bottomRightCorner(rows, rows));
        assembly.add_jacobian(stencils_[i], block, 1.0);
    }
    return largest;
}

namespace {
/// Nothing to prepare before a constraint's rows.
constexpr auto kNothing = [](std::size_t, const ConstraintEvaluation&) {};
}  // namespace

double ConstraintSet::add_rows(const EvalContext& context, const VectorX& lambda, double c_q, Assembly& assembly,
                               bool with_jacobian) {
    if (c_q == 0.0) return add_acceleration_rows(context, lambda, assembly, with_jacobian);
    // Rows scaled by 1/c_q so that the KKT block [[J, -G_f^T], [-G_q, -alpha/c_q]] is symmetric
    // for vector DOFs (architecture.md, "Constraints"): the Newton unknown x moves q by c_q x.
    return add_each(
        context, lambda, assembly, with_jacobian, kNothing,
        [&](std::size_t i, const ConstraintEvaluation& e, Index row, double l) {
            const double violation = e.value[row] + constraints_[i]->compliance(row) * l;
            return std::pair{violation, -violation / c_q};
        },
        [&](std::size_t i, const ConstraintEvaluation& e, auto top_left, auto bottom_left, auto diagonal) {
            top_left = -c_q * e.curvature;
            bottom_left = -e.position_jacobian;
            for (Index row = 0; row < diagonal.rows(); ++row) diagonal(row, row) = -constraints_[i]->compliance(row) / c_q;
        });
}

double ConstraintSet::add_end_rows(const EvalContext& context, const VectorX& lambda, const VectorX& end_displacement,
                                   double end_c_q, Assembly& assembly, bool with_jacobian) {
    // An explicit step's forces do not move with x; its end q (+) d, reached at t + dt, does.
    // Holding C there at first order is the velocity-level row G v_end = -C/h of ArtiSynth's
    // explicit steps (technical notes, section 0.11, with the position error corrected over one
    // step), written for x. C is taken at the end time (a prescribed coordinate's target there),
    // G at the evaluation point. The linearised rows carry no curvature.
    EvalContext at_end = context;
    at_end.t = context.t + context.dt;
    return add_each(
        context, lambda, assembly, with_jacobian,
        [&](std::size_t i, const ConstraintEvaluation&) {
            constraints_[i]->evaluate(at_end, lambda.data() + first_row_[i], time_work_[2 * i]);
        },
        [&](std::size_t i, const ConstraintEvaluation& e, Index row, double l) {
            const std::vector<Index>& dofs = constraints_[i]->dofs();
            double violation = time_work_[2 * i].value[row] + constraints_[i]->compliance(row) * l;
            for (std::size_t j = 0; j < dofs.size(); ++j)
                violation += e.position_jacobian(row, static_cast<Index>(j)) * end_displacement[dofs[j]];
            return std::pair{violation, -violation / end_c_q};
        },
        [&](std::size_t i, const ConstraintEvaluation& e, auto top_left, auto bottom_left, auto diagonal) {
            top_left.setZero();
            bottom_left = -e.position_jacobian;
            for (Index row = 0; row < diagonal.rows(); ++row)
                diagonal(row, row) = -constraints_[i]->compliance(row) / end_c_q;
        });
}

double ConstraintSet::add_velocity_rows(const EvalContext& context, const VectorX& lambda, Assembly& assembly,
                                        bool with_jacobian) {
    // RATTLE's velocity rows, C' = G_f v + dC/dt = 0 (Hairer, Lubich and Wanner, Geometric Numerical
    // Integration, VII.1.4), scaled by 1/c_v so that the block is symmetric as add_rows'. dC/dt is
    // the rows' explicit time dependence (a prescribed coordinate): central differences at fixed q
    // with a step of 1e-6 s (round-off ~1e-16 |C| / 1e-6, truncation ~1e-12 |C'''|). A compliant
    // row is a spring whose force is known at q: alpha lambda + C = 0.
    constexpr double time_step = 1e-6;
    const double c_v = context.coefficients.c_v;
    const VectorX& v = *context.v;
    EvalContext later = context, earlier = context;
    later.t = context.t + time_step;
    earlier.t = context.t - time_step;
    return add_each(
        context, lambda, assembly, with_jacobian,
        [&](std::size_t i, const ConstraintEvaluation&) {
            const double* multipliers = lambda.data() + first_row_[i];
            constraints_[i]->evaluate(later, multipliers, time_work_[2 * i]);
            constraints_[i]->evaluate(earlier, multipliers, time_work_[2 * i + 1]);
        },
        [&](std::size_t i, const ConstraintEvaluation& e, Index row, double l) {
            const double alpha = constraints_[i]->compliance(row);
            if (alpha > 0.0) {
                const double violation = e.value[row] + alpha * l;
                return std::pair{violation, -violation};
            }
            const std::vector<Index>& dofs = constraints_[i]->dofs();
            double violation = (time_work_[2 * i].value[row] - time_work_[2 * i + 1].value[row]) / (2.0 * time_step);
            for (std::size_t j = 0; j < dofs.size(); ++j) violation += e.force_jacobian(row, static_cast<Index>(j)) * v[dofs[j]];
            return std::pair{violation, -violation / c_v};
        },
        [&](std::size_t i, const ConstraintEvaluation& e, auto top_left, auto bottom_left, auto diagonal) {
            top_left.setZero();
            bottom_left = -e.force_jacobian;
            for (Index row = 0; row < diagonal.rows(); ++row) {
                const double alpha = constraints_[i]->compliance(row);
                if (alpha == 0.0) continue;
                bottom_left.row(row).setZero();
                diagonal(row, row) = -alpha;
            }
        });
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
    VectorX acceleration_value;
    return add_each(
        context, lambda, assembly, with_jacobian,
        [&](std::size_t i, const ConstraintEvaluation& e) {
            const Constraint& constraint = *constraints_[i];
            const std::vector<Index>& dofs = constraint.dofs();
            const Index rows = constraint.row_count();
            const auto k = static_cast<Index>(dofs.size());
            VectorX v_local(k), a_local(k);
            for (Index j = 0; j < k; ++j) {
                v_local[j] = v[dofs[static_cast<std::size_t>(j)]];
                a_local[j] = a[dofs[static_cast<std::size_t>(j)]];
            }
            ConstraintEvaluation unit = e;  // sized as the constraint expects (add())
            VectorX e_row = VectorX::Zero(rows);
            acceleration_value = e.force_jacobian * a_local;
            for (Index row = 0; row < rows; ++row) {
                e_row.setZero();
                e_row[row] = 1.0;
                constraint.evaluate(context, e_row.data(), unit);
                acceleration_value[row] += v_local.dot(unit.curvature * v_local);
            }
        },
        [&](std::size_t i, const ConstraintEvaluation& e, Index row, double l) {
            const double alpha = constraints_[i]->compliance(row);
            const double violation = alpha > 0.0 ? e.value[row] + alpha * l : acceleration_value[row];
            return std::pair{violation, -violation};
        },
        [&](std::size_t i, const ConstraintEvaluation& e, auto top_left, auto bottom_left, auto diagonal) {
            top_left.setZero();  // c_q = 0: the curvature does not enter
            bottom_left = -context.coefficients.c_a * e.force_jacobian;
            for (Index row = 0; row < diagonal.rows(); ++row) {
                const double alpha = constraints_[i]->compliance(row);
                if (alpha == 0.0) continue;
                bottom_left.row(row).setZero();
                diagonal(row, row) = -alpha;
            }
        });
}

}  // namespace soma
