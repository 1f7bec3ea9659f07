// `variate sample`'s options.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "sample_job.hpp"

namespace variate::cli {
namespace {

void add_checkpoint_options(CLI::App& cmd, SampleJobOptions& o, CLI::Option* output) {
  cmd.add_option("--checkpoint-every", o.checkpoint_every,
                 "save each chain's state every N iterations (and when it stops) in <output>/checkpoint, so that "
                 "--resume can continue the run after a crash or a stop (0: no checkpoints)")
      ->check(whole_number(0));
  cmd.add_option("--resume", o.resume,
                 "continue the run whose output folder is DIR from its checkpoints, with the same options; the draws "
                 "are those of a run that never stopped")
      ->excludes(output);
  cmd.add_option("--init-from", o.init_from,
                 "start the chains from the adapted metric, step size and last positions of the run in DIR (made "
                 "with --checkpoint-every); with --warmup 0 they sample at once, otherwise warm-up adapts from there");
}

}  // namespace

Command add_sample_command(CLI::App& app) {
  auto o = std::make_shared<SampleJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sample", "draw from a model's posterior with NUTS or HMC, writing Stan CSV files and a summary");
  add_model_options(*cmd, o->model, o->model_file);
  cmd->add_option("--data", o->data, "data file: CSV, or JSON in CmdStan's data format (default: embedded)");
  cmd->add_option("--chains", o->chains, "number of chains")->check(whole_number(1, 4096))->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "warm-up iterations per chain (adaptation)")
      ->check(whole_number(0))
      ->capture_default_str();
  cmd->add_option("--draws", o->draws, "draws kept per chain after warm-up")
      ->check(whole_number(1))
      ->capture_default_str();
  cmd->add_option("--thin", o->thin,
                  "write every N-th draw after warm-up (CmdStan's thin): --draws 1000 --thin 10 writes 100 per chain")
      ->check(whole_number(1))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "random seed")->check(kSeed)->capture_default_str();
  cmd->add_option("--threads", o->threads, "worker threads (0: one per core)")
      ->check(whole_number(0, 1024))
      ->capture_default_str();
  cmd->add_option("--devices", o->devices,
                  "thread devices to split the data (and sharded latent variables) over; each runs every "
                  "chain on its shard. Under mpirun: devices per rank")
      ->check(whole_number(1, 1024))
      ->capture_default_str();
  cmd->add_option("--sharded-draws", o->sharded_draws,
                  "with --devices, where the draws of sharded sites (MovieLens' b_user) go: gather = all-gathered "
                  "to device 0 at every draw and written with the rest; per-device = each device writes its rows "
                  "to <model>.device<k>-<chain>.csv, listed in <model>.manifest.json (nothing gathered per draw). "
                  "Without a sharded saved site the two are the same")
      ->check(CLI::IsMember({"gather", "per-device"}))
      ->capture_default_str();
  cmd->add_option("--sampler", o->sampler,
                  "nuts, hmc (static HMC) or chees (ChEES-HMC; needs --vectorize and many chains)")
      ->check(CLI::IsMember({"nuts", "hmc", "chees"}))
      ->capture_default_str();
  cmd->add_option("--metric", o->metric,
                  "the inverse metric and how warm-up learns it: diag or dense (Stan's windowed adaptation), "
                  "fisher-diag or fisher-low-rank (nutpie's Fisher-divergence adaptation from draws and gradients), "
                  "unit (Stan's unit_e: the identity, not adapted; warm-up tunes the step size alone, which suits "
                  "the coordinates --init laplace whitens); "
                  "auto: fisher-low-rank, or diag with --sampler chees, --devices and under mpirun")
      ->check(CLI::IsMember({"auto", "diag", "dense", "fisher-diag", "fisher-low-rank", "unit"}))
      ->capture_default_str();
  cmd->add_option("--precision", o->precision, "f64 or f32: the dtype the log density computes in")
      ->check(CLI::IsMember({"f64", "f32"}))
      ->capture_default_str();
  CLI::Option* output =
      cmd->add_option("--output", o->output, "folder for the Stan CSV files and the summary (created if missing)")
          ->capture_default_str();
  cmd->add_option("--output-format", o->output_format,
                  "csv: Stan CSV files, one per chain; netcdf: one netCDF-4 file <model>.nc in ArviZ's InferenceData "
                  "layout (arviz.from_netcdf); both")
      ->check(CLI::IsMember({"csv", "netcdf", "both"}))
      ->capture_default_str();
  cmd->add_flag("--overwrite", o->overwrite,
                "replace the files of an earlier run of the model in --output (refused otherwise)");
  cmd->add_option("--max-depth", o->max_depth, "NUTS maximum tree depth")
      ->check(whole_number(1, 30))
      ->capture_default_str();
  cmd->add_option("--adapt-delta", o->adapt_delta,
                  "target acceptance rate of step-size adaptation (nuts, hmc; chees drives the chains' "
                  "harmonic-mean acceptance to 0.651)")
      ->check(kOpenUnitInterval)
      ->capture_default_str();
  cmd->add_option("--leapfrog-steps", o->leapfrog_steps,
                  "static HMC: leapfrog steps per draw (0: --trajectory-length over the step size)")
      ->check(whole_number(0))
      ->capture_default_str();
  cmd->add_option("--trajectory-length", o->trajectory_length,
                  "static HMC: integration time per draw, in the units the metric scales (Stan's int_time; "
                  "for a Gaussian posterior and a metric equal to its covariance, pi/2 is a quarter period, "
                  "which gives independent draws of x and of x squared)")
      ->check(kPositiveNumber)
      ->default_str("2 pi, Stan's");
  cmd->add_option("--trajectory-jitter", o->trajectory_jitter,
                  "static HMC: each chain's every draw integrates for u times the length, u uniform in "
                  "(1 - J, 1 + J), so that no fixed length resonates with a period of the posterior")
      ->check(CLI::Validator(
          [](const std::string& text) {
            double j = -1;
            return CLI::detail::lexical_cast(text, j) && j >= 0 && j < 1 ? std::string()
                                                                         : "expected a number in [0, 1), got " + text;
          },
          "in [0, 1)"))
      ->capture_default_str();
  cmd->add_flag("--predictive", o->predictive,
                "write a posterior predictive draw of each observed site y at every draw, as the columns y_rep.1 "
                "... after the parameters (Stan's generated quantities)");
  cmd->add_flag("--save-all", o->save_all,
                "write every latent site, also those a model leaves out by default (MovieLens' embeddings u and v, "
                "which `variate recommend` needs)");
  cmd->add_flag("--log-lik", o->log_lik,
                "write the pointwise log-likelihood of the observed sites at every draw, as the columns log_lik.1 "
                "... log_lik.N (for LOO and WAIC: the loo package and ArviZ read them by that name)");
  cmd->add_option("--progress", o->progress,
                  "progress on standard error: bars (redrawn in place), lines (a plain line per chain each 10%), "
                  "json (an object per line, for scripts), or auto: bars on a terminal, lines otherwise")
      ->check(CLI::IsMember({"auto", "bars", "lines", "json"}))
      ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "no progress display (the results are printed all the same)");
  cmd->add_flag("--report", o->report,
                "at the end, also write report.html to --output: plots and diagnostics of the draws (as `variate "
                "report`)");
  cmd->add_option("--init", o->init,
                  "random: each chain starts uniform in (-2, 2) on the unconstrained space; pathfinder: run multi-path "
                  "Pathfinder first, start each chain at its own resampled draw and the metric at the approximation's "
                  "variances (warm-up still runs, and may be shortened); laplace: find the mode (L-BFGS), take the "
                  "Laplace approximation there (its Hessian from dimension + 1 gradients) and run the chains on the "
                  "coordinates it whitens, each starting at its own draw from it (for strongly correlated posteriors "
                  "near Gaussian, such as digits-softmax; no --checkpoint-every)")
      ->check(CLI::IsMember({"random", "pathfinder", "laplace"}))
      ->capture_default_str();
  cmd->add_flag("--vectorize", o->vectorize, "run all chains in one lockstep batch (one target call per step)");
  add_checkpoint_options(*cmd, *o, output);
  return {cmd, [o] { return run_sample_job(*o, std::cout, std::cerr, isatty(STDERR_FILENO) != 0); }};
}

}  // namespace variate::cli
