//===- ContextPolicy.cpp - What each turn's request carries ---------------===//
//
// A long multi-turn conversation grows by an answer and its feedback every
// turn. `--context-policy` chooses what a request carries: the whole
// history (`full`), the task's messages and the latest answer-feedback pair
// (`last-pair`), or the task's system message and one user message rebuilt
// from the task, the latest submission's code and its feedback (`single`).
// The conversation itself is always kept whole (it is what resume reads
// back); only what is sent changes.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "ptxbench/Prompt/ExtractCode.h"

using namespace ptxbench;
using namespace ptxbench::client;
using namespace ptxbench::generate;

llvm::StringRef ptxbench::generate::contextPolicyName(ContextPolicy policy) {
  switch (policy) {
  case ContextPolicy::Full:
    return "full";
  case ContextPolicy::LastPair:
    return "last-pair";
  case ContextPolicy::Single:
    return "single";
  }
  return "full";
}

std::optional<ContextPolicy>
ptxbench::generate::parseContextPolicy(llvm::StringRef name) {
  for (ContextPolicy p :
       {ContextPolicy::Full, ContextPolicy::LastPair, ContextPolicy::Single})
    if (name == contextPolicyName(p))
      return p;
  return std::nullopt;
}

std::vector<Message>
ptxbench::generate::detail::messagesToSend(ContextPolicy policy,
                                           const std::vector<Message> &all,
                                           size_t promptMessages) {
  // The first turn, or a conversation not laid out as prompt, answer,
  // feedback, ..., answer, feedback: sent as it is.
  size_t n = all.size();
  if (policy == ContextPolicy::Full || n <= promptMessages ||
      promptMessages > n || (n - promptMessages) % 2 != 0 ||
      all[n - 2].role != "assistant" || all[n - 1].role != "user")
    return all;
  if (policy == ContextPolicy::LastPair) {
    std::vector<Message> out(all.begin(), all.begin() + promptMessages);
    out.push_back(all[n - 2]);
    out.push_back(all[n - 1]);
    return out;
  }
  // Single: the system messages stay system messages; the task, the latest
  // code and its feedback become one user message.
  std::vector<Message> out;
  std::string task;
  for (size_t i = 0; i < promptMessages; ++i) {
    if (all[i].role == "system") {
      out.push_back(all[i]);
      continue;
    }
    task += (task.empty() ? "" : "\n\n") + all[i].content;
  }
  std::string text = task + "\n\n## Your latest submission\n\n";
  auto code = prompt::extractCode(all[n - 2].content);
  if (code) {
    text += "```" + prompt::fenceTag(code->language).str() + "\n" +
            code->code +
            (llvm::StringRef(code->code).ends_with("\n") ? "" : "\n") +
            "```\n";
  } else {
    llvm::consumeError(code.takeError());
    text += "Your latest answer had no usable code block (the evaluation "
            "below says why).\n";
  }
  text += "\n## Its evaluation\n\n" + all[n - 1].content;
  out.push_back({"user", std::move(text)});
  return out;
}
