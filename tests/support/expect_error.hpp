#pragma once
// Checking error messages: EXPECT_ERROR(statement, text) expects `statement` to throw a
// variate::Error whose message contains `text`.
#include <gtest/gtest.h>

#include <string>

#include "variate/core/error.hpp"

namespace variate::testing {

/// The message of the variate::Error that f() throws, or a note that it threw none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no variate::Error thrown)";
}

}  // namespace variate::testing

#define EXPECT_ERROR(statement, text)                                                      \
  do {                                                                                     \
    const std::string message_ = ::variate::testing::error_of([&] { (void)(statement); }); \
    EXPECT_NE(message_.find(text), std::string::npos)                                      \
        << "message: " << message_ << "\nexpected to contain: " << (text);                 \
  } while (0)
