//===- FuzzerOptions.cpp - Sanitizer defaults every fuzz target links -----===//
//
// The system LLVM and MLIR libraries are not instrumented, but the LLVM
// headers our instrumented files include poison and unpoison the slabs of
// BumpPtrAllocator by hand when they see AddressSanitizer. One inline copy
// poisons, the library's own copy never unpoisons, and ASan reports a
// use-after-poison inside MLIR on the first context. Manual poisoning is
// therefore off; ASan's own checks of every allocation stay on.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
