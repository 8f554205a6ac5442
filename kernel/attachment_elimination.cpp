// The null-space reduction of attachments in the linear solve (attachment_elimination.hpp).
#include "attachment_elimination.hpp"

#include "constraint_set.hpp"
#include "sparse_value_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <utility>

namespace soma {

std::vector<EliminatedBlock> choose_eliminated_blocks(const ConstraintSet& constraints, const std::vector<Index>& free_index,
                                                      Index free_count, bool always_only) {
    // A constraint is eliminated when its rows are hard and determine free DOFs that no chosen
    // constraint determines. Its other DOFs may be determined by chosen ones (an
    // attachment to an attached node: ArtiSynth's DAG, section 0.18), and its own may be other
    // chosen ones' masters, unless that closes a loop of attachments (p held at q held at p).
    std::vector<Index> determined_by(free_index.size(), -1);  // the chosen block that determines a DOF
    std::vector<std::vector<Index>> master_dofs;               // each chosen block's other DOFs (global)
    std::vector<EliminatedBlock> blocks;
    // Whether a block that \p dofs depend on (through determined_by, transitively) has one of
    // \p slaves among its masters: choosing them would close a loop.
    std::vector<Index> stack;
    std::vector<char> visited;
    const auto closes_loop = [&](const std::vector<Index>& dofs, const std::vector<Index>& slaves) {
        visited.assign(blocks.size(), 0);
        stack.clear();
        for (Index dof : dofs)
            if (const Index b = determined_by[static_cast<std::size_t>(dof)]; b >= 0) stack.push_back(b);
        while (!stack.empty()) {
            const auto b = static_cast<std::size_t>(stack.back());
            stack.pop_back();
            if (visited[b]) continue;
            visited[b] = 1;
            for (Index dof : master_dofs[b]) {
                if (std::find(slaves.begin(), slaves.end(), dof) != slaves.end()) return true;
                if (const Index up = determined_by[static_cast<std::size_t>(dof)]; up >= 0) stack.push_back(up);
            }
        }
        return false;
    };
    // Those that offer one choice of columns first (a node held at a body or in the world), then
    // those that offer an alternative (a joint between two nodes), which then take whichever
    // node is still free: a node held at a body and joined to another node is eliminated with
    // the body's joint, the other node with the joint between them.
    const auto& list = constraints.constraints();
    std::vector<Index> row_base(list.size(), 0);
    for (std::size_t i = 1; i < list.size(); ++i) row_base[i] = row_base[i - 1] + list[i - 1]->row_count();
    std::vector<std::size_t> order;
    for (const bool with_alternative : {false, true})
        for (std::size_t i = 0; i < list.size(); ++i)
            if (list[i]->eliminable_columns().alternative.empty() != with_alternative) order.push_back(i);
    for (std::size_t i : order) {
        const Constraint& c = *list[i];
        const Index rows = c.row_count();
        const EliminableColumns offered = c.eliminable_columns();
        if (always_only && !offered.always) continue;
        bool hard = true;
        for (Index r = 0; r < rows; ++r) hard = hard && c.compliance(r) == 0.0;
        if (!hard) continue;
        const std::vector<Index>& dofs = c.dofs();
        for (const std::vector<Index>* option : {&offered.columns, &offered.alternative}) {
            const std::vector<Index>& columns = *option;
            if (columns.empty() || static_cast<Index>(columns.size()) != rows || rows > AttachmentElimination::kMaxRows)
                continue;
            std::vector<Index> sorted = columns;  // one column per row, each once
            std::sort(sorted.begin(), sorted.end());
            if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() || sorted.front() < 0 ||
                sorted.back() >= static_cast<Index>(dofs.size()))
                continue;
            const auto is_slave_column = [&](std::size_t j) {
                return std::find(columns.begin(), columns.end(), static_cast<Index>(j)) != columns.end();
            };
            std::vector<Index> slaves, masters;  // global DOFs
            bool eligible = true;
            for (Index column : columns) {
                const Index dof = dofs[static_cast<std::size_t>(column)];
                // A free DOF listed once, determined by no chosen constraint.
                eligible = eligible && free_index[static_cast<std::size_t>(dof)] >= 0 &&
                           determined_by[static_cast<std::size_t>(dof)] < 0 &&
                           std::count(dofs.begin(), dofs.end(), dof) == 1;
                slaves.push_back(dof);
            }
            for (std::size_t j = 0; j < dofs.size(); ++j)
                if (!is_slave_column(j) && free_index[static_cast<std::size_t>(dofs[j])] >= 0 &&
                    std::find(masters.begin(), masters.end(), dofs[j]) == masters.end())
                    masters.push_back(dofs[j]);
            if (!eligible || closes_loop(masters, slaves)) continue;
            EliminatedBlock block;
            block.constraint = i;
            block.name = c.name();
            for (Index r = 0; r < rows; ++r) block.rows.push_back(free_count + row_base[i] + r);
            for (Index dof : slaves) {
                determined_by[static_cast<std::size_t>(dof)] = static_cast<Index>(blocks.size());
                block.slaves.push_back(free_index[static_cast<std::size_t>(dof)]);
            }
            for (Index dof : masters) block.masters.push_back(free_index[static_cast<std::size_t>(dof)]);
            master_dofs.push_back(std::move(masters));
            blocks.push_back(std::move(block));
            break;
        }
    }
    // In list order (the notes name them so).
    std::stable_sort(blocks.begin(), blocks.end(),
                     [](const EliminatedBlock& a, const EliminatedBlock& b) { return a.constraint < b.constraint; });
    return blocks;
}

namespace {

/// \p blocks ordered so that a block comes after those that determine its masters (a stable
/// topological order; Kahn's algorithm). Asserts that there is no loop.
std::vector<EliminatedBlock> parents_first(std::vector<EliminatedBlock> blocks, Index size) {
    std::vector<Index> owner(static_cast<std::size_t>(size), -1);
    for (std::size_t b = 0; b < blocks.size(); ++b)
        for (Index slave : blocks[b].slaves) owner[static_cast<std::size_t>(slave)] = static_cast<Index>(b);
    std::vector<EliminatedBlock> ordered;
    std::vector<char> placed(blocks.size(), 0);
    while (ordered.size() < blocks.size()) {
        const std::size_t before = ordered.size();
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            if (placed[b]) continue;
            const bool ready = std::all_of(blocks[b].masters.begin(), blocks[b].masters.end(), [&](Index m) {
                const Index parent = owner[static_cast<std::size_t>(m)];
                return parent < 0 || placed[static_cast<std::size_t>(parent)];
            });
            if (!ready) continue;
            placed[b] = 1;
            ordered.push_back(blocks[b]);
        }
        if (ordered.size() == before)
            throw std::logic_error("AttachmentElimination: a loop of eliminated attachments (choose_eliminated_blocks "
                                   "leaves none)");
    }
    return ordered;
}

}  // namespace

void AttachmentElimination::set_blocks(std::vector<EliminatedBlock> blocks, Index size) {
    blocks_ = parents_first(std::move(blocks), size);
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
    // Each block's reach, parents first: its kept masters and its parents' reaches.
    reach_.assign(blocks_.size(), {});
    master_position_.assign(blocks_.size(), {});
    chains_.assign(blocks_.size(), {});
    reach_map_.clear();
    std::vector<Index> where(static_cast<std::size_t>(size), -1);
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        std::vector<Index>& reach = reach_[b];
        const auto add = [&](Index k) {
            Index& at = where[static_cast<std::size_t>(k)];
            if (at < 0) {
                at = static_cast<Index>(reach.size());
                reach.push_back(k);
            }
            return at;
        };
        const std::vector<Index>& masters = blocks_[b].masters;
        for (std::size_t j = 0; j < masters.size(); ++j) {
            const auto m = static_cast<std::size_t>(masters[j]);
            if (kind_[m] == Kind::kept) {
                master_position_[b].push_back(add(masters[j]));
                continue;
            }
            master_position_[b].push_back(-1);
            const Index parent = block_of_[m];
            assert(parent >= 0 && static_cast<std::size_t>(parent) < b);
            chains_[b].push_back({static_cast<Index>(j), parent, local_of_[m], static_cast<Index>(reach_map_.size())});
            for (Index k : reach_[static_cast<std::size_t>(parent)]) reach_map_.push_back(add(k));
        }
        for (Index k : reach) where[static_cast<std::size_t>(k)] = -1;
    }
    // The coefficients: factors_[0] = 1, then each block's E, L, E* and L*.
    slots_.assign(blocks_.size(), {});
    Index offset = 1;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const auto n = static_cast<Index>(blocks_[b].slaves.size());
        const auto m = static_cast<Index>(blocks_[b].masters.size());
        const auto r = static_cast<Index>(reach_[b].size());
        slots_[b].e_offset = offset;
        slots_[b].l_offset = offset + n * m;
        slots_[b].composite_e_offset = offset + 2 * n * m;
        slots_[b].composite_l_offset = offset + 2 * n * m + n * r;
        offset += 2 * n * (m + r);
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
    // column's P coefficients: a kept index to itself (factor 1), a slave to its block's reach
    // (L* for a row, E* for a column).
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
        const auto r = static_cast<Index>(reach_[b].size());
        for (Index j = 0; j < r; ++j) {
            const Index kept = kept_index_[static_cast<std::size_t>(reach_[b][static_cast<std::size_t>(j)])];
            out.push_back({kept, as_row ? slots_[b].composite_l_offset + j * n + a : slots_[b].composite_e_offset + a * r + j});
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
    chained_rows_.clear();
    for (Index column = 0; column < size_; ++column) {
        if (kind_[static_cast<std::size_t>(column)] == Kind::row) {
            // A child's multiplier in its parent's slave rows (its masters there).
            for (Index p = kkt.outerIndexPtr()[column]; p < kkt.outerIndexPtr()[column + 1]; ++p) {
                const Index row = kkt.innerIndexPtr()[p];
                if (kind_[static_cast<std::size_t>(row)] == Kind::slave &&
                    block_of_[static_cast<std::size_t>(row)] != block_of_[static_cast<std::size_t>(column)])
                    chained_rows_.push_back({p, column, row});
            }
            continue;
        }
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
    std::stable_sort(chained_rows_.begin(), chained_rows_.end(), [&](const SlaveEntry& a, const SlaveEntry& b) {
        return block_of_[static_cast<std::size_t>(a.slave)] < block_of_[static_cast<std::size_t>(b.slave)];
    });
    chained_begin_.assign(blocks_.size() + 1, 0);
    for (const SlaveEntry& e : chained_rows_) ++chained_begin_[static_cast<std::size_t>(block_of_[static_cast<std::size_t>(e.slave)]) + 1];
    for (std::size_t b = 0; b < blocks_.size(); ++b) chained_begin_[b + 1] += chained_begin_[b];
    chained_row_values_.assign(chained_rows_.size(), 0.0);
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
        // The composites over the block's reach (its parents' are done: parents first):
        // E* = E [kept] + E [parent's slaves] E*_p, L* = L [kept] + L*_p L [parent's slaves].
        const auto r = static_cast<Index>(reach_[b].size());
        double* composite_e = factors_.data() + s.composite_e_offset;
        double* composite_l = factors_.data() + s.composite_l_offset;
        const double* e = factors_.data() + s.e_offset;
        const double* l = factors_.data() + s.l_offset;
        std::fill(composite_e, composite_e + 2 * n * r, 0.0);
        for (Index j = 0; j < m; ++j) {
            const Index at = master_position_[b][static_cast<std::size_t>(j)];
            if (at < 0) continue;
            for (Index a = 0; a < n; ++a) {
                composite_e[a * r + at] += e[a * m + j];
                composite_l[at * n + a] += l[j * n + a];
            }
        }
        for (const ChainLink& link : chains_[b]) {
            const auto p = static_cast<std::size_t>(link.parent);
            const auto parent_n = static_cast<Index>(blocks_[p].slaves.size());
            const auto parent_r = static_cast<Index>(reach_[p].size());
            const double* parent_e = factors_.data() + slots_[p].composite_e_offset;
            const double* parent_l = factors_.data() + slots_[p].composite_l_offset;
            for (Index k = 0; k < parent_r; ++k) {
                const Index at = reach_map_[static_cast<std::size_t>(link.map_offset + k)];
                const double through_e = parent_e[link.parent_local * parent_r + k];
                const double through_l = parent_l[k * parent_n + link.parent_local];
                for (Index a = 0; a < n; ++a) {
                    composite_e[a * r + at] += e[a * m + link.master] * through_e;
                    composite_l[at * n + a] += through_l * l[link.master * n + a];
                }
            }
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
    for (std::size_t k = 0; k < chained_rows_.size(); ++k) chained_row_values_[k] = values[chained_rows_[k].source];
    error_.clear();
    return true;
}

void AttachmentElimination::reduce_rhs(const VectorX& rhs, VectorX& reduced_rhs) {
    // e* at the slaves (parents first: e* = J_RS^-1 b_R + E [parent's slaves] e*_p), then
    // b^ - J^ [0; e*], then Q^T of it.
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        const auto n = static_cast<Index>(block.slaves.size());
        const auto m = static_cast<Index>(block.masters.size());
        for (Index a = 0; a < n; ++a) {
            double e = 0.0;
            for (Index r = 0; r < n; ++r) e += rows_slaves_inverse_[b](a, r) * rhs[block.rows[static_cast<std::size_t>(r)]];
            for (const ChainLink& link : chains_[b])
                e += factors_[static_cast<std::size_t>(slots_[b].e_offset + a * m + link.master)] *
                     offset_[block.masters[static_cast<std::size_t>(link.master)]];
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
        const auto r = static_cast<Index>(reach_[b].size());
        for (Index j = 0; j < r; ++j) {
            double sum = 0.0;
            for (Index a = 0; a < n; ++a)
                sum += factors_[static_cast<std::size_t>(slots_[b].composite_l_offset + j * n + a)] *
                       work_[block.slaves[static_cast<std::size_t>(a)]];
            reduced_rhs[kept_index_[static_cast<std::size_t>(reach_[b][static_cast<std::size_t>(j)])]] += sum;
        }
    }
}

void AttachmentElimination::expand(const VectorX& rhs, const VectorX& reduced_solution, VectorX& solution) {
    solution.resize(size_);
    for (Index k = 0; k < size_; ++k)
        if (const Index r = kept_index_[static_cast<std::size_t>(k)]; r >= 0) solution[k] = reduced_solution[r];
    // z_S = E* z_K + e*.
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const EliminatedBlock& block = blocks_[b];
        const auto n = static_cast<Index>(block.slaves.size());
        const auto r = static_cast<Index>(reach_[b].size());
        for (Index a = 0; a < n; ++a) {
            const Index slave = block.slaves[static_cast<std::size_t>(a)];
            double z = offset_[slave];
            for (Index j = 0; j < r; ++j)
                z += factors_[static_cast<std::size_t>(slots_[b].composite_e_offset + a * r + j)] *
                     solution[reach_[b][static_cast<std::size_t>(j)]];
            solution[slave] = z;
        }
    }
    // z_R = J_SR^-1 (b_S - J_SK z_K - J_SS z_S - J_SR' z_R'): the slaves' rows of J^ times z, and
    // of the children's multipliers R', known first (children first).
    for (const EliminatedBlock& block : blocks_)
        for (Index slave : block.slaves) work_[slave] = rhs[slave];
    for (std::size_t k = 0; k < slave_rows_.size(); ++k)
        work_[slave_rows_[k].slave] -= slave_row_values_[k] * solution[slave_rows_[k].other];
    for (std::size_t b = blocks_.size(); b-- > 0;) {
        const EliminatedBlock& block = blocks_[b];
        for (Index k = chained_begin_[b]; k < chained_begin_[b + 1]; ++k) {
            const SlaveEntry& e = chained_rows_[static_cast<std::size_t>(k)];
            work_[e.slave] -= chained_row_values_[static_cast<std::size_t>(k)] * solution[e.other];
        }
        const auto n = static_cast<Index>(block.slaves.size());
        for (Index r = 0; r < n; ++r) {
            double z = 0.0;
            for (Index a = 0; a < n; ++a) z += slaves_rows_inverse_[b](r, a) * work_[block.slaves[static_cast<std::size_t>(a)]];
            solution[block.rows[static_cast<std::size_t>(r)]] = z;
        }
    }
}

}  // namespace soma
