#pragma once
// Randomized automatic differentiation (RAD; Oktay, McGreivy, Aduol, Beatson & Adams, "Randomized
// Automatic Differentiation", ICLR 2021). Inside a RadScope, a linear layer saves for its weight
// gradient an unbiased random sketch of its input instead of the input itself: k = ceil(f d) of the
// d values of each row, or k random projections of it. The backward pass regenerates the sketch's
// random choice from the key (nothing but the k values per row is stored) and expands the sketch to
// an unbiased estimate x_hat of the input, E[x_hat] = x, so the weight gradient g^T x_hat is
// unbiased. Input and bias gradients stay exact (they need the weight and the cotangent, not x),
// as do ReLU masks, so every path from a parameter to the loss crosses exactly one sampled factor
// and the whole gradient is unbiased. Memory shrinks; compute does not. A matmul a b (or a b^T)
// whose right operand is tracked and whose operands are matrices or batches of them is treated the
// same way, a's rows as the input and b as the weight. When b is an activation rather than a
// weight, a path may cross two sampled factors; they come from independent draws (each op has its
// own index in the key's stream), so their product, and the gradient, stay unbiased.
//
//   const autodiff::RadScope rad({.keep_fraction = 0.1, .key = random::fold_in(key, step).words});
//   auto [loss, grads] = value_and_grad(loss_fn, params...);
//
// The key is Philox's two key words (random::Key::words): autodiff sits below the random layer, so
// it runs the generator on raw words. Use a fresh key each step, or every step sees the same
// choice. keep_fraction = 1 takes the exact path.
//
// Compressed activations (ActNN; Chen, Zheng, Wang, Li, Stoica, Mahoney & Gonzalez, "ActNN:
// Reducing Training Memory Footprint via 2-Bit Activation Compressed Training", ICML 2021) sit
// behind the same configuration: with quantize_bits = b, what a linear layer saves (its input, or
// the sketch of it when keep_fraction < 1) is stored per group of a row's entries as b-bit codes
// packed 32 / b to an i32 word, with the group's minimum and step. Rounding is stochastic, up with
// probability equal to the remainder, keyed like the sketch, so the dequantized value is unbiased
// and so is the weight gradient.
//
//   const autodiff::RadScope actnn({.quantize_bits = 2, .key = random::fold_in(key, step).words});
#include <array>
#include <cstdint>

#include "variate/tensor/tensor.hpp"

namespace variate::autodiff {

enum class RadMode : std::uint8_t {
  with_replacement,     // k indices drawn uniformly with replacement, values scaled by d / k (the paper's)
  without_replacement,  // k distinct indices, scaled by d / k
  projection,           // k Rademacher projections x R, expanded as R (x R) / k
};

enum class RadSharing : std::uint8_t {
  per_example,  // each row of the batch its own choice (the paper's "different sample")
  shared,       // one choice for the whole batch ("same sample")
};

/// How randomized autodiff sketches what the backward pass saves: the fraction kept, the sampling
/// mode and whether examples share one choice.
struct RadConfig {
  double keep_fraction = 1.0;
  RadMode mode = RadMode::with_replacement;
  RadSharing sharing = RadSharing::per_example;
  std::array<std::uint32_t, 2> key{};
  /// Bits per saved value: 0 saves the values themselves; 1, 2, 4 or 8 saves them compressed, per
  /// group of quantize_group consecutive entries of a row (the last group of a row may be shorter).
  int quantize_bits = 0;
  std::int64_t quantize_group = 128;
};

namespace detail {
/// The active configuration and the index of the op asking, or nullptr when ops should save their
/// inputs exactly (no scope, keep fraction 1 without compression, or a second-order tape).
const RadConfig* rad_for_next_op(std::uint64_t* op_index);
}  // namespace detail

/// Makes linear layers and matmuls of this thread save sketches of their inputs while it lives;
/// scopes nest, the innermost applies. Each sketched op takes the next op index of the scope, so two layers never
/// share a choice.
class RadScope {
 public:
  explicit RadScope(const RadConfig& config);
  ~RadScope();
  RadScope(const RadScope&) = delete;
  RadScope& operator=(const RadScope&) = delete;

 private:
  friend const RadConfig* detail::rad_for_next_op(std::uint64_t* op_index);
  RadConfig config_;
  std::uint64_t next_op_ = 0;
  RadScope* enclosing_;
};

/// The number of values kept of d: ceil(f d), at least 1 and at most d.
std::int64_t rad_kept(double keep_fraction, std::int64_t d);

namespace detail {

/// The random choice of one sketch of `rows` x `d` inputs keeping k values per row: for the
/// sampling modes an i64 tensor of indices (r, k), for the projection a tensor of signs +-1
/// (r, d, k) of `dtype`, with r = rows, or 1 when shared. A pure function of (key, op_index).
Tensor rad_choice(const RadConfig& config, std::uint64_t op_index, std::int64_t rows, std::int64_t d, std::int64_t k,
                  DType dtype);
/// The sketch (rows, k) of x (rows, d) under `choice`: the chosen values, or the projections x R.
Tensor rad_sketch(RadMode mode, const Tensor& x, const Tensor& choice);
/// The unbiased estimate (rows, d) of x from its sketch: (d / k) times the chosen values scattered
/// back (repeats add), or R (x R) / k.
Tensor rad_expand(RadMode mode, const Tensor& sketch, const Tensor& choice, std::int64_t d);

/// Rows of values compressed by `quantize`: codes (rows, ceil(d b / 32)) i32, entry i of a row at
/// bits [i b mod 32, i b mod 32 + b) of word i b / 32; ranges (rows, groups, 2) holding each group's
/// minimum and step in the values' dtype; d the row length.
struct QuantizedRows {
  Tensor codes, ranges;
  std::int64_t d = 0;
};

/// The rounding draws for `rows` x `d` values: uniforms on (0, 1) in f64, a pure function of
/// (key, op_index), from a stream apart from rad_choice's.
Tensor rad_rounding_uniforms(const std::array<std::uint32_t, 2>& key, std::uint64_t op_index, std::int64_t rows,
                             std::int64_t d);
/// x (rows, d), on the CPU, as `bits`-bit codes per group of `group` entries of a row: with the
/// group's minimum m and step s = (max - m) / (2^bits - 1), t = (x - m) / s is rounded up when its
/// draw in `uniforms` (rows, d) is below t - floor(t), else down, so E[m + s code] = x.
QuantizedRows quantize(const Tensor& x, int bits, std::int64_t group, const Tensor& uniforms);
/// The values (rows, d) m + s code of compressed rows.
Tensor dequantize(const QuantizedRows& q, int bits, std::int64_t group);

/// What an op under `config` saves of its rows (r, d) for a weight gradient: their sketch, or the
/// rows themselves at keep fraction 1; as they are with an undefined second tensor, or compressed
/// to codes and ranges.
std::array<Tensor, 2> rad_save(const RadConfig& config, std::uint64_t op_index, const Tensor& rows);
/// The unbiased estimate (r, d) of the rows from what rad_save stored, under the same choices.
Tensor rad_estimate(const RadConfig& config, std::uint64_t op_index, const Tensor& stored, const Tensor& ranges,
                    std::int64_t d);

}  // namespace detail
}  // namespace variate::autodiff
