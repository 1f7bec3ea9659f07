#include "variate/distributions/default_bijector.hpp"

#include <memory>

#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/cholesky_outer_product.hpp"
#include "variate/distributions/corr_cholesky.hpp"
#include "variate/distributions/corr_matrix.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/lower_cholesky.hpp"
#include "variate/distributions/ordered.hpp"
#include "variate/distributions/reparameterized.hpp"
#include "variate/distributions/sample.hpp"
#include "variate/distributions/stick_breaking.hpp"
#include "variate/distributions/unit_vector.hpp"

namespace variate::dist {

BijectorPtr default_bijector(const Constraint& support) {
  using K = Constraint::Kind;
  switch (support.kind) {
    case K::real: return std::make_shared<Identity>();
    // Exp rather than Softplus, as Stan: its log-determinant is x itself.
    case K::positive: return std::make_shared<Exp>();
    case K::unit_interval: return std::make_shared<Sigmoid>();
    case K::interval: return std::make_shared<Interval>(support.low, support.high);
    case K::greater_than:
      return std::make_shared<Chain>(
          std::vector<BijectorPtr>{std::make_shared<Shift>(support.low), std::make_shared<Exp>()});
    // high - exp(u): the mirror image of greater_than.
    case K::less_than:
      return std::make_shared<Chain>(std::vector<BijectorPtr>{
          std::make_shared<Shift>(support.high), std::make_shared<Scale>(Tensor::scalar(-1.0, support.high.dtype())),
          std::make_shared<Exp>()});
    case K::simplex: return std::make_shared<StickBreaking>();
    case K::corr_cholesky: return std::make_shared<CorrCholesky>();
    case K::lower_cholesky: return std::make_shared<LowerCholesky>();
    case K::ordered: return std::make_shared<Ordered>();
    case K::positive_ordered: return std::make_shared<PositiveOrdered>();
    case K::unit_vector: return std::make_shared<UnitVector>();
    // Stan's cov_matrix and corr_matrix transforms.
    case K::positive_definite:
      return std::make_shared<Chain>(
          std::vector<BijectorPtr>{std::make_shared<CholeskyOuterProduct>(), std::make_shared<LowerCholesky>()});
    case K::corr_matrix: return std::make_shared<CorrMatrix>();
    case K::nonnegative_integer:
    case K::integer_interval:
    case K::boolean:
    case K::multinomial_counts: break;
  }
  variate::detail::fail("default_bijector: the ", support.str(),
                        " support is discrete and has no bijector to the unconstrained space");
}

namespace {

// The bijector a site chose (Reparameterized), seen through the wrappers that keep their base's
// support (Independent, Sample); null if it chose none.
BijectorPtr chosen_bijector(const Distribution& d) {
  if (const auto* r = dynamic_cast<const Reparameterized*>(&d)) return r->bijector();
  const Distribution* base = nullptr;
  if (const auto* i = dynamic_cast<const Independent*>(&d)) base = i->distribution().get();
  if (const auto* s = dynamic_cast<const Sample*>(&d)) base = s->distribution().get();
  if (base == nullptr) return nullptr;
  BijectorPtr inner = chosen_bijector(*base);
  // An element-wise bijector applies to the wrapper's larger value as it is; others would not fit.
  VARIATE_CHECK(inner == nullptr || inner->forward_event_ndims() == 0, "unconstraining_bijector", d.name(),
                " wraps a Reparameterized distribution whose bijector (", inner->name(),
                ") is not element-wise; put Reparameterized outermost");
  return inner;
}

}  // namespace

BijectorPtr unconstraining_bijector(const Distribution& distribution) {
  BijectorPtr chosen = chosen_bijector(distribution);
  return chosen != nullptr ? chosen : default_bijector(distribution.support());
}

}  // namespace variate::dist
