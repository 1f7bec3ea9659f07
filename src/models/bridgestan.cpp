#include "variate/models/bridgestan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "variate/autodiff/transforms.hpp"
#include "variate/core/error.hpp"
#include "variate/data/data_file.hpp"
#include "variate/inference/draw_columns.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/random/key.hpp"

namespace {

using variate::Shape;
using variate::Tensor;
using variate::inference::Jacobian;

// The latent sites in program order (Stan's parameters), as columns.
variate::inference::SiteColumns parameter_columns(const variate::inference::Unconstrained& space) {
  std::vector<variate::inference::LatentSite> sites = space.sites();
  std::sort(sites.begin(), sites.end(), [](const auto& a, const auto& b) { return a.program_order < b.program_order; });
  std::vector<variate::inference::ColumnSite> columns;
  for (const auto& s : sites) columns.push_back({s.name, s.shape});
  return variate::inference::site_columns(columns);
}

// The deterministic sites (Stan's transformed parameters), as columns.
variate::inference::SiteColumns deterministic_columns(const variate::inference::Unconstrained& space) {
  std::vector<variate::inference::ColumnSite> columns;
  for (const auto& s : space.generated_sites()) columns.push_back({s.name, s.shape});
  return variate::inference::site_columns(columns);
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ",") + n;
  return text;
}

// An unconstrained coordinate is named after its site and its 1-based place in the site's part.
std::string unconstrained_names(const variate::inference::Unconstrained& space) {
  std::vector<std::string> names(std::size_t(space.dimension()));
  for (const auto& s : space.sites())
    for (std::int64_t k = 0; k < s.size; ++k)
      names[std::size_t(s.offset + k)] =
          s.unconstrained_shape.rank() == 0 ? s.name : s.name + "." + std::to_string(k + 1);
  return joined(names);
}

// bs_model_construct's data is JSON text when it starts with '{', else a data file's path.
bool is_json_text(std::string_view data) {
  const auto first = data.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && data[first] == '{';
}

variate::data::DataFile read_data(const char* data) {
  if (data == nullptr || *data == '\0') return {};
  if (is_json_text(data)) return variate::data::parse_cmdstan_json(data, "the JSON data given to bs_model_construct");
  return variate::data::read_data_file(data);
}

std::string describe_source(const char* data) {
  if (data == nullptr || *data == '\0') return "the model's data (none given to bs_model_construct)";
  return is_json_text(data) ? "the JSON data given to bs_model_construct" : std::string(data);
}

// The model function's name without its namespaces (VARIATE_MODEL records it as written).
std::string unqualified(std::string_view name) {
  const auto at = name.rfind("::");
  return std::string(at == std::string_view::npos ? name : name.substr(at + 2));
}

void set_error(char** error_msg, const char* text) {
  if (error_msg != nullptr) *error_msg = strdup(text);
}

// Runs `body`; an exception becomes -1 and its message.
template <class Body>
int guarded(char** error_msg, Body&& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    set_error(error_msg, e.what());
  } catch (...) {
    set_error(error_msg, "variate: an unknown exception");
  }
  return -1;
}

std::vector<std::int64_t> dims_of(const Shape& shape) { return {shape.dims().begin(), shape.dims().end()}; }

}  // namespace

struct bs_model {
  bs_model(const variate::models::PluginEntry& entry, const char* data, unsigned int seed)
      : name(unqualified(entry.name)),
        definition(variate::models::define(entry.function,
                                           variate::models::ModelData(read_data(data), describe_source(data)))),
        space(definition.program, variate::random::Key(seed)),
        with_jacobian(variate::inference::make_target(space)),
        without_jacobian(variate::inference::make_target(space, variate::DType::f64, Jacobian::excluded)),
        parameters(parameter_columns(space)),
        deterministic(deterministic_columns(space)),
        parameter_names(joined(parameters.names)),
        all_names(joined([&] {
          std::vector<std::string> all = parameters.names;
          all.insert(all.end(), deterministic.names.begin(), deterministic.names.end());
          return all;
        }())),
        unconstrained(unconstrained_names(space)),
        info("variate model '" + name + "': " + definition.description + "; BridgeStan interface " +
             std::to_string(variate::models::bridgestan::kMajorVersion) + "." +
             std::to_string(variate::models::bridgestan::kMinorVersion) + "." +
             std::to_string(variate::models::bridgestan::kPatchVersion)) {}

  Tensor point(const double* theta_unc) const {
    return Tensor::from(std::span<const double>(theta_unc, std::size_t(space.dimension())), Shape{space.dimension()});
  }
  Tensor log_density(const Tensor& x, bool jacobian) const {
    return space.log_density(x, jacobian ? Jacobian::included : Jacobian::excluded);
  }
  // H v by central differences of the exact gradient along v, for a model with a rule whose
  // derivative has no differentiable form (as BridgeStan computes Hessians unless built with
  // BRIDGESTAN_AD_HESSIAN). The step balances the O(h^2) truncation against rounding.
  void gradient_difference(const double* theta_unc, const double* v, bool jacobian, double* out) const {
    const auto d = std::size_t(space.dimension());
    double x_size = 0, v_size = 0;
    for (std::size_t k = 0; k < d; ++k) {
      x_size = std::max(x_size, std::abs(theta_unc[k]));
      v_size = std::max(v_size, std::abs(v[k]));
    }
    if (v_size == 0) {
      std::fill_n(out, d, 0.0);
      return;
    }
    const double h = std::cbrt(std::numeric_limits<double>::epsilon()) * (1 + x_size) / v_size;
    std::vector<double> up(d), down(d), g_up(d), g_down(d);
    for (std::size_t k = 0; k < d; ++k) {
      up[k] = theta_unc[k] + h * v[k];
      down[k] = theta_unc[k] - h * v[k];
    }
    double lp = 0;
    const variate::inference::Target& target = jacobian ? with_jacobian : without_jacobian;
    target.evaluate(up, 1, {&lp, 1}, g_up);
    target.evaluate(down, 1, {&lp, 1}, g_down);
    for (std::size_t k = 0; k < d; ++k) out[k] = (g_up[k] - g_down[k]) / (2 * h);
  }

  std::string name;
  variate::models::Definition definition;
  variate::inference::Unconstrained space;
  variate::inference::Target with_jacobian, without_jacobian;
  variate::inference::SiteColumns parameters, deterministic;
  std::string parameter_names, all_names, unconstrained, info;
};

struct bs_rng {
  variate::random::Key key;
};

namespace variate::models::bridgestan {

bs_model* model_construct(const PluginEntry& entry, const char* data, unsigned int seed, char** error_msg) {
  bs_model* model = nullptr;
  guarded(error_msg, [&] { model = new bs_model(entry, data, seed); });
  return model;
}

void model_destruct(bs_model* m) { delete m; }

void free_error_msg(char* error_msg) { std::free(error_msg); }

const char* name(const bs_model* m) { return m->name.c_str(); }

const char* model_info(const bs_model* m) { return m->info.c_str(); }

const char* param_names(const bs_model* m, bool include_tp, bool) {
  return (include_tp ? m->all_names : m->parameter_names).c_str();
}

const char* param_unc_names(const bs_model* m) { return m->unconstrained.c_str(); }

int param_num(const bs_model* m, bool include_tp, bool) {
  return int(m->parameters.names.size() + (include_tp ? m->deterministic.names.size() : 0));
}

int param_unc_num(const bs_model* m) { return int(m->space.dimension()); }

int param_constrain(const bs_model* m, bool include_tp, bool, const double* theta_unc, double* theta, bs_rng*,
                    char** error_msg) {
  return guarded(error_msg, [&] {
    const Tensor x = m->point(theta_unc);
    inference::fill_site_columns(m->parameters, m->space.constrain(x), theta);
    if (include_tp)
      inference::fill_site_columns(m->deterministic, m->space.generated_quantities(x),
                                   theta + m->parameters.names.size());
  });
}

namespace {

// The values of the latent sites from Stan-ordered columns: column k of a site is element
// order[k] of its row-major tensor.
tracing::Values values_from_columns(const bs_model& m, const double* theta) {
  tracing::Values values;
  std::size_t column = 0;
  for (std::size_t j = 0; j < m.parameters.sites.size(); ++j) {
    const std::vector<std::int64_t>& order = m.parameters.order[j];
    std::vector<double> row_major(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) row_major[std::size_t(order[k])] = theta[column++];
    const auto& site = *std::find_if(m.space.sites().begin(), m.space.sites().end(),
                                     [&](const auto& s) { return s.name == m.parameters.sites[j]; });
    values.emplace(site.name, Tensor::from(row_major, site.shape));
  }
  return values;
}

void write_unconstrained(const bs_model& m, const tracing::Values& values, double* theta_unc) {
  const Tensor flat = m.space.unconstrain(values);
  std::copy_n(flat.data<double>(), m.space.dimension(), theta_unc);
}

}  // namespace

int param_unconstrain(const bs_model* m, const double* theta, double* theta_unc, char** error_msg) {
  return guarded(error_msg, [&] { write_unconstrained(*m, values_from_columns(*m, theta), theta_unc); });
}

int param_unconstrain_json(const bs_model* m, const char* json, double* theta_unc, char** error_msg) {
  return guarded(error_msg, [&] {
    VARIATE_CHECK(json != nullptr, "bs_param_unconstrain_json", "the JSON text is NULL");
    const data::DataFile file = data::parse_cmdstan_json(json, "the JSON given to bs_param_unconstrain_json");
    const auto known = [&](const std::string& name) {
      const auto& p = m->parameters.sites;
      const auto& d = m->deterministic.sites;
      return std::find(p.begin(), p.end(), name) != p.end() || std::find(d.begin(), d.end(), name) != d.end();
    };
    for (const auto& [name, array] : file)
      VARIATE_CHECK(known(name), "bs_param_unconstrain_json", "the model has no parameter named '", name,
                    "'; its parameters are ", m->parameter_names);
    tracing::Values values;
    for (const auto& site : m->space.sites()) {
      const auto found = file.find(site.name);
      VARIATE_CHECK(found != file.end(), "bs_param_unconstrain_json", "parameter '", site.name,
                    "' is missing; expected ", data::describe_shape(dims_of(site.shape)));
      VARIATE_CHECK(found->second.shape == dims_of(site.shape), "bs_param_unconstrain_json", "parameter '", site.name,
                    "' has ", data::describe_shape(found->second.shape), "; expected ",
                    data::describe_shape(dims_of(site.shape)));
      values.emplace(site.name, Tensor::from(found->second.values, site.shape));
    }
    write_unconstrained(*m, values, theta_unc);
  });
}

// propto: the density keeps its constants, which is still the log density up to a constant.
int log_density(const bs_model* m, bool, bool jacobian, const double* theta_unc, double* lp, char** error_msg) {
  return guarded(error_msg, [&] { *lp = m->log_density(m->point(theta_unc), jacobian).item(); });
}

int log_density_gradient(const bs_model* m, bool, bool jacobian, const double* theta_unc, double* val, double* grad,
                         char** error_msg) {
  return guarded(error_msg, [&] {
    const auto d = std::size_t(m->space.dimension());
    (jacobian ? m->with_jacobian : m->without_jacobian).evaluate({theta_unc, d}, 1, {val, 1}, {grad, d});
  });
}

int log_density_hessian(const bs_model* m, bool propto, bool jacobian, const double* theta_unc, double* val,
                        double* grad, double* hessian, char** error_msg) {
  if (log_density_gradient(m, propto, jacobian, theta_unc, val, grad, error_msg) != 0) return -1;
  return guarded(error_msg, [&] {
    const auto d = m->space.dimension();
    const Tensor x = m->point(theta_unc);
    try {
      const Tensor h = variate::hessian([&](const Tensor& y) { return m->log_density(y, jacobian); }, x);
      std::copy_n(h.data<double>(), d * d, hessian);
      return;
    } catch (const SecondOrderUnsupported&) {
    }
    // Row i: the derivative of the gradient along coordinate i.
    std::vector<double> e(std::size_t(d), 0.0);
    for (std::int64_t i = 0; i < d; ++i) {
      e[std::size_t(i)] = 1;
      m->gradient_difference(theta_unc, e.data(), jacobian, hessian + i * d);
      e[std::size_t(i)] = 0;
    }
    for (std::int64_t i = 0; i < d; ++i)
      for (std::int64_t j = 0; j < i; ++j)
        hessian[i * d + j] = hessian[j * d + i] = 0.5 * (hessian[i * d + j] + hessian[j * d + i]);
  });
}

int log_density_hessian_vector_product(const bs_model* m, bool, bool jacobian, const double* theta_unc,
                                       const double* vector, double* val, double* hvp, char** error_msg) {
  return guarded(error_msg, [&] {
    const Tensor x = m->point(theta_unc);
    *val = m->log_density(x, jacobian).item();
    try {
      const Tensor product =
          variate::hvp([&](const Tensor& y) { return m->log_density(y, jacobian); }, x, m->point(vector));
      std::copy_n(product.data<double>(), product.numel(), hvp);
    } catch (const SecondOrderUnsupported&) {
      m->gradient_difference(theta_unc, vector, jacobian, hvp);
    }
  });
}

bs_rng* rng_construct(unsigned int seed, char** error_msg) {
  bs_rng* rng = nullptr;
  guarded(error_msg, [&] { rng = new bs_rng{random::Key(seed)}; });
  return rng;
}

void rng_destruct(bs_rng* rng) { delete rng; }

// variate models print nothing: there is never anything to pass to the callback.
int set_print_callback(STREAM_CALLBACK, char**) { return 0; }

}  // namespace variate::models::bridgestan
