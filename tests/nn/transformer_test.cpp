// Local causal attention, the Transformer block and the autoregressive Transformer: values against
// attention with an explicit mask, gradients against finite differences, and one-position decoding
// against the forward pass over the whole sequence.
#include "variate/nn/transformer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/nn/autoregressive_transformer.hpp"
#include "variate/nn/functional.hpp"
#include "variate/random/samplers.hpp"

namespace variate::nn {
namespace {

using testing::expect_ad;
using testing::random_tensor;
using S = std::span<const Tensor>;

void expect_near(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.shape(), b.shape());
  for (std::int64_t i = 0; i < a.numel(); ++i) ASSERT_NEAR(a.at(i), b.at(i), tol) << "element " << i;
}

// (T, T): query t sees key s when s <= t and s is in t's block of `block` or the one before.
Tensor explicit_local_mask(std::int64_t t, std::int64_t block) {
  std::vector<double> mask(std::size_t(t * t), 0.0);
  for (std::int64_t q = 0; q < t; ++q)
    for (std::int64_t s = std::max<std::int64_t>(0, (q / block - 1) * block); s <= q; ++s)
      mask[std::size_t(q * t + s)] = 1;
  return ne(Tensor::from(mask, Shape{t, t}), Tensor::scalar(0.0, DType::f64));
}

TEST(LocalCausalAttention, EqualsAttentionWithTheExplicitMask) {
  const Tensor q = random_tensor({2, 3, 12, 4}, 1), k = random_tensor({2, 3, 12, 4}, 2),
               v = random_tensor({2, 3, 12, 4}, 3);
  for (std::int64_t block : {1, 3, 4, 6, 12})
    expect_near(local_causal_attention(q, k, v, block),
                scaled_dot_product_attention(q, k, v, explicit_local_mask(12, block)), 1e-12);
}

TEST(LocalCausalAttention, GradientsMatchFiniteDifferences) {
  const Tensor q = random_tensor({2, 6, 3}, 4), k = random_tensor({2, 6, 3}, 5), v = random_tensor({2, 6, 3}, 6);
  expect_ad([](S a) { return local_causal_attention(a[0], a[1], a[2], 2); }, {q, k, v});
}

TEST(LocalCausalAttention, TheBlockMustDivideTheLength) {
  const Tensor q = random_tensor({5, 2}, 7);
  EXPECT_ERROR(local_causal_attention(q, q, q, 2), "the block length must divide the 5 positions, got 2");
}

TEST(TransformerBlock, DecodingOnePositionAtATimeEqualsTheForwardPass) {
  for (std::int64_t block : {0, 2, 3}) {
    const TransformerBlock layer(8, random::Key(8), {.num_heads = 2, .block_length = block});
    const Tensor x = random_tensor({3, 6, 8}, 9);
    const Tensor whole = layer(x);
    KeyValueCache cache;
    for (std::int64_t t = 0; t < 6; ++t)
      expect_near(layer.decode(index(permute(x, {1, 0, 2}), {t}), cache), index(permute(whole, {1, 0, 2}), {t}), 1e-12);
  }
}

TEST(TransformerBlock, GradientsMatchFiniteDifferences) {
  const TransformerBlock layer(4, random::Key(10),
                               {.num_heads = 2, .hidden = 6, .block_length = 2, .activation = ActivationKind::gelu});
  expect_ad([&](S a) { return layer(a[0]); }, {random_tensor({2, 4, 4}, 11)});
}

AutoregressiveTransformer small_network(std::int64_t block_length) {
  return AutoregressiveTransformer(
      {.length = 12, .embed_dim = 8, .layers = 2, .num_heads = 2, .block_length = block_length}, random::Key(12));
}

TEST(AutoregressiveTransformer, TheDecoderGivesTheLogitsOfTheWholeSequence) {
  const AutoregressiveTransformer net = small_network(4);
  const Tensor x = cast(lt(random::uniform(random::Key(13), Shape{5, 12}), Tensor::scalar(0.5)), DType::f64);
  const Tensor logits = net.logits(x);
  AutoregressiveTransformer::Decoder decoder(net, 5);
  for (std::int64_t t = 0; t < 12; ++t) {
    const Tensor step = decoder.next(t == 0 ? Tensor() : index(transpose(x), {t - 1}));
    expect_near(step, index(transpose(logits), {t}), 1e-12);
  }
  EXPECT_ERROR(decoder.next(index(transpose(x), {11})), "all 12 positions are decoded");
}

// The logit at position i, differentiated with respect to every input, on continuous random
// inputs: exactly zero at inputs i and after, and not all zero before.
TEST(AutoregressiveTransformer, ALogitDependsOnTheEarlierInputsAlone) {
  for (std::int64_t block : {0, 3}) {
    const AutoregressiveTransformer net = small_network(block);
    const Tensor x = random::uniform(random::Key(14), Shape{2, 12});
    for (std::int64_t i = 0; i < 12; ++i) {
      const Tensor g = grad([&](const Tensor& v) { return sum(slice(net.logits(v), 1, i, i + 1)); }, x);
      double before = 0;
      for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t j = 0; j < 12; ++j) {
          const double d = g.at(b * 12 + j);
          if (j >= i) {
            ASSERT_EQ(d, 0.0) << "logit " << i << ", input " << j << ", block " << block;
          }
          before += std::abs(d);
        }
      if (i > 0) {
        EXPECT_GT(before, 0.0) << "logit " << i << " ignores its inputs";
      }
    }
  }
}

TEST(AutoregressiveTransformer, BadOptionsAndInputsAreErrors) {
  EXPECT_ERROR(
      AutoregressiveTransformer({.length = 10, .embed_dim = 8, .num_heads = 2, .block_length = 4}, random::Key(0)),
      "block_length 4 must be 0 (no blocks) or divide the length 10");
  EXPECT_ERROR(AutoregressiveTransformer({.length = 10, .embed_dim = 6, .num_heads = 4}, random::Key(0)),
               "embed_dim 6 must be a multiple of num_heads 4");
  const AutoregressiveTransformer net = small_network(0);
  EXPECT_ERROR(net.logits(Tensor::zeros(Shape{2, 11})), "the input must be (B, 12) of dtype f64");
}

}  // namespace
}  // namespace variate::nn
