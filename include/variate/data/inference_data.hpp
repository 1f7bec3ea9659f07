#pragma once
// Draws written to a netCDF-4 file in ArviZ's InferenceData layout, as the chains make them, so
// that `arviz.from_netcdf` (or xarray, one group at a time) reads a run, even one that was killed.
// The layout is the one ArviZ writes itself:
//
//   group posterior      dims (chain, draw, <var>_dim_0, ...), one variable per site
//   group sample_stats   dims (chain, draw): lp, acceptance_rate, step_size, tree_depth, ...
//   group observed_data  dims (<var>_dim_0, ...): the data the model was conditioned on
//
// Every dimension has an integer coordinate variable 0, 1, ... of its name, and every group the
// attributes created_at (ISO 8601, UTC), inference_library and inference_library_version. `draw`
// is unlimited: it grows as draws arrive. Draws are kept per chain and written in blocks (one
// netCDF call per variable for many draws: per draw, a small model's calls would cost more than
// its sampling), and every `sync_seconds` all kept draws are written and the file is synced, so a
// run killed at any moment leaves a readable file with the draws synced so far. Where a chain is
// behind the others its missing draws read as NaN (_FillValue) in floating variables. Booleans are
// stored as bytes with the attribute dtype = "bool", which xarray decodes back to bool.
//
// netCDF-C is not thread-safe: the writer serializes its calls with a mutex of its own, so chains
// on threads may call write_draw concurrently (any other use of netCDF in the process must not
// overlap with it). Built without netCDF (libnetcdf-dev), the constructor throws saying so.
//
//   InferenceDataWriter out("run.nc", {.chains = 4, .posterior = {{"theta", {8}, DType::f64}},
//                                      .sample_stats = {{"lp", {}, DType::f64}}, ...}, observed);
//   out.write_draw(chain, theta_values, {lp});   // per draw, values row-major per variable
//   out.close();
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "variate/core/dtype.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::data {

struct InferenceDataGroup;  // internal: a group's netCDF ids

/// Whether this build can write netCDF files.
bool netcdf_available();

/// A variable with a value per draw: its own shape (after chain and draw) and the dtype stored.
struct DrawVariable {
  std::string name;
  std::vector<std::int64_t> shape;
  DType dtype = DType::f64;
};

struct InferenceDataLayout {
  int chains = 1;
  std::vector<DrawVariable> posterior;
  std::vector<DrawVariable> sample_stats;
  /// The observed_data group's variables, written once with the file (in their tensors' dtypes).
  std::vector<std::pair<std::string, Tensor>> observed_data;
  std::string inference_library = "variate";
  std::string inference_library_version;
  double sync_seconds = 1;  // the longest a written draw waits before it reaches the file
  int deflate_level = 1;    // 0: no compression; 1-9: zlib's levels, with the shuffle filter
};

class InferenceDataWriter {
 public:
  /// Creates (or truncates) `path` with every group, dimension, coordinate and attribute. Throws
  /// variate::Error naming the file for a file that cannot be written, for a variable name that is
  /// empty, repeated in its group or holds '/', for a negative extent, and when built without netCDF.
  InferenceDataWriter(const std::string& path, const InferenceDataLayout& layout);
  ~InferenceDataWriter();
  InferenceDataWriter(const InferenceDataWriter&) = delete;
  InferenceDataWriter& operator=(const InferenceDataWriter&) = delete;

  /// Appends the next draw of `chain` (0-based): `posterior` holds every posterior variable's
  /// values, row-major, one variable after the other, and `stats` every sample_stats variable's.
  /// Thread-safe. Throws variate::Error for a chain out of range, values of the wrong count, and a
  /// failed write (naming the file).
  void write_draw(int chain, std::span<const double> posterior, std::span<const double> stats);
  /// Writes the kept draws, syncs and closes the file (the destructor closes it too, without
  /// throwing, and without the kept draws).
  void close();

  const std::string& path() const { return path_; }

 private:
  // A chain's draws not written yet: `draws` of them from draw `first`, each's values one after another.
  struct Pending {
    std::int64_t first = 0, draws = 0;
    std::vector<double> posterior, stats;
  };
  void write_pending(int chain);
  void write_group_block(const InferenceDataGroup& group, const std::vector<DrawVariable>& variables, int chain,
                         std::int64_t first, std::int64_t draws, const std::vector<double>& values);
  void sync();

  std::string path_;
  InferenceDataLayout layout_;
  std::mutex mutex_;
  int file_ = -1;
  std::unique_ptr<InferenceDataGroup> posterior_, stats_;
  std::vector<Pending> pending_;  // per chain
  std::int64_t block_draws_ = 1;  // a chain's draws are written when it has this many
  std::int64_t draw_length_ = 0;  // the draw coordinate's length written
  std::vector<double> scratch_;
  std::chrono::steady_clock::time_point synced_;
};

}  // namespace variate::data
