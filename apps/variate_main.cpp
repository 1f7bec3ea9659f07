// The `variate` command-line tool. With no subcommand it runs the main job.
#include <CLI/CLI.hpp>
#include <omp.h>

#include <iostream>
#include <map>

#include "gradient_job.hpp"
#include "variate/core/error.hpp"

int main(int argc, char** argv) {
  using namespace variate;
  CLI::App app{"variate: probabilistic programming with random variables and tracing"};
  app.require_subcommand(0, 1);
  int threads = 0;
  app.add_option("--threads", threads, "worker threads (default: one per core)")->check(CLI::Range(1, 1024));

  cli::GradientJobOptions gradient;
  std::string precision = "f64";
  CLI::App* gradient_cmd =
      app.add_subcommand("gradient", "fit Bayesian logistic regression on the embedded digits data, timing gradients");
  gradient_cmd->add_option("--steps", gradient.steps, "Adam steps")->check(CLI::Range(1, 1000000));
  gradient_cmd->add_option("--precision", precision, "f64 or f32")->check(CLI::IsMember({"f64", "f32"}));
  gradient_cmd->add_option("--seed", gradient.seed, "seed of the train/test split");
  gradient_cmd->add_option("--prior-scale", gradient.prior_scale, "standard deviation of the normal prior on weights")
      ->check(CLI::PositiveNumber);

  CLI11_PARSE(app, argc, argv);
  if (threads > 0) omp_set_num_threads(threads);
  gradient.precision = precision == "f32" ? DType::f32 : DType::f64;
  try {
    return cli::run_gradient_job(gradient, std::cout);  // also the default job
  } catch (const std::exception& e) {  // variate::Error and anything else: one message, no abort
    std::cerr << "variate: error: " << e.what() << '\n';
    return 1;
  }
}
