#pragma once
// The design matrix of the fused Bernoulli GLM in the layout its kernel reads (glm.cpp).
#include "variate/tensor/tensor.hpp"

namespace variate::cpu {

/// x (n x d, row-major, f64 or f32) as panels of W = Simd<T>::lanes rows: panel t holds d vectors,
/// the j-th being column j of rows tW, ..., tW + W - 1 (zero past row n). A multiply-add then serves
/// W rows at once with no lane sums afterwards, every load is whole and aligned, and each vector is
/// one cache line on AVX-512.
///
/// The copy is made once per x and kept while x lives elsewhere (x's storage is held, so its
/// address identifies it) and its elements are not handed out for writing again
/// (Tensor::write_count): a sampler's thousands of gradients share one. At most a few are kept,
/// the least recently used going first.
Tensor glm_panels(const Tensor& x);

}  // namespace variate::cpu
