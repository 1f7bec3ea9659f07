// `variate vi`'s options.
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vi_job.hpp"

namespace variate::cli {

Command add_vi_command(CLI::App& app) {
  auto o = std::make_shared<ViJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "vi", "fit a Gaussian approximation to a model's posterior with ADVI, writing its draws as Stan CSV");
  add_model_options(*cmd, o->model, o->model_file);
  cmd->add_option("--data", o->data, "data file: CSV, or JSON in CmdStan's data format (default: embedded)");
  cmd->add_option("--family", o->family,
                  "meanfield (independent normals) or fullrank (a normal with a full covariance) on the "
                  "unconstrained space")
      ->check(CLI::IsMember({"meanfield", "fullrank"}))
      ->capture_default_str();
  cmd->add_option("--steps", o->steps, "Adam steps on the ELBO")
      ->check(whole_number(1, 100000000))
      ->capture_default_str();
  cmd->add_option("--particles", o->particles, "draws of q per ELBO estimate (per step)")
      ->check(whole_number(1, 100000))
      ->capture_default_str();
  cmd->add_option("--learning-rate", o->learning_rate, "Adam's learning rate, decayed to 0 over the steps (cosine)")
      ->check(kPositiveNumber)
      ->capture_default_str();
  cmd->add_option("--draws", o->draws, "draws of the fitted q to write and summarize")
      ->check(whole_number(1, 100000000))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "random seed")->check(kSeed)->capture_default_str();
  cmd->add_option("--output", o->output,
                  "the Stan CSV file of the draws (default variate-output/<model>-vi.csv); the ELBO trace and the "
                  "summary go next to it, as <name>-elbo.csv and <name>-summary.csv");
  return {cmd, [o] { return run_vi_job(*o, std::cout); }};
}

}  // namespace variate::cli
