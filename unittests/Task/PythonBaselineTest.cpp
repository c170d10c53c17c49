//===- PythonBaselineTest.cpp - A Python reference's library baseline -----===//
//
// A Python-reference task may name a library baseline whose tensors its
// "operands" name; the loader checks them as a built-in reference's (rank,
// role, dtype, every output named). The task edited here is the shipped
// gemm_fp8_blockscale task, read from its own folder so that its module
// path resolves.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/Task.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

const char *taskFile =
    PTXBENCH_SOURCE_DIR "/tasks/gemm_fp8_blockscale_n7168_k2048/task.json";

/// The shipped task's loader errors after `edit` changed its JSON, "loaded"
/// when it loads; each line without the file name.
std::string errorAfter(llvm::function_ref<void(llvm::json::Object &)> edit) {
  auto buffer = llvm::MemoryBuffer::getFile(taskFile);
  EXPECT_TRUE(!!buffer);
  auto root = llvm::json::parse((*buffer)->getBuffer());
  EXPECT_TRUE(!!root);
  edit(*root->getAsObject());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *root;
  auto task = parseTask(text, taskFile);
  if (task)
    return "loaded";
  std::string message = llvm::toString(task.takeError());
  for (size_t at; (at = message.find(taskFile)) != std::string::npos;)
    message.erase(at, strlen(taskFile) + 2);
  return message;
}

llvm::json::Object &operands(llvm::json::Object &o) {
  return *o.getObject("operands");
}

llvm::json::Object &tensor(llvm::json::Object &o, llvm::StringRef name) {
  for (llvm::json::Value &t : *o.getArray("tensors"))
    if (t.getAsObject()->getString("name") == name)
      return *t.getAsObject();
  ADD_FAILURE() << "no tensor " << name.str();
  return *o.getArray("tensors")->front().getAsObject();
}

TEST(PythonBaselineTest, ShippedTaskNamesItsBaseline) {
  auto t = loadTask(llvm::StringRef(taskFile).drop_back(strlen("/task.json")));
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  EXPECT_EQ(t->reference, "python");
  EXPECT_EQ(t->baseline, "cublaslt_blockscale_gemm");
  EXPECT_EQ(t->operands.lookup("a_scale"), "a_scale");
  EXPECT_EQ(t->operands.lookup("c"), "c");
  EXPECT_TRUE(t->python.has_value());
}

TEST(PythonBaselineTest, NoneTakesNoOperands) {
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) {
              o["baseline"] = "none";
              o.erase("operands");
            }),
            "loaded");
  // Operands without a baseline to name: the reference takes the tensors by
  // name, so they would mean nothing.
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) { o["baseline"] = "none"; }),
            "operands: a Python reference takes the tensors by name; "
            "expected no \"operands\" (they name a library baseline's "
            "tensors, and the task has none)");
}

TEST(PythonBaselineTest, UnknownBaseline) {
  // A built-in reference's baseline is not a Python reference's.
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &o) { o["baseline"] = "cublaslt_gemm"; }),
      "baseline: unknown baseline \"cublaslt_gemm\" for a Python reference; "
      "expected \"none\" or a library baseline of a Python reference "
      "(cublaslt_blockscale_gemm, cudnn_sdpa_paged_decode, cudnn_sdpa_fp8_fwd)");
}

TEST(PythonBaselineTest, OperandsChecked) {
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) { o.erase("operands"); }),
            "operands: missing; expected an object naming the "
            "cublaslt_blockscale_gemm baseline's tensors (a, a_scale, b, "
            "b_scale, c)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) {
              operands(o).erase("b_scale");
            }),
            "operands.b_scale: missing; expected the name of the input tensor "
            "of rank 2 for \"b_scale\"");
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) {
              operands(o)["bias"] = "c";
            }).substr(0, 26),
            "operands.bias: unknown key");
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) {
              operands(o)["a"] = "x";
            }),
            "operands.a: unknown tensor \"x\"; expected one of a, a_scale, b, "
            "b_scale, c");
}

TEST(PythonBaselineTest, OperandsMustFitTheLibrary) {
  // Swapped scales: a_scale is [M, K/128], b_scale [N/128, K/128], both
  // rank 2 f32, so only the shapes at run time could tell; swapped data and
  // scale are caught here by dtype.
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) {
              operands(o)["a"] = "a_scale";
              operands(o)["a_scale"] = "a";
            }),
            "operands.a: the cublaslt_blockscale_gemm baseline wants e4m3 for "
            "\"a\", tensor \"a_scale\" is f32\n"
            "operands.a_scale: the cublaslt_blockscale_gemm baseline wants f32 "
            "for \"a_scale\", tensor \"a\" is e4m3");
  // The output as an input: wrong role.
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) { operands(o)["b"] = "c"; }),
            "operands.b: tensor \"c\" has the wrong role (output); expected an "
            "input\n"
            "operands.b: the cublaslt_blockscale_gemm baseline wants e4m3 for "
            "\"b\", tensor \"c\" is bf16");
  // A f16 output is not what cuBLASLt writes here.
  EXPECT_NE(errorAfter([](llvm::json::Object &o) {
              tensor(o, "c")["dtype"] = "f16";
            }).find("operands.c: the cublaslt_blockscale_gemm baseline wants "
                    "bf16 for \"c\", tensor \"c\" is f16"),
            std::string::npos);
  // A second output the baseline does not compute could not be checked.
  EXPECT_EQ(errorAfter([](llvm::json::Object &o) {
              o.getArray("tensors")->push_back(llvm::json::Object{
                  {"name", "d"},
                  {"dtype", "bf16"},
                  {"shape", llvm::json::Array{"M", "N"}},
                  {"role", "output"}});
            }),
            "operands: output \"d\" is not one of the cublaslt_blockscale_gemm "
            "baseline's outputs, so it could not be checked");
}

} // namespace

TEST(PythonBaselineTest, Fp8AttentionTaskNamesItsOperandsAndMask) {
  // cudnn_sdpa_fp8_fwd takes the causal option besides its tensors.
  auto t = loadTask(PTXBENCH_SOURCE_DIR "/tasks/mha_fwd_fp8_h32_d128_causal");
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  EXPECT_EQ(t->baseline, "cudnn_sdpa_fp8_fwd");
  EXPECT_EQ(t->causalParam, "CAUSAL");
  EXPECT_EQ(t->operands.at("v_scale"), "v_scale");
  EXPECT_EQ(t->operands.at("lse"), "LSE");
}
