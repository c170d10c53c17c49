//===- TaskTest.cpp - Tests of the task loader ----------------------------===//

#include "EditJSON.h"

#include "ptxbench/Task/Task.h"

#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"

using namespace ptxbench::runtime;

namespace {

const char *goodTask = R"json({
  "name": "gemm_bf16",
  "description": "C = A @ B",
  "params": ["M", "N", "K"],
  "tensors": [
    {"name": "A", "dtype": "bf16", "shape": ["M", "K"], "role": "input",
     "init": {"dist": "normal", "std": 1}},
    {"name": "B", "dtype": "bf16", "shape": ["K", "N"], "role": "input",
     "init": {"dist": "spiky", "spike_prob": 0.001, "spike_scale": 50}},
    {"name": "C", "dtype": "bf16", "shape": ["M", "N"], "role": "output"}
  ],
  "workloads": {
    "dev": [{"M": 256, "N": 512, "K": 128}, {"name": "square", "M": 1024, "N": 1024, "K": 1024}],
    "heldout": [{"M": 1000, "N": 1000, "K": 1000}]
  },
  "check": {"tolerance": {"bf16": {"atol": 0.01, "rtol": 0.02}}, "rel_l2": 0.005, "trials": 2},
  "flops": "2*M*N*K",
  "bytes": "2*(M*K + K*N + M*N)",
  "reference": "gemm",
  "baseline": "cublaslt_gemm",
  "operands": {"a": "A", "b": "B", "c": "C"},
  "features": {"sm_90a": ["wgmma", "tma", "mbarrier_tx"]},
  "encouraged": {"sm_90a": ["setmaxnreg"]},
  "timing": {"warmup": 2, "min_samples": 5, "max_samples": 50, "max_seconds": 1, "target_rse": 0.01}
})json";

/// The error of loading goodTask with `path` (a JSON pointer-ish list of
/// keys) replaced by `value`.
std::string errorWith(std::vector<std::string> path, llvm::json::Value value) {
  auto root = llvm::json::parse(goodTask);
  EXPECT_TRUE(!!root);
  ptxbench::testing::setAtPath(*root, path, std::move(value));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *root;
  auto task = parseTask(text, "task.json");
  if (task)
    return "loaded";
  return llvm::toString(task.takeError());
}

TEST(TaskTest, LoadsEverything) {
  auto t = parseTask(goodTask, "task.json");
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  EXPECT_EQ(t->name, "gemm_bf16");
  EXPECT_EQ(t->params, (std::vector<std::string>{"M", "N", "K"}));
  ASSERT_EQ(t->tensors.size(), 3u);
  EXPECT_EQ(t->tensors[1].dist.kind, Distribution::Kind::Spiky);
  EXPECT_EQ(t->tensors[1].dist.spikeScale, 50);
  EXPECT_EQ(t->tensors[2].role, Role::Output);
  ASSERT_EQ(t->dev.size(), 2u);
  EXPECT_EQ(t->dev[0].name, "dev M=256 N=512 K=128");
  EXPECT_EQ(t->dev[1].name, "square");
  EXPECT_EQ(t->heldout[0].params.lookup("K"), 1000);
  EXPECT_EQ(t->tolerances.at(DType::BF16).rtol, 0.02);
  EXPECT_EQ(*t->relL2, 0.005);
  EXPECT_EQ(t->trials, 2u);
  EXPECT_EQ(*t->flops.evaluate(t->dev[0].params), 2 * 256 * 512 * 128);
  EXPECT_EQ(t->baseline, "cublaslt_gemm");
  EXPECT_EQ(t->operands.lookup("b"), "B");
  EXPECT_EQ(t->features.at("sm_90a").size(), 3u);
  EXPECT_EQ(t->encouraged.at("sm_90a"),
            (std::vector<std::string>{"setmaxnreg"}));
  EXPECT_FALSE(t->bTransposed);
  EXPECT_EQ(t->timing.minSamples, 5u);
  // Defaults: 90% of the FLOPs, half the loaded bytes; no accumulator
  // requirement.
  EXPECT_EQ(t->creditFlops, 0.9);
  EXPECT_EQ(t->creditBytes, 0.5);
  EXPECT_EQ(t->accumulate, "");
  auto shape = t->shapeOf(1, t->dev[0].params);
  ASSERT_TRUE(!!shape);
  EXPECT_EQ(*shape, (std::vector<int64_t>{128, 512}));
  auto all = selectWorkloads(*t, "all");
  ASSERT_TRUE(!!all);
  EXPECT_EQ(all->size(), 3u);
  auto one = selectWorkloads(*t, "square");
  ASSERT_TRUE(!!one);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].params.lookup("M"), 1024);
  auto bad = selectWorkloads(*t, "some");
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "unknown shape selection 'some' (expected dev, heldout, all or one "
            "of " +
                t->name +
                "'s workloads, 'dev M=256 N=512 K=128', 'square', "
                "'heldout M=1000 N=1000 K=1000')");
}

TEST(TaskTest, SyntaxError) {
  auto t = parseTask("{\n  \"name\": \"x\",\n  oops\n}", "task.json");
  ASSERT_FALSE(!!t);
  EXPECT_EQ(llvm::toString(t.takeError()),
            "task.json:3:3: Expected object key");
}

TEST(TaskTest, Errors) {
  // Each message names the JSON path of the value and says what is expected.
  EXPECT_EQ(errorWith({"name"}, nullptr),
            "task.json: name: missing; expected a string (the task's name, "
            "usually its folder's)");
  EXPECT_EQ(errorWith({"extra"}, 1),
            "task.json: extra: unknown key; expected one of $schema, name, "
            "description, params, tensors, workloads, check, flops, bytes, "
            "reference, baseline, operands, python, family, heldout_variant, "
            "features, encouraged, timing, credit, accumulate");
  EXPECT_EQ(errorWith({"$schema"}, "../task.schema.json"), "loaded");
  // The work-credit thresholds and the accumulator requirement.
  EXPECT_EQ(errorWith({"credit"},
                      llvm::json::Object{{"flops", 0.95}, {"bytes", 0.25}}),
            "loaded");
  EXPECT_EQ(errorWith({"credit"}, llvm::json::Object{{"flops", 1.5}}),
            "task.json: credit.flops: expected a number from 0 to 1, got 1.5");
  EXPECT_EQ(errorWith({"credit"}, llvm::json::Object{{"ops", 0.5}}),
            "task.json: credit.ops: unknown key; expected one of flops, bytes");
  EXPECT_EQ(errorWith({"accumulate"}, "f32"), "loaded");
  EXPECT_EQ(errorWith({"accumulate"}, "f16"),
            "task.json: accumulate: expected \"f32\" or \"any\", got \"f16\"");
  std::string families =
      "expected one of async_proxy_fence, atomic, barrier, bulk_copy, "
      "bulk_reduce, cluster_barrier, clc, compare, control, convert, "
      "cp_async, dsmem, elect, float_arith, griddepcontrol, int_arith, "
      "ldmatrix, load, mbarrier, mbarrier_tx, memory_order, misc, mma_sync, "
      "multimem, red_async, setmaxnreg, stmatrix, store, tcgen05, tensormap, "
      "texture, tma, tmem, video, warp, wgmma, wmma, or alternatives joined "
      "by '|'";
  EXPECT_EQ(errorWith({"features", "sm_90a"},
                      llvm::json::Array{"wgmma", "mbarrier-tx"}),
            "task.json: features.sm_90a[1]: unknown feature family "
            "\"mbarrier-tx\"; " +
                families);
  EXPECT_EQ(errorWith({"features", "sm90a"}, llvm::json::Array{"wgmma"}),
            "task.json: features.sm90a: unknown architecture; expected "
            "sm_<number> with an optional 'a' or 'f' suffix, such as sm_90a");
  EXPECT_EQ(errorWith({"params"}, llvm::json::Array{}),
            "task.json: params: expected a non-empty array of parameter names "
            "such as [\"M\", \"N\", \"K\"], got an empty array");
  EXPECT_EQ(errorWith({"params", "2"}, "M"),
            "task.json: params[2]: duplicate \"M\"; expected unique names");
  EXPECT_EQ(errorWith({"params", "2"}, "2K"),
            "task.json: params[2]: \"2K\" is not a name; expected letters, "
            "digits and '_', not starting with a digit");
  EXPECT_EQ(errorWith({"tensors", "1", "dtype"}, "bf17"),
            "task.json: tensors[1].dtype: expected \"bf16\", \"f16\", \"f32\", "
            "\"i32\" or \"e4m3\", got \"bf17\"");
  EXPECT_EQ(errorWith({"tensors", "1", "dtype"}, 16),
            "task.json: tensors[1].dtype: expected \"bf16\", \"f16\", \"f32\", "
            "\"i32\" or \"e4m3\", got a number");
  EXPECT_EQ(errorWith({"tensors", "1", "name"}, "A"),
            "task.json: tensors[1].name: \"A\" names two tensors; expected "
            "unique names");
  EXPECT_EQ(errorWith({"tensors", "1", "shape"}, llvm::json::Array{"K", "Q"}),
            "task.json: tensors[1].shape[1]: unknown parameter \"Q\"; expected "
            "one of the params (M, N, K)");
  EXPECT_EQ(errorWith({"tensors", "1", "shape"}, llvm::json::Array{"K", "N+"}),
            "task.json: tensors[1].shape[1]: cannot parse \"N+\" (expression "
            "ends early); expected an integer expression of integers, "
            "parameters, + - * / %, parentheses, ceildiv, min, max");
  EXPECT_EQ(errorWith({"tensors", "1", "role"}, "inout"),
            "task.json: tensors[1].role: expected \"input\" or \"output\", "
            "got \"inout\"");
  EXPECT_EQ(errorWith({"tensors", "0", "init", "dist"}, "cauchy"),
            "task.json: tensors[0].init.dist: expected \"normal\", \"uniform\", "
            "\"ints\", \"spiky\", \"derived\" or \"permutation\", got "
            "\"cauchy\"");
  EXPECT_EQ(errorWith({"tensors", "0", "init", "std"}, -1),
            "task.json: tensors[0].init.std: expected a number >= 0, got -1");
  EXPECT_EQ(errorWith({"tensors", "0", "init", "low"}, 2),
            "task.json: tensors[0].init.low: expected low <= high, got low 2 "
            "> high 1");
  // An input where the reference wants an output: both facts.
  EXPECT_EQ(errorWith({"tensors", "2", "role"}, "input"),
            "task.json: tensors: no tensor has role \"output\"; expected at "
            "least one (the outputs are what is checked)\n"
            "task.json: operands.c: tensor \"C\" has the wrong role (input); "
            "expected an output");
  EXPECT_EQ(errorWith({"workloads", "dev", "0", "Q"}, 4),
            "task.json: workloads.dev[0].Q: unknown parameter; expected "
            "\"name\" or one of the params (M, N, K)");
  EXPECT_EQ(errorWith({"workloads", "dev", "0", "M"}, 0),
            "task.json: workloads.dev[0]: dimension 'M' is 0 (in A, C); "
            "expected every dimension to be at least 1");
  EXPECT_EQ(errorWith({"workloads", "dev", "0", "M"}, -1),
            "task.json: workloads.dev[0].M: expected a non-negative integer, "
            "got -1");
  EXPECT_EQ(errorWith({"workloads", "heldout", "0", "K"}, nullptr),
            "task.json: workloads.heldout[0].K: missing; expected a "
            "non-negative integer (every workload binds every parameter)");
  EXPECT_EQ(errorWith({"workloads", "heldout"}, nullptr),
            "task.json: workloads.heldout: missing; expected a non-empty array "
            "of workloads ({\"name\": ..., and a value per parameter})");
  EXPECT_EQ(errorWith({"workloads", "heldout", "0", "name"}, "square"),
            "task.json: workloads.heldout[0].name: workload name \"square\" is "
            "also workloads.dev[1]'s; expected unique names (--shapes NAME "
            "picks one)");
  EXPECT_EQ(errorWith({"check", "tolerance", "bf16", "atol"}, nullptr),
            "task.json: check.tolerance.bf16.atol: missing; expected a number "
            ">= 0");
  EXPECT_EQ(
      errorWith({"check", "tolerance"},
                llvm::json::Object{
                    {"f32", llvm::json::Object{{"atol", 1}, {"rtol", 1}}}}),
      "task.json: check.tolerance: no tolerance for output \"C\" of "
      "dtype bf16; expected one per output dtype");
  EXPECT_EQ(errorWith({"check", "rel_l2"}, 0),
            "task.json: check.rel_l2: expected a positive number, got 0");
  EXPECT_EQ(errorWith({"check", "trials"}, 1.5),
            "task.json: check.trials: expected an integer from 1 to 100, got "
            "1.5");
  EXPECT_EQ(errorWith({"check"}, llvm::json::Object{}),
            "task.json: check: names no check; expected \"tolerance\" and/or "
            "\"rel_l2\"");
  EXPECT_EQ(errorWith({"flops"}, "2*M*N*L"),
            "task.json: flops: unknown parameter \"L\" in \"2*M*N*L\"; "
            "expected one of the params (M, N, K)");
  EXPECT_EQ(errorWith({"reference"}, "conv"),
            "task.json: reference: unknown built-in reference \"conv\"; "
            "expected one of gemm, rmsnorm, attention_fwd, attention_bwd, "
            "python");
  EXPECT_EQ(errorWith({"baseline"}, "cudnn"),
            "task.json: baseline: unknown baseline \"cudnn\" for the gemm "
            "reference; expected \"cublaslt_gemm\" or \"none\"");
  EXPECT_EQ(errorWith({"operands", "b"}, "D"),
            "task.json: operands.b: unknown tensor \"D\"; expected one of A, "
            "B, C");
  EXPECT_EQ(errorWith({"operands", "c"}, "A"),
            "task.json: operands.c: tensor \"A\" has the wrong role (input); "
            "expected an output");
  EXPECT_EQ(errorWith({"operands", "b_layout"}, "kk"),
            "task.json: operands.b_layout: expected \"kn\" (B is [K, N], C = "
            "A*B) or \"nk\" (B is [N, K], C = A*B^T), got \"kk\"");
  EXPECT_EQ(errorWith({"operands", "d"}, "C"),
            "task.json: operands.d: unknown key; expected one of a, b, c, "
            "scale_a, scale_b, b_layout");
  EXPECT_EQ(errorWith({"encouraged", "sm_90a"}, llvm::json::Array{"warp-spec"}),
            "task.json: encouraged.sm_90a[0]: unknown feature family "
            "\"warp-spec\"; " +
                families);
  EXPECT_EQ(errorWith({"encouraged"}, 3),
            "task.json: encouraged: expected an object of architectures, such "
            "as {\"sm_90a\": [\"wgmma\", \"tma\"]}, got a number");
  EXPECT_EQ(errorWith({"timing", "min_samples"}, 0),
            "task.json: timing.min_samples: expected an integer from 1 to "
            "1000000, got 0");
  EXPECT_EQ(errorWith({"timing", "max_samples"}, 2),
            "task.json: timing.max_samples: expected max_samples >= "
            "min_samples (2 < 5)");
}

TEST(TaskTest, EveryProblemAtOnce) {
  // Independent mistakes are all reported, in the order of the document's
  // sections, and a missing section does not cascade into the sections that
  // use it.
  auto root = llvm::json::parse(goodTask);
  ASSERT_TRUE(!!root);
  llvm::json::Object &o = *root->getAsObject();
  (*(*o.getArray("tensors"))[0].getAsObject())["dtype"] = "bf17";
  (*(*o.getArray("tensors"))[1].getAsObject())["shape"] =
      llvm::json::Array{"K", "L"};
  (*o.getObject("workloads")).erase("heldout");
  o["flops"] = "2*M*";
  o["baseline"] = "cudnn";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *root;
  TaskCheck check = checkTaskText(text, "t.json");
  EXPECT_FALSE(check.task.has_value());
  std::vector<std::string> lines;
  for (const TaskDiagnostic &d : check.diagnostics)
    lines.push_back(d.path);
  EXPECT_EQ(lines,
            (std::vector<std::string>{"tensors[0].dtype", "tensors[1].shape[1]",
                                      "workloads.heldout", "flops",
                                      "baseline"}));

  // Without "params", no name is reported as unknown (that is one mistake).
  o.erase("params");
  text.clear();
  os << *root;
  check = checkTaskText(text, "t.json");
  ASSERT_FALSE(check.diagnostics.empty());
  EXPECT_EQ(check.diagnostics[0].str(),
            "t.json: params: missing; expected a non-empty array of parameter "
            "names such as [\"M\", \"N\", \"K\"]");
  for (const TaskDiagnostic &d : check.diagnostics)
    EXPECT_EQ(d.message.find("unknown parameter"), std::string::npos)
        << d.str();
}

TEST(TaskTest, TransposedB) {
  // C[M,N] = A[M,K] B[N,K]^T: the weight layout of a model layer.
  auto root = llvm::json::parse(goodTask);
  ASSERT_TRUE(!!root);
  auto *o = root->getAsObject();
  (*o->getArray("tensors"))[1].getAsObject()->operator[]("shape") =
      llvm::json::Array{"N", "K"};
  (*o->getObject("operands"))["b_layout"] = "nk";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *root;
  auto t = parseTask(text, "task.json");
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  EXPECT_TRUE(t->bTransposed);
  auto shape = t->shapeOf(1, t->dev[0].params);
  ASSERT_TRUE(!!shape);
  EXPECT_EQ(*shape, (std::vector<int64_t>{512, 128}));
}

const char *rmsnormTask = R"json({
  "name": "rmsnorm",
  "params": ["T", "H"],
  "tensors": [
    {"name": "x", "dtype": "bf16", "shape": ["T", "H"], "role": "input"},
    {"name": "w", "dtype": "bf16", "shape": ["H"], "role": "input"},
    {"name": "y", "dtype": "bf16", "shape": ["T", "H"], "role": "output"}
  ],
  "workloads": {"dev": [{"T": 8, "H": 64}], "heldout": [{"T": 3, "H": 64}]},
  "check": {"rel_l2": 0.005},
  "flops": "3*T*H",
  "bytes": "2*(2*T*H + H)",
  "reference": "rmsnorm",
  "baseline": "none",
  "operands": {"x": "x", "w": "w", "y": "y", "eps": 1e-5},
  "features": {"sm_90a": ["bulk_copy", "mbarrier_tx"]}
})json";

/// The error of loading rmsnormTask with top-level `key` set to `value`
/// (or operands.`key` when `inOperands`).
std::string rmsnormErrorWith(llvm::StringRef key, llvm::json::Value value,
                             bool inOperands = true) {
  auto root = llvm::json::parse(rmsnormTask);
  EXPECT_TRUE(!!root);
  llvm::json::Object *o = root->getAsObject();
  if (inOperands)
    o = o->getObject("operands");
  if (value.kind() == llvm::json::Value::Null)
    o->erase(key);
  else
    (*o)[key] = std::move(value);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *root;
  auto task = parseTask(text, "task.json");
  if (task)
    return "loaded";
  return llvm::toString(task.takeError());
}

TEST(TaskTest, RmsnormReference) {
  auto t = parseTask(rmsnormTask, "task.json");
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  EXPECT_EQ(t->reference, "rmsnorm");
  EXPECT_EQ(t->baseline, "none");
  EXPECT_EQ(t->operands.lookup("x"), "x");
  EXPECT_EQ(t->operands.lookup("w"), "w");
  EXPECT_EQ(t->operands.lookup("y"), "y");
  EXPECT_DOUBLE_EQ(t->eps, 1e-5);
  EXPECT_EQ(*t->bytes.evaluate(t->dev[0].params), 2 * (2 * 8 * 64 + 64));
  // eps defaults to 1e-6.
  EXPECT_EQ(rmsnormErrorWith("eps", nullptr), "loaded");
  EXPECT_EQ(rmsnormErrorWith("eps", 0),
            "task.json: operands.eps: expected a positive number, got 0");
  EXPECT_EQ(rmsnormErrorWith("eps", "small"),
            "task.json: operands.eps: expected a positive number, got a "
            "string");
  EXPECT_EQ(rmsnormErrorWith("a", "x"),
            "task.json: operands.a: unknown key; expected one of x, w, y, eps");
  EXPECT_EQ(rmsnormErrorWith("w", "x"),
            "task.json: operands.w: the rmsnorm reference wants rank 1 for "
            "\"w\", tensor \"x\" has 2");
  EXPECT_EQ(rmsnormErrorWith("x", "w"),
            "task.json: operands.x: the rmsnorm reference wants rank 2 for "
            "\"x\", tensor \"w\" has 1");
  EXPECT_EQ(rmsnormErrorWith("y", "x"),
            "task.json: operands.y: tensor \"x\" has the wrong role (input); "
            "expected an output");
  EXPECT_EQ(rmsnormErrorWith("y", nullptr),
            "task.json: operands.y: missing; expected the name of the output "
            "tensor of rank 2 for \"y\"");
  EXPECT_EQ(rmsnormErrorWith("baseline", "cublaslt_gemm", false),
            "task.json: baseline: unknown baseline \"cublaslt_gemm\" for the "
            "rmsnorm reference; expected \"none\"");
}

TEST(TaskTest, MissingFile) {
  auto t = loadTask("/nonexistent/task");
  ASSERT_FALSE(!!t);
  EXPECT_EQ(llvm::toString(t.takeError()),
            "/nonexistent/task: cannot read the task file: No such file or "
            "directory");
}

const char *attentionBwdTask = R"json({
  "name": "mha_bwd",
  "params": ["B", "H", "S", "D", "CAUSAL"],
  "tensors": [
    {"name": "Q", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "input"},
    {"name": "K", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "input"},
    {"name": "V", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "input"},
    {"name": "O", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "input",
     "init": {"dist": "derived"}},
    {"name": "dO", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "input"},
    {"name": "LSE", "dtype": "f32", "shape": ["B", "H", "S"], "role": "input",
     "init": {"dist": "derived"}},
    {"name": "dQ", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "output"},
    {"name": "dK", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "output"},
    {"name": "dV", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "output"}
  ],
  "workloads": {"dev": [{"B": 1, "H": 2, "S": 64, "D": 64, "CAUSAL": 1}],
                "heldout": [{"B": 1, "H": 2, "S": 100, "D": 64, "CAUSAL": 1}]},
  "check": {"rel_l2": 0.02},
  "flops": "5*B*H*S*S*D",
  "bytes": "2*8*B*H*S*D",
  "reference": "attention_bwd",
  "baseline": "cudnn_sdpa_bwd",
  "operands": {"q": "Q", "k": "K", "v": "V", "o": "O", "lse": "LSE", "do": "dO",
               "dq": "dQ", "dk": "dK", "dv": "dV", "causal": "CAUSAL"}
})json";

/// The error of loading `text` after `edit` changed its JSON.
std::string errorAfter(const char *text,
                       llvm::function_ref<void(llvm::json::Object &)> edit) {
  auto root = llvm::json::parse(text);
  EXPECT_TRUE(!!root);
  edit(*root->getAsObject());
  std::string out;
  llvm::raw_string_ostream os(out);
  os << *root;
  auto task = parseTask(out, "task.json");
  if (task)
    return "loaded";
  return llvm::toString(task.takeError());
}

llvm::json::Object &tensorAt(llvm::json::Object &task, unsigned i) {
  return *(*task.getArray("tensors"))[i].getAsObject();
}

TEST(TaskTest, AttentionBackwardReference) {
  auto t = parseTask(attentionBwdTask, "task.json");
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  EXPECT_EQ(t->reference, "attention_bwd");
  EXPECT_EQ(t->baseline, "cudnn_sdpa_bwd");
  EXPECT_EQ(t->causalParam, "CAUSAL");
  EXPECT_EQ(t->tensors[3].dist.kind, Distribution::Kind::Derived);
  EXPECT_EQ(t->operands.lookup("do"), "dO");

  // An output the reference does not compute could not be checked.
  EXPECT_EQ(errorAfter(attentionBwdTask,
                       [](llvm::json::Object &o) {
                         o.getArray("tensors")->push_back(llvm::json::Object{
                             {"name", "extra"},
                             {"dtype", "f32"},
                             {"shape", llvm::json::Array{"S"}},
                             {"role", "output"}});
                       }),
            "task.json: operands: output \"extra\" is not one of the "
            "attention_bwd reference's outputs, so it could not be checked");
  // Only O and LSE are derivable.
  EXPECT_EQ(
      errorAfter(
          attentionBwdTask,
          [](llvm::json::Object &o) {
            tensorAt(o, 4)["init"] = llvm::json::Object{{"dist", "derived"}};
          }),
      "task.json: operands.do: tensor \"dO\" is \"derived\", but the "
      "attention_bwd reference does not compute it; expected a drawn "
      "distribution");
  EXPECT_EQ(errorAfter(attentionBwdTask,
                       [](llvm::json::Object &o) {
                         (*o.getObject("operands"))["causal"] = "MASK";
                       }),
            "task.json: operands.causal: expected the name of the parameter "
            "that is 1 for a causal mask (one of B, H, S, D, CAUSAL), got "
            "\"MASK\"");
  EXPECT_EQ(
      errorAfter(
          attentionBwdTask,
          [](llvm::json::Object &o) {
            tensorAt(o, 5)["shape"] = llvm::json::Array{"B", "H", "S", "D"};
          }),
      "task.json: operands.lse: the attention_bwd reference wants rank "
      "3 for \"lse\", tensor \"LSE\" has 4");
  EXPECT_EQ(errorAfter(attentionBwdTask,
                       [](llvm::json::Object &o) {
                         o["baseline"] = "cudnn_sdpa_fwd";
                       }),
            "task.json: baseline: unknown baseline \"cudnn_sdpa_fwd\" for the "
            "attention_bwd reference; expected \"cudnn_sdpa_bwd\" or "
            "\"none\"");
}

TEST(TaskTest, Fp8GemmScales) {
  auto fp8 = [](llvm::json::Object &o) {
    tensorAt(o, 0)["dtype"] = "e4m3";
    tensorAt(o, 1)["dtype"] = "e4m3";
    for (const char *name : {"sa", "sb"})
      o.getArray("tensors")->push_back(
          llvm::json::Object{{"name", name},
                             {"dtype", "f32"},
                             {"shape", llvm::json::Array{"1"}},
                             {"role", "input"}});
    auto &ops = *o.getObject("operands");
    ops["scale_a"] = "sa";
    ops["scale_b"] = "sb";
  };
  EXPECT_EQ(errorAfter(goodTask, fp8), "loaded");
  EXPECT_EQ(dtypeSize(DType::E4M3), 1u);
  EXPECT_EQ(parseDType("e4m3"), DType::E4M3);
  EXPECT_EQ(errorAfter(goodTask,
                       [&](llvm::json::Object &o) {
                         fp8(o);
                         tensorAt(o, 3)["shape"] = llvm::json::Array{"M"};
                       }),
            "task.json: operands.scale_a: a per-tensor scale is an f32 tensor "
            "of shape [\"1\"]; tensor \"sa\" is not");
}

TEST(TaskTest, ShippedTasksLoad) {
  // Every task under tasks/ loads (the harness and `ptxbench tasks` read
  // them); the attention ones are generated by utils/make-attention-tasks.py.
  for (const char *name :
       {"gemm_fp8_e4m3", "mha_fwd_lse_h48_d128", "mha_fwd_lse_h48_d128_causal",
        "mha_fwd_lse_h48_d64", "mha_fwd_lse_h48_d256", "mha_bwd_h48_d128",
        "mha_bwd_h48_d128_causal"}) {
    auto t = loadTask(std::string(PTXBENCH_SOURCE_DIR "/tasks/") + name);
    EXPECT_TRUE(!!t) << name << ": " << llvm::toString(t.takeError());
  }
}

} // namespace
