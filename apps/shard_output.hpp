#pragma once
// `variate sample --sharded-draws per-device`: the draws of sharded sites stay on the devices that
// hold them. Each device writes its rows of every sharded saved site to a Stan CSV file of its own,
// `<model>.device<k>-<chain>.csv`, row for row with the main file `<model>-<chain>.csv`, with
// columns named as in the gathered file (`b_user.473`), and device 0 writes `<model>.manifest.json`,
// which says which device holds which rows. Nothing sharded then passes through one device per
// draw, so the output of a model too large for one machine's memory or disk bandwidth still streams.
//
//   ShardPlan plan(local_saved_sites(model, space), "data");   // a collective, once
//   plan.column_names(device), plan.local_order(site, device)  // a device's columns
//   write_manifest(dir / manifest_file_name(model), {...});
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "variate/inference/summary.hpp"

namespace variate::cli {

/// A latent site whose draws are written, in program order (the order of the gathered columns).
struct SavedSite {
  std::string name;
  std::vector<std::int64_t> shape;  // this device's part (ShardPlan::sites(): the unsharded shape)
  bool sharded = false;             // split over the mesh axis along its first dimension
};

/// Which rows (indices of the first dimension) of each sharded saved site each device holds.
class ShardPlan {
 public:
  /// A collective over `axis`: gathers every device's row counts. `local` lists the saved sites
  /// with this device's shapes.
  ShardPlan(std::vector<SavedSite> local, std::string axis);

  const std::string& axis() const { return axis_; }
  int devices() const { return devices_; }
  /// Every saved site with its unsharded shape, in program order.
  const std::vector<SavedSite>& sites() const { return sites_; }
  /// Device `device`'s rows [begin, end) of sites()[site] (all rows for a replicated site).
  std::pair<std::int64_t, std::int64_t> rows(std::size_t site, int device) const;
  /// Device `device`'s columns: its rows of each sharded site in turn, column-major (Stan's order),
  /// named with their global indices.
  std::vector<std::string> column_names(int device) const;
  /// For device `device`'s columns of sites()[site]: the row-major offset into its part of the site.
  std::vector<std::int64_t> local_order(std::size_t site, int device) const;

 private:
  std::vector<SavedSite> sites_;
  std::string axis_;
  int devices_ = 1;
  std::vector<std::vector<std::int64_t>> starts_;  // per site, devices + 1 row offsets
};

std::string device_file_name(const std::string& model, int device, int chain);  // chain from 0
std::string manifest_file_name(const std::string& model);

/// What the manifest describes besides the plan.
struct ManifestInfo {
  std::string model;
  int chains = 0;
  std::int64_t draws = 0;                              // per chain, as asked for (an interrupted run has fewer)
  int ranks = 1;                                       // MPI ranks (1: thread devices of one process)
  std::vector<std::string> main_files;                 // per chain, relative to the manifest's folder
  std::vector<std::vector<std::string>> device_files;  // [device][chain]; empty: the device has no columns
};

/// Writes the manifest as JSON; throws variate::Error naming the file if it cannot be written.
void write_manifest(const std::string& path, const ManifestInfo& info, const ShardPlan& plan);

/// A collective: every device's summaries of its own columns, concatenated in device order and named
/// by plan.column_names, identical on every device. `mine` must follow column_names(this device).
std::vector<inference::ParameterSummary> gather_summaries(const std::vector<inference::ParameterSummary>& mine,
                                                          const ShardPlan& plan);

}  // namespace variate::cli
