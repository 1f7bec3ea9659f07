#include "sample_job.hpp"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <sstream>
#include <thread>

#include "models.hpp"
#include "progress.hpp"
#include "write_file.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/summary.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"

namespace variate::cli {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr const char* kVariateVersion = "0.1.0";  // the project version in CMakeLists.txt
// The sampler's columns, as CmdStan writes them for NUTS and for static HMC.
const std::vector<std::string> kNutsColumns = {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
                                               "n_leapfrog__", "divergent__",   "energy__"};
const std::vector<std::string> kStaticHmcColumns = {"lp__", "accept_stat__", "stepsize__", "int_time__", "energy__"};

// Ctrl-C: the handler only sets the flag the sampler polls between iterations. SA_RESETHAND puts
// the default action back, so a second Ctrl-C ends the process at once.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT flag must be safe to set in a signal handler");
extern "C" void on_sigint(int) { g_stop.store(true); }

class SigintScope {
 public:
  SigintScope() {
    g_stop.store(false);
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &previous_);
  }
  ~SigintScope() { sigaction(SIGINT, &previous_, nullptr); }
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;

 private:
  struct sigaction previous_ {};
};

std::string number(double v) {
  std::ostringstream out;
  out << std::setprecision(15) << v;
  return out.str();
}

// The columns of the latent sites in Stan's names and column-major order, and for each column the
// row-major offset into its site's tensor.
struct ColumnLayout {
  std::vector<std::string> names;
  std::vector<std::string> sites;
  std::vector<std::vector<std::int64_t>> order;  // per site
};

// The saved sites (all latent sites when the model names none), with their unsharded shapes taken
// from `values` (one draw of the unsharded model).
ColumnLayout layout_of(const Model& model, const inference::Unconstrained& space, const tracing::Values& values) {
  // In the program's order, so that the columns do not depend on how many devices ran it.
  std::vector<inference::LatentSite> sites = space.sites();
  std::sort(sites.begin(), sites.end(), [](const auto& a, const auto& b) { return a.program_order < b.program_order; });
  ColumnLayout layout;
  for (const inference::LatentSite& s : sites) {
    const bool saved = model.saved_sites.empty() ||
                       std::find(model.saved_sites.begin(), model.saved_sites.end(), s.name) != model.saved_sites.end();
    if (!saved) continue;
    const Shape shape = values.at(s.name).shape();
    for (auto& n : data::stan_column_names(s.name, shape.dims())) layout.names.push_back(std::move(n));
    layout.sites.push_back(s.name);
    layout.order.push_back(data::column_major_order(shape.dims()));
  }
  return layout;
}

// The inverse metric over every device's coordinates: the replicated ones, then each device's own
// in device order (a collective when the metric is sharded).
std::vector<double> gathered_inverse_metric(const inference::Metric& m) {
  if (!m.sharded()) return m.inverse();
  const auto r = std::size_t(m.replicated_dimension());
  const std::vector<double> own(m.inverse().begin() + std::ptrdiff_t(r), m.inverse().end());
  const Tensor all = distribute::all_gather(Tensor::from(own, Shape{std::int64_t(own.size())}), m.shard_axis(), 0);
  std::vector<double> out(m.inverse().begin(), m.inverse().begin() + std::ptrdiff_t(r));
  out.insert(out.end(), all.data<double>(), all.data<double>() + all.numel());
  return out;
}

// What one chain writes and keeps. Only that chain's thread touches it while sampling.
struct ChainOutput {
  std::unique_ptr<data::StanCsvWriter> writer;
  std::vector<double> rows;  // kept draws × columns, row-major
  std::int64_t count = 0;
  std::vector<double> row;  // scratch
  bool adaptation_written = false;
};

std::vector<std::pair<std::string, std::string>> config_lines(const SampleJobOptions& o, const Model& m,
                                                              const inference::SamplerOptions& s, int chain,
                                                              const std::string& path, int threads, int devices) {
  const bool nuts = s.algorithm == inference::Algorithm::nuts;
  const auto& a = s.step_size_adaptation;
  std::vector<std::pair<std::string, std::string>> c = {
      {"model", m.name},
      {"method", "sample"},
      {"  num_samples", std::to_string(o.draws)},
      {"  num_warmup", std::to_string(o.warmup)},
      {"  save_warmup", "0"},
      {"  thin", "1"},
      {"    engaged", o.warmup > 0 ? "1" : "0"},
      {"    gamma", number(a.gamma)},
      {"    delta", number(a.target_accept)},
      {"    kappa", number(a.kappa)},
      {"    t0", number(a.t0)},
      {"    init_buffer", std::to_string(s.windows.init_buffer)},
      {"    term_buffer", std::to_string(s.windows.term_buffer)},
      {"    window", std::to_string(s.windows.base_window)},
      {"  algorithm", "hmc"},
      {"    engine", nuts ? "nuts" : "static"},
  };
  if (nuts) {
    c.emplace_back("        max_depth", std::to_string(s.nuts.max_tree_depth));
  } else {
    c.emplace_back("        int_time", number(s.hmc.trajectory_length));
    c.emplace_back("        num_leapfrog_steps", std::to_string(s.hmc.num_steps));
  }
  c.emplace_back("    metric", s.metric == inference::MetricKind::dense ? "dense_e" : "diag_e");
  c.emplace_back("    stepsize", number(s.initial_step_size));
  c.emplace_back("    stepsize_jitter", "0");
  c.emplace_back("  num_chains", std::to_string(o.chains));
  c.emplace_back("id", std::to_string(chain + 1));
  c.emplace_back("  file", o.data.empty() ? "(embedded)" : o.data);
  c.emplace_back("init", number(s.init_radius));
  c.emplace_back("  seed", std::to_string(o.seed));
  c.emplace_back("  file", path);
  c.emplace_back("precision", o.precision);
  c.emplace_back("vectorized", o.vectorize ? "1" : "0");
  c.emplace_back("threads", std::to_string(threads));
  c.emplace_back("devices", std::to_string(devices));
  c.emplace_back("variate_version", kVariateVersion);
  return c;
}

inference::SamplerOptions sampler_options(const SampleJobOptions& o) {
  VARIATE_CHECK(o.chains >= 1, "sample", "--chains must be at least 1, got ", o.chains);
  VARIATE_CHECK(o.warmup >= 0, "sample", "--warmup must be at least 0, got ", o.warmup);
  VARIATE_CHECK(o.draws >= 1, "sample", "--draws must be at least 1, got ", o.draws);
  VARIATE_CHECK(o.threads >= 0, "sample", "--threads must be at least 0 (0 = one per core), got ", o.threads);
  VARIATE_CHECK(o.sampler == "nuts" || o.sampler == "hmc", "sample", "--sampler must be nuts or hmc, got '", o.sampler,
                "'");
  VARIATE_CHECK(o.metric == "diag" || o.metric == "dense", "sample", "--metric must be diag or dense, got '", o.metric,
                "'");
  VARIATE_CHECK(o.precision == "f64" || o.precision == "f32", "sample", "--precision must be f64 or f32, got '",
                o.precision, "'");
  VARIATE_CHECK(o.max_depth >= 1 && o.max_depth <= 30, "sample", "--max-depth must be in 1..30, got ", o.max_depth);
  VARIATE_CHECK(o.adapt_delta > 0 && o.adapt_delta < 1, "sample",
                "--adapt-delta must be strictly between 0 and 1, got ", o.adapt_delta);
  VARIATE_CHECK(o.leapfrog_steps >= 0, "sample", "--leapfrog-steps must be at least 0, got ", o.leapfrog_steps);
  VARIATE_CHECK(o.devices >= 1, "sample", "--devices must be at least 1, got ", o.devices);
  inference::SamplerOptions s;
  s.algorithm = o.sampler == "hmc" ? inference::Algorithm::hmc : inference::Algorithm::nuts;
  s.nuts.max_tree_depth = o.max_depth;
  s.hmc.num_steps = o.leapfrog_steps;
  s.metric = o.metric == "dense" ? inference::MetricKind::dense : inference::MetricKind::diagonal;
  s.chains = o.chains;
  s.num_warmup = o.warmup;
  s.num_draws = o.draws;
  s.seed = o.seed;
  s.threads = o.threads;
  s.vectorized = o.vectorize;
  s.step_size_adaptation.target_accept = o.adapt_delta;
  return s;
}

fs::path prepare_output(const std::string& dir) {
  VARIATE_CHECK(!dir.empty(), "sample", "--output must name a folder");
  std::error_code ec;
  fs::create_directories(dir, ec);
  VARIATE_CHECK(!ec, "sample", "cannot create the output folder '", dir, "': ", ec.message());
  VARIATE_CHECK(fs::is_directory(dir, ec), "sample", "the output path '", dir, "' exists and is not a folder");
  return fs::path(dir);
}

// Every column's draws, [chain][draw], from the rows the chains kept.
inference::ChainDraws column_draws(const std::vector<ChainOutput>& chains, std::size_t column, std::size_t width) {
  inference::ChainDraws draws(chains.size());
  for (std::size_t c = 0; c < chains.size(); ++c) {
    draws[c].resize(std::size_t(chains[c].count));
    for (std::int64_t i = 0; i < chains[c].count; ++i)
      draws[c][std::size_t(i)] = chains[c].rows[std::size_t(i) * width + column];
  }
  return draws;
}

// The job on one device: every device of a mesh runs it (the sampler's collectives keep them in
// step); only the writer (device 0) prints and writes files. Outside a mesh it is the writer.
int sample_on_device(const SampleJobOptions& o, const Model& model, inference::SamplerOptions so, std::ostream& out,
                     std::ostream& progress_out, bool interactive, bool writer, int devices, int threads,
                     Clock::time_point wall_start) {
  const DType dtype = o.precision == "f32" ? DType::f32 : DType::f64;
  const inference::Unconstrained space(model.program);
  const inference::Target target = inference::make_target(space, dtype);
  const std::int64_t dim = space.dimension();
  double all_dims = double(dim);  // a device may hold no rows of a sharded site: count every device's
  if (!space.shard_axis().empty()) distribute::psum_in_place({&all_dims, 1}, space.shard_axis(), "dimension check");
  VARIATE_CHECK(all_dims >= 1, "sample", "model '", model.name, "' has no continuous latent variables to sample");

  // --precision f32 is only worth it if the whole density computes in f32: a prior or a datum left
  // in f64 would promote everything back. Check on one (or one batch of) positions.
  {
    const Shape shape = o.vectorize ? Shape{o.chains, dim} : Shape{dim};
    const DType got = space.log_density(Tensor::zeros(shape, dtype)).dtype();
    VARIATE_CHECK(got == dtype, "sample", "model '", model.name, "' computes its log density in ", name(got),
                  " although --precision is ", o.precision);
  }

  VARIATE_CHECK(!model.predict || space.shard_axis().empty(), "sample", "model '", model.name,
                "' predicts from its draws but has sharded latent sites");

  const fs::path dir = writer ? prepare_output(o.output) : fs::path(o.output);  // after the data: a data error leaves no folder
  out << "variate sample: " << model.name << ", " << model.description << '\n'
      << "data: " << model.data << '\n'
      << "sampler: " << (so.algorithm == inference::Algorithm::nuts ? "NUTS" : "static HMC") << ", " << o.metric
      << " metric, " << o.chains << " chains x (" << o.warmup << " warm-up + " << o.draws << " draws), seed " << o.seed
      << ", " << (o.vectorize ? "vectorized (one batch), " : "");
  if (devices > 1) out << devices << " devices (data split over them) x ";
  out << threads << " threads, " << dim << (dim == 1 ? " parameter" : " parameters")
      << (space.shard_axis().empty() ? "" : " on device 0 (sharded)") << ", log density in " << o.precision << '\n';

  const ColumnLayout layout = layout_of(model, space, space.constrain_gathered(Tensor::zeros(Shape{dim})));
  if (!model.unsaved.empty()) out << "saved: " << [&] {
    std::string names;
    for (const auto& n : layout.sites) names += (names.empty() ? "" : ", ") + n;
    return names;
  }() << " (" << model.unsaved << ")\n";
  const bool nuts = so.algorithm == inference::Algorithm::nuts;
  const std::vector<std::string>& sampler_columns = nuts ? kNutsColumns : kStaticHmcColumns;
  std::vector<std::string> columns = sampler_columns;
  columns.insert(columns.end(), layout.names.begin(), layout.names.end());
  const std::size_t width = columns.size();

  std::vector<ChainOutput> chains(std::size_t(o.chains));
  for (int c = 0; c < o.chains; ++c) {
    const std::string path = (dir / (model.name + "-" + std::to_string(c + 1) + ".csv")).string();
    ChainOutput& chain = chains[std::size_t(c)];
    if (writer)
      chain.writer =
          std::make_unique<data::StanCsvWriter>(path, config_lines(o, model, so, c, path, threads, devices), columns);
    chain.row.resize(width);
  }
  out << "output: " << (dir / (model.name + "-<chain>.csv")).string() << ", summary.csv, summary.json in "
      << dir.string() << '\n'
      << std::flush;

  const bool adapting = so.adapt && so.num_warmup > 0;

  Progress progress(progress_out, interactive, o.chains, o.warmup, o.draws);
  const auto on_draw = [&](const inference::Draw& d) {
    ChainOutput& chain = chains[std::size_t(d.chain)];
    if (d.warmup) {  // CmdStan's default save_warmup = 0: warm-up rows are not written
      progress.update(d.chain, d.iteration);
      return;
    }
    // Every device takes part in gathering the sharded sites' values (and, at the first draw, the
    // metric); only the writer keeps them.
    const tracing::Values values = space.constrain_gathered(Tensor::from(d.position, Shape{dim}));
    if (adapting && !chain.adaptation_written) {  // the first draw: warm-up has just ended
      VARIATE_CHECK(d.metric, "sample", "the sampler did not report chain ", d.chain + 1, "'s adapted metric");
      const std::vector<double> inverse = gathered_inverse_metric(*d.metric);
      if (writer)
        chain.writer->write_adaptation({d.stats->step_size, inverse, d.metric->kind() == inference::MetricKind::dense});
      chain.adaptation_written = true;
    }
    if (!writer) return;
    const inference::TransitionStats& s = *d.stats;
    double* row = chain.row.data();
    row[0] = s.log_density;
    row[1] = s.accept_stat;
    row[2] = s.step_size;
    if (nuts) {
      row[3] = s.tree_depth;
      row[4] = s.n_leapfrog;
      row[5] = s.divergent ? 1 : 0;
      row[6] = s.energy;
    } else {
      row[3] = s.step_size * s.n_leapfrog;  // int_time__
      row[4] = s.energy;
    }
    std::size_t k = sampler_columns.size();
    for (std::size_t site = 0; site < layout.sites.size(); ++site) {
      const Tensor v = cast(values.at(layout.sites[site]), DType::f64);
      const double* p = v.data<double>();
      for (std::int64_t index : layout.order[site]) row[k++] = p[index];
    }
    if (model.report) model.report->add_draw(values);
    chain.writer->write_row(chain.row);
    chain.rows.insert(chain.rows.end(), chain.row.begin(), chain.row.end());
    ++chain.count;
    progress.update(d.chain, d.iteration);
  };

  so.stop = &g_stop;
  const inference::SampleResult result = inference::sample(target, so, on_draw);
  progress.finish();
  if (!writer) return result.interrupted ? 130 : 0;

  for (int c = 0; c < o.chains; ++c) {
    ChainOutput& chain = chains[std::size_t(c)];
    const inference::ChainResult& r = result.chains[std::size_t(c)];
    chain.writer->write_timing(r.warmup_seconds, r.sampling_seconds);
    chain.writer.reset();  // closes the file
  }

  if (result.interrupted) {
    std::ostringstream kept;
    bool same = true;
    for (const auto& chain : chains) same = same && chain.count == chains[0].count;
    if (same) {
      kept << chains[0].count;
    } else {
      for (std::size_t c = 0; c < chains.size(); ++c) kept << (c ? ", " : "") << chains[c].count;
    }
    progress_out << "interrupted: kept " << kept.str() << " draws per chain in " << dir.string()
                 << " (summarize them with: variate summary " << (dir / (model.name + "-*.csv")).string() << ")\n"
                 << std::flush;
    return 130;
  }

  // Summaries: lp__ and every parameter (files); lp__ and the model's main parameters (screen).
  std::vector<inference::ParameterSummary> all;
  all.push_back(inference::summarize("lp__", column_draws(chains, 0, width)));
  for (std::size_t j = sampler_columns.size(); j < width; ++j)
    all.push_back(inference::summarize(columns[j], column_draws(chains, j, width)));

  std::vector<inference::ParameterSummary> main_rows = {all[0]};
  for (const std::string& name : model.main_parameters) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& r) { return r.name == name; });
    if (it != all.end()) main_rows.push_back(*it);
  }
  out << "\nsummary of the main parameters (" << o.chains << " chains x " << o.draws << " draws):\n";
  inference::write_summary_table(out, main_rows);
  if (all.size() > main_rows.size()) {  // not all shown: point at the worst of the rest
    const inference::ParameterSummary* worst_rhat = nullptr;
    const inference::ParameterSummary* worst_ess = nullptr;
    for (std::size_t j = 1; j < all.size(); ++j) {
      const auto& r = all[j];
      if (!std::isnan(r.rhat) && (!worst_rhat || r.rhat > worst_rhat->rhat)) worst_rhat = &r;
      if (!std::isnan(r.ess_bulk) && (!worst_ess || r.ess_bulk < worst_ess->ess_bulk)) worst_ess = &r;
    }
    std::ostringstream worst;
    if (worst_rhat)
      worst << " largest R_hat " << std::fixed << std::setprecision(3) << worst_rhat->rhat << " (" << worst_rhat->name
            << ")" << (worst_ess ? "," : "");
    if (worst_ess)
      worst << " smallest ESS_bulk " << std::fixed << std::setprecision(0) << worst_ess->ess_bulk << " ("
            << worst_ess->name << ")";
    out << "over all " << all.size() - 1 << " parameters:" << (worst_rhat || worst_ess ? worst.str() : " no R_hat or ESS (too few draws)")
        << "; the full table is in " << (dir / "summary.csv").string() << '\n';
  }

  inference::SamplerSummary sampler;
  double longest_sampling = 0, longest_warmup = 0;
  std::int64_t leapfrogs = 0;
  for (const inference::ChainResult& r : result.chains) {
    int divergent = 0, saturated = 0;
    std::vector<double> energy;
    for (const inference::TransitionStats& s : r.stats) {
      divergent += s.divergent ? 1 : 0;
      saturated += s.tree_depth >= o.max_depth ? 1 : 0;
      energy.push_back(s.energy);
      leapfrogs += s.n_leapfrog;
    }
    sampler.divergences.push_back(divergent);
    if (so.algorithm == inference::Algorithm::nuts) sampler.max_treedepth_hits.push_back(saturated);
    sampler.ebfmi.push_back(inference::ebfmi(energy));
    sampler.step_sizes.push_back(r.step_size);
    longest_sampling = std::max(longest_sampling, r.sampling_seconds);
    longest_warmup = std::max(longest_warmup, r.warmup_seconds);
  }
  sampler.sampling_seconds = longest_sampling;
  sampler.draws_per_chain = int(o.draws);
  sampler.max_treedepth = so.algorithm == inference::Algorithm::nuts ? o.max_depth : 0;
  out << "\nsampler diagnostics:\n";
  inference::write_sampler_diagnostics(out, sampler);

  if (model.report) model.report->print(out);

  if (model.predict) {
    const std::int64_t per_chain = chains[0].count, total = per_chain * o.chains;
    const auto draws = [&](std::int64_t begin, std::int64_t end) {
      std::vector<double> flat;
      flat.reserve(std::size_t((end - begin) * dim));
      for (std::int64_t g = begin; g < end; ++g) {
        const auto& d = result.chains[std::size_t(g / per_chain)].draws;
        const auto first = d.begin() + (g % per_chain) * dim;
        flat.insert(flat.end(), first, first + dim);
      }
      return space.constrain(Tensor::from(flat, Shape{end - begin, dim}));
    };
    const HeldOutAccuracy acc = held_out_accuracy(model, draws, total);
    out << std::fixed << std::setprecision(3) << "\ntest accuracy: Bayesian model averaging " << acc.model_averaging
        << ", mean over single draws " << acc.mean_single << " (" << acc.draws << " draws, " << acc.examples
        << " held-out examples)\n"
        << std::defaultfloat;
  }

  write_file("sample", (dir / "summary.csv").string(), [&](std::ostream& f) { inference::write_summary_csv(f, all); });
  write_file("sample", (dir / "summary.json").string(), [&](std::ostream& f) { inference::write_summary_json(f, all, sampler); });

  const double wall = std::chrono::duration<double>(Clock::now() - wall_start).count();
  out << std::fixed << std::setprecision(1) << "\ntime: " << wall << " s wall; slowest chain " << longest_warmup
      << " s warm-up + " << longest_sampling << " s sampling; " << result.target_calls
      << " gradient evaluations (target calls" << (o.vectorize ? ", each for all chains" : "")
      << (devices > 1 ? ", each on every device" : "") << "), " << leapfrogs
      << " leapfrog steps after warm-up\n"
      << "wrote " << o.chains << " Stan CSV files, summary.csv and summary.json to " << dir.string() << '\n'
      << std::defaultfloat;
  return 0;
}

}  // namespace

int run_sample_job(const SampleJobOptions& o, std::ostream& out, std::ostream& progress_out, bool interactive) {
  const auto wall_start = Clock::now();
  const inference::SamplerOptions so = sampler_options(o);
  const DType dtype = o.precision == "f32" ? DType::f32 : DType::f64;
  const Model model = make_model(o.model, {.data_path = o.data, .dtype = dtype});
  SigintScope sigint;  // for every device: the sampler polls the flag, and the devices agree on it
  const bool mpi = distribute::launched_with_mpi();
  if (o.devices == 1 && !mpi) {
    const int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
    return sample_on_device(o, model, so, out, progress_out, interactive, true, 1, threads, wall_start);
  }
  // Devices (threads, or MPI ranks x threads under mpirun), each running the whole job on its shard of
  // the data; the kernels of a device get --threads threads, or its share of the cores. Device 0
  // (on rank 0) writes.
  distribute::Mesh mesh = mpi ? distribute::Mesh::mpi("data", o.devices) : distribute::Mesh(o.devices, "data");
  const int threads = o.threads > 0 ? o.threads : mesh.threads_per_device();
  const std::vector<int> codes = mesh.run([&] {
    const bool writer = distribute::axis_index("data") == 0;
    std::ostream discard(nullptr);  // one per device: streams are not thread-safe
    return sample_on_device(o, model, so, writer ? out : discard, writer ? progress_out : discard,
                            writer && interactive, writer, mesh.size(), threads, wall_start);
  });
  return codes[0];
}

}  // namespace variate::cli
