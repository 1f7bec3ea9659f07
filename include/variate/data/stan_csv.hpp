#pragma once
// Stan's CSV output format: the files CmdStan's `sample` method writes, which CmdStan's
// stansummary, CmdStanPy, CmdStanR and ArviZ (`from_cmdstan`) read. The layout is
//
//   # key = value                        configuration, one per line; nested keys are indented
//   lp__,accept_stat__,...,theta         the column names
//   0.1,0.2,...                          warm-up draws (only if save_warmup)
//   # Adaptation terminated              the adaptation block, written once warm-up is over
//   # Step size = 0.9
//   # Diagonal elements of inverse mass matrix:
//   # 0.5, 0.7
//   0.1,0.2,...                          post-warm-up draws
//   #
//   #  Elapsed Time: 0.005 seconds (Warm-up)
//   #                0.01 seconds (Sampling)
//   #                0.015 seconds (Total)
//   #
//
// Array-valued quantities take one column each element, named "beta.1.2" (1-based indices), in
// column-major order: the first index varies fastest.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace variate::data {

/// What warm-up adapted: the step size and the inverse metric (inverse mass matrix), as CmdStan
/// reports them in the comment block after "# Adaptation terminated".
struct StanCsvAdaptation {
  double step_size = 0;
  std::vector<double> inverse_metric;  // the diagonal, or the row-major D x D matrix when dense
  bool dense = false;
};

/// Writes a Stan CSV file as draws are made, so that a run that is interrupted leaves a readable
/// file with every row written so far: each line (or comment block) reaches the operating system in
/// one write before the call that writes it returns, so a crash leaves whole lines only. A write
/// that fails (a full disk: ENOSPC, a file size limit: EFBIG) throws variate::Error naming the file
/// and the cause, after cutting the file back to its last whole line. Doubles are written in the
/// shortest form that reads back bit-exactly (CmdStan itself writes 6 significant digits unless
/// asked for more); NaN as "nan", infinities as "inf" and "-inf".
///
///   StanCsvWriter out("chain_1.csv", {{"model", "bernoulli_model"}, {"method", "sample"},
///                                     {"    num_samples", "1000"}},
///                     {"lp__", "accept_stat__", "theta"});
///   for (...) out.write_row(warmup_row);      // only when saving warm-up
///   out.write_adaptation({0.9, {0.5}});
///   for (...) out.write_row(row);
///   out.write_timing(0.005, 0.012);
class StanCsvWriter {
 public:
  /// Creates (or truncates) `path` and writes one "# key = value" line for each entry of `config`,
  /// in order, then the line of column names. Keys may start with spaces to show nesting, as
  /// CmdStan's do. Throws variate::Error naming the file if it cannot be written, for column names
  /// that are empty or hold a comma, a quote, a '#', white space or a line break, and for config
  /// keys that are empty or hold '=' or a line break, or values with a line break.
  StanCsvWriter(const std::string& path, const std::vector<std::pair<std::string, std::string>>& config,
                const std::vector<std::string>& columns);

  /// Writes the adaptation block exactly as CmdStan does: "# Adaptation terminated", "# Step size
  /// = x", then "# Diagonal elements of inverse mass matrix:" and one line "# a, b, c", or for a
  /// dense metric "# Elements of inverse mass matrix:" and one line per row. Throws if a dense
  /// metric's size is not a square number.
  void write_adaptation(const StanCsvAdaptation& adaptation);

  /// Writes one draw; throws variate::Error unless there is one value per column.
  void write_row(std::span<const double> values);

  /// Writes CmdStan's closing "Elapsed Time" block (warm-up, sampling and total seconds).
  void write_timing(double warmup_seconds, double sampling_seconds);

  ~StanCsvWriter();
  StanCsvWriter(const StanCsvWriter&) = delete;
  StanCsvWriter& operator=(const StanCsvWriter&) = delete;

  /// The file being written.
  const std::string& path() const { return path_; }

 private:
  // Appends '\n' to `lines` and writes them whole.
  void write_lines(std::string& lines);

  std::string path_;
  std::size_t columns_;
  int fd_ = -1;
  std::size_t written_ = 0;  // bytes of whole lines in the file
  std::string buffer_;       // reused by write_row
};

/// The contents of a Stan CSV file.
struct StanCsv {
  std::string path;
  /// The "# key = value" lines above the column names, in file order, with keys and values trimmed
  /// (so nesting indentation is dropped) and CmdStan's " (Default)" suffix removed from values.
  /// Comment lines without "=" (argument group names such as "sample") are not kept.
  std::vector<std::pair<std::string, std::string>> config;
  /// The columns read, in file order: every column of the header unless read_stan_csv was given a
  /// filter.
  std::vector<std::string> columns;
  /// Every column name of the header, in file order.
  std::vector<std::string> header;
  /// Post-warm-up draws, draws[row][column], in file order.
  std::vector<std::vector<double>> draws;
  /// Warm-up draws, present only when the file saved them (see read_stan_csv).
  std::vector<std::vector<double>> warmup_draws;
  /// The adaptation block, if the file has one (step_size stays 0 and the metric empty if not).
  /// CmdStan writes "# Adaptation terminated" for every sampler, but fixed_param writes no step size
  /// or metric after it, and the unit metric no matrix.
  StanCsvAdaptation adaptation;
  bool has_adaptation = false;  // whether the file has a "# Adaptation terminated" line
  /// Why a cut last row was skipped ("path:line: the last row is cut short ..."), or empty.
  std::string warning;

  /// The value of the first config entry named `key`, or nullptr when the file has none.
  const std::string* config_value(std::string_view key) const;
  /// The post-warm-up draws of one column; throws variate::Error naming the column and the file if
  /// the file has no such column.
  std::vector<double> column(std::string_view name) const;
};

/// Reads a Stan CSV file written by CmdStan or StanCsvWriter (plain, or gzip-compressed as
/// detected from the content). Comment lines may appear anywhere and blank lines and Windows line
/// ends are accepted. Only config lines before the column names are kept; after them, the
/// adaptation block is parsed and other comments (the timing block) are skipped, so a file whose
/// run was interrupted reads as far as it goes. A last row without its line end is what a crash or
/// a full disk leaves (it may end inside a number, so it is not read even when it has every field):
/// it is skipped and `warning` says so.
///
/// Warm-up rows: CmdStan writes saved warm-up draws (config save_warmup = 1 or true) above the
/// adaptation block, so rows above "# Adaptation terminated" go to `warmup_draws`. In a file without
/// the block (a run stopped during warm-up) that saved warm-up, the first ceil(num_warmup / thin)
/// rows are warm-up (CmdStan saves every thin-th warm-up iteration; the defaults num_warmup = 1000
/// and thin = 1 apply when the config does not give them).
///
/// Throws variate::Error naming the file, and the line where there is one, for a missing or
/// unreadable file, an empty file, a file without a line of column names, a row with a different
/// number of fields than there are columns, a field that is not a number (naming its column), a
/// malformed adaptation block, and a malformed num_warmup or thin where they are needed.
///
/// With a `keep` filter, only the columns it returns true for are read (their draws, and their
/// names in `columns`): a report that plots a hundred of a large model's thousands of columns
/// reads the rest no further than to count their fields. Only the kept fields are checked to be
/// numbers.
StanCsv read_stan_csv(const std::string& path, const std::function<bool(std::string_view)>& keep = {});

/// The Stan CSV column name of element `index` (0-based) of site `site`: "beta.1.2" for index
/// {0, 1} (Stan's 1-based indices joined by '.'); just `site` for a scalar (empty index).
std::string stan_column_name(const std::string& site, std::span<const std::int64_t> index);

/// The column names of every element of a site of shape `shape`, in Stan's column-major order
/// (the first index varies fastest): for shape {2, 3}, beta.1.1, beta.2.1, beta.1.2, ..., beta.2.3.
/// A scalar (empty shape) has the one column `site`; a shape with a zero has none.
std::vector<std::string> stan_column_names(const std::string& site, std::span<const std::int64_t> shape);

/// For each column position of stan_column_names(site, shape), the row-major flat offset of that
/// element: {0, 3, 1, 4, 2, 5} for shape {2, 3}. A writer permutes a row-major tensor into Stan's
/// order with column[i] = values[order[i]].
std::vector<std::int64_t> column_major_order(std::span<const std::int64_t> shape);

}  // namespace variate::data
