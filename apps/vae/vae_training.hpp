#pragma once
// Adam on the VAE's parameters, on one device or model-parallel (issue 22 item 6, as in Edward2's
// figure): with the IAF posterior's flow layers placed on the thread devices of a mesh (axis
// kModelAxis), device 0 holds the encoder, the decoder and its own layers and computes the bound;
// every other device holds only its layers, runs them on the activations passed to it
// (distribute::PipelinedFlow), and updates them with its own Adam from the gradients passed back.
// Adam is per element, so the run is the one-device run, to rounding.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "networks.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/nn/nn.hpp"

namespace variate::cli::vae {

/// The parameters of `vae` that device `device` holds: on device 0 all but the flow layers placed
/// elsewhere; on another, its flow layers ("encoder.iaf<k>.*" placed on it).
class DeviceShare final : public nn::Module {
 public:
  DeviceShare(Vae& vae, int device) : vae_(vae), device_(device) {}
  void visit_parameters(const nn::ParameterVisitor& visit) override;
  std::string describe() const override;

 private:
  Vae& vae_;
  int device_;
};

class VaeTraining {
 public:
  /// One device when `vae`'s posterior has no pipelined flow, else a mesh of as many thread
  /// devices as its flow's placement names.
  VaeTraining(Vae& vae, const nn::Schedule& learning_rate);
  VaeTraining(const VaeTraining&) = delete;
  VaeTraining& operator=(const VaeTraining&) = delete;

  int devices() const { return int(optimizers_.size()); }
  /// Device 0's optimizer: its step count numbers the minibatches.
  const nn::Adam& home_optimizer() const { return *optimizers_[0]; }
  /// Parameter elements on all devices together.
  std::int64_t parameter_count() const;

  /// nn::train on every device: device 0 with `loss`, the others with their side of the flow's
  /// `passes_per_step` passes per step. `options.checkpoint` is device 0's; device d writes its
  /// own next to it with ".device<d>" appended. Returns device 0's result.
  nn::TrainResult train(std::int64_t examples, random::Key key, const nn::BatchLoss& loss, int passes_per_step,
                        const nn::TrainOptions& options);

 private:
  Vae& vae_;
  std::optional<distribute::Mesh> mesh_;
  std::vector<std::unique_ptr<DeviceShare>> shares_;
  std::vector<std::unique_ptr<nn::Parameters>> params_;
  std::vector<std::unique_ptr<nn::Adam>> optimizers_;
};

}  // namespace variate::cli::vae
