#include "vi_job.hpp"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "draw_layout.hpp"
#include "models.hpp"
#include "output_files.hpp"
#include "sample_report.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/inference/pareto_smoothing.hpp"
#include "variate/inference/summary.hpp"
#include "variate/inference/vi_advi.hpp"
#include "version.hpp"
#include "write_file.hpp"

namespace variate::cli {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string number(double v, int precision = 15) {
  std::ostringstream out;
  out << std::setprecision(precision) << v;
  return out.str();
}

void check_options(const ViJobOptions& o) {
  VARIATE_CHECK(o.family == "meanfield" || o.family == "fullrank", "vi", "--family must be meanfield or fullrank, got ",
                quote_input(o.family));
  VARIATE_CHECK(o.steps >= 1, "vi", "--steps must be at least 1, got ", o.steps);
  VARIATE_CHECK(o.particles >= 1, "vi", "--particles must be at least 1, got ", o.particles);
  VARIATE_CHECK(o.draws >= 1, "vi", "--draws must be at least 1, got ", o.draws);
  VARIATE_CHECK(o.learning_rate > 0 && std::isfinite(o.learning_rate), "vi",
                "--learning-rate must be a finite number greater than 0, got ", o.learning_rate);
}

// The lines of CmdStan's variational config that apply, with its keys, and ours after them.
std::vector<std::pair<std::string, std::string>> config_lines(const ViJobOptions& o, const Model& m,
                                                              const fs::path& file) {
  return {{"model", m.name},
          {"method", "variational"},
          {"    algorithm", o.family},
          {"    iter", std::to_string(o.steps)},
          {"    grad_samples", std::to_string(o.particles)},
          {"    eta", number(o.learning_rate)},
          {"      engaged", "0"},  // no step-size adaptation: Adam's rate decays by a cosine schedule
          {"    output_samples", std::to_string(o.draws)},
          {"id", "1"},
          {"  file", m.data_file},
          {"init", "0"},  // q starts as N(0, I) on the unconstrained space
          {"  seed", std::to_string(o.seed)},
          {"  file", file.string()},
          {"optimizer", "adam, cosine decay of the learning rate to 0"},
          {"variate_version", kVariateVersion}};
}

// One line per tenth of the steps: the mean ELBO estimate over them (one estimate is noisy).
class ElboProgress {
 public:
  ElboProgress(std::ostream& out, int steps) : out_(out), steps_(steps), chunk_(std::max(1, steps / 10)) {}
  void operator()(int step, double elbo) {
    sum_ += elbo;
    ++count_;
    if ((step + 1) % chunk_ != 0 && step + 1 != steps_) return;
    out_ << "  steps " << std::setw(int(std::to_string(steps_).size())) << step + 2 - count_ << '-' << step + 1
         << ": mean ELBO " << std::setprecision(6) << sum_ / count_ << "  (" << std::fixed << std::setprecision(2)
         << seconds_since(start_) << " s)" << std::defaultfloat << '\n'
         << std::flush;
    sum_ = 0;
    count_ = 0;
  }

 private:
  std::ostream& out_;
  int steps_, chunk_;
  double sum_ = 0;
  int count_ = 0;
  Clock::time_point start_ = Clock::now();
};

// A point of the unconstrained space: its latent sites' values and generated quantities.
tracing::Values values_at(const inference::Unconstrained& space, const Tensor& point) {
  tracing::Values v = space.constrain(point);
  if (!space.generated_sites().empty()) v.merge(space.generated_quantities(point));
  return v;
}

// What k-hat says, after Vehtari et al. (2024) and, for variational approximations, Yao et al. (2018).
std::string k_hat_meaning(double k, double threshold) {
  if (std::isnan(k)) return "not available: a fit needs a tail of 5 ratios, so at least 21 draws";
  if (k == -INFINITY) return "the ratios are constant in the tail: q matches the posterior there up to a constant";
  if (k < threshold)
    return "reliable: q covers the posterior well enough that its draws, importance-weighted, give dependable "
           "estimates (the summary above is unweighted, so it keeps q's own error, which is small here)";
  // A Gaussian q has lighter tails than most posteriors on the unconstrained space (log p falls
  // linearly where log q falls quadratically), so k-hat can be large although q fits the bulk.
  const std::string why =
      "q misses part of the posterior: a tail heavier than q's Gaussian one, or correlations a mean-field q cannot "
      "express. The summary above may still place the bulk, but check it with `variate sample`";
  if (k < 1) return "unreliable: " + why;
  return "very unreliable: the ratios have no finite mean. " + why;
}

void print_pareto_k(std::ostream& out, const std::vector<double>& log_ratios) {
  const inference::ParetoSmoothed psis = inference::pareto_smooth(log_ratios);
  const double threshold = inference::pareto_k_threshold(log_ratios.size());
  out << "\nPareto k-hat of the importance ratios p/q (PSIS, Vehtari et al. 2024; a generalized Pareto fitted to the "
      << psis.tail_length << " largest of " << log_ratios.size() << "): " << std::setprecision(3) << psis.k_hat
      << "\n  below " << std::setprecision(2) << threshold << " = min(1 - 1/log10(draws), 0.7) reliable, from there "
      << "to 1 unreliable, above 1 very unreliable\n  " << k_hat_meaning(psis.k_hat, threshold) << '\n';
}

}  // namespace

int run_vi_job(const ViJobOptions& o, std::ostream& out) {
  const auto wall_start = Clock::now();
  check_options(o);
  const Model model = make_model(o.model, {.data_path = o.data, .model_file = o.model_file, .dtype = DType::f64});
  const inference::Unconstrained space(model.program);
  const std::int64_t d = space.dimension();
  VARIATE_CHECK(d >= 1, "vi", "model '", model.name, "' has no continuous latent variables to fit");
  const fs::path file = output_file("vi", o.output, model.name);
  const fs::path elbo_file = sibling_file(file, "-elbo"), summary_file = sibling_file(file, "-summary");

  out << "variate vi: " << model.name << ", " << model.description << '\n'
      << "data: " << model.data << '\n'
      << "ADVI: " << (o.family == "meanfield" ? "mean-field" : "full-rank") << " Gaussian q on the " << d
      << "-dimensional unconstrained space, " << o.steps << " Adam steps (learning rate " << o.learning_rate
      << ", cosine decay), " << o.particles << (o.particles == 1 ? " draw" : " draws")
      << " of q per ELBO estimate, then " << o.draws << " draws; seed " << o.seed << '\n'
      << "ELBO (the mean of each tenth of the steps' estimates):\n";
  ElboProgress progress(out, o.steps);
  const inference::AdviResult fit = inference::fit_advi(
      model.program,
      {.family = o.family == "fullrank" ? inference::AdviFamily::full_rank : inference::AdviFamily::mean_field,
       .steps = o.steps,
       .particles = o.particles,
       .learning_rate = o.learning_rate,
       .draws = o.draws,
       .key = random::Key(o.seed),
       .on_step = [&](int step, double elbo) { progress(step, elbo); }});
  const double fit_seconds = seconds_since(wall_start);

  // The CSV: q's mean, then the draws, each with lp__ = 0 (as CmdStan), log_p__ (the model's log
  // density of the unconstrained draw, Jacobian included) and log_g__.
  const inference::SiteColumns sites = saved_columns(model, space);
  std::vector<std::string> columns = {"lp__", "log_p__", "log_g__"};
  columns.insert(columns.end(), sites.names.begin(), sites.names.end());
  data::StanCsvWriter csv(file.string(), config_lines(o, model, file), columns);
  std::vector<double> row(columns.size(), 0.0);
  inference::fill_site_columns(sites, values_at(space, fit.loc), row.data() + 3);
  csv.write_row(row);
  std::vector<std::vector<double>> by_column(1 + sites.names.size());  // log_p__, then every site column
  std::vector<double> log_ratios;
  for (int s = 0; s < o.draws; ++s) {
    const Tensor point = reshape(slice(fit.unconstrained_draws, 0, s, s + 1), {d});
    row[1] = space.log_density(point).item();
    row[2] = fit.log_g.at(s);
    inference::fill_site_columns(sites, values_at(space, point), row.data() + 3);
    csv.write_row(row);
    log_ratios.push_back(row[1] - row[2]);
    by_column[0].push_back(row[1]);
    for (std::size_t j = 3; j < row.size(); ++j) by_column[j - 2].push_back(row[j]);
  }
  write_file("vi", elbo_file.string(), [&](std::ostream& f) {
    f << "step,elbo\n" << std::setprecision(17);
    for (std::size_t t = 0; t < fit.elbo_trace.size(); ++t) f << t + 1 << ',' << fit.elbo_trace[t] << '\n';
  });

  std::vector<inference::ParameterSummary> all = {inference::summarize("log_p__", {by_column[0]})};
  for (std::size_t j = 0; j < sites.names.size(); ++j)
    all.push_back(inference::summarize(sites.names[j], {by_column[j + 1]}));
  print_parameter_summary(out, model, std::to_string(o.draws) + " draws of q", all, summary_file);
  write_file("vi", summary_file.string(), [&](std::ostream& f) { inference::write_summary_csv(f, all); });
  print_pareto_k(out, log_ratios);
  out << "\noutput: " << file.string() << " (q's mean, then the draws), the ELBO of every step in "
      << elbo_file.string() << ", the summary in " << summary_file.string() << '\n'
      << "time: " << std::fixed << std::setprecision(2) << fit_seconds << " s fitting, "
      << seconds_since(wall_start) - fit_seconds << " s drawing and writing\n"
      << std::defaultfloat;
  return 0;
}

}  // namespace variate::cli
