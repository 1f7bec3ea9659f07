#include "pathfinder_job.hpp"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "draw_layout.hpp"
#include "models.hpp"
#include "output_files.hpp"
#include "sample_report.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/inference/pareto_smoothing.hpp"
#include "variate/inference/pathfinder.hpp"
#include "variate/inference/summary.hpp"
#include "version.hpp"
#include "write_file.hpp"

namespace variate::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The lines of CmdStan's pathfinder config, with its keys, and ours after them.
std::vector<std::pair<std::string, std::string>> config_lines(const PathfinderJobOptions& o, const Model& m,
                                                              const fs::path& file) {
  return {{"model", m.name},
          {"method", "pathfinder"},
          {"    history_size", std::to_string(o.history)},
          {"    num_psis_draws", std::to_string(o.draws)},
          {"    num_paths", std::to_string(o.paths)},
          {"    psis_resample", "1"},
          {"    calculate_lp", "1"},
          {"    max_lbfgs_iters", std::to_string(o.iterations)},
          {"    num_draws", std::to_string(o.draws_per_path)},
          {"    num_elbo_draws", std::to_string(o.elbo_draws)},
          {"id", "1"},
          {"  file", m.data_file},
          {"init", std::to_string(o.init)},
          {"  seed", std::to_string(o.seed)},
          {"  file", file.string()},
          {"variate_version", kVariateVersion}};
}

void print_paths(std::ostream& out, const inference::PathfinderResult& r) {
  for (std::size_t p = 0; p < r.paths.size(); ++p) {
    const inference::PathfinderPath& path = r.paths[p];
    out << "  path " << p + 1 << ": " << path.iterations << " L-BFGS iterations, " << path.gradients
        << " gradients; best ELBO " << std::setprecision(6) << path.elbo[std::size_t(path.best_iteration - 1)]
        << " at iterate " << path.best_iteration << " (" << path.message << ")\n";
  }
}

void print_k_hat(std::ostream& out, double k_hat, std::size_t pool) {
  out << "\nPareto k-hat of the pooled draws' importance ratios p/q (PSIS, " << pool
      << " draws): " << std::setprecision(3) << k_hat << '\n';
  if (std::isnan(k_hat))
    out << "  not available: a fit needs a tail of 5 ratios, so at least 21 draws in the pool\n";
  else if (k_hat > 0.7)
    out << "warning: k-hat > 0.7: the approximations miss part of the posterior (a funnel, a heavy tail, several "
           "modes), so the resampled draws are not a reliable stand-in for it; use them to start `variate sample` "
           "(--init pathfinder), not as the posterior\n";
  else
    out << "  below 0.7: the resampled draws are a dependable approximation of the posterior\n";
}

}  // namespace

int run_pathfinder_job(const PathfinderJobOptions& o, std::ostream& out) {
  const auto start = Clock::now();
  const Model model = make_model(o.model, {.data_path = o.data, .model_file = o.model_file, .dtype = DType::f64});
  const fs::path file = output_file("pathfinder", o.output, model.name);
  const fs::path summary_file = sibling_file(file, "-summary");
  const inference::Unconstrained space(model.program);
  out << "variate pathfinder: " << model.name << ", " << model.description << '\n'
      << "data: " << model.data << '\n'
      << "Pathfinder: " << o.paths << (o.paths == 1 ? " L-BFGS path" : " L-BFGS paths") << " on the "
      << space.dimension() << "-dimensional unconstrained space (history " << o.history << ", at most " << o.iterations
      << " iterations, " << o.elbo_draws << " draws per ELBO estimate), " << o.draws_per_path << " draws per path, "
      << o.draws << " resampled with PSIS weights; start uniform in (-" << o.init << ", " << o.init << "), seed "
      << o.seed << '\n';
  const inference::PathfinderResult r = inference::pathfinder(model.program, {.paths = o.paths,
                                                                              .draws = o.draws,
                                                                              .draws_per_path = o.draws_per_path,
                                                                              .elbo_draws = o.elbo_draws,
                                                                              .history = o.history,
                                                                              .iterations = o.iterations,
                                                                              .init_radius = o.init,
                                                                              .key = random::Key(o.seed)});
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  print_paths(out, r);

  const inference::SiteColumns sites = saved_columns(model, space);
  std::vector<std::string> columns = {"lp_approx__", "lp__"};
  columns.insert(columns.end(), sites.names.begin(), sites.names.end());
  data::StanCsvWriter csv(file.string(), config_lines(o, model, file), columns);
  std::vector<double> row(columns.size());
  std::vector<std::vector<double>> by_column(columns.size() - 1);  // lp__, then every site column
  const std::int64_t d = space.dimension();
  for (std::size_t s = 0; s < r.log_p.size(); ++s) {
    const Tensor point = reshape(slice(r.unconstrained_draws, 0, std::int64_t(s), std::int64_t(s) + 1), {d});
    tracing::Values values = space.constrain(point);
    if (!space.generated_sites().empty()) values.merge(space.generated_quantities(point));
    row[0] = r.log_q[s];
    row[1] = r.log_p[s];
    inference::fill_site_columns(sites, values, row.data() + 2);
    csv.write_row(row);
    for (std::size_t j = 1; j < row.size(); ++j) by_column[j - 1].push_back(row[j]);
  }
  std::vector<inference::ParameterSummary> all = {inference::summarize("lp__", {by_column[0]})};
  for (std::size_t j = 0; j < sites.names.size(); ++j)
    all.push_back(inference::summarize(sites.names[j], {by_column[j + 1]}));
  print_parameter_summary(out, model, std::to_string(o.draws) + " resampled Pathfinder draws", all, summary_file);
  write_file("pathfinder", summary_file.string(), [&](std::ostream& f) { inference::write_summary_csv(f, all); });
  print_k_hat(out, r.k_hat, std::size_t(o.paths) * std::size_t(o.draws_per_path));
  out << "\ngradients: " << r.gradients << " evaluations of log p with its gradient (L-BFGS), "
      << r.log_density_evaluations << " of log p alone (ELBO estimates and draws)\n"
      << "output: " << file.string() << ", the summary in " << summary_file.string() << '\n'
      << "time: " << std::fixed << std::setprecision(2) << seconds << " s Pathfinder, "
      << std::chrono::duration<double>(Clock::now() - start).count() - seconds << " s writing\n"
      << std::defaultfloat;
  return 0;
}

}  // namespace variate::cli
