//===- RedactTest.cpp - Keys kept out of everything written ---------------===//
//
// Every form of a key a server or a model may echo: the exact key, a run of
// 12 of its characters (its prefix, its middle), another case, its base64 at
// each alignment and in both alphabets, its percent-encoding; and what must
// stay: text that shares fewer than 12 characters with it.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Redact.h"

#include "llvm/Support/Base64.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>

using namespace ptxbench::client;

namespace {

const char *key = "sk-proj-Q7fT2mZ9wLx4Rv8KpB3nYc6H";

std::string base64(llvm::StringRef bytes, bool url = false) {
  std::string out = llvm::encodeBase64(bytes);
  if (url)
    std::replace(out.begin(), out.end(), '+', '-'),
        std::replace(out.begin(), out.end(), '/', '_');
  return out;
}

bool leaks(const std::string &text) {
  return text.find("Q7fT2mZ9") != std::string::npos ||
         text.find("q7ft2mz9") != std::string::npos;
}

TEST(RedactTest, ExactPartsAndCase) {
  Redactor r;
  r.add(key);
  EXPECT_EQ(r(std::string("key: ") + key + "."), "key: [redacted].");
  // A prefix and a middle run of 12, in upper and lower case.
  EXPECT_EQ(r("got sk-proj-Q7fT then"), "got [redacted] then");
  EXPECT_EQ(r("x 2MZ9WLX4RV8K y"), "x [redacted] y");
  EXPECT_EQ(r("lower: sk-proj-q7ft2mz9wlx4rv8kpb3nyc6h"), "lower: [redacted]");
  // Eleven characters are not enough; nor are other texts.
  EXPECT_EQ(r("sk-proj-Q7f"), "sk-proj-Q7f");
  EXPECT_EQ(r("__global__ void kernel(float *x) {}"),
            "__global__ void kernel(float *x) {}");
}

TEST(RedactTest, EncodedForms) {
  Redactor r;
  r.add(key);
  // Inside a longer base64 text at every alignment, both alphabets: the
  // header a server might echo, encoded.
  for (const char *before : {"", "a", "ab"})
    for (bool url : {false, true}) {
      std::string header = std::string(before) + "Bearer " + key + "\r\n";
      std::string encoded = base64(header, url);
      std::string out = r("echo: " + encoded);
      ASSERT_NE(out.find("[redacted]"), std::string::npos)
          << before << " " << url << ": " << encoded;
      // All but the few characters it shares with its neighbours are gone.
      size_t kept = out.size() - strlen("echo: ") - strlen("[redacted]");
      EXPECT_LE(kept, encoded.size() - (strlen(key) * 4 / 3 - 3)) << out;
    }
  Redactor plus;
  plus.add("key+with/slash=and more chars");
  EXPECT_EQ(plus("q=key%2Bwith%2Fslash%3Dand%20more%20chars&x=1"),
            "q=[redacted]&x=1");
  EXPECT_EQ(plus("q=key%2bwith%2fslash%3dand%20more"), "q=[redacted]");
}

TEST(RedactTest, ShortKeysWholeJSONAndNothingToDo) {
  Redactor r;
  r.add("abc"); // too short: ignored
  r.add("short-key");
  EXPECT_EQ(r("abc SHORT-KEY"), "abc [redacted]");
  EXPECT_EQ(r("short-ke"), "short-ke");

  Redactor k;
  k.add(key);
  llvm::json::Value v = llvm::json::Object{
      {"error", std::string("invalid key ") + key},
      {"list", llvm::json::Array{std::string(key).substr(3, 14)}},
      {std::string(key), 1}};
  k.apply(v);
  std::string text = llvm::formatv("{0}", v).str();
  EXPECT_FALSE(leaks(text)) << text;
  EXPECT_NE(text.find("invalid key [redacted]"), std::string::npos);
  EXPECT_TRUE(bool(llvm::json::parse(text)));

  Redactor none;
  EXPECT_EQ(none(key), key);
}

} // namespace
