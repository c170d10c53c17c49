//===- TempFileTest.cpp - Temporary files and folders --------------------===//
//
// A temporary file or folder exists exactly as long as its owner: created
// with its text, handed over by a move (the moved-from one owns nothing),
// removed when the last owner goes, a folder with what it holds; a folder
// made inside a given one.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/TempFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace ptxbench::support;
namespace fs = llvm::sys::fs;

namespace {

TEST(TempFileTest, HoldsItsTextAndGoesWithItsOwner) {
  std::string path;
  {
    auto file = TempFile::write("test", "ptx", "// some PTX\n");
    ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
    path = file->path();
    EXPECT_NE(path.find("ptxbench-test"), std::string::npos);
    EXPECT_EQ(llvm::StringRef(path).take_back(4), ".ptx");
    auto text = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(bool(text));
    EXPECT_EQ((*text)->getBuffer(), "// some PTX\n");
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(TempFileTest, AMoveHandsTheFileOver) {
  auto made = TempFile::create("test", "cubin");
  ASSERT_TRUE(bool(made));
  std::string path = made->path();
  TempFile kept;
  EXPECT_FALSE(bool(kept));
  kept = std::move(*made);
  EXPECT_TRUE(made->path().empty());
  EXPECT_EQ(kept.path(), path);
  { TempFile gone = std::move(*made); } // owns nothing: removes nothing
  EXPECT_TRUE(fs::exists(path));
  // Assigning over a file removes the one it held.
  auto other = TempFile::create("test", "cubin");
  ASSERT_TRUE(bool(other));
  std::string otherPath = other->path();
  kept = std::move(*other);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::exists(otherPath));
}

TEST(TempFileTest, AFolderGoesWithWhatItHolds) {
  std::string path;
  {
    auto folder = TempFolder::create("test");
    ASSERT_TRUE(bool(folder)) << llvm::toString(folder.takeError());
    path = folder->path();
    std::error_code ec;
    llvm::raw_fd_ostream os(path + "/inside.txt", ec);
    ASSERT_FALSE(ec);
    os << "x";
    os.close();
    ASSERT_TRUE(fs::exists(path + "/inside.txt"));
    TempFolder moved = std::move(*folder);
    EXPECT_TRUE(folder->path().empty());
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(TempFileTest, AFolderInsideAnother) {
  auto parent = TempFolder::create("test");
  ASSERT_TRUE(bool(parent));
  auto child = TempFolder::create("inner", parent->path());
  ASSERT_TRUE(bool(child)) << llvm::toString(child.takeError());
  EXPECT_EQ(llvm::StringRef(child->path()).rsplit('/').first, parent->path());
  EXPECT_NE(child->path().find("/ptxbench-inner-"), std::string::npos);
  EXPECT_TRUE(fs::is_directory(child->path()));
  // A parent that does not exist is an error, not a folder elsewhere.
  auto orphan = TempFolder::create("inner", parent->path() + "/missing");
  EXPECT_FALSE(bool(orphan));
  llvm::consumeError(orphan.takeError());
}

} // namespace
