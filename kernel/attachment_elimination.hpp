#pragma once
/// \file attachment_elimination.hpp
/// \brief The null-space reduction of attachments (ArtiSynth technical notes, sections
/// 0.17-0.19) in each Newton step's linear solve: the DOFs an attachment's rows determine (a node
/// held at a point of a body) are eliminated with those rows, and the factorized matrix is the
/// smaller one over the remaining unknowns, without the attachment's saddle point.
///
/// In the KKT system J z = b (free DOFs, then one multiplier per constraint row), an eliminated
/// constraint's hard rows R determine its slave DOFs S from its other DOFs alpha, and its
/// multipliers appear only in the rows of S and alpha. With K the kept unknowns:
///
///     R rows:  J_RS z_S + J_RK z_K = b_R           =>  z_S = E z_K + e,
///              E = -J_RS^-1 J_RK,  e = J_RS^-1 b_R                      (eq. 0.18, G_{beta alpha} = -E)
///     S rows:  J_SK z_K + J_SS z_S + J_SR z_R = b_S  =>  z_R = J_SR^-1 (b_S - J_SK z_K - J_SS z_S)
///     K rows:  with L = -J_KR J_SR^-1 (nonzero on alpha only),
///              Q^T J^ P z_K = Q^T (b^ - J^ [0; e]),   P = [I; E],  Q^T = [I, L]   (eqs. 0.20-0.23)
///
/// where J^ and b^ leave out the rows and columns of R. For a point attached to a body, E and L
/// are the point's velocity Jacobian G_{beta alpha} (eq. 0.36) and, where G_f = G_q, Q = P: the
/// reduced matrix is P^T J P, symmetric when J is (eq. 0.21's M' for J = M). The algebra is
/// exact for any invertible J_RS and J_SR (the rows at the step's end, at the velocity level, at
/// the acceleration level), so the solution is the full system's to round-off.
///
/// The pattern of the reduced matrix and a scatter plan (each entry of J^ times a coefficient of
/// Q and one of P, into an entry of the reduced matrix) are built when J's pattern changes;
/// each factorization then fills the coefficients from J's blocks and runs the plan, without
/// allocating.
///
/// Attachments of attached DOFs are chained (ArtiSynth's DAG, section 0.18): a block's masters
/// may be another block's slaves (its parent's), as long as no loop forms. With the blocks
/// ordered parents first, each block's slaves depend on the kept unknowns its parents' slaves
/// reach, through the composite coefficients
///
///     E*_b = E_b [kept masters] + E_b [a parent's slaves] E*_p
///     e*_b = e_b + E_b [a parent's slaves] e*_p
///     L*_b = L_b [kept masters] + L*_p L_b [a parent's slaves]
///
/// (E* and e*: section 0.18's velocity recovery v_k = -G_ka v_a - G_kb v_b, parents first; L*:
/// its force recursion f'_a = f_a - G_ka^T f_k, eqs. 0.33-0.34, children onto parents)
///
/// so P and Q hold E* and L* over each block's reach, and the reduction above applies as it
/// stands. The multipliers are recovered children first: a parent's slave rows hold its
/// children's multipliers too (z_R of a child is known before its parent's).
#include "soma/types.hpp"

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace soma {

class ConstraintSet;

/// One eliminated constraint, in KKT indices (free DOF positions, then free count + row).
struct EliminatedBlock {
    std::size_t constraint = 0;  ///< its index in the ConstraintSet
    std::string name;            ///< the constraint's, for errors
    std::vector<Index> rows;     ///< its multiplier rows R
    std::vector<Index> slaves;   ///< the DOFs they determine, S, one per row
    std::vector<Index> masters;  ///< its other free DOFs, alpha
};

/// \brief The constraints to eliminate (returned in list order): those whose rows are hard and
/// determine free DOFs (Constraint::eliminable_columns) that no constraint chosen before
/// determines, where eliminating them closes no loop of attachments; their other DOFs may be
/// determined by chosen ones (chained). Constraints that offer one choice of columns are taken
/// first, in list order, then those with an alternative, which take it where their first choice
/// cannot be taken. \p free_index maps a global DOF to its free
/// position (-1: fixed or prescribed); the rows follow the \p free_count free DOFs. With
/// \p always_only, only the constraints whose EliminableColumns say `always` are considered.
std::vector<EliminatedBlock> choose_eliminated_blocks(const ConstraintSet& constraints, const std::vector<Index>& free_index,
                                                      Index free_count, bool always_only = false);

class AttachmentElimination {
public:
    /// The most rows (and slaves) one block may have: its small blocks are fixed-size storage.
    static constexpr Index kMaxRows = 6;
    using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxRows, kMaxRows>;

    /// \p blocks must not share slaves, and the masters of each may be other blocks' slaves only
    /// where no loop forms (choose_eliminated_blocks ensures both); they are ordered parents first
    /// here. \p size is J's.
    void set_blocks(std::vector<EliminatedBlock> blocks, Index size);
    bool empty() const { return blocks_.empty(); }
    const std::vector<EliminatedBlock>& blocks() const { return blocks_; }
    Index reduced_size() const { return reduced_size_; }

    /// The reduced pattern and the scatter plan for J's pattern (allocates: at pattern changes).
    void analyze(const SparseMatrix& kkt);
    /// The reduced matrix of the last reduce() (its pattern after analyze()).
    const SparseMatrix& matrix() const { return reduced_; }
    /// Fills the reduced matrix from J's values; false when a block's J_RS or J_SR is singular
    /// (error() says which).
    bool reduce(const SparseMatrix& kkt);
    const std::string& error() const { return error_; }
    /// The reduced right-hand side of \p rhs (J's size) for the last reduce().
    void reduce_rhs(const VectorX& rhs, VectorX& reduced_rhs);
    /// The full solution from the reduced one, for the \p rhs of the last reduce_rhs().
    void expand(const VectorX& rhs, const VectorX& reduced_solution, VectorX& solution);

private:
    enum class Kind : char { kept, slave, row };
    struct PlanEntry {
        Index source;       ///< J's value
        Index target;       ///< the reduced matrix's value
        Index row_factor;   ///< index into factors_ (0: 1)
        Index column_factor;
    };
    /// An entry of J in a slave's row or column, outside the eliminated rows' columns and rows.
    struct SlaveEntry {
        Index source;
        Index other;  ///< the row (a slave's column) or column (a slave's row)
        Index slave;
    };
    struct BlockSlots {
        std::vector<Index> rows_slaves, slaves_rows;  ///< J_RS and J_SR, row-major
        std::vector<Index> rows_masters, masters_rows;  ///< J_R alpha (row-major) and J_alpha R (row-major)
        /// In factors_, row-major: E (slaves x masters) and L (masters x slaves) of the block's own
        /// rows, and the composites E* (slaves x reach) and L* (reach x slaves).
        Index e_offset = 0, l_offset = 0, composite_e_offset = 0, composite_l_offset = 0;
    };
    /// A master of a block that a parent block determines.
    struct ChainLink {
        Index master;        ///< its position among the block's masters
        Index parent;        ///< the parent block
        Index parent_local;  ///< its position among the parent's slaves
        Index map_offset;    ///< into reach_map_: the parent's reach, at positions of the block's
    };
    std::vector<EliminatedBlock> blocks_;
    Index size_ = 0, reduced_size_ = 0;
    std::vector<Kind> kind_;
    std::vector<Index> block_of_, local_of_, kept_index_;
    std::vector<BlockSlots> slots_;
    std::vector<PlanEntry> plan_;
    std::vector<SlaveEntry> slave_columns_, slave_rows_;
    std::vector<double> slave_column_values_, slave_row_values_;
    /// The kept unknowns each block's slaves depend on (KKT indices), and where each of its
    /// masters lies among them (-1: a parent's slave, in chains_).
    std::vector<std::vector<Index>> reach_, master_position_;
    std::vector<std::vector<ChainLink>> chains_;
    std::vector<Index> reach_map_;
    /// J's entries in a slave's row and a child block's multiplier column, grouped by the slave's
    /// block (block b's from chained_begin_[b] on); `other` is the multiplier's row.
    std::vector<SlaveEntry> chained_rows_;
    std::vector<Index> chained_begin_;
    std::vector<double> chained_row_values_;
    std::vector<double> factors_;  ///< 1, then each block's E, L, E* and L*
    std::vector<Small> rows_slaves_inverse_, slaves_rows_inverse_;
    SparseMatrix reduced_;
    VectorX work_, offset_;  ///< b^ - J^ [0; e] and e (at the slaves)
    std::string error_;
};

}  // namespace soma
