#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// InverseWishart(df, scale_matrix S) over p x p symmetric positive-definite matrices X, the law of
/// W^-1 for W ~ Wishart(df, S^-1), df > p - 1 (Stan Functions Reference, "Inverse Wishart
/// distribution"):
///   log p(X) = df/2 log|S| - df p/2 log 2 - log Gamma_p(df/2) - (df + p + 1)/2 log|X| - tr(S X^-1)/2,
/// evaluated through the Cholesky factors of X and S. Values that are not symmetric positive
/// definite get -inf. Samples X = B^T B, B = A^-1 L_S^T with A Bartlett's factor (so that
/// X^-1 = L_S^-T A A^T L_S^-1 ~ Wishart(df, S^-1)), differentiable in S and df.
/// E[X] = S / (df - p - 1) for df > p + 1; Var(X_ij) = ((df - p + 1) S_ij^2 + (df - p - 1) S_ii S_jj)
/// / ((df - p)(df - p - 1)^2 (df - p - 3)) for df > p + 3 (+inf where they do not exist).
class InverseWishart final : public Distribution {
 public:
  InverseWishart(Tensor df, Tensor scale_matrix);

  const char* name() const override { return "InverseWishart"; }
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

/// InverseWishartCholesky(df, scale_tril L_S): the lower Cholesky factor L_X of X ~
/// InverseWishart(df, L_S L_S^T) (Stan's inv_wishart_cholesky). With the Jacobian of L_X -> L_X L_X^T,
///   log p(L_X) = log InverseWishart(L_X L_X^T | df, L_S L_S^T) + p log 2
///                + sum_(i=0)^(p-1) (p - i) log L_X,ii
/// (Stan Functions Reference, "Inverse Wishart Cholesky distribution"). Samples are the Cholesky
/// factors of InverseWishart draws. No closed-form mean or variance.
class InverseWishartCholesky final : public Distribution {
 public:
  InverseWishartCholesky(Tensor df, Tensor scale_tril);

  const char* name() const override { return "InverseWishartCholesky"; }
  const Tensor& df() const { return df_; }
  const Tensor& scale_tril() const { return scale_tril_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::lower_cholesky(); }

 private:
  Tensor df_, scale_tril_;
};

}  // namespace variate::dist
