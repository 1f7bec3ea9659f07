#pragma once
// Which columns `variate sample` writes to which file: the sampler's columns, then every saved
// site's in Stan's names and column-major order (inference/draw_columns.hpp), then those of
// --predictive and --log-lik (inference/predictive_columns.hpp). With --sharded-draws per-device
// the sharded sites' columns go to each device's own file instead (shard_output.hpp).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sample_context.hpp"
#include "shard_output.hpp"
#include "variate/inference/draw_columns.hpp"
#include "variate/inference/predictive_columns.hpp"

namespace variate::cli {

struct DrawLayout {
  bool per_device = false;            // --sharded-draws per-device, with a sharded saved site
  std::string sharded_draws;          // the mode in effect: "gather" or "per-device"
  std::optional<ShardPlan> plan;      // per-device only
  inference::SiteColumns all_sites;   // the gathered file's sites: every saved site
  inference::SiteColumns main_sites;  // the main file's sites
  std::vector<std::string> columns;   // the main file's: the sampler's, then main_sites.names
  std::size_t sampler_width = 0;      // how many of `columns` are the sampler's
  // main_sites' sites with their shapes (the netCDF file's variables)
  std::vector<inference::ColumnSite> main_shapes;
  // This device's file: its columns of the sharded sites, and per sharded site its offsets in
  // column order.
  std::vector<std::string> shard_columns;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shard_order;
  // --predictive and --log-lik: what is computed at each draw for the columns after the saved sites.
  std::optional<inference::PredictiveColumns> predictive;
};

/// The layout for the saved sites with their unsharded shapes: a collective over the devices (the
/// row counts they exchange once for per-device, or one gathered draw).
DrawLayout plan_draw_layout(const SampleContext& job);

/// The columns of every saved site (generated quantities last) of a model run on one device: what
/// `vi` and `optimize` write after their own columns.
inference::SiteColumns saved_columns(const Model& model, const inference::Unconstrained& space);

/// Creates the output folder `dir` of `variate sample` if needed. Files an earlier run of `model`
/// left there (its chain files, manifest and summaries) are an error, or deleted with `overwrite`.
std::filesystem::path prepare_sample_output(const std::string& dir, const std::string& model, bool overwrite);
/// prepare_sample_output's checks, touching nothing.
void check_sample_output(const std::string& dir, const std::string& model, bool overwrite);

}  // namespace variate::cli
