#pragma once
/// \file contact_warm_start.hpp
/// \brief The contact forces of the last committed step, as the first iterate of the next step's
/// (ncp_newton's `warm_start`).
///
/// Macklin et al. 2019 start every step from lambda = 0 (eqs. 67, 68) and note in section 8.1
/// that warm-starting the multipliers "can give a good improvement in efficiency", not used in
/// their results for its book-keeping. Contacts are found anew at each step, so the book-keeping
/// is which new contact is which old one. Here a contact is identified by its normal row G_f over
/// the unknowns (the generalised direction of its normal force): a new contact is an old one when
/// their rows have the same columns (the same DOFs: the same points of the same bodies) and differ
/// by at most 5 % of the new row's norm (the same normal and, on a rigid body, nearly the same
/// lever arm r x n). This works for every generator (a corner on a face, an edge pair, a node on
/// the floor) without contact ids, and costs a sort of the old rows by their columns per step.
///
/// The normal force is carried over as it was. The friction force is carried over as the
/// generalised force it exerted, D_old^T lambda_f, projected in the least-squares sense onto the
/// new tangent rows (the tangents of contact_tangents turn with the normal) and clipped to the new
/// cone |lambda_f| <= mu lambda_n. New contacts without a match start at zero.

#include "soma/types.hpp"

#include <Eigen/SparseCore>

#include <cstdint>
#include <utility>
#include <vector>

namespace soma {
class CheckpointWriter;
class CheckpointReader;
}  // namespace soma

namespace soma::ncp {

class ContactWarmStart {
public:
    using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, Index>;

    /// Keeps a committed step's contacts: their normal rows G_f (one per contact), tangent rows D
    /// (two per contact, over the same unknowns) and forces.
    void keep(const RowMatrix& normal, const RowMatrix& tangent, const VectorX& lambda_n, const VectorX& lambda_f);
    /// Forgets the kept contacts (the next step starts from zero).
    void clear();
    /// Whether contacts were kept (a step was committed since the start or the last clear()).
    bool kept() const { return unknowns_ >= 0; }

    /// Sets \p lambda_n and \p lambda_f (sized for \p normal's contacts) of each contact that is a
    /// kept one; the others are left as they are. \p friction: mu per contact. Returns how many
    /// contacts were matched.
    Index apply(const RowMatrix& normal, const RowMatrix& tangent, const VectorX& friction, VectorX& lambda_n,
                VectorX& lambda_f) const;

    void save_checkpoint(CheckpointWriter& out) const;
    void restore_checkpoint(CheckpointReader& in);

private:
    /// The kept contact that new contact \p row of \p normal is, or -1.
    Index match(const RowMatrix& normal, Index row) const;

    RowMatrix normal_, tangent_;
    VectorX lambda_n_, lambda_f_;
    Index unknowns_ = -1;  ///< the rows' column count; -1: nothing kept
    /// Each kept row's hash of its columns, with the row, sorted: the candidates of a new row.
    std::vector<std::pair<std::uint64_t, Index>> keys_;
};

}  // namespace soma::ncp
