#include "sample_config.hpp"

#include <cmath>

#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/inference/draw_file.hpp"
#include "version.hpp"

namespace variate::cli {

std::vector<std::pair<std::string, std::string>> config_lines(const SampleJobOptions& o, const Model& m,
                                                              const inference::SamplerOptions& s, int chain,
                                                              const std::string& path, int threads, int devices,
                                                              const std::string& sharded_draws, int device) {
  std::vector<std::pair<std::string, std::string>> c = inference::sample_config_lines(
      s, {.model = m.name, .data_file = m.data_file, .chain = chain, .path = path, .thin = o.thin});
  c.emplace_back("precision", o.precision);
  c.emplace_back("vectorized", o.vectorize ? "1" : "0");
  c.emplace_back("initialization", o.init);  // laplace: the adaptation block's metric is on whitened coordinates
  c.emplace_back("threads", std::to_string(threads));
  c.emplace_back("devices", std::to_string(devices));
  if (devices > 1) c.emplace_back("sharded_draws", sharded_draws);
  if (device >= 0) c.emplace_back("device", std::to_string(device));
  c.emplace_back("variate_version", kVariateVersion);
  return c;
}

// ChEES adapts across vectorized chains; each option it cannot honour gets its own message.
void check_chees_options(const SampleJobOptions& o) {
  if (o.sampler != "chees") return;
  VARIATE_CHECK(o.vectorize && o.chains >= 2, "sample",
                "--sampler chees adapts across chains that run together: it needs --vectorize and --chains of at "
                "least 2 (64 to 1024 work best), got ",
                o.vectorize ? "" : "no --vectorize and ", "--chains ", o.chains);
  VARIATE_CHECK(o.metric == "diag", "sample",
                "--sampler chees learns a diagonal metric from the chains' cross-chain variance; --metric ", o.metric,
                " is not supported with it (use --metric diag)");
  VARIATE_CHECK(o.init == "random" && o.init_from.empty(), "sample",
                "--init pathfinder, --init laplace and --init-from are not supported with --sampler chees: its "
                "warm-up learns the metric from chains that start spread out");
  VARIATE_CHECK(o.devices == 1, "sample", "--sampler chees runs on one device, got --devices ", o.devices);
}

void check_checkpoint_options(const SampleJobOptions& o) {
  VARIATE_CHECK(o.checkpoint_every >= 0, "sample", "--checkpoint-every must be at least 0 (0: no checkpoints), got ",
                o.checkpoint_every);
}

std::string chosen_metric(const SampleJobOptions& o) {
  if (o.metric != "auto") return o.metric;
  const bool low_rank_unsupported = o.sampler == "chees" || o.devices > 1 || distribute::launched_with_mpi();
  return low_rank_unsupported ? "diag" : "fisher-low-rank";
}

inference::SamplerOptions sampler_options(const SampleJobOptions& options) {
  SampleJobOptions o = options;
  o.metric = chosen_metric(options);
  VARIATE_CHECK(o.chains >= 1, "sample", "--chains must be at least 1, got ", o.chains);
  VARIATE_CHECK(o.warmup >= 0, "sample", "--warmup must be at least 0, got ", o.warmup);
  VARIATE_CHECK(o.draws >= 1, "sample", "--draws must be at least 1, got ", o.draws);
  VARIATE_CHECK(o.threads >= 0, "sample", "--threads must be at least 0 (0 = one per core), got ", o.threads);
  VARIATE_CHECK(o.sampler == "nuts" || o.sampler == "hmc" || o.sampler == "chees", "sample",
                "--sampler must be nuts, hmc or chees, got ", quote_input(o.sampler));
  VARIATE_CHECK(o.metric == "diag" || o.metric == "dense" || o.metric == "fisher-diag" ||
                    o.metric == "fisher-low-rank" || o.metric == "unit",
                "sample", "--metric must be auto, diag, dense, fisher-diag, fisher-low-rank or unit, got ",
                quote_input(o.metric));
  VARIATE_CHECK(o.precision == "f64" || o.precision == "f32", "sample", "--precision must be f64 or f32, got ",
                quote_input(o.precision));
  VARIATE_CHECK(o.max_depth >= 1 && o.max_depth <= 30, "sample", "--max-depth must be in 1..30, got ", o.max_depth);
  VARIATE_CHECK(o.adapt_delta > 0 && o.adapt_delta < 1, "sample",
                "--adapt-delta must be strictly between 0 and 1, got ", o.adapt_delta);
  VARIATE_CHECK(o.leapfrog_steps >= 0, "sample", "--leapfrog-steps must be at least 0, got ", o.leapfrog_steps);
  VARIATE_CHECK(o.leapfrog_steps == 0 || o.sampler == "hmc", "sample",
                "--leapfrog-steps applies to --sampler hmc only (NUTS chooses each trajectory's length), got ",
                o.leapfrog_steps, " with --sampler ", o.sampler);
  VARIATE_CHECK(o.trajectory_length >= 0 && std::isfinite(o.trajectory_length), "sample",
                "--trajectory-length must be a finite number above 0 (0: not given, Stan's 2 pi), got ",
                o.trajectory_length);
  VARIATE_CHECK((o.trajectory_length == 0 && o.trajectory_jitter == 0) || o.sampler == "hmc", "sample",
                "--trajectory-length and --trajectory-jitter apply to --sampler hmc only, got --sampler ", o.sampler);
  VARIATE_CHECK(o.trajectory_length == 0 || o.leapfrog_steps == 0, "sample",
                "give --leapfrog-steps or --trajectory-length, not both (the steps fix the length)");
  VARIATE_CHECK(o.trajectory_jitter >= 0 && o.trajectory_jitter < 1, "sample",
                "--trajectory-jitter must be in [0, 1), got ", o.trajectory_jitter);
  VARIATE_CHECK(o.thin >= 1, "sample", "--thin must be at least 1, got ", o.thin);
  VARIATE_CHECK(o.devices >= 1, "sample", "--devices must be at least 1, got ", o.devices);
  VARIATE_CHECK(o.sharded_draws == "gather" || o.sharded_draws == "per-device", "sample",
                "--sharded-draws must be gather or per-device, got ", quote_input(o.sharded_draws));
  VARIATE_CHECK(o.init == "random" || o.init == "pathfinder" || o.init == "laplace", "sample",
                "--init must be random, pathfinder or laplace, got ", quote_input(o.init));
  VARIATE_CHECK(o.init == "random" || o.devices == 1, "sample", "--init ", o.init,
                " needs the whole data set on one device; it is not supported with --devices ", o.devices);
  VARIATE_CHECK(o.init == "random" || (o.init_from.empty() && o.resume.empty()), "sample", "--init ", o.init,
                " starts a run afresh; it cannot be combined with --init-from or --resume");
  // A checkpoint holds whitened positions, which mean nothing without the approximation.
  VARIATE_CHECK(o.init != "laplace" || o.checkpoint_every == 0, "sample",
                "--checkpoint-every is not supported with --init laplace (the chains run on coordinates that only "
                "this run's Laplace approximation maps back)");
  check_chees_options(o);
  check_checkpoint_options(o);
  inference::SamplerOptions s;
  s.algorithm = o.sampler == "hmc"     ? inference::Algorithm::hmc
                : o.sampler == "chees" ? inference::Algorithm::chees
                                       : inference::Algorithm::nuts;
  s.nuts.max_tree_depth = o.max_depth;
  s.hmc.num_steps = o.leapfrog_steps;
  if (o.trajectory_length > 0) s.hmc.trajectory_length = o.trajectory_length;
  s.hmc.jitter = o.trajectory_jitter;
  s.metric = o.metric == "dense"             ? inference::MetricKind::dense
             : o.metric == "fisher-low-rank" ? inference::MetricKind::low_rank
                                             : inference::MetricKind::diagonal;
  if (o.metric.starts_with("fisher-")) s.metric_adaptation = inference::MetricAdaptation::fisher;
  if (o.metric == "unit") s.metric_adaptation = inference::MetricAdaptation::none;
  s.chains = o.chains;
  s.num_warmup = o.warmup;
  s.num_draws = o.draws;
  s.seed = o.seed;
  s.threads = o.threads;
  s.vectorized = o.vectorize;
  s.step_size_adaptation.target_accept = o.adapt_delta;
  return s;
}
}  // namespace variate::cli
