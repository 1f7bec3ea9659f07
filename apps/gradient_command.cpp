// `variate gradient`'s options.
#include <omp.h>

#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "gradient_job.hpp"

namespace variate::cli {

Command add_gradient_command(CLI::App& app) {
  struct Options {
    GradientJobOptions job;
    std::string precision = "f64";
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd =
      app.add_subcommand("gradient", "fit Bayesian logistic regression on the embedded digits data, timing gradients");
  cmd->add_option("--steps", o->job.steps, "Adam steps")->check(CLI::Range(1, 1000000));
  cmd->add_option("--precision", o->precision, "f64 or f32")->check(CLI::IsMember({"f64", "f32"}));
  cmd->add_option("--seed", o->job.seed, "seed of the train/test split")->check(kSeed);
  cmd->add_option("--prior-scale", o->job.prior_scale, "standard deviation of the normal prior on weights")
      ->check(kPositiveNumber);
  cmd->add_option("--threads", o->threads, "worker threads (0: one per core)")->check(CLI::Range(0, 1024));
  return {cmd, [o] {
            if (o->threads > 0) omp_set_num_threads(o->threads);
            o->job.precision = o->precision == "f32" ? DType::f32 : DType::f64;
            return run_gradient_job(o->job, std::cout);
          }};
}

}  // namespace variate::cli
