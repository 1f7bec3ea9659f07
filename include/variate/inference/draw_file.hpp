#pragma once
// One chain's kept draws, streamed to its Stan CSV file as the chain makes them (data::StanCsvWriter)
// and kept in memory for the summaries; and the configuration lines such a file records, under
// CmdStan's keys so that its readers find what they look for. The tool's files and
// inference::sample's are written through it.
//
//   DrawFile file(path, sample_config_lines(options, {.model = "eight_schools", .chain = 0, .path = path}), columns);
//   file.write_adaptation({step_size, inverse_metric, false});   // once, at the first kept draw
//   file.write_row(row);                                          // every kept draw
//   file.close(warmup_seconds, sampling_seconds);
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "variate/data/stan_csv.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::inference {

/// What a file of draws records about its run besides the sampler's options.
struct DrawFileRun {
  std::string model;      // the model's name
  std::string data_file;  // where the data came from
  int chain = 0;          // 0-based; recorded as CmdStan's 1-based id
  std::string path;       // the file itself
  std::int64_t thin = 1;  // every thin-th draw is written (CmdStan's thin)
};

/// CmdStan's "# key = value" lines for a file of draws (method, num_samples, num_warmup, the
/// adaptation's and the engine's settings, metric, id, init, seed, file), nested keys indented as
/// CmdStan indents them. Callers append lines of their own.
std::vector<std::pair<std::string, std::string>> sample_config_lines(const SamplerOptions& options,
                                                                     const DrawFileRun& run);

class DrawFile {
 public:
  /// Opens `path` (a StanCsvWriter) and writes `config` and the column names; with an empty
  /// `path` the rows are only kept.
  DrawFile(const std::string& path, const std::vector<std::pair<std::string, std::string>>& config,
           std::vector<std::string> columns);

  /// The adaptation block (after warm-up, before the first kept draw).
  void write_adaptation(const data::StanCsvAdaptation& adaptation);
  /// Writes one draw (one value per column) and keeps it.
  void write_row(std::span<const double> row);
  /// Writes the timing block and closes the file; the rows stay.
  void close(double warmup_seconds, double sampling_seconds);

  const std::vector<std::string>& columns() const { return columns_; }
  std::int64_t rows() const { return rows_; }
  /// Column `j`'s kept values, in draw order.
  std::vector<double> column(std::size_t j) const;

 private:
  std::vector<std::string> columns_;
  std::optional<data::StanCsvWriter> writer_;
  std::vector<double> values_;  // rows × columns, row-major
  std::int64_t rows_ = 0;
};

}  // namespace variate::inference
