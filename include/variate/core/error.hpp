#pragma once
// Errors raised on invalid arguments. Every message names the operation, the values involved and
// what was expected (DESIGN.md, "Errors").
#include <sstream>
#include <stdexcept>
#include <string>

namespace variate {

/// Thrown for invalid arguments: bad shapes, dtypes, axes, indices or parameter values.
class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {
template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  throw Error(out.str());
}
}  // namespace detail

/// Throws variate::Error("<op>: <message parts...>") when `condition` is false. The message parts
/// are only formatted on failure, so checks cost nothing on the hot path.
#define VARIATE_CHECK(condition, op, ...)                             \
  do {                                                                \
    if (!(condition)) ::variate::detail::fail(op, ": ", __VA_ARGS__); \
  } while (0)

}  // namespace variate
