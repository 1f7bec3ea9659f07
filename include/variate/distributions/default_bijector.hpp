#pragma once
// The one registry from a support to its default bijector (DESIGN.md, layer 4): inference and
// variational families work on the unconstrained space, and y = default_bijector(support)->forward(x)
// maps any real x into the support. The choices follow Stan's transforms. A site may override its
// support's default with dist::Reparameterized; inference asks unconstraining_bijector(distribution),
// which honours that.
#include "variate/distributions/bijector.hpp"
#include "variate/distributions/constraint.hpp"
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// real -> Identity; positive -> Exp; unit_interval -> Sigmoid; interval(low, high) ->
/// Interval(low, high); greater_than(low) -> Chain({Shift(low), Exp}); less_than(high) ->
/// Chain({Shift(high), Scale(-1), Exp}); simplex -> StickBreaking; corr_cholesky -> CorrCholesky;
/// lower_cholesky -> LowerCholesky; ordered -> Ordered; positive_ordered -> PositiveOrdered;
/// unit_vector -> UnitVector; positive_definite -> Chain({CholeskyOuterProduct, LowerCholesky});
/// corr_matrix -> CorrMatrix. Discrete supports throw
/// variate::Error: they have no bijector to the unconstrained space.
BijectorPtr default_bijector(const Constraint& support);

/// The bijector that takes a site with this distribution to the unconstrained space: the one a
/// dist::Reparameterized carries, otherwise default_bijector(distribution.support()). Built from
/// the distribution's current parameters, so inference calls it at every evaluation.
BijectorPtr unconstraining_bijector(const Distribution& distribution);

}  // namespace variate::dist
