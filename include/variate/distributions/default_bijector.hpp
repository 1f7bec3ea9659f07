#pragma once
// The one registry from a support to its default bijector (DESIGN.md, layer 4): inference and
// variational families work on the unconstrained space, and y = default_bijector(support)->forward(x)
// maps any real x into the support. The choices follow Stan's transforms.
#include "variate/distributions/bijector.hpp"
#include "variate/distributions/constraint.hpp"

namespace variate::dist {

/// real -> Identity; positive -> Exp; unit_interval -> Sigmoid; interval(low, high) ->
/// Interval(low, high); greater_than(low) -> Chain({Shift(low), Exp}); simplex -> StickBreaking;
/// corr_cholesky -> CorrCholesky; lower_cholesky -> LowerCholesky; positive_definite ->
/// Chain({CholeskyOuterProduct, LowerCholesky}); corr_matrix -> CorrMatrix. Discrete supports throw
/// variate::Error: they have no bijector to the unconstrained space.
BijectorPtr default_bijector(const Constraint& support);

}  // namespace variate::dist
