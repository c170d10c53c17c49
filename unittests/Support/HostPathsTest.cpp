//===- HostPathsTest.cpp - This host's folders kept out of what leaves it -===//
//
// Folders are taken off the paths below them, and only where a path starts
// and ends (a longer folder's name, or the same text inside another word,
// stays); the temporary folder's ptxbench files lose their folder; JSON
// strings are replaced inside, the rest of the document kept.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/HostPaths.h"

#include "gtest/gtest.h"

using namespace ptxbench;

namespace {

TEST(HostPathsTest, FoldersBecomeRelative) {
  HostPaths paths;
  paths.addFolder("/data/run/out/m/none/task/s0/turn1");
  paths.addFolder("/data/run", "");
  paths.addFolder("/home/me", "~");
  EXPECT_EQ(paths("'/data/run/out/m/none/task/s0/turn1/solution.cu' does "
                  "not compile"),
            "'solution.cu' does not compile");
  EXPECT_EQ(paths("cannot read /data/run/tasks/t/task.json"),
            "cannot read tasks/t/task.json");
  EXPECT_EQ(paths("in /home/me/.cache/ptxbench"), "in ~/.cache/ptxbench");
  EXPECT_EQ(paths("'/data/run/out/m/none/task/s0/turn1' holds"), "'.' holds");
  // Not a folder of its own: a longer name, or text inside a word.
  EXPECT_EQ(paths("/data/runs/x and x/data/run/y"),
            "/data/runs/x and x/data/run/y");
}

TEST(HostPathsTest, RelativeFormsToo) {
  HostPaths paths;
  paths.addFolder("out/m/none/task/s0");
  EXPECT_EQ(paths("out/m/none/task/s0/response.md: no code block"),
            "response.md: no code block");
  EXPECT_EQ(paths("layout/m/none/task/s0/x"), "layout/m/none/task/s0/x");
}

TEST(HostPathsTest, TemporaryFilesLoseTheirFolder) {
  HostPaths paths = HostPaths::standard();
  EXPECT_EQ(paths("cannot load /tmp/ptxbench-submission-a1b2c3.cubin: bad"),
            "cannot load ptxbench-submission-a1b2c3.cubin: bad");
  EXPECT_EQ(paths("/tmp/other.txt"), "/tmp/other.txt");
}

TEST(HostPathsTest, JSONStrings) {
  HostPaths paths;
  paths.addFolder("/data/run");
  EXPECT_EQ(paths.applyToJSON(
                R"({"message":"cannot read /data/run/a.cu","n":1})"),
            R"({"message":"cannot read a.cu","n":1})");
  // Untouched when it names no folder (not even reformatted).
  EXPECT_EQ(paths.applyToJSON(R"({ "a": 1 })"), R"({ "a": 1 })");
}

} // namespace
