//===- SseTest.cpp - Server-sent events parsed incrementally --------------===//

#include "ptxbench/Client/Sse.h"

#include "gtest/gtest.h"

using namespace ptxbench::client;

namespace {

const char *stream = ": keep-alive comment\n"
                     "event: message_start\n"
                     "data: {\"a\":1}\n"
                     "\n"
                     "data: line one\r\n"
                     "data: line two\r\n"
                     "\r\n"
                     "event: ping\n"
                     "data:no-space\n"
                     "\n"
                     "data: [DONE]\n"
                     "\n";

void expectEvents(const std::vector<SseEvent> &events) {
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].event, "message_start");
  EXPECT_EQ(events[0].data, "{\"a\":1}");
  EXPECT_EQ(events[1].event, "");
  EXPECT_EQ(events[1].data, "line one\nline two");
  EXPECT_EQ(events[2].event, "ping");
  EXPECT_EQ(events[2].data, "no-space");
  EXPECT_EQ(events[3].data, "[DONE]");
}

TEST(SseTest, WholeStream) {
  SseParser parser;
  expectEvents(parser.feed(stream));
  EXPECT_FALSE(parser.pending());
}

TEST(SseTest, EverySplitGivesTheSameEvents) {
  std::string text = stream;
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    SseParser parser;
    std::vector<SseEvent> events = parser.feed(text.substr(0, cut));
    for (SseEvent &e : parser.feed(text.substr(cut)))
      events.push_back(std::move(e));
    expectEvents(events);
  }
}

TEST(SseTest, ByteByByte) {
  SseParser parser;
  std::vector<SseEvent> events;
  for (char c : std::string(stream))
    for (SseEvent &e : parser.feed(std::string(1, c)))
      events.push_back(std::move(e));
  expectEvents(events);
}

TEST(SseTest, CutStreamIsPending) {
  SseParser parser;
  EXPECT_TRUE(parser.feed("data: {\"partial\": ").empty());
  EXPECT_TRUE(parser.pending());
}

TEST(SseTest, LinesAndEventsAreLimited) {
  SseLimits limits;
  limits.maxLine = 100;
  limits.maxEvent = 250;
  // At the limits: fine.
  {
    SseParser parser(limits);
    std::string line = "data: " + std::string(94, 'x') + "\n";
    std::vector<SseEvent> events = parser.feed(line + line + "\n");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data.size(), 2 * 94 + 1);
    EXPECT_TRUE(parser.error().empty());
  }
  // A line one byte longer, whole or still coming (no end yet), fails and
  // nothing more is returned or kept.
  for (llvm::StringRef end : {"\n", ""}) {
    SseParser parser(limits);
    EXPECT_EQ(parser.feed("data: ok\n\n").size(), 1u);
    EXPECT_TRUE(
        parser.feed("data: " + std::string(95, 'x') + end.str()).empty());
    EXPECT_EQ(parser.error(),
              "a line of the event stream is longer than 100 bytes");
    EXPECT_TRUE(parser.feed("data: later\n\n").empty());
    EXPECT_FALSE(parser.pending());
  }
  // Many lines within the limit that add up past the event limit.
  {
    SseParser parser(limits);
    std::string line = "data: " + std::string(90, 'x') + "\n";
    EXPECT_TRUE(parser.feed(line + line + line + "\n").empty());
    EXPECT_EQ(parser.error(),
              "an event of the stream has more than 250 bytes of data");
  }
}

TEST(SseTest, AnEndlessLineStopsAtTheLimitInLinearTime) {
  // A line sent a byte at a time: the search for its end resumes where the
  // last one stopped (rescanning would take minutes here), and the default
  // line limit ends it after 1 MiB.
  SseParser parser;
  parser.feed("data: ");
  size_t fed = 6;
  while (parser.error().empty() && fed < (size_t(4) << 20)) {
    parser.feed("x");
    ++fed;
  }
  EXPECT_EQ(parser.error(),
            "a line of the event stream is longer than 1048576 bytes");
  EXPECT_EQ(fed, (size_t(1) << 20) + 1);
}

} // namespace
