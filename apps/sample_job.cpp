#include "sample_job.hpp"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "models.hpp"
#include "progress.hpp"
#include "sample_config.hpp"
#include "shard_output.hpp"
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

// The columns of the latent sites in Stan's names and column-major order, and for each column the
// row-major offset into its site's tensor.
struct ColumnLayout {
  std::vector<std::string> names;
  std::vector<std::string> sites;
  std::vector<std::vector<std::int64_t>> order;  // per site
};

// The saved sites (all latent sites when the model names none) with this device's shapes, in the
// program's order, so that the columns do not depend on how many devices ran it.
std::vector<SavedSite> local_saved_sites(const Model& model, const inference::Unconstrained& space) {
  std::vector<inference::LatentSite> sites = space.sites();
  std::sort(sites.begin(), sites.end(), [](const auto& a, const auto& b) { return a.program_order < b.program_order; });
  std::vector<SavedSite> saved;
  for (const inference::LatentSite& s : sites) {
    if (!model.saved_sites.empty() &&
        std::find(model.saved_sites.begin(), model.saved_sites.end(), s.name) == model.saved_sites.end())
      continue;
    const auto dims = s.shape.dims();
    saved.push_back({s.name, std::vector<std::int64_t>(dims.begin(), dims.end()), s.sharded});
  }
  // Generated quantities (Deterministic sites) follow the parameters, as in Stan's files.
  for (const inference::GeneratedSite& g : space.generated_sites()) {
    if (!model.saved_sites.empty() &&
        std::find(model.saved_sites.begin(), model.saved_sites.end(), g.name) == model.saved_sites.end())
      continue;
    const auto dims = g.shape.dims();
    saved.push_back({g.name, std::vector<std::int64_t>(dims.begin(), dims.end()), false});
  }
  return saved;
}

// The columns of `sites` (without the sharded ones unless `with_sharded`); their shapes must be the
// unsharded ones.
ColumnLayout layout_of(const std::vector<SavedSite>& sites, bool with_sharded) {
  ColumnLayout layout;
  for (const SavedSite& s : sites) {
    if (s.sharded && !with_sharded) continue;
    for (auto& n : data::stan_column_names(s.name, s.shape)) layout.names.push_back(std::move(n));
    layout.sites.push_back(s.name);
    layout.order.push_back(data::column_major_order(s.shape));
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
  // --sharded-draws per-device: this device's rows of the sharded sites, on every device.
  std::unique_ptr<data::StanCsvWriter> shard_writer;
  std::vector<double> shard_rows, shard_row;
};

fs::path prepare_output(const std::string& dir) {
  VARIATE_CHECK(!dir.empty(), "sample", "--output must name a folder");
  std::error_code ec;
  fs::create_directories(dir, ec);
  VARIATE_CHECK(!ec, "sample", "cannot create the output folder '", dir, "': ", ec.message());
  VARIATE_CHECK(fs::is_directory(dir, ec), "sample", "the output path '", dir, "' exists and is not a folder");
  return fs::path(dir);
}

// Every column's draws, [chain][draw], from the rows the chains kept (`rows`: the main file's or
// the device file's).
inference::ChainDraws column_draws(const std::vector<ChainOutput>& chains, std::vector<double> ChainOutput::*rows,
                                   std::size_t column, std::size_t width) {
  inference::ChainDraws draws(chains.size());
  for (std::size_t c = 0; c < chains.size(); ++c) {
    draws[c].resize(std::size_t(chains[c].count));
    for (std::int64_t i = 0; i < chains[c].count; ++i)
      draws[c][std::size_t(i)] = (chains[c].*rows)[std::size_t(i) * width + column];
  }
  return draws;
}

// Where this device runs: its index among `devices` (over `ranks` MPI ranks) and its kernel threads.
struct Placement {
  int device = 0, devices = 1, ranks = 1, threads = 1;
  bool writer() const { return device == 0; }
};

// Puts `summaries` (named) in the order of `names`, the gathered file's columns.
std::vector<inference::ParameterSummary> in_column_order(std::vector<inference::ParameterSummary> summaries,
                                                         const std::vector<std::string>& names) {
  std::map<std::string, inference::ParameterSummary> by_name;
  for (auto& s : summaries) by_name.emplace(s.name, std::move(s));
  std::vector<inference::ParameterSummary> ordered;
  for (const std::string& n : names) {
    const auto it = by_name.find(n);
    VARIATE_CHECK(it != by_name.end(), "sample", "no summary of column '", n, "'");
    ordered.push_back(std::move(it->second));
  }
  return ordered;
}

// The job on one device: every device of a mesh runs it (the sampler's collectives keep them in
// step); only the writer (device 0) prints and writes the main files. Outside a mesh it is the
// writer. With --sharded-draws per-device every device also writes its rows of the sharded sites.
int sample_on_device(const SampleJobOptions& o, const Model& model, inference::SamplerOptions so, std::ostream& out,
                     std::ostream& progress_out, bool interactive, const Placement& at, Clock::time_point wall_start) {
  const bool writer = at.writer();
  const int devices = at.devices, threads = at.threads;
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
  VARIATE_CHECK(space.generated_sites().empty() || space.shard_axis().empty(), "sample", "model '", model.name,
                "' has generated quantities and sharded latent sites; writing both is not supported");

  std::vector<SavedSite> saved = local_saved_sites(model, space);
  const bool any_sharded = std::any_of(saved.begin(), saved.end(), [](const SavedSite& s) { return s.sharded; });
  // Without a sharded saved site there is nothing to leave on the devices: per-device is gather.
  const bool per_device = o.sharded_draws == "per-device" && any_sharded;
  const std::string sharded_draws = per_device ? "per-device" : "gather";

  const fs::path dir = writer ? prepare_output(o.output) : fs::path(o.output);  // after the data: a data error leaves no folder
  out << "variate sample: " << model.name << ", " << model.description << '\n'
      << "data: " << model.data << '\n'
      << "sampler: " << (so.algorithm == inference::Algorithm::nuts ? "NUTS" : "static HMC") << ", " << o.metric
      << " metric, " << o.chains << " chains x (" << o.warmup << " warm-up + " << o.draws << " draws), seed " << o.seed
      << ", " << (o.vectorize ? "vectorized (one batch), " : "");
  if (devices > 1) out << devices << " devices (data split over them) x ";
  out << threads << " threads, " << dim << (dim == 1 ? " parameter" : " parameters")
      << (space.shard_axis().empty() ? "" : " on device 0 (sharded)") << ", log density in " << o.precision << '\n';
  if (o.sharded_draws == "per-device" && !per_device)
    out << "note: --sharded-draws per-device: no saved site is sharded"
        << (devices > 1 ? "" : " (one device)") << ", so every draw goes to the main files as with gather\n";

  // The unsharded shapes: from the row counts the devices exchange once (per-device), or from one
  // gathered draw.
  std::optional<ShardPlan> plan;
  if (per_device) {
    plan.emplace(saved, space.shard_axis());
    saved = plan->sites();
  } else {
    tracing::Values gathered = space.constrain_gathered(Tensor::zeros(Shape{dim}));
    if (!space.generated_sites().empty()) gathered.merge(space.generated_quantities(Tensor::zeros(Shape{dim})));
    for (SavedSite& s : saved) {
      const auto dims = gathered.at(s.name).shape().dims();
      s.shape.assign(dims.begin(), dims.end());
    }
  }
  const ColumnLayout all_columns = layout_of(saved, true);    // the gathered file's
  const ColumnLayout layout = layout_of(saved, !per_device);  // the main file's
  if (!model.unsaved.empty()) out << "saved: " << [&] {
    std::string names;
    for (const auto& n : all_columns.sites) names += (names.empty() ? "" : ", ") + n;
    return names;
  }() << " (" << model.unsaved << ")\n";
  const bool report = model.report && !per_device;
  if (model.report && per_device)
    out << "note: the model's report reads every draw of the sharded sites in one place, so "
           "--sharded-draws per-device skips it (run with gather for it)\n";
  const bool nuts = so.algorithm == inference::Algorithm::nuts;
  const std::vector<std::string>& sampler_columns = nuts ? kNutsColumns : kStaticHmcColumns;
  std::vector<std::string> columns = sampler_columns;
  columns.insert(columns.end(), layout.names.begin(), layout.names.end());
  const std::size_t width = columns.size();

  // This device's columns of the sharded sites, and for each such site its offsets in column order.
  std::vector<std::string> shard_columns;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shard_order;
  if (per_device) {
    shard_columns = plan->column_names(at.device);
    for (std::size_t i = 0; i < saved.size(); ++i)
      if (saved[i].sharded) shard_order.emplace_back(saved[i].name, plan->local_order(i, at.device));
  }
  const std::size_t shard_width = shard_columns.size();
  if (per_device && !writer && shard_width > 0) prepare_output(o.output);  // other ranks' machines

  std::vector<ChainOutput> chains(std::size_t(o.chains));
  ManifestInfo manifest;
  manifest.model = model.name;
  manifest.chains = o.chains;
  manifest.draws = o.draws;
  manifest.ranks = at.ranks;
  manifest.device_files.resize(std::size_t(devices));
  std::vector<char> holds_rows(std::size_t(devices), 0);  // whether device d writes files
  for (int d = 0; per_device && d < devices; ++d) holds_rows[std::size_t(d)] = !plan->column_names(d).empty();
  for (int c = 0; c < o.chains; ++c) {
    const std::string name = model.name + "-" + std::to_string(c + 1) + ".csv", path = (dir / name).string();
    ChainOutput& chain = chains[std::size_t(c)];
    if (writer)
      chain.writer = std::make_unique<data::StanCsvWriter>(
          path, config_lines(o, model, so, c, path, threads, devices, sharded_draws), columns);
    chain.row.resize(width);
    manifest.main_files.push_back(name);
    if (!per_device) continue;
    for (int d = 0; d < devices; ++d)
      if (holds_rows[std::size_t(d)])
        manifest.device_files[std::size_t(d)].push_back(device_file_name(model.name, d, c));
    if (shard_width == 0) continue;  // this device holds no rows: no file
    const std::string shard_path = (dir / device_file_name(model.name, at.device, c)).string();
    chain.shard_writer = std::make_unique<data::StanCsvWriter>(
        shard_path, config_lines(o, model, so, c, shard_path, threads, devices, sharded_draws, at.device),
        shard_columns);
    chain.shard_row.resize(shard_width);
  }
  const std::string manifest_path = (dir / manifest_file_name(model.name)).string();
  if (per_device && writer) write_manifest(manifest_path, manifest, *plan);
  out << "output: " << (dir / (model.name + "-<chain>.csv")).string();
  if (per_device)
    out << ", each device's rows of the sharded sites in " << model.name << ".device<k>-<chain>.csv, listed in "
        << manifest_file_name(model.name) << ",";
  out << " summary.csv, summary.json in " << dir.string() << '\n' << std::flush;

  const bool adapting = so.adapt && so.num_warmup > 0;

  Progress progress(progress_out, interactive, o.chains, o.warmup, o.draws);
  const auto on_draw = [&](const inference::Draw& d) {
    ChainOutput& chain = chains[std::size_t(d.chain)];
    if (d.warmup) {  // CmdStan's default save_warmup = 0: warm-up rows are not written
      progress.update(d.chain, d.iteration);
      return;
    }
    // gather: every device takes part in gathering the sharded sites' values (and, at the first
    // draw, the metric), and only the writer keeps them. per-device: no collective here.
    const Tensor position = Tensor::from(d.position, Shape{dim});
    tracing::Values values = per_device ? space.constrain(position) : space.constrain_gathered(position);
    if (!space.generated_sites().empty()) values.merge(space.generated_quantities(position));
    if (adapting && !chain.adaptation_written) {  // the first draw: warm-up has just ended
      VARIATE_CHECK(d.metric, "sample", "the sampler did not report chain ", d.chain + 1, "'s adapted metric");
      const bool dense = d.metric->kind() == inference::MetricKind::dense;
      if (per_device) {  // the replicated coordinates' metric in the main file, each device's own in its file
        const std::vector<double>& m = d.metric->inverse();
        const auto r = std::ptrdiff_t(d.metric->replicated_dimension());
        if (writer) chain.writer->write_adaptation({d.stats->step_size, {m.begin(), m.begin() + r}, dense});
        if (chain.shard_writer && std::ptrdiff_t(m.size()) > r)
          chain.shard_writer->write_adaptation({d.stats->step_size, {m.begin() + r, m.end()}, false});
      } else {
        const std::vector<double> inverse = gathered_inverse_metric(*d.metric);
        if (writer) chain.writer->write_adaptation({d.stats->step_size, inverse, dense});
      }
      chain.adaptation_written = true;
    }
    if (chain.shard_writer) {
      std::size_t k = 0;
      for (const auto& [site, order] : shard_order) {
        const Tensor v = cast(values.at(site), DType::f64);
        for (std::int64_t index : order) chain.shard_row[k++] = v.data<double>()[index];
      }
      chain.shard_writer->write_row(chain.shard_row);
      chain.shard_rows.insert(chain.shard_rows.end(), chain.shard_row.begin(), chain.shard_row.end());
    }
    if (!writer) {
      ++chain.count;
      return;
    }
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
    if (report) model.report->add_draw(values);
    chain.writer->write_row(chain.row);
    chain.rows.insert(chain.rows.end(), chain.row.begin(), chain.row.end());
    ++chain.count;
    progress.update(d.chain, d.iteration);
  };

  so.stop = &g_stop;
  const inference::SampleResult result = inference::sample(target, so, on_draw);
  progress.finish();
  for (int c = 0; c < o.chains; ++c) {
    ChainOutput& chain = chains[std::size_t(c)];
    const inference::ChainResult& r = result.chains[std::size_t(c)];
    if (chain.writer) chain.writer->write_timing(r.warmup_seconds, r.sampling_seconds);
    if (chain.shard_writer) chain.shard_writer->write_timing(r.warmup_seconds, r.sampling_seconds);
    chain.writer.reset();  // closes the files
    chain.shard_writer.reset();
  }

  // per-device: each device summarizes its own columns, and the summaries (not the draws) are
  // gathered once. Every device agrees on `interrupted`, so all or none take part.
  std::vector<inference::ParameterSummary> sharded_summaries;
  if (per_device && !result.interrupted) {
    std::vector<inference::ParameterSummary> mine;
    for (std::size_t j = 0; j < shard_width; ++j)
      mine.push_back(
          inference::summarize(shard_columns[j], column_draws(chains, &ChainOutput::shard_rows, j, shard_width)));
    sharded_summaries = gather_summaries(mine, *plan);
  }
  if (!writer) return result.interrupted ? 130 : 0;

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
                 << " (summarize them with: variate summary " << (dir / (model.name + "-*.csv")).string();
    if (per_device)
      progress_out << "; each device's rows with: variate summary "
                   << (dir / (model.name + ".device<k>-*.csv")).string() << "; the files are listed in "
                   << manifest_path;
    progress_out << ")\n" << std::flush;
    return 130;
  }

  // Summaries: lp__ and every parameter (files); lp__ and the model's main parameters (screen).
  std::vector<inference::ParameterSummary> all;
  all.push_back(inference::summarize("lp__", column_draws(chains, &ChainOutput::rows, 0, width)));
  {
    std::vector<inference::ParameterSummary> parameters = std::move(sharded_summaries);
    for (std::size_t j = sampler_columns.size(); j < width; ++j)
      parameters.push_back(inference::summarize(columns[j], column_draws(chains, &ChainOutput::rows, j, width)));
    parameters = in_column_order(std::move(parameters), all_columns.names);
    all.insert(all.end(), std::make_move_iterator(parameters.begin()), std::make_move_iterator(parameters.end()));
  }

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

  if (report) model.report->print(out);

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
      << "wrote " << o.chains << " Stan CSV files, "
      << (per_device ? "the devices' files of the sharded sites, " + manifest_file_name(model.name) + ", " : "")
      << "summary.csv and summary.json to " << dir.string() << '\n'
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
    return sample_on_device(o, model, so, out, progress_out, interactive, {.threads = threads}, wall_start);
  }
  // Devices (threads, or MPI ranks x threads under mpirun), each running the whole job on its shard of
  // the data; the kernels of a device get --threads threads, or its share of the cores. Device 0
  // (on rank 0) writes.
  distribute::Mesh mesh = mpi ? distribute::Mesh::mpi("data", o.devices) : distribute::Mesh(o.devices, "data");
  const int threads = o.threads > 0 ? o.threads : mesh.threads_per_device();
  const int ranks = mesh.size() / mesh.local_device_count();
  const std::vector<int> codes = mesh.run([&] {
    const Placement at{.device = distribute::axis_index("data"), .devices = mesh.size(), .ranks = ranks,
                       .threads = threads};
    std::ostream discard(nullptr);  // one per device: streams are not thread-safe
    return sample_on_device(o, model, so, at.writer() ? out : discard, at.writer() ? progress_out : discard,
                            at.writer() && interactive, at, wall_start);
  });
  return codes[0];
}

}  // namespace variate::cli
