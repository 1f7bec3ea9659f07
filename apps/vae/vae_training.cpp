#include "vae_training.hpp"

#include <algorithm>
#include <string>

#include "variate/autodiff/ops.hpp"
#include "variate/distribute/local_program.hpp"

namespace variate::cli::vae {

namespace {

const distribute::PipelinedFlow* pipelined_flow_of(const Vae& vae) {
  const auto* iaf = dynamic_cast<const IafPosterior*>(vae.encoder.get());
  return iaf == nullptr ? nullptr : iaf->pipelined_flow();
}

// The device holding the parameter `name` of a VAE whose flow layers sit on `placement`.
int device_of(std::string_view name, const std::vector<int>& placement) {
  constexpr std::string_view prefix = "encoder.iaf";
  if (name.substr(0, prefix.size()) != prefix) return 0;
  const std::size_t layer = std::stoul(std::string(name.substr(prefix.size()))) - 1;
  return placement[layer];
}

}  // namespace

void DeviceShare::visit_parameters(const nn::ParameterVisitor& visit) {
  const distribute::PipelinedFlow* flow = pipelined_flow_of(vae_);
  vae_.visit_parameters([&](std::string_view name, Tensor& value) {
    if ((flow == nullptr ? 0 : device_of(name, flow->placement())) == device_) visit(name, value);
  });
}

std::string DeviceShare::describe() const { return "DeviceShare(device " + std::to_string(device_) + ")"; }

VaeTraining::VaeTraining(Vae& vae, const nn::Schedule& learning_rate) : vae_(vae) {
  const distribute::PipelinedFlow* flow = pipelined_flow_of(vae);
  int devices = 1;
  if (flow != nullptr)
    for (int d : flow->placement()) devices = std::max(devices, d + 1);
  if (flow != nullptr) mesh_.emplace(devices, kModelAxis);
  for (int d = 0; d < devices; ++d) {
    shares_.push_back(std::make_unique<DeviceShare>(vae, d));
    params_.push_back(std::make_unique<nn::Parameters>(*shares_.back()));
    optimizers_.push_back(std::make_unique<nn::Adam>(*params_.back(), learning_rate,
                                                     nn::AdamOptions{.beta1 = 0.9, .beta2 = 0.999, .eps = 1e-4}));
  }
}

std::int64_t VaeTraining::parameter_count() const {
  std::int64_t count = 0;
  for (const auto& p : params_) count += p->count();
  return count;
}

nn::TrainResult VaeTraining::train(std::int64_t examples, random::Key key, const nn::BatchLoss& loss,
                                   int passes_per_step, const nn::TrainOptions& options) {
  if (!mesh_) return nn::train(*optimizers_[0], examples, key, loss, options);
  const distribute::PipelinedFlow& flow = *pipelined_flow_of(vae_);
  const DType dtype = vae_.architecture.dtype;
  std::vector<nn::TrainResult> results(optimizers_.size());
  mesh_->run_each([&](int device) {
    nn::TrainOptions mine = options;
    if (device > 0) {
      if (!mine.checkpoint.empty()) mine.checkpoint += ".device" + std::to_string(device);
      mine.progress = nullptr;  // device 0 reports
    }
    const nn::BatchLoss serve = [&](std::span<const std::int64_t>) {
      Tensor total = flow.serve(dtype);
      for (int pass = 1; pass < passes_per_step; ++pass) total = total + flow.serve(dtype);
      return total;
    };
    // Device 0 computes the whole bound on its own (not one program split over the devices).
    const nn::BatchLoss home = [&](std::span<const std::int64_t> batch) {
      const distribute::LocalProgramScope whole_model_here;
      return loss(batch);
    };
    results[std::size_t(device)] =
        nn::train(*optimizers_[std::size_t(device)], examples, key, device == 0 ? home : serve, mine);
  });
  return results[0];
}

}  // namespace variate::cli::vae
