#pragma once
// What the parts of one device's `variate sample` run share: the job's options, the model, the
// sampler's options, the space the chains move on and where the device runs.
#include "models.hpp"
#include "sample_job.hpp"
#include "variate/inference/laplace.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/unconstrained.hpp"

namespace variate::cli {

/// Where this device runs: its index among `devices` (over `ranks` MPI ranks) and its kernel threads.
struct Placement {
  int device = 0, devices = 1, ranks = 1, threads = 1;
  bool writer() const { return device == 0; }
};

struct SampleContext {
  const SampleJobOptions& options;
  const Model& model;
  const inference::SamplerOptions& sampler;
  const inference::Unconstrained& space;
  Placement at;
  /// --init laplace: the chains run on the coordinates it whitens.
  const inference::LaplaceApproximation* laplace = nullptr;
  bool nuts() const { return sampler.algorithm == inference::Algorithm::nuts; }
};

}  // namespace variate::cli
