#include "warm_start.hpp"

#include <filesystem>

#include "sample_checkpoints.hpp"
#include "variate/core/error.hpp"
#include "variate/inference/checkpoint_file.hpp"

namespace variate::cli {

std::vector<inference::WarmStart> read_warm_starts(const SampleContext& job) {
  namespace fs = std::filesystem;
  const std::string& dir = job.options.init_from;
  // What must match: the model and its parameters, and the metric's kind; the data, seed and
  // lengths may differ.
  inference::CheckpointEntries needed;
  for (const auto& entry : run_identity(job))
    if (entry.first == "model" || entry.first == "model plugin's fingerprint" || entry.first == "parameter layout" ||
        entry.first == "--metric")
      needed.push_back(entry);
  std::vector<inference::WarmStart> starts;
  for (int c = 1;; ++c) {
    const fs::path path = fs::path(dir) / "checkpoint" / (job.model.name + "-" + std::to_string(c) + ".ckpt");
    std::error_code ec;
    if (!fs::exists(path, ec)) break;
    inference::Checkpoint saved = inference::read_checkpoint(path);
    inference::check_identity(path, saved.identity, needed);
    inference::ChainState& state = saved.chains.front();  // a chain's own file holds that chain
    const std::string* warmup = inference::find_entry(saved.identity, "--warmup");
    VARIATE_CHECK(warmup && state.iteration > std::stoll(*warmup), "sample", "--init-from ", dir, ": chain ", c,
                  " had not finished its warm-up (checkpoint '", path.string(), "' is at iteration ", state.iteration,
                  " of ", warmup ? *warmup : "?", " warm-up iterations), so its metric is not adapted yet");
    starts.push_back({std::move(state.position), state.step_size, std::move(state.metric)});
  }
  VARIATE_CHECK(!starts.empty(), "sample", "--init-from ", dir, ": no checkpoint of model '", job.model.name, "' in '",
                (fs::path(dir) / "checkpoint").string(),
                "' (warm starts read the checkpoints of a run made with --checkpoint-every)");
  return starts;
}

}  // namespace variate::cli
