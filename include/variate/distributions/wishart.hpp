#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Wishart(df, scale_matrix S) over p x p symmetric positive-definite matrices W (event shape
/// [p, p]; batch shape = broadcast of df's shape and S's batch dims), df > p - 1 (Stan Functions
/// Reference, "Wishart distribution"; Anderson 2003, eq. 7.2.2):
///   log p(W) = (df - p - 1)/2 log|W| - tr(S^-1 W)/2 - df p/2 log 2 - df/2 log|S| - log Gamma_p(df/2),
/// log Gamma_p(a) = p (p - 1)/4 log(pi) + sum_(j=1)^p lgamma(a + (1 - j)/2), all evaluated through
/// the Cholesky factors of W and S. A density over the lower triangle; values that are not
/// symmetric positive definite get -inf. Samples by Bartlett's decomposition, W = L_S A A^T L_S^T,
/// differentiable in S (pathwise) and in df (the chi-square draws' implicit gradients).
/// E[W] = df S, Var(W_ij) = df (S_ij^2 + S_ii S_jj).
class Wishart final : public Distribution {
 public:
  Wishart(Tensor df, Tensor scale_matrix);

  const char* name() const override { return "Wishart"; }
  const Tensor& df() const { return df_; }
  const Tensor& scale_tril() const { return scale_tril_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::positive_definite(); }
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  Tensor df_, scale_tril_;
};

/// WishartCholesky(df, scale_tril L_S): the lower Cholesky factor L_W of W ~ Wishart(df, L_S L_S^T)
/// (Stan's wishart_cholesky; TFP's WishartTriL with input_output_cholesky). Values are lower
/// triangular with a positive diagonal (event shape [p, p]); with the Jacobian of L_W -> L_W L_W^T,
///   log p(L_W) = log Wishart(L_W L_W^T | df, L_S L_S^T) + p log 2 + sum_(i=0)^(p-1) (p - i) log L_W,ii
/// (Stan Functions Reference, "Wishart Cholesky distribution"). Samples L_S A with A Bartlett's
/// factor. No closed-form mean or variance.
class WishartCholesky final : public Distribution {
 public:
  WishartCholesky(Tensor df, Tensor scale_tril);

  const char* name() const override { return "WishartCholesky"; }
  const Tensor& df() const { return df_; }
  const Tensor& scale_tril() const { return scale_tril_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::lower_cholesky(); }

 private:
  Tensor df_, scale_tril_;
};

}  // namespace variate::dist
