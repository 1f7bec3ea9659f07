#pragma once
// What the Wishart and inverse Wishart families (and their Cholesky forms) share: parameter checks,
// the multivariate log-gamma, Bartlett's decomposition and the log densities written through
// Cholesky factors (private to src/distributions).
#include <cstdint>

#include "variate/autodiff/ops.hpp"
#include "variate/random/key.hpp"

namespace variate::dist::detail {

/// The dimension p of a square (..., p, p) scale; throws naming the family and role otherwise, or
/// when it is not finite.
std::int64_t check_square_scale(const char* family, const char* role, const Tensor& scale);
/// df > p - 1 (and finite), recorded with host_check.
void check_wishart_df(const char* family, const Tensor& df, std::int64_t p);
/// The Cholesky factor of a symmetric positive-definite scale_matrix, with errors naming it.
/// The batch shape of df and a square scale's leading dims, broadcast; checks both.
Shape checked_batch(const char* family, const char* role, const Tensor& df, const Tensor& scale);
/// [p, p] for a square scale; checks it first (a base's arguments are evaluated in any order).
Shape event_of(const char* family, const char* role, const Tensor& scale);
/// Checks that a value has shape (..., p, p).
void check_value(const char* family, const Tensor& value, std::int64_t p);
/// x with two trailing dims of 1, to broadcast against matrices.
Tensor matrix_batch(const Tensor& x);

Tensor scale_tril_of(const char* family, const Tensor& scale_matrix, DType dtype);
/// Checks that scale_tril is lower triangular with a positive diagonal (host_check).
void check_scale_tril(const char* family, const Tensor& scale_tril);

/// log Gamma_p(a) = p (p - 1) / 4 log(pi) + sum_(j=1)^p lgamma(a + (1 - j) / 2), differentiable in a.
Tensor log_multivariate_gamma(const Tensor& a, std::int64_t p);

/// Bartlett's factor A (Bartlett 1933; Anderson 2003, "An Introduction to Multivariate Statistical
/// Analysis", thm. 7.2.1): lower triangular with A_ii = sqrt(chi2(df - i)) (rows from 0) and
/// standard normal entries below the diagonal, of shape sample_shape + batch + [p, p]; A A^T ~
/// Wishart(df, I). Differentiable in df through the chi-square (gamma) draws' implicit gradients.
Tensor bartlett_factor(random::Key key, const Tensor& df, std::int64_t p, const Shape& batch_shape,
                       const Shape& sample_shape, DType dtype);

/// log Wishart(W | df, S) at W = L_W L_W^T, S = L_S L_S^T:
///   (df - p - 1)/2 log|W| - tr(S^-1 W)/2 - df p/2 log 2 - df/2 log|S| - log Gamma_p(df/2),
/// with tr(S^-1 W) = |L_S^-1 L_W|_F^2.
Tensor wishart_log_density(const Tensor& df, const Tensor& scale_tril, const Tensor& value_tril);
/// log InverseWishart(X | df, S) at X = L_X L_X^T:
///   df/2 log|S| - df p/2 log 2 - log Gamma_p(df/2) - (df + p + 1)/2 log|X| - tr(S X^-1)/2,
/// with tr(S X^-1) = |L_X^-1 L_S|_F^2.
Tensor inverse_wishart_log_density(const Tensor& df, const Tensor& scale_tril, const Tensor& value_tril);
/// log|det J| of L -> L L^T on lower entries: p log 2 + sum_i (p - i) log L_ii (rows from 0).
Tensor outer_product_log_jacobian(const Tensor& value_tril);

/// The (p, p) identity of `dtype`.
Tensor identity_matrix(std::int64_t p, DType dtype);
/// `value` where `inside` (batch-shaped) holds, else the identity: a point on which a Cholesky
/// factorization cannot fail, so that masked values keep finite gradients.
Tensor inside_or_identity(const Tensor& inside, const Tensor& value);

}  // namespace variate::dist::detail
