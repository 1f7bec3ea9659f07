// The `variate` command-line tool. With no subcommand it runs the main job, `variate sample`.
#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "gradient_job.hpp"
#include "models.hpp"
#include "sample_job.hpp"
#include "summary_job.hpp"
#include "vae/train_command.hpp"
#include "variate/core/error.hpp"

namespace {

// --adapt-delta: a probability strictly between 0 and 1.
const CLI::Validator kOpenUnitInterval(
    [](std::string& text) -> std::string {
      double v = 0;
      std::size_t used = 0;
      try {
        v = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != text.size() || used == 0) return "expected a number strictly between 0 and 1, got '" + text + "'";
      return v > 0 && v < 1 ? std::string() : "must be strictly between 0 and 1, got " + text;
    },
    "in (0, 1)");

// A whole number in [minimum, maximum], with a message that says which bound was crossed.
CLI::Validator whole_number(long long minimum, long long maximum = std::numeric_limits<long long>::max()) {
  std::string description = ">= " + std::to_string(minimum);
  if (maximum < std::numeric_limits<long long>::max())
    description = "in " + std::to_string(minimum) + ".." + std::to_string(maximum);
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        long long v = 0;
        std::size_t used = 0;
        try {
          v = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || used == 0) return "expected a whole number, got '" + text + "'";
        if (v < minimum) return "must be at least " + std::to_string(minimum) + ", got " + text;
        if (v > maximum) return "must be at most " + std::to_string(maximum) + ", got " + text;
        return {};
      },
      description);
}

// A seed: digits only (CLI11 would wrap "-1" around to 2^64 - 1).
const CLI::Validator kSeed(
    [](std::string& text) -> std::string {
      const bool digits = !text.empty() && text.size() <= 20 &&
                          std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
      if (!digits) return "expected a whole number from 0 to 18446744073709551615, got '" + text + "'";
      try {
        (void)std::stoull(text);
      } catch (const std::exception&) {
        return "must be at most 18446744073709551615, got " + text;
      }
      return {};
    },
    "0..2^64-1");

}  // namespace

int main(int argc, char** argv) {
  using namespace variate;
  CLI::App app{
      "variate: probabilistic programming with random variables and tracing.\n"
      "Without a subcommand, runs `variate sample` (Bayesian softmax regression on the embedded digits)."};
  app.require_subcommand(0, 1);

  cli::SampleJobOptions sample;
  CLI::App* sample_cmd = app.add_subcommand(
      "sample", "draw from a model's posterior with NUTS or HMC, writing Stan CSV files and a summary");
  std::vector<std::string> model_names;
  std::string model_help = "the model:";
  for (const cli::ModelInfo& m : cli::model_catalog()) {
    model_names.push_back(m.name);
    model_help += "\n  " + m.name + ": " + m.summary;
  }
  sample_cmd->add_option("--model", sample.model, model_help)->check(CLI::IsMember(model_names))->capture_default_str();
  sample_cmd->add_option("--data", sample.data, "data file: CSV, or JSON in CmdStan's data format (default: embedded)");
  sample_cmd->add_option("--chains", sample.chains, "number of chains")
      ->check(whole_number(1, 4096))
      ->capture_default_str();
  sample_cmd->add_option("--warmup", sample.warmup, "warm-up iterations per chain (adaptation)")
      ->check(whole_number(0))
      ->capture_default_str();
  sample_cmd->add_option("--draws", sample.draws, "draws kept per chain after warm-up")
      ->check(whole_number(1))
      ->capture_default_str();
  sample_cmd->add_option("--seed", sample.seed, "random seed")->check(kSeed)->capture_default_str();
  sample_cmd->add_option("--threads", sample.threads, "worker threads (0: one per core)")
      ->check(whole_number(0, 1024))
      ->capture_default_str();
  sample_cmd
      ->add_option("--devices", sample.devices,
                   "thread devices to split the data (and sharded latent variables) over; each runs every "
                   "chain on its shard. Under mpirun: devices per rank")
      ->check(whole_number(1, 1024))
      ->capture_default_str();
  sample_cmd
      ->add_option("--sharded-draws", sample.sharded_draws,
                   "with --devices, where the draws of sharded sites (MovieLens' b_user) go: gather = all-gathered "
                   "to device 0 at every draw and written with the rest; per-device = each device writes its rows "
                   "to <model>.device<k>-<chain>.csv, listed in <model>.manifest.json (nothing gathered per draw). "
                   "Without a sharded saved site the two are the same")
      ->check(CLI::IsMember({"gather", "per-device"}))
      ->capture_default_str();
  sample_cmd->add_option("--sampler", sample.sampler, "nuts or hmc (static HMC)")
      ->check(CLI::IsMember({"nuts", "hmc"}))
      ->capture_default_str();
  sample_cmd->add_option("--metric", sample.metric, "diag or dense inverse metric, adapted in warm-up")
      ->check(CLI::IsMember({"diag", "dense"}))
      ->capture_default_str();
  sample_cmd->add_option("--precision", sample.precision, "f64 or f32: the dtype the log density computes in")
      ->check(CLI::IsMember({"f64", "f32"}))
      ->capture_default_str();
  sample_cmd
      ->add_option("--output", sample.output, "folder for the Stan CSV files and the summary (created if missing)")
      ->capture_default_str();
  sample_cmd->add_option("--max-depth", sample.max_depth, "NUTS maximum tree depth")
      ->check(whole_number(1, 30))
      ->capture_default_str();
  sample_cmd->add_option("--adapt-delta", sample.adapt_delta, "target acceptance rate of step-size adaptation")
      ->check(kOpenUnitInterval)
      ->capture_default_str();
  sample_cmd
      ->add_option("--leapfrog-steps", sample.leapfrog_steps,
                   "static HMC: leapfrog steps per draw (0: trajectory length 2 pi)")
      ->check(whole_number(0))
      ->capture_default_str();
  sample_cmd->add_flag("--vectorize", sample.vectorize,
                       "run all chains in one lockstep batch (one target call per step)");

  cli::SummaryJobOptions summary;
  CLI::App* summary_cmd = app.add_subcommand("summary", "summarize Stan CSV files (ours or CmdStan's), one per chain");
  summary_cmd->add_option("files", summary.files, "Stan CSV files")->required();
  summary_cmd->add_option("--csv", summary.csv, "also write the summary to this CSV file");
  summary_cmd->add_option("--json", summary.json, "also write the summary to this JSON file");

  cli::GradientJobOptions gradient;
  std::string gradient_precision = "f64";
  int gradient_threads = 0;
  CLI::App* gradient_cmd =
      app.add_subcommand("gradient", "fit Bayesian logistic regression on the embedded digits data, timing gradients");
  gradient_cmd->add_option("--steps", gradient.steps, "Adam steps")->check(CLI::Range(1, 1000000));
  gradient_cmd->add_option("--precision", gradient_precision, "f64 or f32")->check(CLI::IsMember({"f64", "f32"}));
  gradient_cmd->add_option("--seed", gradient.seed, "seed of the train/test split");
  gradient_cmd->add_option("--prior-scale", gradient.prior_scale, "standard deviation of the normal prior on weights")
      ->check(CLI::PositiveNumber);
  gradient_cmd->add_option("--threads", gradient_threads, "worker threads (0: one per core)")
      ->check(CLI::Range(0, 1024));

  const cli::TrainCommand train = cli::add_train_command(app);

  // No subcommand: the main job. Options without a subcommand are the sample command's.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || (args[0].starts_with("-") && args[0] != "-h" && args[0] != "--help"))
    args.insert(args.begin(), "sample");
  std::vector<char*> argv2 = {argv[0]};
  for (auto& a : args) argv2.push_back(a.data());
  try {
    app.parse(int(argv2.size()), argv2.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::cerr << "variate: error: " << e.what() << " (see variate " << (args.empty() ? "" : args[0] + " ")
              << "--help)\n";
    return 1;
  }

  try {
    if (*summary_cmd) return cli::run_summary_job(summary, std::cout);
    if (*train.app) return train.run();
    if (*gradient_cmd) {
      if (gradient_threads > 0) omp_set_num_threads(gradient_threads);
      gradient.precision = gradient_precision == "f32" ? DType::f32 : DType::f64;
      return cli::run_gradient_job(gradient, std::cout);
    }
    return cli::run_sample_job(sample, std::cout, std::cerr, isatty(STDERR_FILENO) != 0);
  } catch (const std::exception& e) {  // variate::Error and anything else: one message, no abort
    std::cout.flush();
    std::cerr << "variate: error: " << e.what() << '\n';
    return 1;
  }
}
