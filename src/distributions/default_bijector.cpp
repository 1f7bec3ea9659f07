#include "variate/distributions/default_bijector.hpp"

#include <memory>

#include "variate/distributions/bijectors.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/cholesky_outer_product.hpp"
#include "variate/distributions/corr_cholesky.hpp"
#include "variate/distributions/corr_matrix.hpp"
#include "variate/distributions/lower_cholesky.hpp"
#include "variate/distributions/stick_breaking.hpp"

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
      return std::make_shared<Chain>(std::vector<BijectorPtr>{std::make_shared<Shift>(support.low), std::make_shared<Exp>()});
    case K::simplex: return std::make_shared<StickBreaking>();
    case K::corr_cholesky: return std::make_shared<CorrCholesky>();
    case K::lower_cholesky: return std::make_shared<LowerCholesky>();
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

}  // namespace variate::dist
