#include "optimize_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "draw_layout.hpp"
#include "models.hpp"
#include "output_files.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/inference/optimize.hpp"
#include "version.hpp"

namespace variate::cli {
namespace {

namespace fs = std::filesystem;

std::string number(double v) {
  std::ostringstream out;
  out << std::setprecision(15) << v;
  return out.str();
}

// CmdStan's optimize config, with its keys, and ours after them.
std::vector<std::pair<std::string, std::string>> config_lines(const OptimizeJobOptions& o, const Model& m,
                                                              const fs::path& file) {
  return {{"model", m.name},
          {"method", "optimize"},
          {"    algorithm", "lbfgs"},
          {"        tol_obj", number(o.tol_obj)},
          {"        tol_rel_obj", number(o.tol_rel_obj)},
          {"        tol_grad", number(o.tol_grad)},
          {"        tol_param", number(o.tol_param)},
          {"        history_size", std::to_string(o.history)},
          {"    jacobian", o.jacobian ? "1" : "0"},
          {"    iter", std::to_string(o.iterations)},
          {"    save_iterations", "0"},
          {"id", "1"},
          {"  file", m.data_file},
          {"init", number(o.init)},
          {"  seed", std::to_string(o.seed)},
          {"  file", file.string()},
          {"variate_version", kVariateVersion}};
}

}  // namespace

int run_optimize_job(const OptimizeJobOptions& o, std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  VARIATE_CHECK(o.iterations >= 1, "optimize", "--iterations must be at least 1, got ", o.iterations);
  VARIATE_CHECK(o.history >= 1, "optimize", "--history must be at least 1, got ", o.history);
  const Model model = make_model(o.model, {.data_path = o.data, .model_file = o.model_file, .dtype = DType::f64});
  const fs::path file = output_file("optimize", o.output, model.name);  // before the search: a bad path fails fast
  out << "variate optimize: " << model.name << ", " << model.description << '\n'
      << "data: " << model.data << '\n'
      << "L-BFGS on the unconstrained space, " << (o.jacobian ? "with" : "without")
      << " the Jacobian term (the mode of the density of "
      << (o.jacobian ? "the unconstrained point" : "the parameters") << "), at most " << o.iterations
      << " iterations; start uniform in (-" << o.init << ", " << o.init << "), seed " << o.seed << '\n';
  const inference::OptimizeResult r = inference::optimize(
      model.program, {.jacobian = o.jacobian ? inference::Jacobian::included : inference::Jacobian::excluded,
                      .iterations = o.iterations,
                      .history = o.history,
                      .loss = o.tol_obj,
                      .relative_loss = o.tol_rel_obj,
                      .gradient = o.tol_grad,
                      .parameter = o.tol_param,
                      .init_radius = o.init,
                      .key = random::Key(o.seed)});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const inference::Unconstrained space(model.program);
  const inference::SiteColumns sites = saved_columns(model, space);
  tracing::Values values = r.mode;
  if (!space.generated_sites().empty()) values.merge(space.generated_quantities(r.point));
  std::vector<double> row(1 + sites.names.size());
  row[0] = r.log_density;
  inference::fill_site_columns(sites, values, row.data() + 1);
  std::vector<std::string> columns = {"lp__"};
  columns.insert(columns.end(), sites.names.begin(), sites.names.end());
  data::StanCsvWriter(file.string(), config_lines(o, model, file), columns).write_row(row);

  out << (r.converged ? "" : "warning: ") << r.message << " (" << r.evaluations << " evaluations of log p and its "
      << "gradient, " << std::fixed << std::setprecision(3) << seconds << " s)\n"
      << std::defaultfloat;
  if (!r.converged) out << "warning: the iteration limit stopped the search; the point may not be a mode\n";
  // Every column when there are few; otherwise the model's main parameters, the rest in the file.
  constexpr std::size_t kAll = 20;
  std::size_t width = 4;
  for (const std::string& n : columns) width = std::max(width, n.size());
  out << "\nmode:\n" << std::setprecision(6);
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const bool main = std::find(model.main_parameters.begin(), model.main_parameters.end(), columns[j]) !=
                      model.main_parameters.end();
    if (j == 0 || columns.size() <= kAll || main)
      out << "  " << std::left << std::setw(int(width)) << columns[j] << std::right << "  " << row[j] << '\n';
  }
  if (columns.size() > kAll) out << "  (all " << columns.size() - 1 << " values are in the file)\n";
  out << "lp__ is log p at the mode" << (o.jacobian ? ", with" : ", without") << " the Jacobian term\n"
      << "output: " << file.string() << '\n';
  return 0;
}

}  // namespace variate::cli
