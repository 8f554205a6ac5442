#pragma once
/// \file preordered_cholesky.hpp
/// \brief Eigen's simplicial LDL^T / LL^T with the ordered matrix P A P^T built through a value
/// map cached at analysis, so that a factorization copies values instead of permuting the matrix.
///
/// Eigen's SimplicialLDLT::factorize(A) builds P A P^T into a fresh sparse matrix on every call
/// (permute_symm: an allocation and an index sort per Newton iteration). The ordering and the
/// pattern are fixed between analyses, so the position of every entry of the ordered upper
/// triangle is too: analyze() records, for each of those entries, which stored value of A it
/// comes from, and factorize() gathers them into a matrix allocated once and calls Eigen's
/// factorize_preordered on it.

#include "soma/types.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>

#include <type_traits>

#include <vector>

namespace soma::eigen_solvers {

/// \tparam Factorization  Eigen::SimplicialLDLT or SimplicialLLT over SparseMatrix, reading the
///                        lower triangle, with Eigen's AMD ordering.
/// \tparam DoLDLT         true for LDL^T (as Eigen's own factorize calls it).
template <class Factorization, bool DoLDLT>
class PreorderedCholesky : public Factorization {
    static_assert(std::is_same_v<typename Factorization::OrderingType, Eigen::AMDOrdering<Index>>,
                  "analyze() computes Eigen's AMD ordering itself");

public:
    /// \brief Eigen's analysis (the same ordering, elimination tree and column counts), then the
    /// map from the ordered upper triangle to A's values.
    ///
    /// Eigen's analyzePattern forms the full symmetric pattern, then A^T + A of it for AMD (the
    /// same pattern again), then P A P^T, which analyze() formed a second time for the map: on
    /// the entanglement gripper, whose contacts change the pattern at one step in five, that was
    /// 5 % of the run (docs/performance.md). Here the symmetric pattern goes to AMD as it is and
    /// P A P^T is formed once, as the map and as the pattern the elimination tree is built from.
    void analyze(const SparseMatrix& pattern) {
        const Index n = static_cast<Index>(pattern.cols());
        if (n == 0) {
            Factorization::analyzePattern(pattern);
            ordered_.resize(0, 0);
            source_.clear();
            pattern_size_ = 0;
            return;
        }
        symmetric_ = pattern.template selfadjointView<Eigen::Lower>();
        Eigen::internal::minimum_degree_ordering(symmetric_, this->m_Pinv);  // AMDOrdering's own call
        this->m_P = this->m_Pinv.inverse();

        SparseMatrix positions = pattern;
        positions.makeCompressed();
        for (Index k = 0; k < positions.nonZeros(); ++k) positions.valuePtr()[k] = static_cast<double>(k);
        ordered_.resize(n, n);
        ordered_.template selfadjointView<Eigen::Upper>() =
            positions.template selfadjointView<Eigen::Lower>().twistedBy(this->m_P);
        pattern_size_ = static_cast<std::size_t>(positions.nonZeros());
        source_.resize(static_cast<std::size_t>(ordered_.nonZeros()));
        for (Index k = 0; k < ordered_.nonZeros(); ++k)
            source_[static_cast<std::size_t>(k)] = static_cast<Index>(ordered_.valuePtr()[k]);
        this->analyzePattern_preordered(ordered_, DoLDLT);
    }

    /// \brief Factorizes \p matrix, of the analysed pattern (values in the same storage order).
    /// A matrix not in compressed storage, whose values are not in that order, takes Eigen's
    /// own path (same factors, one permutation per call).
    void factorize(const SparseMatrix& matrix) {
        if (!matrix.isCompressed() || static_cast<std::size_t>(matrix.nonZeros()) != pattern_size_) {
            Factorization::factorize(matrix);
            return;
        }
        const double* values = matrix.valuePtr();
        double* ordered = ordered_.valuePtr();
        for (std::size_t k = 0; k < source_.size(); ++k) ordered[k] = values[source_[k]];
        Factorization::template factorize_preordered<DoLDLT>(ordered_);
    }

private:
    SparseMatrix symmetric_;     ///< both triangles of the analysed pattern (AMD's work space)
    SparseMatrix ordered_;       ///< upper triangle of P A P^T on the analysed pattern
    std::vector<Index> source_;  ///< per stored entry of ordered_: its index in A's values
    std::size_t pattern_size_ = 0;
};

}  // namespace soma::eigen_solvers
