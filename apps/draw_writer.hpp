#pragma once
// Streams `variate sample`'s kept draws to the Stan CSV files as the chains make them (one main
// file per chain, written by device 0, and with --sharded-draws per-device each device's file of
// its rows of the sharded sites) and, with --output-format netcdf or both, to the netCDF file
// (netcdf_draws.hpp), and keeps every row for the summaries.
//
//   DrawWriter draws(job, layout, dir);                // opens the files
//   inference::sample(target, options, [&](const inference::Draw& d) { draws.write(d); });
//   draws.close(result);                               // timings, then closes the files
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "draw_layout.hpp"
#include "netcdf_draws.hpp"
#include "sample_context.hpp"
#include "variate/inference/draw_file.hpp"
#include "variate/inference/summary.hpp"

namespace variate::cli {

class DrawWriter {
 public:
  /// Opens every chain's files in `dir`; with per-device, device 0 also writes the manifest.
  DrawWriter(const SampleContext& job, const DrawLayout& layout, const std::filesystem::path& dir);
  /// Writes every --thin-th draw after warm-up (warm-up draws are not written, as with CmdStan's
  /// save_warmup = 0). The
  /// sampler's callback: threaded chains call it concurrently, each for its own chain. A collective
  /// with gather: every device takes part in gathering the sharded sites' values.
  void write(const inference::Draw& d);
  /// Records the chains' timings and closes the files.
  void close(const inference::SampleResult& result);

  /// Column `column` of the main files' (or this device's files') kept draws, [chain][draw].
  inference::ChainDraws main_column(std::size_t column) const;
  inference::ChainDraws shard_column(std::size_t column) const;
  /// How many draws each chain kept.
  std::vector<std::int64_t> kept() const;

 private:
  // What one chain writes and keeps. Only that chain's thread touches it while sampling.
  struct ChainOutput {
    std::unique_ptr<inference::DrawFile> main;  // the main file: device 0 only
    std::int64_t count = 0;
    std::vector<double> row;  // scratch
    bool adaptation_written = false;
    // --sharded-draws per-device: this device's rows of the sharded sites, on every device.
    std::unique_ptr<inference::DrawFile> shard;
    std::vector<double> shard_row;
  };
  void open_chain(int c, const std::filesystem::path& dir, ManifestInfo& manifest);
  void write_adaptation(ChainOutput& chain, const inference::Draw& d) const;
  void write_shard_row(ChainOutput& chain, const tracing::Values& values) const;
  void write_main_row(int c, const inference::TransitionStats& s, const tracing::Values& values);
  static inference::ChainDraws column(const std::vector<ChainOutput>& chains,
                                      std::unique_ptr<inference::DrawFile> ChainOutput::*file, std::size_t column);

  const SampleContext& job_;
  const DrawLayout& layout_;
  bool adapting_;  // warm-up adapts: the first kept draw carries the adapted metric
  bool report_;    // the model's report reads every draw
  std::vector<ChainOutput> chains_;
  std::unique_ptr<NetcdfDraws> netcdf_;  // device 0, with --output-format netcdf or both
};

}  // namespace variate::cli
