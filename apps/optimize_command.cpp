// `variate optimize`'s options.
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "optimize_job.hpp"

namespace variate::cli {

Command add_optimize_command(CLI::App& app) {
  auto o = std::make_shared<OptimizeJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "optimize", "find a model's posterior mode with L-BFGS (MAP), writing it as a row of Stan CSV");
  add_model_options(*cmd, o->model, o->model_file);
  cmd->add_option("--data", o->data, "data file: CSV, or JSON in CmdStan's data format (default: embedded)");
  cmd->add_flag("--jacobian", o->jacobian,
                "include the log Jacobian of the transforms to the unconstrained space (the mode of the density "
                "of the unconstrained point; by default, as CmdStan, the mode in the parameters' own space)");
  cmd->add_option("--iterations", o->iterations, "L-BFGS iterations at most")
      ->check(whole_number(1, 100000000))
      ->capture_default_str();
  cmd->add_option("--tol-obj", o->tol_obj, "converged when log p changes by at most this in an iteration")
      ->check(kNonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--tol-rel-obj", o->tol_rel_obj,
                  "converged when log p changes by at most this many machine epsilons relative to its size")
      ->check(kNonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--tol-grad", o->tol_grad, "converged when the gradient's norm is at most this")
      ->check(kNonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--tol-param", o->tol_param, "converged when an iteration moves the point by at most this")
      ->check(kNonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--history", o->history, "L-BFGS correction pairs kept")
      ->check(whole_number(1, 1000))
      ->capture_default_str();
  cmd->add_option("--init", o->init, "start uniform in (-init, init) on the unconstrained space; 0: start at 0")
      ->check(kNonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "random seed (of the start)")->check(kSeed)->capture_default_str();
  cmd->add_option("--output", o->output, "the Stan CSV file (default variate-output/<model>-optimize.csv)");
  return {cmd, [o] { return run_optimize_job(*o, std::cout); }};
}

}  // namespace variate::cli
