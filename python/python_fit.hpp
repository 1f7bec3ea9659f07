#pragma once
// Sampling from Python: the tool's sampler options, the chains run on C++ threads with the GIL
// released, Ctrl-C stopping them as it stops the tool (the draws made so far are kept), and the
// draws as numpy arrays with (chain, draw, ...) axes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "python_model.hpp"
#include "sample_job.hpp"
#include "variate/inference/sample_model.hpp"

namespace variate::python {

class PythonFit {
 public:
  PythonFit(inference::ModelSample sample, std::vector<std::pair<std::string, Shape>> sites, std::size_t sampler_width);

  /// Each parameter and generated quantity: (chains, draws, *shape).
  pybind11::dict draws() const;
  /// Each of the sampler's columns (lp__, accept_stat__, ...): (chains, draws).
  pybind11::dict stats() const;
  bool interrupted() const { return sample_.result.interrupted; }
  int chains() const { return int(sample_.values.front().size()); }
  /// Draws per chain: after an interruption, those every chain made (the arrays are rectangular).
  std::int64_t draws_per_chain() const { return kept_; }
  std::vector<inference::ParameterSummary> summary() const;
  const inference::SamplerSummary& sampler() const { return sample_.sampler; }

 private:
  /// Column j's first kept_ draws of every chain, as (chains, draws) row-major.
  std::vector<double> column(std::size_t j) const;

  inference::ModelSample sample_;
  std::vector<std::pair<std::string, Shape>> sites_;
  std::size_t sampler_width_;
  std::int64_t kept_;
};

/// Samples `model` with the tool's options (those of `variate sample` that apply in memory: chains,
/// warm-up, draws, seed, threads, sampler, metric, max depth, adapt delta, leapfrog steps,
/// trajectory length and jitter, vectorize). Call with the GIL held: it is released while the chains run and taken
/// every 100 ms to run Python's signal handlers; a KeyboardInterrupt stops the chains after their current iteration and
/// the draws made so far are returned, with a warning. Another exception from a handler stops them too and propagates.
PythonFit sample(const PythonModel& model, const cli::SampleJobOptions& options);

}  // namespace variate::python
