//===- RateLimitTest.cpp - Requests and tokens per minute -----------------===//

#include "ptxbench/Client/RateLimit.h"

#include "gtest/gtest.h"

using namespace ptxbench::client;
using namespace std::chrono_literals;
using Clock = RateLimiter::Clock;

namespace {

TEST(RateLimitTest, RequestsPerMinute) {
  Limits limits;
  limits.requestsPerMinute = 2;
  RateLimiter r(limits);
  Clock::time_point t0 = Clock::now(), retry = Clock::time_point::max();
  ASSERT_TRUE(r.allows(t0, 10, retry));
  r.started(t0, 10);
  r.finished();
  ASSERT_TRUE(r.allows(t0 + 1s, 10, retry));
  r.started(t0 + 1s, 10);
  r.finished();
  EXPECT_FALSE(r.allows(t0 + 2s, 10, retry));
  EXPECT_EQ(retry, t0 + 60s);
  EXPECT_FALSE(r.allows(t0 + 59s, 10, retry));
  EXPECT_TRUE(r.allows(t0 + 60s, 10, retry));
}

TEST(RateLimitTest, TokensPerMinute) {
  Limits limits;
  limits.tokensPerMinute = 1000;
  RateLimiter r(limits);
  Clock::time_point t0 = Clock::now(), retry = Clock::time_point::max();
  // A request larger than the whole budget starts on an empty window.
  ASSERT_TRUE(r.allows(t0, 1500, retry));
  r.started(t0, 1500);
  r.finished();
  EXPECT_FALSE(r.allows(t0 + 30s, 100, retry));
  EXPECT_TRUE(r.allows(t0 + 61s, 600, retry));
  r.started(t0 + 61s, 600);
  r.finished();
  EXPECT_TRUE(r.allows(t0 + 62s, 400, retry));
  EXPECT_FALSE(r.allows(t0 + 62s, 401, retry));
}

TEST(RateLimitTest, ConcurrencyAndPause) {
  Limits limits;
  limits.concurrency = 2;
  RateLimiter r(limits);
  Clock::time_point t0 = Clock::now(), retry = Clock::time_point::max();
  r.started(t0, 0);
  r.started(t0, 0);
  EXPECT_FALSE(r.allows(t0, 0, retry));
  EXPECT_EQ(retry, Clock::time_point::max());
  r.finished();
  EXPECT_TRUE(r.allows(t0, 0, retry));
  r.pause(t0 + 5s);
  EXPECT_FALSE(r.allows(t0 + 1s, 0, retry));
  EXPECT_EQ(retry, t0 + 5s);
  EXPECT_TRUE(r.allows(t0 + 5s, 0, retry));
}

} // namespace
