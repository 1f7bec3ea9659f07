#pragma once
// First-order optimizers over a module's Parameters. step(grads) updates every parameter in place
// (the module's own tensors, so other handles to them see the new values) from grads[i], the
// gradient for params.value(i) (as nn::value_and_grad writes them). The optimizer's buffers
// (momentum, moments) are allocated once, at construction, so a step allocates nothing.
//
//   nn::Parameters params(mlp);
//   nn::AdamW opt(params, nn::cosine_decay(1e-3, steps));
//   std::vector<Tensor> grads(params.size());
//   for (std::int64_t t = 0; t < steps; ++t) {
//     nn::value_and_grad(params, loss, grads);
//     nn::clip_grad_norm(grads, 1.0);
//     opt.step(grads);
//   }
//   nn::save_tensors("opt.ckpt", opt.state());     // later: opt.load_state(nn::load_tensors(...))
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "variate/nn/module.hpp"
#include "variate/nn/schedule.hpp"

namespace variate::nn {

/// Updates a module's parameters from their gradients, one step at a time.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// Updates every parameter from its gradient, at the schedule's rate for this step. Each grad
  /// must have its parameter's shape and dtype (f32 or f64).
  void step(std::span<const Tensor> grads);
  /// The number of steps taken (the schedule's argument for the next step).
  std::int64_t steps_taken() const { return steps_; }
  /// The rate the next step will use.
  double learning_rate() const { return schedule_(steps_); }
  /// The parameters this optimizer updates.
  Parameters& parameters() const { return params_; }

  /// The step count ("<kind>.step", an i64 scalar) and copies of the buffers, named
  /// "<kind>.<buffer>.<parameter name>" ("adam.m.0.weight"), for save_tensors.
  std::vector<NamedTensor> state() const;
  /// Restores what state() returned, so that the following steps are those the saved optimizer
  /// would have taken, bit for bit. The names must be exactly this optimizer's and each buffer must
  /// have its parameter's shape and dtype; otherwise it throws and changes nothing.
  void load_state(std::span<const NamedTensor> state);

 protected:
  /// `buffers` names the per-parameter tensors the optimizer keeps, each starting at zero.
  Optimizer(std::string kind, Parameters& params, Schedule schedule, std::vector<std::string> buffers);
  /// Updates parameter i from its gradient; `t` counts steps from 1 (this one included).
  virtual void update(std::size_t i, const Tensor& grad, double lr, std::int64_t t) = 0;
  Tensor& buffer(std::size_t b, std::size_t i) { return buffers_[b * params_.size() + i]; }
  Parameters& params_;

 private:
  std::string kind_;
  Schedule schedule_;
  std::vector<std::string> buffer_names_;
  std::vector<Tensor> buffers_;  // buffer b of parameter i at b * params.size() + i
  std::int64_t steps_ = 0;
};

/// Stochastic gradient descent's hyperparameters: momentum, Nesterov, weight decay.
struct SgdOptions {
  double momentum = 0;
  /// Nesterov momentum as Sutskever et al. 2013 and PyTorch write it: p -= lr (g + momentum v).
  bool nesterov = false;
  /// L2 penalty: adds weight_decay * p to the gradient.
  double weight_decay = 0;
};

/// Stochastic gradient descent: v = momentum v + g, p -= lr v (PyTorch's form, no dampening).
class Sgd : public Optimizer {
 public:
  Sgd(Parameters& params, Schedule lr, SgdOptions options = {});

 private:
  void update(std::size_t i, const Tensor& grad, double lr, std::int64_t t) override;
  SgdOptions options_;
};

/// Adam's hyperparameters (Kingma & Ba 2015), with decoupled weight decay as AdamW.
struct AdamOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  /// Adam: an L2 penalty added to the gradient. AdamW: the decoupled decay p -= lr wd p.
  double weight_decay = 0;
};

/// Adam (Kingma & Ba 2015, Algorithm 1, with eps added to the bias-corrected sqrt(v)):
/// m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, p -= lr m/(1 - b1^t) / (sqrt(v/(1 - b2^t)) + eps).
class Adam : public Optimizer {
 public:
  Adam(Parameters& params, Schedule lr, AdamOptions options = {});

 protected:
  Adam(std::string kind, Parameters& params, Schedule lr, AdamOptions options, bool decoupled);

 private:
  void update(std::size_t i, const Tensor& grad, double lr, std::int64_t t) override;
  AdamOptions options_;
  bool decoupled_;
};

/// AdamW (Loshchilov & Hutter 2019): Adam with the weight decay applied to the parameters,
/// p -= lr weight_decay p, instead of added to the gradient, so that it is not rescaled by the
/// moments. weight_decay defaults to 0.01, as PyTorch's.
class AdamW : public Adam {
 public:
  AdamW(Parameters& params, Schedule lr, AdamOptions options = default_options());
  static AdamOptions default_options() {
    AdamOptions options;
    options.weight_decay = 0.01;
    return options;
  }
};

/// Scales the gradients, in place, so that their joint L2 norm is at most `max_norm` (by
/// max_norm / (norm + 1e-6), as PyTorch's clip_grad_norm_), and returns the norm before clipping.
/// A gradient whose storage is shared with another tensor is copied first, not overwritten. A
/// non-finite norm is returned with the gradients unchanged.
double clip_grad_norm(std::span<Tensor> grads, double max_norm);

}  // namespace variate::nn
