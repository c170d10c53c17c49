//===- RateLimit.cpp - A model's requests and tokens per minute -----------===//
//
// A request whose reservation alone exceeds tokens_per_minute still starts
// when the window is empty, so a large prompt is slowed, never starved.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/RateLimit.h"

using namespace ptxbench::client;

bool RateLimiter::allows(Clock::time_point now, double tokens,
                         Clock::time_point &retryAt) {
  while (!window.empty() &&
         now - window.front().first >= std::chrono::minutes(1))
    window.pop_front();
  if (now < pausedUntil) {
    retryAt = std::min(retryAt, pausedUntil);
    return false;
  }
  if (inFlight >= limits.concurrency)
    return false;
  double used = 0;
  for (const auto &w : window)
    used += w.second;
  bool rpm = limits.requestsPerMinute > 0 &&
             double(window.size()) >= limits.requestsPerMinute;
  bool tpm = limits.tokensPerMinute > 0 && !window.empty() &&
             used + tokens > limits.tokensPerMinute;
  if (rpm || tpm) {
    retryAt = std::min(retryAt, window.front().first + std::chrono::minutes(1));
    return false;
  }
  return true;
}

void RateLimiter::started(Clock::time_point now, double tokens) {
  ++inFlight;
  window.emplace_back(now, tokens);
}
