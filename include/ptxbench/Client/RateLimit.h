//===- RateLimit.h - A model's requests and tokens per minute ---*- C++ -*-===//
//
// A sliding one-minute window of the requests a model started and the
// tokens each reserved (estimated input plus its output limit), a cap on
// requests in flight, and a pause the server asked for (Retry-After).
// allows() says whether a request may start now and, when not, when the
// window next changes.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_CLIENT_RATELIMIT_H
#define PTXBENCH_CLIENT_RATELIMIT_H

#include "ptxbench/Client/Models.h"

#include <chrono>
#include <deque>

namespace ptxbench::client {

class RateLimiter {
public:
  using Clock = std::chrono::steady_clock;

  explicit RateLimiter(const Limits &limits) : limits(limits) {}

  /// Whether a request reserving `tokens` may start at `now`; when the
  /// window or a pause holds it, `retryAt` is lowered to when to look again
  /// (the concurrency cap changes only when a request ends).
  bool allows(Clock::time_point now, double tokens, Clock::time_point &retryAt);
  void started(Clock::time_point now, double tokens);
  void finished() { --inFlight; }
  /// No request starts before `until`.
  void pause(Clock::time_point until) {
    pausedUntil = std::max(pausedUntil, until);
  }
  unsigned running() const { return inFlight; }

private:
  Limits limits;
  unsigned inFlight = 0;
  std::deque<std::pair<Clock::time_point, double>> window;
  Clock::time_point pausedUntil;
};

} // namespace ptxbench::client

#endif // PTXBENCH_CLIENT_RATELIMIT_H
