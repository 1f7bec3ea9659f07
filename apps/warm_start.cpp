#include "warm_start.hpp"

#include <charconv>
#include <filesystem>

#include "sample_checkpoints.hpp"
#include "variate/core/error.hpp"
#include "variate/inference/checkpoint_file.hpp"

namespace variate::cli {
namespace {

namespace fs = std::filesystem;

// The run's warm-up length that `checkpoint`'s identity records.
std::int64_t recorded_warmup(const fs::path& checkpoint, const inference::CheckpointEntries& identity) {
  const std::string* warmup = inference::find_entry(identity, "--warmup");
  std::int64_t n = -1;
  if (warmup) {
    const auto [end, error] = std::from_chars(warmup->data(), warmup->data() + warmup->size(), n);
    if (error != std::errc() || end != warmup->data() + warmup->size()) n = -1;
  }
  VARIATE_CHECK(n >= 0, "sample", "checkpoint '", checkpoint.string(),
                "' is corrupt: its identity should record the run's --warmup, a whole number >= 0, but has ",
                warmup ? "'" + *warmup + "'" : std::string("none"));
  return n;
}

// Each chain of `path`'s checkpoint as a warm start; throws naming the file unless it is of the same
// model, parameters and metric and past its warm-up.
void add_warm_starts(const SampleContext& job, const fs::path& path, std::vector<inference::WarmStart>& starts) {
  // What must match: the model and its parameters, and the metric's kind; the data, seed and
  // lengths may differ.
  inference::CheckpointEntries needed;
  for (const auto& entry : run_identity(job))
    if (entry.first == "model" || entry.first == "model plugin's fingerprint" || entry.first == "parameter layout" ||
        entry.first == "--metric")
      needed.push_back(entry);
  inference::Checkpoint saved = inference::read_checkpoint(path);
  inference::check_identity(path, saved.identity, needed);
  const std::int64_t warmup = recorded_warmup(path, saved.identity);
  // A run on a mesh with sharded parameters saved each chain as its devices' parts, one after
  // another; the parameter layout matched, so this run has as many devices and takes its own part.
  std::vector<inference::ChainState> mine;
  for (std::size_t i = 0; i < saved.chains.size();) {
    std::size_t parts = 1;
    while (i + parts < saved.chains.size() && saved.chains[i + parts].chain == saved.chains[i].chain) ++parts;
    mine.push_back(std::move(saved.chains[i + std::size_t(job.at.device) % parts]));
    i += parts;
  }
  for (inference::ChainState& state : mine) {
    VARIATE_CHECK(state.iteration > warmup, "sample", "--init-from ", job.options.init_from, ": chain ",
                  state.chain + 1, " had not finished its warm-up (checkpoint '", path.string(), "' is at iteration ",
                  state.iteration, " of ", warmup, " warm-up iterations), so its metric is not adapted yet");
    starts.push_back({std::move(state.position), state.step_size, std::move(state.metric)});
  }
}

}  // namespace

std::vector<inference::WarmStart> read_warm_starts(const SampleContext& job) {
  const fs::path folder = fs::path(job.options.init_from) / "checkpoint";
  std::vector<inference::WarmStart> starts;
  std::error_code ec;
  // A vectorized run's batch holds all its chains; a threaded run's chains have a file each.
  const fs::path batch = folder / (job.model.name + "-chains.ckpt");
  if (fs::exists(batch, ec)) {
    add_warm_starts(job, batch, starts);
    return starts;
  }
  for (int c = 1;; ++c) {
    const fs::path path = folder / (job.model.name + "-" + std::to_string(c) + ".ckpt");
    if (!fs::exists(path, ec)) break;
    add_warm_starts(job, path, starts);
  }
  VARIATE_CHECK(!starts.empty(), "sample", "--init-from ", job.options.init_from, ": no checkpoint of model '",
                job.model.name, "' in '", folder.string(),
                "' (warm starts read the checkpoints of a run made with --checkpoint-every)");
  return starts;
}

}  // namespace variate::cli
