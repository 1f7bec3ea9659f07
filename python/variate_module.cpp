// The `variate` Python module: models (built-in or plugins) on data given as numpy arrays, their
// log density and gradient, and sampling with the tool's options (README.md, "Python").
//
//   import numpy as np, variate
//   model = variate.Model("eight-schools", data={"J": 8, "y": y, "sigma": sigma})
//   lp, grad = model.log_density_gradient(np.zeros(model.dimension))
//   fit = model.sample(chains=4, draws=1000, seed=1)
//   fit.draws["theta"].shape      # (4, 1000, 8)
//   print(fit.summary())
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>

#include "python_fit.hpp"
#include "python_model.hpp"
#include "variate/inference/summary.hpp"
#include "version.hpp"

namespace py = pybind11;
using variate::python::PythonFit;
using variate::python::PythonModel;

namespace {

// The summary's statistics, in the order of stansummary's columns.
const std::vector<std::pair<const char*, double variate::inference::ParameterSummary::*>> kStatistics = {
    {"mean", &variate::inference::ParameterSummary::mean},
    {"mcse", &variate::inference::ParameterSummary::mcse},
    {"sd", &variate::inference::ParameterSummary::sd},
    {"mad", &variate::inference::ParameterSummary::mad},
    {"q5", &variate::inference::ParameterSummary::q5},
    {"q50", &variate::inference::ParameterSummary::q50},
    {"q95", &variate::inference::ParameterSummary::q95},
    {"ess_bulk", &variate::inference::ParameterSummary::ess_bulk},
    {"ess_tail", &variate::inference::ParameterSummary::ess_tail},
    {"rhat", &variate::inference::ParameterSummary::rhat}};

// A fit's summary: a row per column of the draws (lp__, then every parameter element with Stan's
// names) and the sampler's health per chain.
struct Summary {
  std::vector<variate::inference::ParameterSummary> rows;
  variate::inference::SamplerSummary sampler;

  std::vector<std::string> names() const {
    std::vector<std::string> names;
    for (const auto& row : rows) names.push_back(row.name);
    return names;
  }
  std::vector<std::string> statistics() const {
    std::vector<std::string> names;
    for (const auto& [name, member] : kStatistics) names.push_back(name);
    return names;
  }
  py::array_t<double> values() const {
    py::array_t<double> values({py::ssize_t(rows.size()), py::ssize_t(kStatistics.size())});
    double* out = values.mutable_data();
    for (const auto& row : rows)
      for (const auto& [name, member] : kStatistics) *out++ = row.*member;
    return values;
  }
  py::dict row(const std::string& name) const {
    for (const auto& row : rows) {
      if (row.name != name) continue;
      py::dict out;
      for (const auto& [statistic, member] : kStatistics) out[statistic] = row.*member;
      return out;
    }
    throw py::key_error("the summary has no row '" + name + "'; its rows are lp__ and the parameters' Stan names");
  }
  py::dict sampler_dict() const {
    py::dict out;
    out["divergences"] = sampler.divergences;
    out["max_treedepth_hits"] = sampler.max_treedepth_hits;
    out["ebfmi"] = sampler.ebfmi;
    out["step_sizes"] = sampler.step_sizes;
    out["sampling_seconds"] = sampler.sampling_seconds;
    return out;
  }
  std::string text() const {
    std::ostringstream out;
    variate::inference::write_summary_table(out, rows);
    variate::inference::write_sampler_diagnostics(out, sampler);
    return out.str();
  }
};

void bind_model(py::module_& m) {
  const variate::cli::SampleJobOptions tool;  // the tool's defaults
  py::class_<PythonModel>(m, "Model", R"(A model: a built-in one by name, or a plugin built by `variate build`.

Model(name=None, *, file=None, data=None, precision="f64")
  name: a built-in model (those `variate sample --help` lists: "eight-schools", "logistic", ...), or
  file: the path of a plugin (a shared library from `variate build MODEL.cpp`);
  data: a dict of numpy arrays (or numbers, nested lists) by the names the model reads, as in a
        CmdStan JSON file; None: a built-in model's default data (embedded, generated or read from
        its default folder);
  precision: "f64" or "f32", the precision the log density computes in.
Bad input (an unknown model, a plugin without a model or of another interface version, a missing
variable, a wrong shape or type) raises ValueError naming what was wrong.)")
      .def(py::init<std::optional<std::string>, std::optional<std::string>, std::optional<py::dict>, std::string>(),
           py::arg("name") = py::none(), py::kw_only(), py::arg("file") = py::none(), py::arg("data") = py::none(),
           py::arg("precision") = "f64")
      .def_property_readonly("name", &PythonModel::name)
      .def_property_readonly("description", [](const PythonModel& self) { return self.definition().description; })
      .def_property_readonly("dimension", &PythonModel::dimension, "the number of unconstrained coordinates")
      .def_property_readonly(
          "parameters",
          [](const PythonModel& self) {
            py::dict out;
            for (const auto& [name, shape] : self.sites())
              out[py::str(name)] =
                  py::tuple(py::cast(std::vector<std::int64_t>(shape.dims().begin(), shape.dims().end())));
            return out;
          },
          "the parameters and generated quantities in order, each with its shape")
      .def("log_density", &PythonModel::log_density, py::arg("x"), py::arg("jacobian") = true,
           "the log density at the unconstrained point x (with the log Jacobian of the constraining "
           "transforms unless jacobian=False)")
      .def("log_density_gradient", &PythonModel::log_density_gradient, py::arg("x"), py::arg("jacobian") = true,
           "(log density, its gradient) at the unconstrained point x")
      .def(
          "sample",
          [](const PythonModel& self, int chains, std::int64_t warmup, std::int64_t draws, std::uint64_t seed,
             int threads, std::string sampler, std::string metric, int max_depth, double adapt_delta,
             int leapfrog_steps, bool vectorize, double trajectory_length, double trajectory_jitter) {
            variate::cli::SampleJobOptions o;
            o.chains = chains;
            o.warmup = warmup;
            o.draws = draws;
            o.seed = seed;
            o.threads = threads;
            o.sampler = std::move(sampler);
            o.metric = std::move(metric);
            o.max_depth = max_depth;
            o.adapt_delta = adapt_delta;
            o.leapfrog_steps = leapfrog_steps;
            o.trajectory_length = trajectory_length;
            o.trajectory_jitter = trajectory_jitter;
            o.vectorize = vectorize;
            return variate::python::sample(self, o);
          },
          py::kw_only(), py::arg("chains") = tool.chains, py::arg("warmup") = tool.warmup,
          py::arg("draws") = tool.draws, py::arg("seed") = tool.seed, py::arg("threads") = tool.threads,
          py::arg("sampler") = tool.sampler, py::arg("metric") = tool.metric, py::arg("max_depth") = tool.max_depth,
          py::arg("adapt_delta") = tool.adapt_delta, py::arg("leapfrog_steps") = tool.leapfrog_steps,
          py::arg("vectorize") = tool.vectorize, py::arg("trajectory_length") = tool.trajectory_length,
          py::arg("trajectory_jitter") = tool.trajectory_jitter,
          R"(NUTS (or static HMC), as `variate sample` with the same options and defaults (metric="auto": the
low-rank Fisher metric; trajectory_length=0: Stan's 2 pi).

The chains run with the GIL released. Ctrl-C stops them after their current iteration, as it stops
the tool: the fit returned holds the draws made so far (Fit.interrupted is True, and a
UserWarning says so).)");
}

void bind_fit(py::module_& m) {
  py::class_<PythonFit>(m, "Fit", "the draws of Model.sample")
      .def_property_readonly("draws", &PythonFit::draws,
                             "dict: each parameter and generated quantity as an array (chain, draw, ...)")
      .def_property_readonly("stats", &PythonFit::stats,
                             "dict: the sampler's statistics (lp__, accept_stat__, stepsize__, treedepth__, "
                             "n_leapfrog__, divergent__, energy__) as arrays (chain, draw)")
      .def_property_readonly("chains", &PythonFit::chains)
      .def_property_readonly("draws_per_chain", &PythonFit::draws_per_chain)
      .def_property_readonly("interrupted", &PythonFit::interrupted,
                             "whether Ctrl-C stopped the run (the arrays then hold the draws every chain made)")
      .def(
          "summary",
          [](const PythonFit& self) {
            return Summary{self.summary(), self.sampler()};
          },
          "mean, MCSE, sd, MAD, 5/50/95% quantiles, bulk and tail ESS and R-hat of lp__ and every parameter "
          "element, and the sampler's diagnostics per chain");
  py::class_<Summary>(m, "Summary", "Fit.summary(); str() prints it as the tool does")
      .def_property_readonly("names", &Summary::names, "the rows: lp__ and Stan's names (theta.3)")
      .def_property_readonly("statistics", &Summary::statistics, "the columns")
      .def_property_readonly("values", &Summary::values, "(rows, statistics) array")
      .def_property_readonly("sampler", &Summary::sampler_dict,
                             "per chain: divergences, max_treedepth_hits, ebfmi, step_sizes; sampling_seconds")
      .def("__getitem__", &Summary::row, "a row's statistics by name")
      .def("__str__", &Summary::text);
}

}  // namespace

PYBIND11_MODULE(variate, m) {
  m.doc() = "variate: probabilistic programming models, their log densities and gradients, and NUTS";
  m.attr("__version__") = variate::cli::kVariateVersion;
  bind_model(m);
  bind_fit(m);
}
