#include "variate/nn/made.hpp"

#include <algorithm>

#include "variate/autodiff/ops.hpp"

namespace variate::nn {

Degrees made_input_degrees(std::int64_t count) {
  VARIATE_CHECK(count >= 1, "made_input_degrees", "the number of inputs must be >= 1, got ", count);
  Degrees d(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) d[std::size_t(i)] = i + 1;
  return d;
}

Degrees made_reversed_degrees(std::int64_t count) {
  Degrees d = made_input_degrees(count);
  std::reverse(d.begin(), d.end());
  return d;
}

Degrees made_hidden_degrees(std::int64_t inputs, std::int64_t width) {
  VARIATE_CHECK(inputs >= 1 && width >= 1, "made_hidden_degrees", "inputs and width must be >= 1, got ", inputs,
                " and ", width);
  const std::int64_t cycle = std::max<std::int64_t>(1, inputs - 1);
  Degrees d(static_cast<std::size_t>(width));
  for (std::int64_t j = 0; j < width; ++j) d[std::size_t(j)] = j % cycle + 1;
  return d;
}

Tensor made_mask(const Degrees& in, const Degrees& out, bool output_layer, DType dtype) {
  std::vector<double> mask(out.size() * in.size());
  for (std::size_t o = 0; o < out.size(); ++o)
    for (std::size_t i = 0; i < in.size(); ++i)
      mask[o * in.size() + i] = (output_layer ? out[o] > in[i] : out[o] >= in[i]) ? 1.0 : 0.0;
  return prim::cast(Tensor::from(mask, Shape{std::int64_t(out.size()), std::int64_t(in.size())}), dtype);
}

Made::Made(Degrees input_degrees, const std::vector<std::int64_t>& hidden, random::Key key, Options options)
    : input_degrees_(std::move(input_degrees)), context_size_(options.context), activation_(options.activation) {
  const auto d = std::int64_t(input_degrees_.size());
  Degrees sorted = input_degrees_;
  std::sort(sorted.begin(), sorted.end());
  VARIATE_CHECK(d >= 1 && sorted == made_input_degrees(d), "Made", "the input degrees must be a permutation of 1..", d,
                ", got ", d, " degrees");
  VARIATE_CHECK(options.outputs_per_input >= 1, "Made", "outputs_per_input must be >= 1, got ",
                options.outputs_per_input);
  VARIATE_CHECK(options.context >= 0, "Made", "the context size must be >= 0, got ", options.context);
  Degrees previous = input_degrees_;
  for (std::size_t i = 0; i < hidden.size(); ++i) {
    Degrees next = made_hidden_degrees(d, hidden[i]);
    layers_.emplace_back(made_mask(previous, next, false, options.dtype), random::fold_in(key, i), options.dtype);
    previous = std::move(next);
  }
  Degrees output;
  for (std::int64_t p = 0; p < options.outputs_per_input; ++p)
    output.insert(output.end(), input_degrees_.begin(), input_degrees_.end());
  layers_.emplace_back(made_mask(previous, output, true, options.dtype), random::fold_in(key, hidden.size()),
                       options.dtype);
  if (options.context > 0)
    for (std::size_t i = 0; i < layers_.size(); ++i)
      context_layers_.emplace_back(options.context, layers_[i].linear.out_features(),
                                   random::fold_in(random::fold_in(key, "context"), i), options.dtype, /*bias=*/false);
}

void Made::check_input(const Tensor& x) const {
  VARIATE_CHECK(x.defined() && x.rank() >= 1 && x.dim(-1) == std::int64_t(input_degrees_.size()), describe(),
                "the input's last dim must be ", input_degrees_.size(), ", got shape ",
                x.defined() ? x.shape().str() : std::string("undefined"));
}

Tensor Made::forward(const Tensor& x) const {
  check_input(x);
  VARIATE_CHECK(context_size_ == 0, describe(), "takes a context of size ", context_size_,
                "; call forward(x, context)");
  Tensor h = x;
  for (std::size_t i = 0; i + 1 < layers_.size(); ++i) h = activate(activation_, layers_[i](h));
  return layers_.back()(h);
}

Tensor Made::forward(const Tensor& x, const Tensor& context) const {
  check_input(x);
  VARIATE_CHECK(context_size_ > 0, describe(), "takes no context; call forward(x)");
  VARIATE_CHECK(context.defined() && context.rank() >= 1 && context.dim(-1) == context_size_, describe(),
                "the context's last dim must be ", context_size_, ", got shape ",
                context.defined() ? context.shape().str() : std::string("undefined"));
  Tensor h = x;
  for (std::size_t i = 0; i + 1 < layers_.size(); ++i)
    h = activate(activation_, layers_[i](h) + context_layers_[i](context));
  return layers_.back()(h) + context_layers_.back()(context);
}

void Made::visit_parameters(const ParameterVisitor& visit) {
  for (std::size_t i = 0; i < layers_.size(); ++i) visit_child("layers." + std::to_string(i), layers_[i], visit);
  for (std::size_t i = 0; i < context_layers_.size(); ++i)
    visit_child("context." + std::to_string(i), context_layers_[i], visit);
}

std::string Made::describe() const {
  std::string out = "Made(inputs=" + std::to_string(input_degrees_.size()) + ", widths=[";
  for (std::size_t i = 0; i < layers_.size(); ++i)
    out += (i ? ", " : "") + std::to_string(layers_[i].linear.out_features());
  out += "]";
  return context_size_ > 0 ? out + ", context=" + std::to_string(context_size_) + ")" : out + ")";
}

}  // namespace variate::nn
