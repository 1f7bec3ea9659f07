#pragma once
// A small VAE whose posterior is a Gaussian followed by inverse autoregressive flow layers placed on
// the devices of the axis "model" (distribute::PipelinedFlow), with or without the encoder's
// context h (dist::ConditionalInverseAutoregressiveFlow, which the context follows), shared by the thread-device tests
// (tests/distribute/pipelined_flow_test.cpp) and the MPI tests (mpi_test.cpp): its loss and
// gradients on a mesh are compared with the same VAE's without one (model-parallel equals
// one-device, issue 22).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/distribute/local_program.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distribute/pipelined_flow.hpp"
#include "variate/distributions/conditional_inverse_autoregressive_flow.hpp"
#include "variate/distributions/draw_caching_transformed_distribution.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/inverse_autoregressive_flow.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/inference/vi_elbo.hpp"
#include "variate/nn/nn.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::testing::pipelined {

constexpr std::int64_t kPixels = 12, kHidden = 10, kLatent = 4, kBatch = 5;
constexpr const char* kAxis = "model";

struct FlowVae : nn::Module {
  nn::Linear enc{kPixels, kHidden, random::Key(1)}, loc{kHidden, kLatent, random::Key(2)},
      log_scale{kHidden, kLatent, random::Key(3)}, dec{kLatent, kHidden, random::Key(4)},
      out{kHidden, kPixels, random::Key(5)};
  std::vector<std::shared_ptr<nn::Module>> layers;
  std::shared_ptr<distribute::PipelinedFlow> flow;
  bool with_context;

  // Layers alternate between the natural and the reversed autoregressive order; with a context,
  // each sees the encoder's hidden layer.
  explicit FlowVae(std::vector<int> placement, bool context = false) : with_context(context) {
    std::vector<BijectorPtr> bijectors;
    std::vector<ConditionalBijectorPtr> conditional;
    for (std::size_t k = 0; k < placement.size(); ++k) {
      const nn::Degrees order = k % 2 == 1 ? nn::made_reversed_degrees(kLatent) : nn::Degrees{};
      const random::Key key(100 + k);
      if (context) {
        auto layer = std::make_shared<dist::ConditionalInverseAutoregressiveFlow>(
            kLatent, kHidden, key,
            dist::ConditionalIafOptions{.hidden = {8, 8}, .order = order, .activation = nn::ActivationKind::tanh});
        conditional.push_back(layer);
        layers.push_back(layer);
      } else {
        auto layer = std::make_shared<dist::InverseAutoregressiveFlow>(
            kLatent, key,
            dist::AutoregressiveFlowOptions{.hidden = {8, 8}, .order = order, .activation = nn::ActivationKind::tanh});
        bijectors.push_back(layer);
        layers.push_back(layer);
      }
    }
    flow = context ? std::make_shared<distribute::PipelinedFlow>(conditional, std::move(placement), kAxis)
                   : std::make_shared<distribute::PipelinedFlow>(bijectors, std::move(placement), kAxis);
  }

  void visit_parameters(const nn::ParameterVisitor& visit) override {
    visit_share(
        visit, [](int) { return true; }, true);
  }
  std::string describe() const override { return "FlowVae"; }

  // The encoder and decoder (when `networks`) and the flow layers whose device passes `mine`.
  template <class Mine>
  void visit_share(const nn::ParameterVisitor& visit, Mine mine, bool networks) {
    if (networks) {
      nn::visit_child("enc", enc, visit);
      nn::visit_child("loc", loc, visit);
      nn::visit_child("log_scale", log_scale, visit);
      nn::visit_child("dec", dec, visit);
      nn::visit_child("out", out, visit);
    }
    for (std::size_t k = 0; k < layers.size(); ++k)
      if (mine(flow->placement()[k])) nn::visit_child("flow" + std::to_string(k), *layers[k], visit);
  }

  // Minus the ELBO (or the IWAE bound) of x, summed over the batch.
  Tensor loss(const Tensor& x, random::Key key, int particles, bool iwae) const {
    auto model = [&] {
      auto z = Normal(Tensor::zeros(Shape{x.dim(0), kLatent}), 1.0, "z");
      tracing::Condition data({{"x", x}});
      Bernoulli(Logits{out(tanh(dec(z)))}, "x");
    };
    const Tensor h = tanh(enc(x));
    const auto base = std::make_shared<dist::Independent>(std::make_shared<dist::Normal>(loc(h), exp(log_scale(h))), 1);
    const auto q = std::make_shared<dist::DrawCachingTransformedDistribution>(
        base, with_context ? flow->given(h) : BijectorPtr(flow));
    auto guide = [&] { RandomVariable(q, "z"); };
    if (iwae) return -inference::iwae_bound(model, guide, key, {.particles = particles, .batch_ndims = 1}).surrogate;
    return -inference::elbo(model, guide, key, {.particles = particles, .analytic_kl = true, .batch_ndims = 1})
                .surrogate;
  }
};

/// The parameters one device holds: on the home device (0) the encoder, the decoder and its own
/// flow layers; on any other, its own flow layers only.
class DeviceShare final : public nn::Module {
 public:
  DeviceShare(FlowVae& vae, int device) : vae_(vae), device_(device) {}
  void visit_parameters(const nn::ParameterVisitor& visit) override {
    vae_.visit_share(
        visit, [this](int owner) { return owner == device_; }, device_ == 0);
  }
  std::string describe() const override { return "DeviceShare(" + std::to_string(device_) + ")"; }

 private:
  FlowVae& vae_;
  int device_;
};

/// 0/1 pixels, the same on every process.
inline Tensor pixels() {
  std::vector<double> v(std::size_t(kBatch * kPixels));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = double((i * 7 + i / 5) % 5 < 2);
  return Tensor::from(v, Shape{kBatch, kPixels});
}

struct Step {
  double loss = 0;
  std::map<std::string, Tensor> grads;  // by parameter name
};

// The loss and the gradients of the parameters in `module`.
template <class Loss>
Step step_of(nn::Module& module, Loss&& loss) {
  nn::Parameters params(module);
  std::vector<Tensor> grads(params.size());
  Step step;
  step.loss = nn::value_and_grad(params, loss, grads).item();
  for (std::size_t i = 0; i < params.size(); ++i) step.grads[params.name(i)] = grads[i];
  return step;
}

/// One gradient step of `device` inside Mesh::run over kAxis: the home device's loss, or this
/// device's side of the flow's passes (one per particle), with respect to the device's share.
inline Step device_step(FlowVae& vae, int device, const Tensor& x, random::Key key, int particles, bool iwae) {
  DeviceShare share(vae, device);
  return step_of(share, [&] {
    if (device == 0) {
      const distribute::LocalProgramScope whole_model_here;
      return vae.loss(x, key, particles, iwae);
    }
    Tensor total = vae.flow->serve();
    for (int i = 1; i < particles; ++i) total = total + vae.flow->serve();
    return total;
  });
}

/// The same step without a mesh: every layer on the calling thread.
inline Step one_device_step(FlowVae& vae, const Tensor& x, random::Key key, int particles, bool iwae) {
  return step_of(vae, [&] { return vae.loss(x, key, particles, iwae); });
}

/// The largest |a - b| over the gradients of `part`, each of which `whole` must have.
inline double max_abs_difference(const Step& part, const Step& whole) {
  double worst = 0;
  for (const auto& [name, grad] : part.grads) {
    const auto it = whole.grads.find(name);
    if (it == whole.grads.end()) return INFINITY;
    worst = std::max(worst, max(abs(grad - it->second)).item());
  }
  return worst;
}

}  // namespace variate::testing::pipelined
