#include "variate/nn/layers.hpp"

#include <sstream>

#include "variate/autodiff/ops.hpp"
#include "variate/nn/init.hpp"
#include "variate/random/samplers.hpp"

namespace variate::nn {

namespace {

std::string shape_of(const Tensor& x) { return x.defined() ? x.shape().str() : std::string("undefined"); }

}  // namespace

Conv2D::Conv2D(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size, random::Key key,
               Options options)
    : stride(options.stride), padding(options.padding) {
  VARIATE_CHECK(in_channels >= 1 && out_channels >= 1 && kernel_size >= 1, "Conv2D",
                "in_channels, out_channels and kernel_size must be >= 1, got ", in_channels, ", ", out_channels,
                " and ", kernel_size);
  VARIATE_CHECK(stride >= 1 && padding >= 0, "Conv2D", "stride must be >= 1 and padding >= 0, got stride ", stride,
                " and padding ", padding);
  const std::int64_t fan_in = in_channels * kernel_size * kernel_size;
  weight = fan_in_uniform(random::fold_in(key, "weight"), Shape{out_channels, in_channels, kernel_size, kernel_size},
                          fan_in, options.dtype);
  if (options.bias) bias = fan_in_uniform(random::fold_in(key, "bias"), Shape{out_channels}, fan_in, options.dtype);
}

Tensor Conv2D::forward(const Tensor& x) const {
  const std::int64_t k = weight.dim(2);
  const bool fits = x.defined() && x.rank() == 4 && x.dim(1) == weight.dim(1) && x.dim(2) + 2 * padding >= k &&
                    x.dim(3) + 2 * padding >= k;
  VARIATE_CHECK(fits, describe(), "the input must be (N, ", weight.dim(1), ", H, W) with H and W at least ",
                k - 2 * padding, ", got shape ", shape_of(x));
  return conv2d(x, weight, bias, stride, padding);
}

void Conv2D::visit_parameters(const ParameterVisitor& visit) {
  visit("weight", weight);
  if (bias.defined()) visit("bias", bias);
}

std::string Conv2D::describe() const {
  std::ostringstream out;
  out << "Conv2D(in_channels=" << weight.dim(1) << ", out_channels=" << weight.dim(0)
      << ", kernel_size=" << weight.dim(2) << ", stride=" << stride << ", padding=" << padding << ")";
  return out.str();
}

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim, random::Key key, DType dtype) {
  VARIATE_CHECK(num_embeddings >= 1 && embedding_dim >= 1, "Embedding",
                "num_embeddings and embedding_dim must be >= 1, got ", num_embeddings, " and ", embedding_dim);
  weight = random::normal(random::fold_in(key, "weight"), Shape{num_embeddings, embedding_dim}, dtype);
}

Tensor Embedding::forward(const Tensor& indices) const {
  VARIATE_CHECK(indices.defined() && (indices.dtype() == DType::i64 || indices.dtype() == DType::i32), describe(),
                "the indices must be an i32 or i64 tensor, got ",
                indices.defined() ? std::string(name(indices.dtype())) : std::string("undefined"));
  return take(weight, indices, 0);
}

void Embedding::visit_parameters(const ParameterVisitor& visit) { visit("weight", weight); }

std::string Embedding::describe() const {
  return "Embedding(num_embeddings=" + std::to_string(weight.dim(0)) +
         ", embedding_dim=" + std::to_string(weight.dim(1)) + ")";
}

LayerNorm::LayerNorm(std::int64_t dim, double eps, DType dtype)
    : weight(Tensor::ones(Shape{dim}, dtype)), bias(Tensor::zeros(Shape{dim}, dtype)), eps(eps) {
  VARIATE_CHECK(dim >= 1 && eps > 0, "LayerNorm", "dim must be >= 1 and eps > 0, got ", dim, " and ", eps);
}

Tensor LayerNorm::forward(const Tensor& x) const {
  VARIATE_CHECK(x.defined() && x.rank() >= 1 && x.dim(-1) == weight.dim(0), describe(), "the input's last dim must be ",
                weight.dim(0), ", got shape ", shape_of(x));
  return layer_norm(x, weight, bias, eps);
}

void LayerNorm::visit_parameters(const ParameterVisitor& visit) {
  visit("weight", weight);
  visit("bias", bias);
}

std::string LayerNorm::describe() const { return "LayerNorm(dim=" + std::to_string(weight.dim(0)) + ")"; }

std::string Activation::describe() const { return std::string("Activation(") + name(kind) + ")"; }

Dropout::Dropout(double p) : p(p) {
  VARIATE_CHECK(p >= 0 && p < 1, "Dropout", "the drop probability must be in [0, 1), got ", p);
}

std::string Dropout::describe() const {
  std::ostringstream out;
  out << "Dropout(p=" << p << ")";
  return out.str();
}

}  // namespace variate::nn
