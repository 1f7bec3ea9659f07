#pragma once
// MADE: masked autoencoders for distribution estimation (Germain, Gregor, Murray & Larochelle 2015).
// Every unit gets a degree; a weight is kept only where it cannot carry information from input d to
// an output of degree <= d, so output d depends only on inputs of smaller degree (the Jacobian is
// strictly triangular in the degree ordering). MAF and IAF flows are built from it.
#include <cstdint>
#include <string>
#include <vector>

#include "variate/nn/functional.hpp"
#include "variate/nn/linear.hpp"

namespace variate::nn {

using Degrees = std::vector<std::int64_t>;

/// The degrees of `count` inputs in their natural order: 1, 2, ..., count.
Degrees made_input_degrees(std::int64_t count);
/// The degrees of `count` inputs in reversed order: count, ..., 2, 1. Flows stacked with natural
/// and reversed orders alternate, so that every coordinate gets to depend on every other.
Degrees made_reversed_degrees(std::int64_t count);
/// The degrees of a hidden layer of `width` units for `inputs` inputs: 1, 2, ..., inputs - 1
/// repeated (1 when inputs == 1). A deterministic assignment instead of the paper's sampled one,
/// so that every degree is present when width >= inputs - 1 and no unit is useless.
Degrees made_hidden_degrees(std::int64_t inputs, std::int64_t width);
/// The (out, in) 0/1 mask between units of degrees `in` and `out`: out >= in for a hidden layer,
/// out > in (strict) for the output layer (equation 12 of the paper and the output mask after it).
Tensor made_mask(const Degrees& in, const Degrees& out, bool output_layer, DType dtype = DType::f64);

/// A MADE network: MaskedLinear layers through the hidden widths with an activation between them,
/// and an output layer of outputs_per_input * D units, unit p * D + d having the degree of input d
/// (so reshaping the output to (..., outputs_per_input, D) gives one vector per parameter, such
/// as a shift and a log-scale). Parameters "layers.<i>.weight", "layers.<i>.bias".
///
/// With a context of C > 0 (Kingma et al. 2016's h, section 4: an extra input of inverse
/// autoregressive flow's networks), every layer, the output layer included, also sees the whole
/// context through an unmasked linear map without bias, "context.<i>.weight" (width, C): the outputs
/// then depend on the inputs autoregressively, as before, and every one on the context (even those
/// of the first input in the order, which no hidden unit reaches).
class Made : public Layer {
 public:
  /// The MADE's outputs per input, activation and dtype.
  struct Options {
    std::int64_t outputs_per_input = 1;
    ActivationKind activation = ActivationKind::relu;
    DType dtype = DType::f64;
    /// The context's size C; 0 for none (forward(x) only).
    std::int64_t context = 0;
  };
  /// `input_degrees`: a permutation of 1..D (the autoregressive order); hidden widths may be empty.
  Made(Degrees input_degrees, const std::vector<std::int64_t>& hidden, random::Key key, Options options);
  /// Inputs in their natural order.
  Made(std::int64_t inputs, const std::vector<std::int64_t>& hidden, random::Key key, Options options)
      : Made(made_input_degrees(inputs), hidden, key, options) {}
  Made(std::int64_t inputs, const std::vector<std::int64_t>& hidden, random::Key key)
      : Made(made_input_degrees(inputs), hidden, key, Options{}) {}
  /// Without a context (Options::context == 0).
  Tensor forward(const Tensor& x) const override;
  /// With a context (..., C) whose batch axes broadcast against x's (one h for several draws of x).
  Tensor forward(const Tensor& x, const Tensor& context) const;
  void visit_parameters(const ParameterVisitor& visit) override;
  std::string describe() const override;

  const Degrees& input_degrees() const { return input_degrees_; }
  std::int64_t context_size() const { return context_size_; }

 private:
  void check_input(const Tensor& x) const;

  Degrees input_degrees_;
  std::vector<MaskedLinear> layers_;
  std::vector<Linear> context_layers_;  // one per layer, when there is a context
  std::int64_t context_size_;
  ActivationKind activation_;
};

}  // namespace variate::nn
