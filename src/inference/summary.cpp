#include "variate/inference/summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <utility>

#include "variate/core/error.hpp"

namespace variate::inference {
namespace {

constexpr std::size_t kColumns = 10;
constexpr std::array<const char*, kColumns> kHeaders = {"Mean", "MCSE", "StdDev",   "MAD",      "5%",
                                                        "50%",  "95%",  "ESS_bulk", "ESS_tail", "R_hat"};
constexpr std::array<const char*, kColumns> kJsonKeys = {"mean", "mcse", "sd",       "mad",      "q5",
                                                         "q50",  "q95",  "ess_bulk", "ess_tail", "rhat"};

std::array<double, kColumns> values_of(const ParameterSummary& row) {
  return {row.mean, row.mcse, row.sd, row.mad, row.q5, row.q50, row.q95, row.ess_bulk, row.ess_tail, row.rhat};
}

// Spelled out because glibc's ostream writes a NaN with its sign bit set as "-nan".
std::string non_finite(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

// `digits` significant digits, without touching the caller's stream state.
std::string general(double v, int digits) {
  if (!std::isfinite(v)) return non_finite(v);
  std::ostringstream s;
  s << std::setprecision(digits) << v;
  return s.str();
}

// A table cell: ESS as a whole number, R-hat with precision - 1 decimals (1.00 and 1.01 must look
// different, which significant digits would not show), the rest with `precision` significant digits.
std::string table_cell(double v, std::size_t column, int precision) {
  constexpr std::size_t kEssBulk = 7, kRhat = 9;
  if (!std::isfinite(v) || column < kEssBulk) return general(v, precision);
  std::ostringstream s;
  s << std::fixed << std::setprecision(column == kRhat ? precision - 1 : 0) << v;
  return s.str();
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

nlohmann::ordered_json json_number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json json_numbers(const std::vector<double>& values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (double v : values) out.push_back(json_number(v));
  return out;
}

std::string percent(long count, long total) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100.0 * static_cast<double>(count) / static_cast<double>(total) << '%';
  return s.str();
}

// The number of chains the per-chain vectors describe; throws unless the non-empty ones agree.
std::size_t chains_of(const SamplerSummary& sampler) {
  const std::array<std::size_t, 4> sizes = {sampler.divergences.size(), sampler.max_treedepth_hits.size(),
                                            sampler.ebfmi.size(), sampler.step_sizes.size()};
  const std::size_t chains = *std::max_element(sizes.begin(), sizes.end());
  for (std::size_t size : sizes)
    VARIATE_CHECK(size == 0 || size == chains, "write_sampler_diagnostics",
                  "per-chain vectors must have one entry per chain or none; got divergences ", sizes[0],
                  ", max_treedepth_hits ", sizes[1], ", ebfmi ", sizes[2], ", step_sizes ", sizes[3]);
  return chains;
}

// "N of M transitions (p%)" when the number of draws is known, else "N transitions".
std::string count_of(long count, std::size_t chains, int draws_per_chain) {
  std::ostringstream s;
  if (draws_per_chain > 0) {
    const long total = static_cast<long>(chains) * draws_per_chain;
    s << count << " of " << total << " transitions (" << percent(count, total) << ")";
  } else {
    s << count << " transitions";
  }
  return s.str();
}

}  // namespace

ParameterSummary summarize(std::string name, const ChainDraws& draws) {
  VARIATE_CHECK(!draws.empty(), "summarize", "'", name, "': expected draws of at least one chain, got none");
  const std::size_t n = draws[0].size();
  for (std::size_t c = 1; c < draws.size(); ++c)
    VARIATE_CHECK(draws[c].size() == n, "summarize", "'", name,
                  "': every chain needs the same number of draws; chain 0 has ", n, " and chain ", c, " has ",
                  draws[c].size());
  VARIATE_CHECK(n > 0, "summarize", "'", name, "': expected at least one draw per chain, got none");

  std::vector<double> all;
  for (const auto& chain : draws) all.insert(all.end(), chain.begin(), chain.end());
  const double total = static_cast<double>(all.size());
  ParameterSummary row;
  row.name = std::move(name);
  double sum = 0;
  for (double v : all) sum += v;
  row.mean = sum / total;
  if (all.size() > 1) {
    double squares = 0;
    for (double v : all) squares += (v - row.mean) * (v - row.mean);
    row.sd = std::sqrt(squares / (total - 1));
  }
  row.q5 = quantile(all, 0.05);
  row.q50 = quantile(all, 0.5);
  row.q95 = quantile(all, 0.95);
  std::vector<double> deviations;
  for (double v : all) deviations.push_back(std::abs(v - row.q50));
  row.mad = 1.4826 * quantile(deviations, 0.5);

  const Convergence diagnostics = convergence(draws);
  row.mcse = row.sd / std::sqrt(diagnostics.ess_basic);
  row.ess_bulk = diagnostics.ess_bulk;
  row.ess_tail = diagnostics.ess_tail;
  row.rhat = diagnostics.rhat;
  return row;
}

SamplerSummary summarize_sampler(const SampleResult& result, const SamplerOptions& options) {
  const bool nuts = options.algorithm == Algorithm::nuts;
  SamplerSummary sampler;
  for (const ChainResult& r : result.chains) {
    int divergent = 0, saturated = 0;
    std::vector<double> energy;
    for (const TransitionStats& s : r.stats) {
      divergent += s.divergent ? 1 : 0;
      saturated += s.tree_depth >= options.nuts.max_tree_depth ? 1 : 0;
      energy.push_back(s.energy);
    }
    sampler.divergences.push_back(divergent);
    if (nuts) sampler.max_treedepth_hits.push_back(saturated);
    sampler.ebfmi.push_back(ebfmi(energy));
    sampler.step_sizes.push_back(r.step_size);
    sampler.sampling_seconds = std::max(sampler.sampling_seconds, r.sampling_seconds);
  }
  sampler.draws_per_chain = int(options.num_draws);
  sampler.max_treedepth = nuts ? options.nuts.max_tree_depth : 0;
  return sampler;
}

void write_summary_table(std::ostream& out, const std::vector<ParameterSummary>& rows, int precision) {
  VARIATE_CHECK(precision >= 1 && precision <= 17, "write_summary_table", "expected a precision in [1, 17], got ",
                precision);
  std::size_t name_width = 0;
  std::array<std::size_t, kColumns> widths{};
  for (std::size_t j = 0; j < kColumns; ++j) widths[j] = std::string(kHeaders[j]).size();
  std::vector<std::array<std::string, kColumns>> cells;
  for (const ParameterSummary& row : rows) {
    name_width = std::max(name_width, row.name.size());
    const std::array<double, kColumns> values = values_of(row);
    std::array<std::string, kColumns> line;
    for (std::size_t j = 0; j < kColumns; ++j) {
      line[j] = table_cell(values[j], j, precision);
      widths[j] = std::max(widths[j], line[j].size());
    }
    cells.push_back(line);
  }
  const auto name_cell = [&](const std::string& text) { out << text << std::string(name_width - text.size(), ' '); };
  name_cell("");
  for (std::size_t j = 0; j < kColumns; ++j) out << "  " << std::setw(static_cast<int>(widths[j])) << kHeaders[j];
  out << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    name_cell(rows[i].name);
    for (std::size_t j = 0; j < kColumns; ++j) out << "  " << std::setw(static_cast<int>(widths[j])) << cells[i][j];
    out << '\n';
  }
}

void write_summary_csv(std::ostream& out, const std::vector<ParameterSummary>& rows) {
  out << "name";
  for (const char* header : kHeaders) out << ',' << header;
  out << '\n';
  std::ostringstream number;
  number << std::setprecision(std::numeric_limits<double>::max_digits10);
  for (const ParameterSummary& row : rows) {
    out << csv_field(row.name);
    for (double v : values_of(row)) {
      number.str("");
      number << v;
      out << ',' << (std::isfinite(v) ? number.str() : non_finite(v));
    }
    out << '\n';
  }
}

void write_summary_json(std::ostream& out, const std::vector<ParameterSummary>& rows, const SamplerSummary& sampler) {
  nlohmann::ordered_json parameters = nlohmann::ordered_json::array();
  for (const ParameterSummary& row : rows) {
    nlohmann::ordered_json entry = {{"name", row.name}};
    const std::array<double, kColumns> values = values_of(row);
    for (std::size_t j = 0; j < kColumns; ++j) entry[kJsonKeys[j]] = json_number(values[j]);
    parameters.push_back(std::move(entry));
  }
  const nlohmann::ordered_json document = {{"parameters", std::move(parameters)},
                                           {"sampler",
                                            {{"divergences", sampler.divergences},
                                             {"max_treedepth_hits", sampler.max_treedepth_hits},
                                             {"ebfmi", json_numbers(sampler.ebfmi)},
                                             {"step_sizes", json_numbers(sampler.step_sizes)},
                                             {"sampling_seconds", json_number(sampler.sampling_seconds)},
                                             {"draws_per_chain", sampler.draws_per_chain},
                                             {"max_treedepth", sampler.max_treedepth}}}};
  out << document.dump(2) << '\n';
}

void write_sampler_diagnostics(std::ostream& out, const SamplerSummary& sampler) {
  const std::size_t chains = chains_of(sampler);
  const int draws = sampler.draws_per_chain;
  long divergent = 0, saturated = 0;
  for (std::size_t c = 0; c < chains; ++c) {
    out << "Chain " << c + 1 << ":";
    std::string separator = " ";
    if (!sampler.divergences.empty()) {
      divergent += sampler.divergences[c];
      out << separator << sampler.divergences[c] << " divergent";
      if (draws > 0) out << " (" << percent(sampler.divergences[c], draws) << ")";
      separator = ", ";
    }
    if (!sampler.max_treedepth_hits.empty()) {
      saturated += sampler.max_treedepth_hits[c];
      out << separator << sampler.max_treedepth_hits[c] << " at max tree depth";
      if (draws > 0) out << " (" << percent(sampler.max_treedepth_hits[c], draws) << ")";
      separator = ", ";
    }
    if (!sampler.ebfmi.empty()) {
      out << separator << "E-BFMI " << general(sampler.ebfmi[c], 3);
      if (sampler.ebfmi[c] < 0.3) out << " (low)";
      separator = ", ";
    }
    if (!sampler.step_sizes.empty()) out << separator << "step size " << general(sampler.step_sizes[c], 3);
    out << '\n';
  }
  if (sampler.sampling_seconds > 0) out << "Sampling took " << general(sampler.sampling_seconds, 3) << " s\n";

  bool problems = false;
  if (divergent > 0) {
    problems = true;
    out << "Warning: " << count_of(divergent, chains, draws)
        << " after warm-up were divergent: the sampler missed regions of high curvature, so estimates may be "
           "biased. Increase the target acceptance rate (adapt delta) or reparameterize the model.\n";
  }
  if (saturated > 0) {
    problems = true;
    out << "Warning: " << count_of(saturated, chains, draws) << " stopped at the maximum tree depth";
    if (sampler.max_treedepth > 0) out << " of " << sampler.max_treedepth;
    out << ": trajectories were cut short, which slows exploration. Increase the maximum tree depth.\n";
  }
  for (std::size_t c = 0; c < sampler.ebfmi.size(); ++c) {
    if (!(sampler.ebfmi[c] < 0.3)) continue;
    problems = true;
    out << "Warning: chain " << c + 1 << " has E-BFMI " << general(sampler.ebfmi[c], 3)
        << ", below the 0.3 threshold: momentum resampling explores the energy distribution poorly "
           "(Betancourt 2016). Reparameterize the model if possible.\n";
  }
  if (!problems && chains > 0) out << "No divergences, tree-depth saturation or low E-BFMI found.\n";
}

}  // namespace variate::inference
