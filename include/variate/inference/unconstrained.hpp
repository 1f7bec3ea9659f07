#pragma once
// The unconstrained parameterization inference works in (layer 7): trace the model once to find its
// latent sites (neither observed nor intervened), their shapes and supports; lay them out in one
// flat real vector through each support's default bijector, with the log|det J| terms.
//
//   inference::Unconstrained space(model);
//   Tensor lp = space.log_density(flat);        // flat: (dimension) or (chains, dimension)
//   tracing::Values draws = space.constrain(flat);
#include <string>
#include <vector>

#include "variate/distributions/bijector.hpp"
#include "variate/tracing/program.hpp"

namespace variate::inference {

struct LatentSite {
  std::string name;
  Shape shape;               // of the constrained value
  Shape unconstrained_shape;
  std::int64_t offset = 0;   // into the flat vector
  std::int64_t size = 0;
  BijectorPtr bijector;      // unconstrained -> support
};

class Unconstrained {
 public:
  /// Traces `program` once under Seed(key). Throws naming the site if a latent site is discrete.
  explicit Unconstrained(tracing::Program program, random::Key key = random::Key(0));

  const std::vector<LatentSite>& sites() const { return sites_; }
  std::int64_t dimension() const { return dimension_; }

  /// The constrained value of every latent site; `flat` is (dimension) or (batch, dimension).
  tracing::Values constrain(const Tensor& flat) const;
  /// The inverse: the flat vector (with the values' leading batch dim, if any).
  Tensor unconstrain(const tracing::Values& values) const;
  /// log p(constrain(flat)) + sum of log|det J|: the density HMC samples; shape () or (batch).
  Tensor log_density(const Tensor& flat) const;

 private:
  Tensor log_det_jacobian(const Tensor& flat) const;
  std::vector<LatentSite> sites_;
  std::int64_t dimension_ = 0;
  std::function<Tensor(const tracing::Values&)> log_joint_, batched_log_joint_;
};

}  // namespace variate::inference
