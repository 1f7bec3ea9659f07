#include "variate/inference/predictive_columns.hpp"

#include <set>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/distributions/factor.hpp"
#include "variate/inference/predictive.hpp"

namespace variate::inference {
namespace {

constexpr const char* kOp = "PredictiveColumns";

bool is_datum(const tracing::Site& s) {
  return s.observed && !s.intervened && dynamic_cast<const dist::Factor*>(s.distribution.get()) == nullptr;
}

}  // namespace

PredictiveColumns::PredictiveColumns(tracing::Program program, const tracing::Values& latent,
                                     PredictiveColumnsOptions options, random::Key key)
    : program_(std::move(program)), options_(options), key_(random::fold_in(key, "predictive")) {
  if (!options.predictive && !options.log_likelihood) return;
  tracing::Trace trace;
  {
    tracing::Substitute values(latent);
    tracing::run_program(program_);
  }
  std::set<std::string, std::less<>> names;
  for (const tracing::Site& s : trace.sites()) names.insert(s.name);
  const auto check_free = [&](const std::string& name) {
    VARIATE_CHECK(!names.contains(name), kOp, "the column '", name, "' would repeat the name of a site of the model");
  };
  for (const tracing::Site& s : trace.sites()) {
    if (!is_datum(s)) continue;
    observed_.push_back(s.name);
    if (!options.predictive) continue;
    check_free(s.name + "_rep");
    sites_.push_back({s.name + "_rep", s.value.shape()});
  }
  VARIATE_CHECK(!observed_.empty(), kOp,
                "the model observes no site (no data given with Condition): there is nothing to predict or to "
                "compute a log-likelihood of");
  if (options.predictive) check_draw_shapes(predictive(program_, latent, key_));
  if (!options.log_likelihood) return;
  check_free("log_lik");
  const tracing::Values pointwise = log_likelihood(program_, latent);
  for (const std::string& name : observed_) log_lik_size_ += pointwise.at(name).numel();
  sites_.push_back({"log_lik", Shape{log_lik_size_}});
}

void PredictiveColumns::check_draw_shapes(const tracing::Values& drawn) const {
  for (std::size_t i = 0; i < observed_.size(); ++i) {
    const Shape& got = drawn.at(observed_[i]).shape();
    VARIATE_CHECK(got == sites_[i].shape, kOp, "site '", observed_[i], "': a predictive draw has shape ", got,
                  " but the data have shape ", sites_[i].shape,
                  ": the distribution is broadcast against its data; give its parameters the data's shape so that "
                  "every datum gets a draw of its own");
  }
}

void PredictiveColumns::add(tracing::Values& values, int chain, std::int64_t draw) const {
  const tracing::Values latent = values;  // every name given to the program must be one of its sites
  if (options_.predictive) {
    const random::Key key = random::fold_in(random::fold_in(key_, std::uint64_t(chain)), std::uint64_t(draw));
    const tracing::Values drawn = predictive(program_, latent, key);
    check_draw_shapes(drawn);
    for (std::size_t i = 0; i < observed_.size(); ++i) values.insert_or_assign(sites_[i].name, drawn.at(observed_[i]));
  }
  if (options_.log_likelihood) {
    const tracing::Values pointwise = log_likelihood(program_, latent);
    std::vector<double> flat;
    flat.reserve(std::size_t(log_lik_size_));
    for (const std::string& name : observed_) {
      const Tensor terms = cast(pointwise.at(name), DType::f64);
      const double* p = terms.data<double>();
      for (std::int64_t index : data::column_major_order(terms.shape().dims())) flat.push_back(p[index]);
    }
    VARIATE_CHECK(std::int64_t(flat.size()) == log_lik_size_, kOp, "the observed sites have ", flat.size(),
                  " pointwise terms at this draw and ", log_lik_size_, " at the first");
    values.insert_or_assign("log_lik", Tensor::from(flat, Shape{log_lik_size_}));
  }
}

}  // namespace variate::inference
