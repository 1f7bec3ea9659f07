// HelperBackoff: calls wake the helpers while they help; calls they miss in a row start a serial
// stretch, which doubles with each probe they miss, up to a cap, and a call they help ends it.
#include "tensor/cpu/helper_backoff.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace variate::cpu {
namespace {

// Calls until one wakes the helpers; returns how many did not.
std::int64_t serial_calls_before_wake(HelperBackoff& backoff) {
  std::int64_t serial = 0;
  while (!backoff.wake_helpers()) ++serial;
  return serial;
}

// Records kMissesBeforeBackoff calls that no helper helped, the first already woken.
void miss_a_probe(HelperBackoff& backoff) {
  for (int call = 0; call < HelperBackoff::kMissesBeforeBackoff; ++call) {
    if (call > 0) {
      ASSERT_TRUE(backoff.wake_helpers()) << "call " << call << " of a probe";
    }
    backoff.record(false);
  }
}

TEST(HelperBackoff, WakesTheHelpersWhileTheyHelp) {
  HelperBackoff backoff;
  for (int call = 0; call < 1000; ++call) {
    ASSERT_TRUE(backoff.wake_helpers()) << "call " << call;
    backoff.record(call % HelperBackoff::kMissesBeforeBackoff != 0);  // missed now and then, never long
  }
}

TEST(HelperBackoff, SerialStretchesDoubleUpToTheCapAndEndWhenAHelperHelps) {
  HelperBackoff backoff;
  ASSERT_TRUE(backoff.wake_helpers());
  std::int64_t expected = HelperBackoff::kFirstSerialCalls;
  for (int probe = 0; probe < 12; ++probe) {
    miss_a_probe(backoff);
    EXPECT_EQ(serial_calls_before_wake(backoff), expected) << "stretch after probe " << probe;
    expected = std::min(2 * expected, HelperBackoff::kMaxSerialCalls);
  }
  EXPECT_EQ(expected, HelperBackoff::kMaxSerialCalls) << "the stretches reached the cap";
  backoff.record(true);  // the probe's first call was helped
  for (int call = 0; call < 100; ++call) {
    ASSERT_TRUE(backoff.wake_helpers()) << "call " << call << " after a helped call";
    backoff.record(true);
  }
  miss_a_probe(backoff);
  EXPECT_EQ(serial_calls_before_wake(backoff), HelperBackoff::kFirstSerialCalls)
      << "a helped call starts the stretches over";
}

}  // namespace
}  // namespace variate::cpu
