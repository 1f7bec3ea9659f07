#pragma once
// Where a distribution's values live. The constraint picks the default bijector to the
// unconstrained space (distributions/default_bijector.hpp) and decides what "outside the support"
// means for log_prob.
#include <string>

#include "variate/tensor/tensor.hpp"

namespace variate {

/// The support of a distribution (real, positive, an interval, the simplex, ...), which picks the
/// bijector that maps it to unconstrained space.
struct Constraint {
  enum class Kind {
    real,                 // R
    positive,             // (0, inf)
    unit_interval,        // (0, 1)
    interval,             // (low, high)
    greater_than,         // (low, inf)
    less_than,            // (-inf, high)
    simplex,              // last axis non-negative and summing to 1
    corr_cholesky,        // lower-triangular Cholesky factors of correlation matrices (last two axes)
    lower_cholesky,       // lower-triangular with positive diagonal: Cholesky factors of covariance
                          // matrices (Stan's cholesky_factor_cov[K], square K x K; last two axes)
    ordered,              // last axis strictly increasing (Stan's ordered[K])
    positive_ordered,     // last axis positive and strictly increasing (Stan's positive_ordered[K])
    unit_vector,          // last axis of Euclidean norm 1 (Stan's unit_vector[K], K >= 2)
    positive_definite,    // symmetric positive-definite matrices (last two axes)
    corr_matrix,          // correlation matrices: positive definite with a unit diagonal
    nonnegative_integer,  // 0, 1, 2, ...
    integer_interval,     // low, ..., high (inclusive)
    boolean,              // 0 or 1
    multinomial_counts,   // non-negative integers along the last axis summing to total_count
  };
  Kind kind = Kind::real;
  Tensor low, high;  // bounds for interval, greater_than, less_than and integer_interval

  static Constraint real() { return {Kind::real, {}, {}}; }
  static Constraint positive() { return {Kind::positive, {}, {}}; }
  static Constraint unit_interval() { return {Kind::unit_interval, {}, {}}; }
  static Constraint interval(Tensor low, Tensor high) { return {Kind::interval, std::move(low), std::move(high)}; }
  static Constraint greater_than(Tensor low) { return {Kind::greater_than, std::move(low), {}}; }
  static Constraint less_than(Tensor high) { return {Kind::less_than, {}, std::move(high)}; }
  static Constraint simplex() { return {Kind::simplex, {}, {}}; }
  static Constraint corr_cholesky() { return {Kind::corr_cholesky, {}, {}}; }
  static Constraint lower_cholesky() { return {Kind::lower_cholesky, {}, {}}; }
  static Constraint ordered() { return {Kind::ordered, {}, {}}; }
  static Constraint positive_ordered() { return {Kind::positive_ordered, {}, {}}; }
  static Constraint unit_vector() { return {Kind::unit_vector, {}, {}}; }
  static Constraint positive_definite() { return {Kind::positive_definite, {}, {}}; }
  static Constraint corr_matrix() { return {Kind::corr_matrix, {}, {}}; }
  static Constraint nonnegative_integer() { return {Kind::nonnegative_integer, {}, {}}; }
  static Constraint integer_interval(Tensor low, Tensor high) {
    return {Kind::integer_interval, std::move(low), std::move(high)};
  }
  static Constraint boolean() { return {Kind::boolean, {}, {}}; }
  static Constraint multinomial_counts(Tensor total_count) {
    return {Kind::multinomial_counts, {}, std::move(total_count)};
  }

  bool is_discrete() const;
  /// Number of trailing axes that one constrained value spans (1 for simplex, ordered,
  /// positive_ordered and unit_vector, 2 for matrices).
  int event_ndims() const;
  std::string str() const;
};

}  // namespace variate
