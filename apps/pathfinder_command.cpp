// `variate pathfinder`'s options.
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "pathfinder_job.hpp"

namespace variate::cli {

Command add_pathfinder_command(CLI::App& app) {
  auto o = std::make_shared<PathfinderJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "pathfinder",
      "approximate a model's posterior with multi-path Pathfinder (Zhang et al. 2022), writing its draws as Stan CSV");
  add_model_options(*cmd, o->model, o->model_file);
  cmd->add_option("--data", o->data, "data file: CSV, or JSON in CmdStan's data format (default: embedded)");
  cmd->add_option("--paths", o->paths, "independent L-BFGS paths, each from its own random start")
      ->check(whole_number(1, 10000))
      ->capture_default_str();
  cmd->add_option("--draws", o->draws, "draws written, importance-resampled from the paths' pooled draws (PSIS)")
      ->check(whole_number(1, 100000000))
      ->capture_default_str();
  cmd->add_option("--draws-per-path", o->draws_per_path, "draws of each path's approximation in the pool")
      ->check(whole_number(1, 100000000))
      ->capture_default_str();
  cmd->add_option("--elbo-draws", o->elbo_draws, "draws per iterate for its ELBO estimate")
      ->check(whole_number(1, 100000))
      ->capture_default_str();
  cmd->add_option("--history", o->history, "L-BFGS's correction pairs (the rank of the covariance's update)")
      ->check(whole_number(1, 1000))
      ->capture_default_str();
  cmd->add_option("--iterations", o->iterations, "L-BFGS iterations per path at most")
      ->check(whole_number(1, 100000000))
      ->capture_default_str();
  cmd->add_option("--init", o->init, "each path starts uniform in (-init, init) on the unconstrained space")
      ->check(kNonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "random seed")->check(kSeed)->capture_default_str();
  cmd->add_option("--output", o->output,
                  "the Stan CSV file of the draws (default variate-output/<model>-pathfinder.csv); the summary goes "
                  "next to it, as <name>-summary.csv");
  return {cmd, [o] { return run_pathfinder_job(*o, std::cout); }};
}

}  // namespace variate::cli
