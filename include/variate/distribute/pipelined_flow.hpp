#pragma once
// A flow whose layers live on different devices of a mesh axis: model parallelism as in Edward2
// (Tran, Hoffman, Moore, Suter, Vasudevan, Radul, Johnson & Saurous 2018, "Simple, distributed, and
// accelerated probabilistic programming", section 3.2: a VAE whose flow layers sit on different
// devices). The flow's input and output stay on a home device (say 0, with the encoder and
// decoder); each layer runs on the device that holds it, the activation (and the log-determinant
// summed so far) passes from device to device with ppermute, and the gradients pass back through
// ppermute's transpose, so each device computes, and an optimizer there updates, only its own
// layers' parameters. Loss and gradients are those of the one-device flow (the same ops on the
// same values, in the same order).
//
//   auto flow = std::make_shared<distribute::PipelinedFlow>(
//       layers, distribute::place_layers(4, 2, distribute::LayerPlacement::contiguous), "model");
//   distribute::Mesh mesh(2, "model");
//   mesh.run_each([&](int device) {
//     nn::Parameters params(device_share[device]);  // the modules this device holds
//     std::vector<Tensor> grads(params.size());
//     if (device == 0) {  // the home device: the whole model alone, with `flow` in its guide
//       const distribute::LocalProgramScope whole_model_here;  // distribute/local_program.hpp
//       nn::value_and_grad(params, [&] { return -elbo(model, guide_with(flow), key).surrogate; }, grads);
//     } else {            // every other device: its layers' side of the pass
//       nn::value_and_grad(params, [&] { return flow->serve(); }, grads);
//     }
//     optimizer[device].step(grads);
//   });
//
// (tests/support/pipelined_vae_case.hpp is a complete small VAE written this way; `variate train
// --posterior iaf --devices N` trains the IWAE paper's VAE so.)
// Outside Mesh::run over its axis it is the plain flow: every layer runs on the calling thread.
//
// Its layers may instead be conditional (ConditionalBijector, such as an inverse autoregressive
// flow with a context from the encoder): the home device then maps with given(h), and the context h
// passes from device to device with the activation (its gradients back with theirs).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "variate/distributions/bijector.hpp"
#include "variate/distributions/conditional_bijector.hpp"

namespace variate::distribute {

enum class LayerPlacement { contiguous, round_robin };

/// The device of each of `layers` layers over `devices` devices: contiguous blocks (layer k on
/// device k * devices / layers) or round-robin (layer k on device k % devices). Throws
/// variate::Error when there are more devices than layers (a device would hold none) or fewer than 1.
std::vector<int> place_layers(int layers, int devices, LayerPlacement placement);

/// `layers` applied in order (layers[0] first, unlike Chain), layers[k] on device placement[k] of
/// `axis`. The layers must keep the shape of their input and have one forward_event_ndims.
class PipelinedFlow final : public Bijector,
                            public ConditionalBijector,
                            public std::enable_shared_from_this<PipelinedFlow> {
 public:
  PipelinedFlow(std::vector<BijectorPtr> layers, std::vector<int> placement, std::string axis, int home = 0);
  /// Conditional layers: the flow maps only at a context, through given().
  PipelinedFlow(std::vector<ConditionalBijectorPtr> layers, std::vector<int> placement, std::string axis, int home = 0);
  const char* name() const override { return "PipelinedFlow"; }

  /// On the home device (or outside a mesh): y after every layer. Remembers x and the summed
  /// log-determinant, so that forward_log_det_jacobian(x) of the same tensor needs no second pass.
  Tensor forward(const Tensor& x) const override;
  /// Outside a mesh only: the layers' inverses in reverse order.
  Tensor inverse(const Tensor& y) const override;
  Tensor forward_log_det_jacobian(const Tensor& x) const override;
  /// A flow of conditional layers at `context`: forward, forward_log_det_jacobian and inverse as
  /// above, each layer at the context. Throws unless the layers are conditional and this flow is
  /// held by a std::shared_ptr.
  BijectorPtr given(const Tensor& context) const override;
  int forward_event_ndims() const override { return event_ndims_; }
  Constraint forward_image(const Constraint& domain) const override;

  /// On a device other than home, inside Mesh::run: this device's side of one pass that the home
  /// device makes with forward (or forward_log_det_jacobian at a new x): it runs its own layers on
  /// the activations it receives and passes them on. Returns 0 (of `dtype`); differentiating it
  /// with respect to this device's layers' parameters gives their gradients of the home device's
  /// loss, which reach it through the backward transfers. Call it once per pass the home device
  /// makes (one per particle of an ELBO or IWAE bound).
  Tensor serve(DType dtype = DType::f64) const;

  /// The plain layers; empty for a flow of conditional layers, which conditional_layers() holds.
  const std::vector<BijectorPtr>& layers() const { return layers_; }
  const std::vector<ConditionalBijectorPtr>& conditional_layers() const { return conditional_layers_; }
  bool conditional() const { return !conditional_layers_.empty(); }
  const std::vector<int>& placement() const { return placement_; }
  const std::string& axis() const { return axis_; }
  int home() const { return home_; }

 private:
  class AtContext;
  struct Pass {
    Tensor y, log_det;
  };
  PipelinedFlow(std::vector<BijectorPtr> layers, std::vector<ConditionalBijectorPtr> conditional_layers,
                std::vector<int> placement, std::string axis, int home);
  // Layer k at the context (undefined for plain layers).
  BijectorPtr layer(std::size_t k, const Tensor& context) const;
  Pass run_pass(Tensor x, Tensor log_det, Tensor context) const;
  Pass home_pass(const Tensor& x, const Tensor& context) const;
  Tensor log_det_at(const Tensor& x, const Tensor& context) const;
  Tensor inverse_at(const Tensor& y, const Tensor& context) const;

  std::vector<BijectorPtr> layers_;                         // plain layers, or
  std::vector<ConditionalBijectorPtr> conditional_layers_;  // conditional ones
  std::vector<int> placement_;
  std::string axis_;
  int home_;
  int event_ndims_;
  // The last home pass: its input (storage and write count), context and summed log-determinant.
  struct Last {
    Tensor x, context, log_det;
    std::uint64_t writes = 0;
  };
  mutable std::mutex mutex_;
  mutable Last last_;
};

}  // namespace variate::distribute
