//===- ReferenceServer.cpp - Python references for a sandboxed process ----===//
//
// The server forked by ReferenceServer::start and the client's side. Over
// a socketpair, one frame per request and one per answer: a frame is a
// 64-bit length and that many bytes, read completely or not at all. A
// request is the workload's parameters (name and value) and one byte string
// per task tensor (the inputs' raw bytes, empty for outputs); an answer is
// a status byte, then either the error's text or the outputs (tensor index,
// non-finite count, fp32 values), the seconds, torch's version and the
// child's sandbox. Both ends are this program, but the sizes are still
// checked against what a task can hold.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Reference/ReferenceServer.h"

#include "llvm/Support/Error.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ptxbench;
using namespace ptxbench::reference;
using llvm::StringRef;

namespace {

/// The largest frame: a task's tensors are bounded by the loader well
/// below this.
constexpr uint64_t kMaxFrame = uint64_t(64) << 30;

/// Moves `size` bytes through `step` (one send or read), retrying after a
/// signal; false when the peer is gone.
template <typename Byte, typename Step>
bool transferAll(Byte *p, size_t size, Step step) {
  while (size) {
    ssize_t n = step(p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

/// Sends `size` bytes; a peer that is gone is an error, not SIGPIPE.
bool writeAll(int fd, const void *data, size_t size) {
  return transferAll(static_cast<const char *>(data), size,
                     [fd](const char *p, size_t n) {
                       return ::send(fd, p, n, MSG_NOSIGNAL);
                     });
}

bool readAll(int fd, void *data, size_t size) {
  return transferAll(static_cast<char *>(data), size,
                     [fd](char *p, size_t n) { return ::read(fd, p, n); });
}

/// Builds a frame's bytes.
class Writer {
public:
  void u64(uint64_t v) { bytes.append(reinterpret_cast<char *>(&v), 8); }
  void str(StringRef s) {
    u64(s.size());
    bytes.append(s.data(), s.size());
  }
  void raw(const void *data, size_t size) {
    bytes.append(static_cast<const char *>(data), size);
  }
  bool send(int fd) const {
    uint64_t size = bytes.size();
    return writeAll(fd, &size, 8) && writeAll(fd, bytes.data(), bytes.size());
  }
  std::string bytes;
};

/// Reads a frame's bytes; every read is checked against what is left.
class Reader {
public:
  explicit Reader(std::string bytes) : bytes(std::move(bytes)) {}
  bool u64(uint64_t &v) {
    if (bytes.size() - at < 8)
      return false;
    std::memcpy(&v, bytes.data() + at, 8);
    at += 8;
    return true;
  }
  bool str(std::string &s) {
    uint64_t n;
    if (!u64(n) || n > bytes.size() - at)
      return false;
    s.assign(bytes.data() + at, n);
    at += n;
    return true;
  }
  bool raw(void *data, uint64_t size) {
    if (size > bytes.size() - at)
      return false;
    std::memcpy(data, bytes.data() + at, size);
    at += size;
    return true;
  }
  bool done() const { return at == bytes.size(); }

private:
  std::string bytes;
  size_t at = 0;
};

/// One frame from `fd`, or nothing at end of file or on a bad length.
std::optional<std::string> receive(int fd) {
  uint64_t size;
  if (!readAll(fd, &size, 8) || size > kMaxFrame)
    return std::nullopt;
  std::string bytes(size, '\0');
  if (!readAll(fd, bytes.data(), size))
    return std::nullopt;
  return bytes;
}

/// The server: answers requests until the socket closes.
[[noreturn]] void serve(int fd, const runtime::Task &task,
                        const PythonReferenceOptions &options) {
  while (std::optional<std::string> frame = receive(fd)) {
    Reader in(std::move(*frame));
    runtime::Bindings params;
    std::vector<std::string> inputs(task.tensors.size());
    uint64_t count = 0;
    bool ok = in.u64(count) && count <= task.params.size() + 64;
    for (uint64_t i = 0; ok && i < count; ++i) {
      std::string name;
      uint64_t value = 0;
      ok = in.str(name) && in.u64(value);
      if (ok)
        params[name] = int64_t(value);
    }
    for (std::string &input : inputs)
      ok = ok && in.str(input);
    Writer out;
    if (!ok || !in.done()) {
      out.u64(1);
      out.str("the reference server got a malformed request");
    } else if (llvm::Expected<PythonReferenceOutputs> r =
                   runPythonReference(task, params, inputs, options)) {
      out.u64(0);
      out.u64(r->outputs.size());
      for (const PythonReferenceOutputs::Output &o : r->outputs) {
        out.u64(uint64_t(o.tensor));
        out.u64(o.nonfinite);
        out.u64(o.values.size());
        out.raw(o.values.data(), o.values.size() * sizeof(float));
      }
      uint64_t seconds;
      std::memcpy(&seconds, &r->seconds, 8);
      out.u64(seconds);
      out.str(r->torchVersion);
      out.str(r->sandbox);
    } else {
      out.u64(1);
      out.str(llvm::toString(r.takeError()));
    }
    if (!out.send(fd))
      break;
  }
  _exit(0);
}

} // namespace

llvm::Expected<std::unique_ptr<ReferenceServer>>
ReferenceServer::start(const runtime::Task &task,
                       const PythonReferenceOptions &options) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return llvm::createStringError(
        std::string("the reference server: socketpair: ") +
        std::strerror(errno));
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return llvm::createStringError(
        std::string("the reference server: fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    // Gone with the process that started it; nothing of it but the socket
    // and the standard streams.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      _exit(0);
    ::close(fds[0]);
    if (::dup2(fds[1], 3) != 3)
      _exit(1);
    for (int fd = 4; fd < 1024; ++fd)
      ::close(fd);
    serve(3, task, options);
  }
  ::close(fds[1]);
  return std::unique_ptr<ReferenceServer>(new ReferenceServer(fds[0], pid));
}

ReferenceServer::~ReferenceServer() {
  ::close(socket);
  int status;
  while (::waitpid(serverPid, &status, 0) < 0 && errno == EINTR) {
  }
}

llvm::Expected<PythonReferenceOutputs>
ReferenceServer::compute(const runtime::Bindings &params,
                         llvm::ArrayRef<std::string> inputs) {
  Writer request;
  request.u64(params.size());
  for (const auto &p : params) {
    request.str(p.getKey());
    request.u64(uint64_t(p.getValue()));
  }
  for (const std::string &input : inputs)
    request.str(input);
  std::optional<std::string> frame;
  if (request.send(socket))
    frame = receive(socket);
  if (!frame)
    return llvm::createStringError("the reference server is gone (pid " +
                                   std::to_string(serverPid) + ")");
  Reader in(std::move(*frame));
  uint64_t status = 1, count = 0;
  if (!in.u64(status) || status != 0) {
    std::string error = "the reference server sent a malformed answer";
    if (status != 0)
      in.str(error);
    return llvm::createStringError(error);
  }
  PythonReferenceOutputs out;
  bool ok = in.u64(count) && count <= inputs.size();
  for (uint64_t i = 0; ok && i < count; ++i) {
    PythonReferenceOutputs::Output &o = out.outputs.emplace_back();
    uint64_t tensor, values;
    ok = in.u64(tensor) && tensor < inputs.size() && in.u64(o.nonfinite) &&
         in.u64(values) && values <= kMaxFrame / sizeof(float);
    if (!ok)
      break;
    o.tensor = int(tensor);
    o.values.resize(values);
    ok = in.raw(o.values.data(), values * sizeof(float));
  }
  uint64_t seconds = 0;
  ok = ok && in.u64(seconds) && in.str(out.torchVersion) &&
       in.str(out.sandbox) && in.done();
  if (!ok)
    return llvm::createStringError(
        "the reference server sent a malformed answer");
  std::memcpy(&out.seconds, &seconds, 8);
  return out;
}
