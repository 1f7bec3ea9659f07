#include "shard_output.hpp"

#include <array>
#include <nlohmann/json.hpp>

#include "variate/core/error.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"
#include "write_file.hpp"

namespace variate::cli {
namespace {

// Calls f(global index, row-major offset in the part) for every element of rows [begin, end) of a
// site of shape `shape`, in Stan's column-major order (the first index varies fastest).
template <class F>
void for_each_element(const std::vector<std::int64_t>& shape, std::int64_t begin, std::int64_t end, F f) {
  if (shape.empty()) {  // a replicated scalar
    f(std::vector<std::int64_t>{}, std::int64_t(0));
    return;
  }
  std::vector<std::int64_t> part = shape;
  part[0] = end - begin;
  for (std::int64_t d : part)
    if (d <= 0) return;
  const std::size_t rank = part.size();
  std::vector<std::int64_t> strides(rank, 1);
  for (std::size_t i = rank - 1; i > 0; --i) strides[i - 1] = strides[i] * part[i];
  std::vector<std::int64_t> index(rank, 0), global(rank, 0);
  for (;;) {
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < rank; ++i) offset += index[i] * strides[i];
    global = index;
    global[0] += begin;
    f(global, offset);
    std::size_t i = 0;
    for (; i < rank; ++i) {
      if (++index[i] < part[i]) break;
      index[i] = 0;
    }
    if (i == rank) return;
  }
}

// The fields of ParameterSummary after its name, in one order for packing and unpacking.
constexpr std::array kFields = {&inference::ParameterSummary::mean,     &inference::ParameterSummary::mcse,
                                &inference::ParameterSummary::sd,       &inference::ParameterSummary::mad,
                                &inference::ParameterSummary::q5,       &inference::ParameterSummary::q50,
                                &inference::ParameterSummary::q95,      &inference::ParameterSummary::ess_bulk,
                                &inference::ParameterSummary::ess_tail, &inference::ParameterSummary::rhat};

}  // namespace

ShardPlan::ShardPlan(std::vector<SavedSite> local, std::string axis)
    : sites_(std::move(local)), axis_(std::move(axis)), devices_(distribute::axis_size(axis_)) {
  std::vector<double> mine;  // row counts of the sharded sites; doubles hold them exactly
  for (const SavedSite& s : sites_) {
    if (!s.sharded) continue;
    VARIATE_CHECK(!s.shape.empty(), "sample", "sharded site '", s.name, "' is a scalar; expected rows to split");
    mine.push_back(double(s.shape[0]));
  }
  Tensor all;  // (devices, sharded sites)
  if (!mine.empty()) all = distribute::all_gather(Tensor::from(mine, Shape{1, std::int64_t(mine.size())}), axis_, 0);
  std::size_t k = 0;
  for (SavedSite& s : sites_) {
    std::vector<std::int64_t> start(std::size_t(devices_) + 1, 0);
    if (s.sharded) {
      for (int d = 0; d < devices_; ++d)
        start[std::size_t(d) + 1] =
            start[std::size_t(d)] + std::int64_t(all.data<double>()[d * all.dim(1) + std::int64_t(k)]);
      s.shape[0] = start.back();
      ++k;
    }
    starts_.push_back(std::move(start));
  }
}

std::pair<std::int64_t, std::int64_t> ShardPlan::rows(std::size_t site, int device) const {
  const SavedSite& s = sites_.at(site);
  if (!s.sharded) return {0, s.shape.empty() ? 1 : s.shape[0]};
  return {starts_[site][std::size_t(device)], starts_[site][std::size_t(device) + 1]};
}

std::vector<std::string> ShardPlan::column_names(int device) const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < sites_.size(); ++i) {
    if (!sites_[i].sharded) continue;
    const auto [begin, end] = rows(i, device);
    for_each_element(sites_[i].shape, begin, end, [&](const std::vector<std::int64_t>& index, std::int64_t) {
      names.push_back(data::stan_column_name(sites_[i].name, index));
    });
  }
  return names;
}

std::vector<std::int64_t> ShardPlan::local_order(std::size_t site, int device) const {
  std::vector<std::int64_t> order;
  const auto [begin, end] = rows(site, device);
  for_each_element(sites_.at(site).shape, begin, end,
                   [&](const std::vector<std::int64_t>&, std::int64_t offset) { order.push_back(offset); });
  return order;
}

std::string device_file_name(const std::string& model, int device, int chain) {
  // Not "<model>-...": the glob <model>-*.csv must still name exactly the main files.
  return model + ".device" + std::to_string(device) + "-" + std::to_string(chain + 1) + ".csv";
}

std::string manifest_file_name(const std::string& model) { return model + ".manifest.json"; }

void write_manifest(const std::string& path, const ManifestInfo& info, const ShardPlan& plan) {
  using json = nlohmann::ordered_json;
  json sites = json::array();
  for (std::size_t i = 0; i < plan.sites().size(); ++i) {
    const SavedSite& s = plan.sites()[i];
    json site = {{"name", s.name}, {"shape", s.shape}, {"sharded", s.sharded}};
    if (s.sharded) {
      site["split_dimension"] = 0;
      json parts = json::array();
      for (int d = 0; d < plan.devices(); ++d) {
        const auto [begin, end] = plan.rows(i, d);
        parts.push_back({{"device", d}, {"begin", begin}, {"end", end}, {"files", info.device_files[std::size_t(d)]}});
      }
      site["parts"] = std::move(parts);
    } else {
      site["files"] = info.main_files;
    }
    sites.push_back(std::move(site));
  }
  json devices = json::array();
  for (int d = 0; d < plan.devices(); ++d)
    devices.push_back({{"device", d}, {"files", info.device_files[std::size_t(d)]}});
  const json manifest = {
      {"format", "variate sharded draws"},
      {"version", 1},
      {"model", info.model},
      {"chains", info.chains},
      {"draws_per_chain", info.draws},
      {"mesh", {{"axis", plan.axis()}, {"devices", plan.devices()}, {"ranks", info.ranks}}},
      {"main_files", info.main_files},
      {"device_files", std::move(devices)},
      {"sites", std::move(sites)},
  };
  write_file("sample", path, [&](std::ostream& f) { f << manifest.dump(2) << '\n'; });
}

std::vector<inference::ParameterSummary> gather_summaries(const std::vector<inference::ParameterSummary>& mine,
                                                          const ShardPlan& plan) {
  const auto width = std::int64_t(kFields.size());
  std::vector<double> packed;
  packed.reserve(mine.size() * kFields.size());
  for (const auto& s : mine)
    for (auto field : kFields) packed.push_back(s.*field);
  const Tensor all =
      distribute::all_gather(Tensor::from(packed, Shape{std::int64_t(mine.size()), width}), plan.axis(), 0);
  std::vector<inference::ParameterSummary> out;
  for (int d = 0; d < plan.devices(); ++d)
    for (std::string& name : plan.column_names(d)) out.push_back({.name = std::move(name)});
  VARIATE_CHECK(std::int64_t(out.size()) == all.dim(0), "sample", "the devices summarized ", all.dim(0),
                " sharded columns but hold ", out.size());
  for (std::size_t r = 0; r < out.size(); ++r)
    for (std::size_t j = 0; j < kFields.size(); ++j)
      out[r].*kFields[j] = all.data<double>()[std::int64_t(r) * width + std::int64_t(j)];
  return out;
}

}  // namespace variate::cli
