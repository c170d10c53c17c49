//===- PythonReferenceTaskTest.cpp - Loading tasks with a Python reference ===//
//
// Every problem the loader reports for a `"reference": "python"` task, on a
// real folder of tasks in a temporary directory (the module's place, size
// and kind are checked on disk): each message names the JSON place of the
// value and says what was expected.
//
//===----------------------------------------------------------------------===//

#include "EditJSON.h"

#include "ptxbench/Task/Task.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

const char *pythonTask = R"json({
  "name": "scale_rows",
  "family": "scale",
  "params": ["M", "N"],
  "tensors": [
    {"name": "x", "dtype": "bf16", "shape": ["M", "N"], "role": "input"},
    {"name": "idx", "dtype": "i32", "shape": ["M"], "role": "input",
     "init": {"dist": "permutation"}},
    {"name": "y", "dtype": "f32", "shape": ["M", "N"], "role": "output"}
  ],
  "workloads": {"dev": [{"M": 4, "N": 8}], "heldout": [{"M": 8, "N": 8}]},
  "check": {"tolerance": {"f32": {"atol": 0.01, "rtol": 0.01}}},
  "flops": "M*N",
  "bytes": "6*M*N",
  "reference": "python",
  "python": {"module": "../scale/reference.py", "entry": "run",
             "precision": "f64", "constants": {"alpha": 0.5}}
})json";

/// A folder of tasks: `root/scale/reference.py` (the family's module) and
/// `root/scale_rows/task.json`, removed at the end of the test.
class PythonTaskTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxbench-pytask", root));
    // Symlinks are resolved below: the temporary folder may be one.
    llvm::SmallString<256> real;
    ASSERT_FALSE(llvm::sys::fs::real_path(root, real));
    root = real;
    ASSERT_FALSE(llvm::sys::fs::create_directories(in("scale")));
    ASSERT_FALSE(llvm::sys::fs::create_directories(in("scale_rows")));
    write(in("scale/reference.py"),
          "def run(x, idx, alpha):\n    return x[idx.long()] * alpha\n");
  }
  void TearDown() override {
    llvm::sys::fs::remove_directories(root, /*IgnoreErrors=*/true);
  }

  std::string in(llvm::StringRef relative) const {
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, relative);
    return path.str().str();
  }
  static void write(llvm::StringRef path, llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec) << path.str();
    os << text;
  }

  /// The loader's verdict on pythonTask with the value at `path` replaced
  /// by `value` (null: removed): "loaded", or its errors with the task
  /// file's name shortened to "task.json".
  std::string load(std::vector<std::string> path, llvm::json::Value value) {
    auto root = llvm::json::parse(pythonTask);
    EXPECT_TRUE(!!root);
    ptxbench::testing::setAtPath(*root, path, std::move(value));
    std::string text;
    llvm::raw_string_ostream os(text);
    os << *root;
    std::string file = in("scale_rows/task.json");
    write(file, text);
    llvm::Expected<Task> task = loadTask(in("scale_rows"));
    if (task) {
      loaded = std::move(*task);
      return "loaded";
    }
    std::string message = llvm::toString(task.takeError());
    for (size_t at; (at = message.find(file)) != std::string::npos;)
      message.replace(at, file.size(), "task.json");
    return message;
  }
  std::string load() { return load({}, nullptr); }

  llvm::SmallString<256> root;
  std::optional<Task> loaded;
};

TEST_F(PythonTaskTest, Loads) {
  ASSERT_EQ(load(), "loaded");
  ASSERT_TRUE(loaded->python.has_value());
  EXPECT_EQ(loaded->reference, "python");
  EXPECT_EQ(loaded->baseline, "none");
  EXPECT_EQ(loaded->python->module, in("scale/reference.py"));
  EXPECT_EQ(loaded->python->entry, "run");
  EXPECT_TRUE(loaded->python->f64);
  EXPECT_EQ(loaded->python->constants.at("alpha").getAsNumber(), 0.5);
  // Beside task.json, the default entry, fp32.
  write(in("scale_rows/ref.py"), "def run(x): return x\n");
  EXPECT_EQ(load({"python"}, llvm::json::Object{{"module", "ref.py"},
                                                {"precision", "f32"}}),
            "loaded");
  EXPECT_EQ(loaded->python->module, in("scale_rows/ref.py"));
  EXPECT_EQ(loaded->python->entry, "run");
  EXPECT_FALSE(loaded->python->f64);
  // "baseline": "none" may be said.
  EXPECT_EQ(load({"baseline"}, "none"), "loaded");
}

TEST_F(PythonTaskTest, ThePythonObject) {
  EXPECT_EQ(load({"python"}, nullptr),
            "task.json: python: missing; expected an object such as "
            "{\"module\": \"reference.py\", \"entry\": \"run\"}");
  EXPECT_EQ(load({"python"}, "reference.py"),
            "task.json: python: expected an object such as {\"module\": "
            "\"reference.py\", \"entry\": \"run\"}, got a string");
  EXPECT_EQ(load({"python", "function"}, "run"),
            "task.json: python.function: unknown key; expected one of module, "
            "entry, precision, constants");
  EXPECT_EQ(load({"python", "module"}, nullptr),
            "task.json: python.module: missing; expected the file name of the "
            "reference module, beside task.json");
  EXPECT_EQ(load({"python", "module"}, 7),
            "task.json: python.module: expected the file name of the "
            "reference module, beside task.json, got a number");
}

TEST_F(PythonTaskTest, WhereTheModuleMayBe) {
  std::string outside =
      ": expected a file beside task.json or in another folder of the tasks "
      "folder (\"../family/reference.py\"), got ";
  EXPECT_EQ(load({"python", "module"}, ""),
            "task.json: python.module" + outside + "\"\"");
  EXPECT_EQ(load({"python", "module"}, in("scale/reference.py")),
            "task.json: python.module" + outside + "\"" +
                in("scale/reference.py") + "\"");
  // Climbing out of the tasks folder, directly or after going down.
  write(in("../outside.py"), "def run(x): return x\n");
  llvm::scope_exit removeOutside(
      [&] { llvm::sys::fs::remove(in("../outside.py")); });
  EXPECT_EQ(load({"python", "module"}, "../../outside.py"),
            "task.json: python.module" + outside + "\"../../outside.py\"");
  EXPECT_EQ(load({"python", "module"}, "../scale/../../outside.py"),
            "task.json: python.module" + outside +
                "\"../scale/../../outside.py\"");
  // Inside, but not a readable regular file.
  EXPECT_EQ(load({"python", "module"}, "../scale/missing.py"),
            "task.json: python.module: cannot read \"" +
                in("scale/missing.py") + "\"; expected the reference module");
  EXPECT_EQ(load({"python", "module"}, "../scale"),
            "task.json: python.module: cannot read \"" + in("scale") +
                "\"; expected the reference module");
}

TEST_F(PythonTaskTest, ModuleSize) {
  // One byte over 1 MiB (sparse: nothing is written but the last byte).
  std::string big = in("scale/big.py");
  write(big, "");
  {
    int fd;
    ASSERT_FALSE(llvm::sys::fs::openFileForWrite(big, fd));
    ASSERT_FALSE(llvm::sys::fs::resize_file(fd, (1 << 20) + 1));
    ::close(fd);
  }
  EXPECT_EQ(load({"python", "module"}, "../scale/big.py"),
            "task.json: python.module: \"../scale/big.py\" is 1048577 bytes; "
            "a reference module holds at most 1 MiB");
  // Exactly 1 MiB is allowed.
  {
    int fd;
    ASSERT_FALSE(llvm::sys::fs::openFileForWrite(big, fd));
    ASSERT_FALSE(llvm::sys::fs::resize_file(fd, 1 << 20));
    ::close(fd);
  }
  EXPECT_EQ(load({"python", "module"}, "../scale/big.py"), "loaded");
}

TEST_F(PythonTaskTest, EntryPrecisionConstants) {
  EXPECT_EQ(load({"python", "entry"}, "2run"),
            "task.json: python.entry: \"2run\" is not a Python name; expected "
            "the function's name, such as \"run\"");
  EXPECT_EQ(load({"python", "entry"}, "mod.run"),
            "task.json: python.entry: \"mod.run\" is not a Python name; "
            "expected the function's name, such as \"run\"");
  EXPECT_EQ(load({"python", "entry"}, ""),
            "task.json: python.entry: \"\" is not a Python name; expected "
            "the function's name, such as \"run\"");
  EXPECT_EQ(load({"python", "entry"}, true),
            "task.json: python.entry: expected the name of the module's "
            "function, got a boolean");
  EXPECT_EQ(load({"python", "precision"}, "bf16"),
            "task.json: python.precision: expected \"f64\" or \"f32\", got "
            "\"bf16\"");
  EXPECT_EQ(load({"python", "constants"}, llvm::json::Array{0.5}),
            "task.json: python.constants: expected an object of named numbers "
            "or booleans, such as {\"sm_scale\": 0.125}, got an array");
  EXPECT_EQ(load({"python", "constants", "alpha"}, "0.5"),
            "task.json: python.constants.alpha: expected a number or a "
            "boolean, got a string");
  EXPECT_EQ(load({"python", "constants", "alpha"}, llvm::json::Array{}),
            "task.json: python.constants.alpha: expected a number or a "
            "boolean, got an array");
  EXPECT_EQ(load({"python", "constants", "alpha"}, true), "loaded");
  EXPECT_EQ(load({"python", "constants", "sm-scale"}, 1),
            "task.json: python.constants.sm-scale: \"sm-scale\" is not a "
            "Python name; expected one");
  EXPECT_EQ(load({"python", "constants", "x"}, 1),
            "task.json: python.constants.x: \"x\" is also a tensor or "
            "parameter; expected a name of its own");
  EXPECT_EQ(load({"python", "constants", "N"}, 1),
            "task.json: python.constants.N: \"N\" is also a tensor or "
            "parameter; expected a name of its own");
}

TEST_F(PythonTaskTest, WhatOnlyOneKindOfReferenceHas) {
  EXPECT_EQ(load({"baseline"}, "cublaslt_gemm"),
            "task.json: baseline: unknown baseline \"cublaslt_gemm\" for a "
            "Python reference; expected \"none\" or a library baseline of a "
            "Python reference (cublaslt_blockscale_gemm, "
            "cudnn_sdpa_paged_decode, cudnn_sdpa_fp8_fwd)");
  EXPECT_EQ(load({"baseline"}, 1),
            "task.json: baseline: expected a string: \"none\" or a library "
            "baseline of a Python reference (cublaslt_blockscale_gemm, "
            "cudnn_sdpa_paged_decode, cudnn_sdpa_fp8_fwd), got a number");
  EXPECT_EQ(load({"operands"}, llvm::json::Object{{"x", "x"}}),
            "task.json: operands: a Python reference takes the tensors by "
            "name; expected no \"operands\" (they name a library baseline's "
            "tensors, and the task has none)");
  EXPECT_EQ(
      load({"tensors", "0", "init"}, llvm::json::Object{{"dist", "derived"}}),
      "task.json: reference: input \"x\" is \"derived\", which only a "
      "built-in reference computes; expected a drawn distribution");
  // A built-in reference has no "python" object.
  std::string text = load({"reference"}, "rmsnorm");
  EXPECT_NE(text.find("task.json: python: only a Python reference "
                      "(\"reference\": \"python\") has a \"python\" object"),
            std::string::npos)
      << text;
}

TEST_F(PythonTaskTest, SymbolicLinksOut) {
  // A file outside the tasks folder, reached through a link beside
  // task.json and through a linked folder inside the tasks folder: the
  // harness would copy it into the child's folder and show its lines in
  // tracebacks.
  llvm::SmallString<256> away;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxbench-away", away));
  llvm::scope_exit removeAway(
      [&] { llvm::sys::fs::remove_directories(away, true); });
  llvm::SmallString<256> realAway;
  ASSERT_FALSE(llvm::sys::fs::real_path(away, realAway));
  std::string secret = (realAway + "/secret.py").str();
  write(secret, "token = 1\n");
  ASSERT_FALSE(llvm::sys::fs::create_link(secret, in("scale_rows/ref.py")));
  EXPECT_EQ(load({"python", "module"}, "ref.py"),
            "task.json: python.module: \"ref.py\" is a symbolic link to \"" +
                secret + "\", outside the tasks folder; expected a file in it");
  ASSERT_FALSE(llvm::sys::fs::create_link(realAway, in("linked")));
  EXPECT_EQ(load({"python", "module"}, "../linked/secret.py"),
            "task.json: python.module: \"../linked/secret.py\" is a symbolic "
            "link to \"" +
                secret + "\", outside the tasks folder; expected a file in it");
  // A link that stays inside is followed, and the real file is read.
  ASSERT_FALSE(llvm::sys::fs::create_link(in("scale/reference.py"),
                                          in("scale_rows/inside.py")));
  EXPECT_EQ(load({"python", "module"}, "inside.py"), "loaded");
  EXPECT_EQ(loaded->python->module, in("scale/reference.py"));
}

TEST_F(PythonTaskTest, ControlCharactersInTheModuleName) {
  // The checked name would not be the opened one: a C path ends at NUL.
  EXPECT_EQ(load({"python", "module"},
                 std::string("../scale/reference.py\0.txt", 26)),
            "task.json: python.module: the file name has a control "
            "character; expected a file beside task.json or in another "
            "folder of the tasks folder");
  EXPECT_EQ(load({"python", "module"}, "ref\n.py"),
            "task.json: python.module: the file name has a control "
            "character; expected a file beside task.json or in another "
            "folder of the tasks folder");
}

TEST_F(PythonTaskTest, KeywordsAreNoNames) {
  // Python names by their characters, but no function or parameter can
  // have them.
  EXPECT_EQ(load({"python", "entry"}, "class"),
            "task.json: python.entry: \"class\" is a Python keyword, not a "
            "name; expected the function's name, such as \"run\"");
  EXPECT_EQ(load({"python", "entry"}, "None"),
            "task.json: python.entry: \"None\" is a Python keyword, not a "
            "name; expected the function's name, such as \"run\"");
  EXPECT_EQ(load({"python", "constants", "lambda"}, 1),
            "task.json: python.constants.lambda: \"lambda\" is a Python "
            "keyword, not a name; expected one");
  // Soft keywords are names.
  EXPECT_EQ(load({"python", "entry"}, "match"), "loaded");
  EXPECT_EQ(load({"python", "constants", "type"}, 1), "loaded");
}

TEST_F(PythonTaskTest, InputsMustBeParameterNames) {
  // An input the entry cannot take by name would be silently unused.
  EXPECT_EQ(load({"tensors", "0", "name"}, "x-in"),
            "task.json: tensors[0].name: \"x-in\" is not a Python name, so "
            "the Python reference cannot take it as a parameter; expected a "
            "name such as \"k_cache\"");
  EXPECT_EQ(load({"tensors", "1", "name"}, "in"),
            "task.json: tensors[1].name: \"in\" is a Python keyword, not a "
            "name, so the Python reference cannot take it as a parameter; "
            "expected a name such as \"k_cache\"");
  // Outputs are returned, not bound: any name will do.
  EXPECT_EQ(load({"tensors", "2", "name"}, "y-out"), "loaded");
}

} // namespace
