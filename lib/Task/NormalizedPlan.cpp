//===- NormalizedPlan.cpp - A launch plan as one canonical text -----------===//
//
// The text that identifies what a launch plan does, for deciding whether two
// submissions may share one run: every declaration in order with each
// expression in its canonical form and every option spelled out, and nothing
// of where or how it was written (lines, columns, spacing, comments around
// it).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/LaunchPlan.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench::runtime;

static void printList(ArrayRef<Expr> exprs, raw_ostream &os) {
  os << '(';
  for (const Expr &e : exprs)
    os << (&e == exprs.data() ? "" : ",") << e.canonical();
  os << ')';
}

std::string ptxbench::runtime::normalizedPlan(const LaunchPlan &plan) {
  std::string out;
  raw_string_ostream os(out);
  for (const KernelDecl &k : plan.kernels) {
    os << "kernel " << k.name << " grid=";
    printList(k.grid, os);
    os << " block=";
    printList(k.block, os);
    if (k.hasCluster) {
      os << " cluster=";
      printList(k.cluster, os);
    }
    os << " smem=" << k.smem.canonical();
    if (k.triton) {
      os << " num_warps=" << k.triton->numWarps
         << " num_stages=" << k.triton->numStages << " constexprs=[";
      for (const ConstexprDecl &c : k.triton->constexprs)
        os << (&c == k.triton->constexprs.data() ? "" : ",") << c.name << '='
           << c.value;
      os << ']';
    }
    os << " args=[";
    for (const PlanArg &a : k.args) {
      os << (&a == k.args.data() ? "" : ",") << a.value.canonical();
      if (a.type)
        os << ':' << scalarTypeName(*a.type);
    }
    os << "]\n";
  }
  for (const TensorMapDecl &m : plan.tensorMaps) {
    os << "tensormap " << m.name << " tensor=" << m.tensor << " box=";
    printList(m.box, os);
    os << " swizzle=" << unsigned(m.swizzle)
       << " interleave=" << unsigned(m.interleave) << " l2=" << unsigned(m.l2)
       << " oob=" << unsigned(m.oob) << "\n";
  }
  for (const WorkspaceDecl &w : plan.workspaces)
    os << "workspace " << w.name << " bytes=" << w.bytes.canonical()
       << " zero=" << unsigned(w.zero) << "\n";
  return out;
}
