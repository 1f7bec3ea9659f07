// The posteriordb benchmark suite (issue 27): NUTS on posteriordb posteriors written as variate
// models (bench/posteriordb/), per model and seed the min bulk and tail ESS over all parameters,
// the gradients with and without warm-up, wall time, divergences, max R-hat and whether every mean
// lies within 4 combined MCSEs of posteriordb's reference posterior; then the medians over models
// and the failures.
//
//   build/bench/posteriordb_suite [--models a,b] [--seeds 1,2,3] [--metric diag] [--chains 4]
//       [--warmup 1000] [--draws 1000] [--vectorized] [--laplace] [--threads N] [--output FILE.json]
//       [--list]
#include <CLI/CLI.hpp>
#include <iostream>

#include "posteriordb/references.hpp"
#include "posteriordb/report.hpp"
#include "posteriordb/run.hpp"
#include "posteriordb/suite.hpp"

int main(int argc, char** argv) {
  using namespace posteriordb;
  CLI::App app("NUTS on posteriordb posteriors, against their reference posteriors");
  RunOptions options;
  std::vector<std::string> names;
  std::vector<std::uint64_t> seeds{1};
  std::string output, data_folder = default_data_folder(), reference_file = default_reference_file();
  bool list = false;
  app.add_option("--models", names, "posteriordb names, comma-separated (default: all)")->delimiter(',');
  app.add_option("--seeds", seeds, "seeds, comma-separated")->delimiter(',');
  app.add_option("--metric", options.metric, "diag, dense, fisher-diag or fisher-low-rank")
      ->check(CLI::IsMember({"diag", "dense", "fisher-diag", "fisher-low-rank"}));
  app.add_option("--chains", options.chains)->check(CLI::PositiveNumber);
  app.add_option("--warmup", options.warmup)->check(CLI::NonNegativeNumber);
  app.add_option("--draws", options.draws)->check(CLI::PositiveNumber);
  app.add_option("--threads", options.threads, "worker threads (0: one per core)")->check(CLI::NonNegativeNumber);
  app.add_flag("--vectorized", options.vectorized, "all chains in one batch");
  app.add_flag("--laplace", options.laplace,
               "start at the Laplace approximation and sample the coordinates it whitens (--init laplace)");
  app.add_option("--output", output, "write the runs and the summary as JSON");
  app.add_option("--data-folder", data_folder, "posteriordb's data files");
  app.add_option("--references", reference_file, "the reference table");
  app.add_flag("--list", list, "list the models and exit");
  CLI11_PARSE(app, argc, argv);
  try {
    if (list) {
      for (const SuiteModel& m : suite_models()) std::cout << m.posterior << "  (" << m.kind << ")\n";
      return 0;
    }
    std::vector<const SuiteModel*> models;
    if (names.empty())
      for (const SuiteModel& m : suite_models()) models.push_back(&m);
    for (const std::string& name : names) models.push_back(&find_suite_model(name));
    const ReferenceTable references = read_references(reference_file);
    std::cout << "NUTS, metric " << options.metric << ", " << options.chains << " chains x (" << options.warmup
              << " warm-up + " << options.draws << " draws)" << (options.vectorized ? ", vectorized" : "")
              << (options.laplace ? ", Laplace start" : "") << "\n";
    print_header(std::cout);
    std::vector<RunRecord> runs;
    for (const SuiteModel* m : models) {
      const variate::models::ModelData data = read_suite_data(*m, data_folder);
      const auto ref = references.find(m->reference);
      for (std::uint64_t seed : seeds) {
        runs.push_back(run_posterior(*m, data, ref == references.end() ? nullptr : &ref->second, options, seed));
        print_row(std::cout, runs.back());
        std::cout.flush();
      }
    }
    const SuiteSummary summary = summarize_runs(runs, options);
    print_summary(std::cout, summary);
    if (!output.empty()) write_json(output, options, runs, summary);
  } catch (const std::exception& e) {
    std::cerr << "posteriordb_suite: " << e.what() << "\n";
    return 1;
  }
}
