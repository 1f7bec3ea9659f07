#include "python_fit.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>

#include "sample_config.hpp"
#include "variate/core/error.hpp"
#include "variate/inference/draw_columns.hpp"

namespace py = pybind11;

namespace variate::python {
namespace {

// How often the waiting Python thread takes the GIL to see whether Ctrl-C was pressed.
constexpr auto kSignalPoll = std::chrono::milliseconds(100);

// The fewest draws any chain kept (all of them, unless the run was interrupted).
std::int64_t common_draws(const inference::ModelSample& s) {
  std::size_t fewest = s.values.front().front().size();
  for (const auto& chain : s.values.front()) fewest = std::min(fewest, chain.size());
  return std::int64_t(fewest);
}

// Waits for the chains with the GIL released, running Python's signal handlers between waits.
inference::ModelSample wait_for_chains(std::future<inference::ModelSample>& chains, std::atomic<bool>& stop) {
  for (;;) {
    {
      py::gil_scoped_release release;
      if (chains.wait_for(kSignalPoll) == std::future_status::ready) break;
    }
    if (PyErr_CheckSignals() == 0) continue;
    py::error_already_set raised;  // takes the handler's exception (KeyboardInterrupt for Ctrl-C)
    stop = true;
    {
      py::gil_scoped_release release;
      chains.wait();
    }
    if (!raised.matches(PyExc_KeyboardInterrupt)) throw std::move(raised);
    break;
  }
  return chains.get();  // rethrows what the sampler threw
}

}  // namespace

PythonFit::PythonFit(inference::ModelSample sample, std::vector<std::pair<std::string, Shape>> sites,
                     std::size_t sampler_width)
    : sample_(std::move(sample)),
      sites_(std::move(sites)),
      sampler_width_(sampler_width),
      kept_(common_draws(sample_)) {}

std::vector<double> PythonFit::column(std::size_t j) const {
  std::vector<double> values;
  for (const auto& chain : sample_.values[j]) values.insert(values.end(), chain.begin(), chain.begin() + kept_);
  return values;
}

py::dict PythonFit::draws() const {
  std::vector<inference::ColumnSite> column_sites;
  for (const auto& [name, shape] : sites_) column_sites.push_back({name, shape});
  const inference::SiteColumns columns = inference::site_columns(column_sites);
  const auto per_chain = std::size_t(kept_), c = std::size_t(chains());
  py::dict out;
  std::size_t j = sampler_width_;
  for (std::size_t s = 0; s < sites_.size(); ++s) {
    const std::vector<std::int64_t>& order = columns.order[s];
    std::vector<py::ssize_t> shape{py::ssize_t(c), py::ssize_t(per_chain)};
    for (const std::int64_t d : sites_[s].second.dims()) shape.push_back(py::ssize_t(d));
    py::array_t<double> array(shape);
    double* data = array.mutable_data();
    const std::size_t size = order.size();
    // Stan's columns are column-major; element order[k] of the row-major site is column k.
    for (std::size_t k = 0; k < size; ++k, ++j) {
      const std::vector<double> values = column(j);
      for (std::size_t row = 0; row < c * per_chain; ++row) data[row * size + std::size_t(order[k])] = values[row];
    }
    out[py::str(sites_[s].first)] = std::move(array);
  }
  return out;
}

py::dict PythonFit::stats() const {
  py::dict out;
  for (std::size_t j = 0; j < sampler_width_; ++j) {
    py::array_t<double> array({py::ssize_t(chains()), py::ssize_t(kept_)});
    const std::vector<double> values = column(j);
    std::copy(values.begin(), values.end(), array.mutable_data());
    out[py::str(sample_.columns[j])] = std::move(array);
  }
  return out;
}

std::vector<inference::ParameterSummary> PythonFit::summary() const {
  VARIATE_CHECK(kept_ > 0, "Fit.summary", "no draws to summarize: the run was interrupted before every chain ",
                "had made a draw after warm-up");
  const auto rectangular = [&](std::size_t j) {
    inference::ChainDraws draws;
    for (const auto& chain : sample_.values[j]) draws.emplace_back(chain.begin(), chain.begin() + kept_);
    return draws;
  };
  std::vector<inference::ParameterSummary> rows{inference::summarize("lp__", rectangular(0))};
  for (std::size_t j = sampler_width_; j < sample_.columns.size(); ++j)
    rows.push_back(inference::summarize(sample_.columns[j], rectangular(j)));
  return rows;
}

PythonFit sample(const PythonModel& model, const cli::SampleJobOptions& job) {
  inference::ModelSampleOptions options;
  options.sampler = cli::sampler_options(job);
  options.precision = model.precision();
  options.name = model.name();
  std::atomic<bool> stop = false;
  options.sampler.stop = &stop;
  std::future<inference::ModelSample> chains =
      std::async(std::launch::async, [&] { return inference::sample(model.definition().program, {}, options); });
  inference::ModelSample result = wait_for_chains(chains, stop);
  PythonFit fit(std::move(result), model.sites(), inference::sampler_columns(options.sampler.algorithm).size());
  if (fit.interrupted()) {
    const std::string message = "variate: sampling was interrupted; the fit holds the " +
                                std::to_string(fit.draws_per_chain()) +
                                " draws per chain that every chain made (Fit.interrupted is True)";
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) throw py::error_already_set();
  }
  return fit;
}

}  // namespace variate::python
