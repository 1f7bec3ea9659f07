#include "variate/distributions/constraint.hpp"

namespace variate {

bool Constraint::is_discrete() const {
  return kind == Kind::nonnegative_integer || kind == Kind::integer_interval || kind == Kind::boolean ||
         kind == Kind::multinomial_counts;
}

int Constraint::event_ndims() const {
  switch (kind) {
    case Kind::simplex:
    case Kind::ordered:
    case Kind::positive_ordered:
    case Kind::unit_vector:
    case Kind::multinomial_counts: return 1;
    case Kind::corr_cholesky:
    case Kind::lower_cholesky:
    case Kind::positive_definite:
    case Kind::corr_matrix: return 2;
    default: return 0;
  }
}

std::string Constraint::str() const {
  switch (kind) {
    case Kind::real: return "real";
    case Kind::positive: return "positive";
    case Kind::unit_interval: return "unit_interval";
    case Kind::interval: return "interval";
    case Kind::greater_than: return "greater_than";
    case Kind::less_than: return "less_than";
    case Kind::simplex: return "simplex";
    case Kind::corr_cholesky: return "corr_cholesky";
    case Kind::lower_cholesky: return "lower_cholesky";
    case Kind::ordered: return "ordered";
    case Kind::positive_ordered: return "positive_ordered";
    case Kind::unit_vector: return "unit_vector";
    case Kind::positive_definite: return "positive_definite";
    case Kind::corr_matrix: return "corr_matrix";
    case Kind::nonnegative_integer: return "nonnegative_integer";
    case Kind::integer_interval: return "integer_interval";
    case Kind::boolean: return "boolean";
    case Kind::multinomial_counts: return "multinomial_counts";
  }
  return "?";
}

}  // namespace variate
