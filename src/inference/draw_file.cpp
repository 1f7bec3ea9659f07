#include "variate/inference/draw_file.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "variate/core/error.hpp"

namespace variate::inference {
namespace {

std::string number(double v) {
  std::ostringstream out;
  out << std::setprecision(15) << v;
  return out.str();
}

}  // namespace

namespace {

bool is_unit(const std::optional<Metric>& m) {
  if (!m) return true;
  if (m->kind() != MetricKind::diagonal) return false;
  return std::all_of(m->inverse().begin(), m->inverse().end(), [](double v) { return v == 1; });
}

/// CmdStan's names for its metrics; ours learned by Fisher divergence say so. A metric that is not
/// adapted is unit_e when it is the identity (a Laplace start's), and otherwise the kind it is.
const char* metric_name(const SamplerOptions& s) {
  if (s.metric_adaptation == MetricAdaptation::fisher)
    return s.metric == MetricKind::low_rank ? "fisher_low_rank_e" : "fisher_diag_e";
  if (s.metric_adaptation == MetricAdaptation::none && s.warm_start.empty() && is_unit(s.initial_metric))
    return "unit_e";
  return s.metric == MetricKind::dense ? "dense_e" : "diag_e";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> sample_config_lines(const SamplerOptions& s, const DrawFileRun& run) {
  const bool nuts = s.algorithm == Algorithm::nuts;
  const DualAveragingOptions& a = s.step_size_adaptation;
  std::vector<std::pair<std::string, std::string>> c = {
      {"model", run.model},
      {"method", "sample"},
      {"  num_samples", std::to_string(s.num_draws)},
      {"  num_warmup", std::to_string(s.num_warmup)},
      {"  save_warmup", "0"},
      {"  thin", std::to_string(run.thin)},
      {"    engaged", s.adapt && s.num_warmup > 0 ? "1" : "0"},
      {"    gamma", number(a.gamma)},
      {"    delta", number(a.target_accept)},
      {"    kappa", number(a.kappa)},
      {"    t0", number(a.t0)},
      {"    init_buffer", std::to_string(s.windows.init_buffer)},
      {"    term_buffer", std::to_string(s.windows.term_buffer)},
      {"    window", std::to_string(s.windows.base_window)},
      {"  algorithm", "hmc"},
      {"    engine", nuts                              ? "nuts"
                     : s.algorithm == Algorithm::chees ? "chees"
                                                       : "static"},
  };
  if (nuts) {
    c.emplace_back("        max_depth", std::to_string(s.nuts.max_tree_depth));
  } else if (s.algorithm == Algorithm::chees) {
    c.emplace_back("        target_accept", number(s.chees.target_accept));
    c.emplace_back("        max_leapfrog_steps", std::to_string(s.chees.max_leapfrog_steps));
  } else {
    c.emplace_back("        int_time", number(s.hmc.trajectory_length));
    c.emplace_back("        num_leapfrog_steps", std::to_string(s.hmc.num_steps));
    c.emplace_back("        int_time_jitter", number(s.hmc.jitter));
  }
  c.emplace_back("    metric", metric_name(s));
  c.emplace_back("    stepsize", number(s.initial_step_size));
  c.emplace_back("    stepsize_jitter", "0");
  c.emplace_back("  num_chains", std::to_string(s.chains));
  c.emplace_back("id", std::to_string(run.chain + 1));
  c.emplace_back("  file", run.data_file);
  c.emplace_back("init", number(s.init_radius));
  c.emplace_back("  seed", std::to_string(s.seed));
  c.emplace_back("  file", run.path);
  return c;
}

DrawFile::DrawFile(const std::string& path, const std::vector<std::pair<std::string, std::string>>& config,
                   std::vector<std::string> columns)
    : columns_(std::move(columns)) {
  if (!path.empty()) writer_.emplace(path, config, columns_);
}

void DrawFile::write_adaptation(const data::StanCsvAdaptation& adaptation) {
  if (writer_) writer_->write_adaptation(adaptation);
}

void DrawFile::write_row(std::span<const double> row) {
  VARIATE_CHECK(row.size() == columns_.size(), "DrawFile::write_row", "expected ", columns_.size(),
                " values (one per column), got ", row.size());
  if (writer_) writer_->write_row(row);
  values_.insert(values_.end(), row.begin(), row.end());
  ++rows_;
}

void DrawFile::close(double warmup_seconds, double sampling_seconds) {
  if (writer_) writer_->write_timing(warmup_seconds, sampling_seconds);
  writer_.reset();
}

std::vector<double> DrawFile::column(std::size_t j) const {
  VARIATE_CHECK(j < columns_.size(), "DrawFile::column", "column ", j, " is out of range: the file has ",
                columns_.size(), " columns");
  std::vector<double> out(static_cast<std::size_t>(rows_));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = values_[i * columns_.size() + j];
  return out;
}

}  // namespace variate::inference
