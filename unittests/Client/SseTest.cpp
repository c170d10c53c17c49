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

} // namespace
