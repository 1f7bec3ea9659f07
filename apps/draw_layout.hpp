#pragma once
// Which columns `variate sample` writes to which file: the sampler's columns, then every saved
// site's in Stan's names and column-major order. With --sharded-draws per-device the sharded sites'
// columns go to each device's own file instead (shard_output.hpp).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sample_context.hpp"
#include "shard_output.hpp"

namespace variate::cli {

/// The columns of some latent sites, and for each column the row-major offset into its site's tensor.
struct ColumnLayout {
  std::vector<std::string> names;
  std::vector<std::string> sites;
  std::vector<std::vector<std::int64_t>> order;  // per site
};

struct DrawLayout {
  bool per_device = false;           // --sharded-draws per-device, with a sharded saved site
  std::string sharded_draws;         // the mode in effect: "gather" or "per-device"
  std::optional<ShardPlan> plan;     // per-device only
  ColumnLayout all_sites;            // the gathered file's sites: every saved site
  ColumnLayout main_sites;           // the main file's sites
  std::vector<std::string> columns;  // the main file's: the sampler's, then main_sites.names
  std::size_t sampler_width = 0;     // how many of `columns` are the sampler's
  // This device's file: its columns of the sharded sites, and per sharded site its offsets in
  // column order.
  std::vector<std::string> shard_columns;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shard_order;
};

/// The layout for the saved sites with their unsharded shapes: a collective over the devices (the
/// row counts they exchange once for per-device, or one gathered draw).
DrawLayout plan_draw_layout(const SampleContext& job);

/// The columns of every saved site (generated quantities last) of a model run on one device: what
/// `vi` and `optimize` write after their own columns.
ColumnLayout saved_columns(const Model& model, const inference::Unconstrained& space);

/// Writes the values of `layout`'s sites to out[0...], one per column, in Stan's column order.
void fill_columns(const ColumnLayout& layout, const tracing::Values& values, double* out);

/// Creates the output folder `dir` if needed; throws variate::Error naming `job` if it is not a folder.
std::filesystem::path prepare_output(const std::string& dir, const char* job = "sample");

}  // namespace variate::cli
