// The null-space reduction of attachments in the linear solve (attachment_elimination.hpp).
#include "attachment_elimination.hpp"

#include "constraint_set.hpp"
#include "sparse_value_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <utility>

namespace soma {

std::vector<EliminatedBlock> choose_eliminated_blocks(const ConstraintSet& constraints, const std::vector<Index>& free_index,
                                                      Index free_count, bool always_only) {
    // In list order, a constraint is eliminated when its rows are hard and determine free DOFs
    // that no chosen constraint touches, and none of its other DOFs is a chosen constraint's slave.
    enum class Role : char { none, slave, master };
    std::vector<Role> role(free_index.size(), Role::none);
    std::vector<EliminatedBlock> blocks;
    Index first_row = 0;
    for (std::size_t i = 0; i < constraints.constraints().size(); ++i) {
        const Constraint& c = *constraints.constraints()[i];
        const Index rows = c.row_count();
        const Index row_base = first_row;
        first_row += rows;
        const EliminableColumns offered = c.eliminable_columns();
        if (always_only && !offered.always) continue;
        const std::vector<Index>& columns = offered.columns;
        if (columns.empty() || static_cast<Index>(columns.size()) != rows || rows > AttachmentElimination::kMaxRows) continue;
        std::vector<Index> sorted = columns;  // one column per row, each once
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() || sorted.front() < 0 ||
            sorted.back() >= static_cast<Index>(c.dofs().size()))
            continue;
        bool hard = true;
        for (Index r = 0; r < rows; ++r) hard = hard && c.compliance(r) == 0.0;
        if (!hard) continue;
        const std::vector<Index>& dofs = c.dofs();
        const auto is_slave_column = [&](std::size_t j) {
            return std::find(columns.begin(), columns.end(), static_cast<Index>(j)) != columns.end();
        };
        bool eligible = true;
        for (Index column : columns) {
            const Index dof = dofs[static_cast<std::size_t>(column)];
            // A free DOF listed once, untouched by the chosen ones.
            eligible = eligible && free_index[static_cast<std::size_t>(dof)] >= 0 &&
                       role[static_cast<std::size_t>(dof)] == Role::none &&
                       std::count(dofs.begin(), dofs.end(), dof) == 1;
        }
        for (std::size_t j = 0; j < dofs.size() && eligible; ++j)
            if (!is_slave_column(j)) eligible = role[static_cast<std::size_t>(dofs[j])] != Role::slave;
        if (!eligible) continue;
        EliminatedBlock block;
        block.constraint = i;
        block.name = c.name();
        for (Index r = 0; r < rows; ++r) block.rows.push_back(free_count + row_base + r);
        for (Index column : columns) {
            const Index dof = dofs[static_cast<std::size_t>(column)];
            role[static_cast<std::size_t>(dof)] = Role::slave;
            block.slaves.push_back(free_index[static_cast<std::size_t>(dof)]);
        }
        for (std::size_t j = 0; j < dofs.size(); ++j) {
            const Index free = free_index[static_cast<std::size_t>(dofs[j])];
            if (is_slave_column(j) || free < 0) continue;
            if (std::find(block.masters.begin(), block.masters.end(), free) != block.masters.end()) continue;
            role[static_cast<std::size_t>(dofs[j])] = Role::master;
            block.masters.push_back(free);
        }
        blocks.push_back(std::move(block));
    }
    return blocks;
}

void AttachmentElimination::set_blocks(std::vector<EliminatedBlock> blocks, Index size) {
    blocks_ = std::move(blocks);
    size_ = size;
    kind_.assign(static_cast<std::size_t>(size), Kind::kept);
    block_of_.assign(static_cast<std::size_t>(size), -1);
    local_of_.assign(static_cast<std::size_t>(size), -1);
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        assert(block.rows.size() == block.slaves.size());
        for (std::size_t a = 0; a < block.slaves.size(); ++a) {
            kind_[static_cast<std::size_t>(block.slaves[a])] = Kind::slave;
            kind_[static_cast<std::size_t>(block.rows[a])] = Kind::row;
            block_of_[static_cast<std::size_t>(block.slaves[a])] = block_of_[static_cast<std::size_t>(block.rows[a])] =
                static_cast<Index>(b);
            local_of_[static_cast<std::size_t>(block.slaves[a])] = local_of_[static_cast<std::size_t>(block.rows[a])] =
                static_cast<Index>(a);
        }
    }
    kept_index_.assign(static_cast<std::size_t>(size), -1);
    reduced_size_ = 0;
    for (Index k = 0; k < size; ++k)
        if (kind_[static_cast<std::size_t>(k)] == Kind::kept) kept_index_[static_cast<std::size_t>(k)] = reduced_size_++;
    // The coefficients: factors_[0] = 1, then each block's E and L.
    slots_.assign(blocks_.size(), {});
    Index offset = 1;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const auto n = static_cast<Index>(blocks_[b].slaves.size());
        const auto m = static_cast<Index>(blocks_[b].masters.size());
        slots_[b].e_offset = offset;
        slots_[b].l_offset = offset + n * m;
        offset += 2 * n * m;
    }
    factors_.assign(static_cast<std::size_t>(offset), 0.0);
    factors_[0] = 1.0;
    rows_slaves_inverse_.assign(blocks_.size(), Small());
    slaves_rows_inverse_.assign(blocks_.size(), Small());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const auto n = static_cast<Index>(blocks_[b].slaves.size());
        rows_slaves_inverse_[b].setZero(n, n);
        slaves_rows_inverse_[b].setZero(n, n);
    }
    work_ = VectorX::Zero(size);
    offset_ = VectorX::Zero(size);
}

namespace {

/// The position of (row, column) among J's values, -1 where the pattern has no entry (a zero).
Index slot_or_none(const SparseMatrix& pattern, Index row, Index column) {
    const Index* begin = pattern.innerIndexPtr() + pattern.outerIndexPtr()[column];
    const Index* end = pattern.innerIndexPtr() + pattern.outerIndexPtr()[column + 1];
    const Index* found = std::lower_bound(begin, end, row);
    return found != end && *found == row ? static_cast<Index>(found - pattern.innerIndexPtr()) : -1;
}

/// The value at \p slot, 0 where the pattern has none.
double value_at(const double* values, Index slot) { return slot >= 0 ? values[slot] : 0.0; }

}  // namespace

void AttachmentElimination::analyze(const SparseMatrix& kkt) {
    assert(kkt.rows() == size_ && kkt.cols() == size_ && kkt.isCompressed());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        BlockSlots& s = slots_[b];
        s.rows_slaves.clear();
        s.slaves_rows.clear();
        s.rows_masters.clear();
        s.masters_rows.clear();
        for (Index r : block.rows)
            for (Index c : block.slaves) s.rows_slaves.push_back(slot_or_none(kkt, r, c));
        for (Index r : block.slaves)
            for (Index c : block.rows) s.slaves_rows.push_back(slot_or_none(kkt, r, c));
        for (Index r : block.rows)
            for (Index c : block.masters) s.rows_masters.push_back(slot_or_none(kkt, r, c));
        for (Index r : block.masters)
            for (Index c : block.rows) s.masters_rows.push_back(slot_or_none(kkt, r, c));
    }
    // Each entry of J^ goes to the reduced entries of its row's Q coefficients times its
    // column's P coefficients: a kept index to itself (factor 1), a slave to its block's masters
    // (L for a row, E for a column).
    struct Target {
        Index index, factor;
    };
    const auto targets = [&](Index k, bool as_row, std::vector<Target>& out) {
        out.clear();
        const auto i = static_cast<std::size_t>(k);
        if (kind_[i] == Kind::kept) {
            out.push_back({kept_index_[i], 0});
            return;
        }
        const auto b = static_cast<std::size_t>(block_of_[i]);
        const Index a = local_of_[i];
        const auto n = static_cast<Index>(blocks_[b].slaves.size());
        const auto m = static_cast<Index>(blocks_[b].masters.size());
        for (Index j = 0; j < m; ++j) {
            const Index master = kept_index_[static_cast<std::size_t>(blocks_[b].masters[static_cast<std::size_t>(j)])];
            out.push_back({master, as_row ? slots_[b].l_offset + j * n + a : slots_[b].e_offset + a * m + j});
        }
    };
    std::vector<Target> row_targets, column_targets;
    std::vector<Eigen::Triplet<double, Index>> entries;
    struct Pending {
        Index source, row, column, row_factor, column_factor;
    };
    std::vector<Pending> pending;
    slave_columns_.clear();
    slave_rows_.clear();
    for (Index column = 0; column < size_; ++column) {
        if (kind_[static_cast<std::size_t>(column)] == Kind::row) continue;
        targets(column, false, column_targets);
        for (Index p = kkt.outerIndexPtr()[column]; p < kkt.outerIndexPtr()[column + 1]; ++p) {
            const Index row = kkt.innerIndexPtr()[p];
            if (kind_[static_cast<std::size_t>(row)] == Kind::row) continue;
            if (kind_[static_cast<std::size_t>(column)] == Kind::slave) slave_columns_.push_back({p, row, column});
            if (kind_[static_cast<std::size_t>(row)] == Kind::slave) slave_rows_.push_back({p, column, row});
            targets(row, true, row_targets);
            for (const Target& r : row_targets)
                for (const Target& c : column_targets) {
                    pending.push_back({p, r.index, c.index, r.factor, c.factor});
                    entries.emplace_back(r.index, c.index, 0.0);
                }
        }
    }
    for (Index k = 0; k < reduced_size_; ++k) entries.emplace_back(k, k, 0.0);  // every diagonal, for the solvers
    reduced_.resize(reduced_size_, reduced_size_);
    reduced_.setFromTriplets(entries.begin(), entries.end());
    reduced_.makeCompressed();
    plan_.clear();
    plan_.reserve(pending.size());
    for (const Pending& e : pending)
        plan_.push_back({e.source, sparse_value_index(reduced_, e.row, e.column), e.row_factor, e.column_factor});
    // Grouped by target: the scatter then writes each reduced value in one run.
    std::sort(plan_.begin(), plan_.end(), [](const PlanEntry& a, const PlanEntry& b) { return a.target < b.target; });
    slave_column_values_.assign(slave_columns_.size(), 0.0);
    slave_row_values_.assign(slave_rows_.size(), 0.0);
}

bool AttachmentElimination::reduce(const SparseMatrix& kkt) {
    const double* values = kkt.valuePtr();
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        const BlockSlots& s = slots_[b];
        const auto n = static_cast<Index>(block.slaves.size());
        const auto m = static_cast<Index>(block.masters.size());
        Small rows_slaves(n, n), slaves_rows(n, n);
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j) {
                rows_slaves(i, j) = value_at(values, s.rows_slaves[static_cast<std::size_t>(i * n + j)]);
                slaves_rows(i, j) = value_at(values, s.slaves_rows[static_cast<std::size_t>(i * n + j)]);
            }
        const Eigen::FullPivLU<Small> rs(rows_slaves), sr(slaves_rows);
        if (!rs.isInvertible() || !sr.isInvertible()) {
            error_ = fmt::format("the rows of '{}' no longer determine the DOFs eliminated with them (a singular "
                                 "block of the attachment); set `eliminate: false` on it",
                                 block.name);
            return false;
        }
        rows_slaves_inverse_[b] = rs.inverse();
        slaves_rows_inverse_[b] = sr.inverse();
        // E = -J_RS^-1 J_R alpha (slaves x masters), L = -J_alpha R J_SR^-1 (masters x slaves).
        for (Index a = 0; a < n; ++a)
            for (Index j = 0; j < m; ++j) {
                double e = 0.0;
                for (Index r = 0; r < n; ++r)
                    e -= rows_slaves_inverse_[b](a, r) * value_at(values, s.rows_masters[static_cast<std::size_t>(r * m + j)]);
                factors_[static_cast<std::size_t>(s.e_offset + a * m + j)] = e;
            }
        for (Index j = 0; j < m; ++j)
            for (Index a = 0; a < n; ++a) {
                double l = 0.0;
                for (Index r = 0; r < n; ++r)
                    l -= value_at(values, s.masters_rows[static_cast<std::size_t>(j * n + r)]) * slaves_rows_inverse_[b](r, a);
                factors_[static_cast<std::size_t>(s.l_offset + j * n + a)] = l;
            }
    }
    double* reduced = reduced_.valuePtr();
    std::fill(reduced, reduced + reduced_.nonZeros(), 0.0);
    for (const PlanEntry& e : plan_)
        reduced[e.target] += factors_[static_cast<std::size_t>(e.row_factor)] * values[e.source] *
                             factors_[static_cast<std::size_t>(e.column_factor)];
    // The slaves' rows and columns of this J, for the solves that use its factorization.
    for (std::size_t k = 0; k < slave_columns_.size(); ++k) slave_column_values_[k] = values[slave_columns_[k].source];
    for (std::size_t k = 0; k < slave_rows_.size(); ++k) slave_row_values_[k] = values[slave_rows_[k].source];
    error_.clear();
    return true;
}

void AttachmentElimination::reduce_rhs(const VectorX& rhs, VectorX& reduced_rhs) {
    // e = J_RS^-1 b_R at the slaves, then b^ - J^ [0; e], then Q^T of it.
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        const auto n = static_cast<Index>(block.slaves.size());
        for (Index a = 0; a < n; ++a) {
            double e = 0.0;
            for (Index r = 0; r < n; ++r) e += rows_slaves_inverse_[b](a, r) * rhs[block.rows[static_cast<std::size_t>(r)]];
            offset_[block.slaves[static_cast<std::size_t>(a)]] = e;
        }
    }
    work_ = rhs;
    for (std::size_t k = 0; k < slave_columns_.size(); ++k)
        work_[slave_columns_[k].other] -= slave_column_values_[k] * offset_[slave_columns_[k].slave];
    reduced_rhs.resize(reduced_size_);
    for (Index k = 0; k < size_; ++k)
        if (const Index r = kept_index_[static_cast<std::size_t>(k)]; r >= 0) reduced_rhs[r] = work_[k];
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        const auto n = static_cast<Index>(block.slaves.size());
        const auto m = static_cast<Index>(block.masters.size());
        for (Index j = 0; j < m; ++j) {
            double sum = 0.0;
            for (Index a = 0; a < n; ++a)
                sum += factors_[static_cast<std::size_t>(slots_[b].l_offset + j * n + a)] *
                       work_[block.slaves[static_cast<std::size_t>(a)]];
            reduced_rhs[kept_index_[static_cast<std::size_t>(block.masters[static_cast<std::size_t>(j)])]] += sum;
        }
    }
}

void AttachmentElimination::expand(const VectorX& rhs, const VectorX& reduced_solution, VectorX& solution) {
    solution.resize(size_);
    for (Index k = 0; k < size_; ++k)
        if (const Index r = kept_index_[static_cast<std::size_t>(k)]; r >= 0) solution[k] = reduced_solution[r];
    // z_S = E z_K + e.
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        const auto n = static_cast<Index>(block.slaves.size());
        const auto m = static_cast<Index>(block.masters.size());
        for (Index a = 0; a < n; ++a) {
            const Index slave = block.slaves[static_cast<std::size_t>(a)];
            double z = offset_[slave];
            for (Index j = 0; j < m; ++j)
                z += factors_[static_cast<std::size_t>(slots_[b].e_offset + a * m + j)] *
                     solution[block.masters[static_cast<std::size_t>(j)]];
            solution[slave] = z;
        }
    }
    // z_R = J_SR^-1 (b_S - J_SK z_K - J_SS z_S): the slaves' rows of J^ times z, at the slaves.
    for (const EliminatedBlock& block : blocks_)
        for (Index slave : block.slaves) work_[slave] = rhs[slave];
    for (std::size_t k = 0; k < slave_rows_.size(); ++k)
        work_[slave_rows_[k].slave] -= slave_row_values_[k] * solution[slave_rows_[k].other];
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        const auto n = static_cast<Index>(block.slaves.size());
        for (Index r = 0; r < n; ++r) {
            double z = 0.0;
            for (Index a = 0; a < n; ++a) z += slaves_rows_inverse_[b](r, a) * work_[block.slaves[static_cast<std::size_t>(a)]];
            solution[block.rows[static_cast<std::size_t>(r)]] = z;
        }
    }
}

}  // namespace soma
