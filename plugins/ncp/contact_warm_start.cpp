// The contact forces of the last committed step as the next step's first iterate
// (contact_warm_start.hpp).
#include "contact_warm_start.hpp"

#include "soma/checkpoint.hpp"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <string>

namespace soma::ncp {
namespace {

using RowMatrix = ContactWarmStart::RowMatrix;

/// FNV-1a over a row's column indices.
std::uint64_t column_hash(const RowMatrix& m, Index row) {
    std::uint64_t h = 1469598103934665603ull;
    for (Index p = m.outerIndexPtr()[row]; p < m.outerIndexPtr()[row + 1]; ++p)
        h = (h ^ static_cast<std::uint64_t>(m.innerIndexPtr()[p])) * 1099511628211ull;
    return h;
}

bool same_columns(const RowMatrix& a, Index ra, const RowMatrix& b, Index rb) {
    const Index* begin = a.innerIndexPtr() + a.outerIndexPtr()[ra];
    const Index* end = a.innerIndexPtr() + a.outerIndexPtr()[ra + 1];
    return end - begin == b.outerIndexPtr()[rb + 1] - b.outerIndexPtr()[rb] &&
           std::equal(begin, end, b.innerIndexPtr() + b.outerIndexPtr()[rb]);
}

/// The dot product of two rows with the same columns.
double dot_same_columns(const RowMatrix& a, Index ra, const RowMatrix& b, Index rb) {
    const Index offset = b.outerIndexPtr()[rb] - a.outerIndexPtr()[ra];
    double sum = 0.0;
    for (Index p = a.outerIndexPtr()[ra]; p < a.outerIndexPtr()[ra + 1]; ++p) sum += a.valuePtr()[p] * b.valuePtr()[p + offset];
    return sum;
}

void save_rows(CheckpointWriter& out, const std::string& name, const RowMatrix& m) {
    out.integer(name + "_nonzeros", m.nonZeros());
    std::vector<std::int64_t> indices(m.outerIndexPtr(), m.outerIndexPtr() + m.rows() + 1);
    out.integers(name + "_row_starts", indices);
    indices.assign(m.innerIndexPtr(), m.innerIndexPtr() + m.nonZeros());
    out.integers(name + "_columns", indices);
    out.reals(name + "_values", std::span<const double>(m.valuePtr(), static_cast<std::size_t>(m.nonZeros())));
}

void restore_rows(CheckpointReader& in, const std::string& name, Index rows, Index columns, RowMatrix& m) {
    const std::int64_t nonzeros = in.integer(name + "_nonzeros");
    if (nonzeros < 0) throw CheckpointError("checkpoint: " + in.section_name() + ": " + name + " has a negative size");
    m.resize(rows, columns);
    m.resizeNonZeros(static_cast<Index>(nonzeros));
    std::vector<std::int64_t> indices(static_cast<std::size_t>(rows + 1));
    in.integers(name + "_row_starts", indices);
    std::copy(indices.begin(), indices.end(), m.outerIndexPtr());
    indices.resize(static_cast<std::size_t>(nonzeros));
    in.integers(name + "_columns", indices);
    std::copy(indices.begin(), indices.end(), m.innerIndexPtr());
    in.reals(name + "_values", std::span<double>(m.valuePtr(), static_cast<std::size_t>(nonzeros)));
    bool valid = m.outerIndexPtr()[0] == 0 && m.outerIndexPtr()[rows] == nonzeros;
    for (Index r = 0; valid && r < rows; ++r) valid = m.outerIndexPtr()[r] <= m.outerIndexPtr()[r + 1];
    for (Index p = 0; valid && p < m.nonZeros(); ++p) valid = m.innerIndexPtr()[p] >= 0 && m.innerIndexPtr()[p] < columns;
    if (!valid) throw CheckpointError("checkpoint: " + in.section_name() + ": " + name + " is not a sparse matrix");
}

}  // namespace

void ContactWarmStart::keep(const RowMatrix& normal, const RowMatrix& tangent, const VectorX& lambda_n,
                            const VectorX& lambda_f) {
    normal_ = normal;
    tangent_ = tangent;
    lambda_n_ = lambda_n;
    lambda_f_ = lambda_f;
    unknowns_ = normal.cols();
    keys_.clear();
    for (Index r = 0; r < normal_.rows(); ++r) keys_.emplace_back(column_hash(normal_, r), r);
    std::sort(keys_.begin(), keys_.end());
}

void ContactWarmStart::clear() {
    unknowns_ = -1;
    keys_.clear();
}

Index ContactWarmStart::match(const RowMatrix& normal, Index row) const {
    const std::uint64_t key = column_hash(normal, row);
    const double norm2 = dot_same_columns(normal, row, normal, row);
    Index best = -1;
    double best_distance2 = 0.05 * 0.05 * norm2;
    for (auto it = std::lower_bound(keys_.begin(), keys_.end(), std::make_pair(key, Index{0}));
         it != keys_.end() && it->first == key; ++it) {
        const Index old = it->second;
        if (!same_columns(normal, row, normal_, old)) continue;
        const double distance2 = norm2 - 2.0 * dot_same_columns(normal, row, normal_, old) +
                                 dot_same_columns(normal_, old, normal_, old);
        if (distance2 <= best_distance2) {
            best = old;
            best_distance2 = distance2;
        }
    }
    return best;
}

Index ContactWarmStart::apply(const RowMatrix& normal, const RowMatrix& tangent, const VectorX& friction,
                              VectorX& lambda_n, VectorX& lambda_f) const {
    if (!kept() || normal.cols() != unknowns_) return 0;  // another layout of the unknowns
    Index matched = 0;
    for (Index i = 0; i < normal.rows(); ++i) {
        const Index old = match(normal, i);
        if (old < 0) continue;
        ++matched;
        lambda_n[i] = lambda_n_[old];
        // The old friction force's generalised force D_old^T lambda_old onto the new tangent rows:
        // min |D_new^T f - D_old^T lambda_old|, the normal equations (D_new D_new^T) f = D_new D_old^T lambda_old.
        bool same = true;
        for (Index k = 0; k < 2; ++k)
            for (Index l = 0; l < 2; ++l) same = same && same_columns(tangent, 2 * i + k, tangent_, 2 * old + l);
        if (!same) continue;
        Eigen::Matrix2d gram;
        Eigen::Vector2d projected = Eigen::Vector2d::Zero();
        for (Index k = 0; k < 2; ++k) {
            for (Index l = 0; l < 2; ++l) {
                gram(k, l) = dot_same_columns(tangent, 2 * i + k, tangent, 2 * i + l);
                projected[k] += dot_same_columns(tangent, 2 * i + k, tangent_, 2 * old + l) * lambda_f_[2 * old + l];
            }
        }
        Eigen::Vector2d force = gram.ldlt().solve(projected);
        const double limit = friction[i] * std::max(lambda_n[i], 0.0);
        if (const double size = force.norm(); !(size <= limit)) force *= size > 0.0 && std::isfinite(size) ? limit / size : 0.0;
        lambda_f[2 * i] = force[0];
        lambda_f[2 * i + 1] = force[1];
    }
    return matched;
}

void ContactWarmStart::save_checkpoint(CheckpointWriter& out) const {
    out.integer("warm_start_unknowns", unknowns_);
    if (!kept()) return;
    out.integer("warm_start_contacts", normal_.rows());
    save_rows(out, "warm_start_normal", normal_);
    save_rows(out, "warm_start_tangent", tangent_);
    out.vector("warm_start_normal_forces", lambda_n_);
    out.vector("warm_start_friction_forces", lambda_f_);
}

void ContactWarmStart::restore_checkpoint(CheckpointReader& in) {
    const std::int64_t unknowns = in.integer("warm_start_unknowns");
    clear();
    if (unknowns < 0) return;
    const std::int64_t contacts = in.integer("warm_start_contacts");
    if (contacts < 0) throw CheckpointError("checkpoint: " + in.section_name() + ": a negative contact count");
    RowMatrix normal, tangent;
    restore_rows(in, "warm_start_normal", static_cast<Index>(contacts), static_cast<Index>(unknowns), normal);
    restore_rows(in, "warm_start_tangent", static_cast<Index>(2 * contacts), static_cast<Index>(unknowns), tangent);
    VectorX lambda_n(static_cast<Index>(contacts)), lambda_f(static_cast<Index>(2 * contacts));
    in.vector("warm_start_normal_forces", lambda_n);
    in.vector("warm_start_friction_forces", lambda_f);
    keep(normal, tangent, lambda_n, lambda_f);
}

}  // namespace soma::ncp
