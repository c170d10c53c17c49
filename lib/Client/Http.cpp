//===- Http.cpp - Many HTTP requests in flight on one thread --------------===//
//
// One CURLM handle; each transfer is a CURLE handle owned by a Transfer that
// also owns its header list and collects the response. Finished transfers
// are taken off the multi handle before their callbacks run, so a callback
// may start new requests. The size limit is checked in the write and header
// callbacks (curl calls the write callback with decoded bytes, so a gzip
// body is counted as it expands); stalls and deadlines in poll().
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Client/Http.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <curl/curl.h>

#include <chrono>
#include <map>
#include <mutex>

using namespace ptxbench::client;
using llvm::StringRef;
using Clock = std::chrono::steady_clock;

std::optional<std::string> HttpResult::header(StringRef name) const {
  for (const auto &[key, value] : headers)
    if (StringRef(key).equals_insensitive(name))
      return value;
  return std::nullopt;
}

namespace {

void initCurl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct EasyDeleter {
  void operator()(CURL *h) const { curl_easy_cleanup(h); }
};
struct SlistDeleter {
  void operator()(curl_slist *l) const { curl_slist_free_all(l); }
};

struct Transfer {
  std::unique_ptr<CURL, EasyDeleter> easy;
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  std::string body; // the request body; curl reads it in place
  HttpResult result;
  HttpClient::DoneFn done;
  HttpClient::DataFn onData;
  Clock::time_point start, lastByte, lastProgress, sent;
  bool started = false, isSent = false, progressByData = false;
  double totalTimeout = 0, stall = 0, firstByte = 0;
  uint64_t maxBytes = 0, keptBody = 0;
  char errorBuffer[CURL_ERROR_SIZE] = {0};

  /// Counts `n` more bytes received; false once they pass the size limit
  /// (the callback then refuses them and curl stops the transfer).
  bool receive(size_t n) {
    started = true;
    lastByte = Clock::now();
    result.receivedBytes += n;
    if (maxBytes && result.receivedBytes > maxBytes) {
      result.limit = HttpLimit::Size;
      return false;
    }
    return true;
  }

  static size_t onWrite(char *data, size_t size, size_t count, void *self) {
    auto *t = static_cast<Transfer *>(self);
    if (!t->receive(size * count))
      return 0;
    StringRef chunk(data, size * count);
    size_t keep = chunk.size();
    if (t->keptBody)
      keep = std::min<uint64_t>(
          keep,
          t->keptBody - std::min<uint64_t>(t->keptBody, t->result.body.size()));
    t->result.body.append(chunk.begin(), chunk.begin() + keep);
    bool progress = !t->progressByData;
    if (t->onData)
      progress |= t->onData(chunk) && t->progressByData;
    if (progress)
      t->lastProgress = t->lastByte;
    return size * count;
  }

  /// Notes when the whole request has gone out: the wait for the first
  /// byte counts from then, not from before the connection was made.
  static int onProgress(void *self, curl_off_t, curl_off_t, curl_off_t,
                        curl_off_t ulnow) {
    auto *t = static_cast<Transfer *>(self);
    if (!t->isSent && ulnow >= curl_off_t(t->body.size())) {
      // Connected and sent (a request without body: connected).
      long connected = 0;
      curl_easy_getinfo(t->easy.get(), CURLINFO_NUM_CONNECTS, &connected);
      curl_off_t pretransfer = 0;
      curl_easy_getinfo(t->easy.get(), CURLINFO_PRETRANSFER_TIME_T,
                        &pretransfer);
      if (pretransfer > 0 || connected > 0 || ulnow > 0) {
        t->isSent = true;
        t->sent = t->lastProgress = Clock::now();
      }
    }
    return 0;
  }

  static size_t onHeader(char *data, size_t size, size_t count, void *self) {
    auto *t = static_cast<Transfer *>(self);
    if (!t->receive(size * count))
      return 0;
    if (!t->progressByData)
      t->lastProgress = t->lastByte;
    StringRef line = StringRef(data, size * count).trim();
    if (line.starts_with("HTTP/")) {
      t->result.headers.clear(); // a new response (after 100 or a redirect)
      return size * count;
    }
    auto [name, value] = line.split(':');
    if (!value.empty() || line.contains(':'))
      t->result.headers.emplace_back(name.trim().lower(), value.trim().str());
    return size * count;
  }
};

/// The body bytes as they came over the wire (before decompression).
void recordWireBytes(Transfer &t) {
  curl_off_t bytes = 0;
  if (curl_easy_getinfo(t.easy.get(), CURLINFO_SIZE_DOWNLOAD_T, &bytes) ==
      CURLE_OK)
    t.result.wireBytes = uint64_t(std::max<curl_off_t>(0, bytes));
}

/// Why `t` must stop now, or empty: no progress for its stall limit (once
/// the request is out; before the response starts, the first-byte limit
/// where it has one), or past its total deadline.
std::string stallOrDeadline(Transfer &t, Clock::time_point now,
                            double elapsed) {
  if (t.totalTimeout > 0 && elapsed >= t.totalTimeout) {
    t.result.limit = HttpLimit::Deadline;
    return llvm::formatv("stopped at the total deadline of {0:f1} s", elapsed)
        .str();
  }
  if (t.progressByData) {
    if (!t.isSent && !t.started)
      return ""; // connecting: connect_s bounds it
    double quiet = std::chrono::duration<double>(now - t.lastProgress).count();
    if (t.stall <= 0 || quiet < t.stall)
      return "";
    t.result.limit = HttpLimit::Stall;
    return llvm::formatv("stalled: no content for {0:f1} s{1}", quiet,
                         t.started ? "" : " (no response)")
        .str();
  }
  // Before the request is out, connect_s bounds the wait (curl's own).
  bool waiting = t.started || t.isSent;
  double quiet =
      std::chrono::duration<double>(now - (t.started ? t.lastByte : t.sent))
          .count();
  double limit = t.started ? t.stall : t.firstByte;
  if (!waiting || limit <= 0 || quiet < limit)
    return "";
  t.result.limit = HttpLimit::Stall;
  return llvm::formatv("stalled: nothing received for {0:f1} s{1}", quiet,
                       t.started ? "" : " (no response)")
      .str();
}

} // namespace

struct HttpClient::Impl {
  CURLM *multi = nullptr;
  std::map<CURL *, std::unique_ptr<Transfer>> transfers;
  uint64_t nextId = 1;
};

HttpClient::HttpClient() : impl(std::make_unique<Impl>()) {
  initCurl();
  impl->multi = curl_multi_init();
  // Many requests to one host share a few connections (HTTP/2 multiplexes
  // them where the server speaks it).
  curl_multi_setopt(impl->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  curl_multi_setopt(impl->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
}

HttpClient::~HttpClient() {
  for (auto &[easy, transfer] : impl->transfers)
    curl_multi_remove_handle(impl->multi, easy);
  impl->transfers.clear();
  curl_multi_cleanup(impl->multi);
}

uint64_t HttpClient::start(const HttpRequest &request, DoneFn done,
                           DataFn onData) {
  auto t = std::make_unique<Transfer>();
  t->easy.reset(curl_easy_init());
  t->done = std::move(done);
  t->onData = std::move(onData);
  t->body = request.body;
  t->start = t->lastProgress = Clock::now();
  t->totalTimeout = request.totalTimeoutSeconds;
  CURL *h = t->easy.get();
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->errorBuffer);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &Transfer::onWrite);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &Transfer::onHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, t.get());
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &Transfer::onProgress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, t.get());
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  // Loopback servers (tests, local inference servers) never go through a
  // proxy configured for the outside.
  curl_easy_setopt(h, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   long(request.connectTimeoutSeconds * 1000));
  t->stall = request.stallSeconds;
  t->firstByte = request.firstByteSeconds;
  t->maxBytes = request.maxBytes;
  t->keptBody = request.keptBodyBytes;
  t->progressByData = request.progressByData;
  if (request.method == "POST") {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, t->body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                     curl_off_t(t->body.size()));
  } else if (request.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_slist *list = nullptr;
  for (const auto &[name, value] : request.headers)
    list = curl_slist_append(list, (name + ": " + value).c_str());
  // No 100-continue round trip before a large body.
  list = curl_slist_append(list, "Expect:");
  t->headers.reset(list);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
  uint64_t id = impl->nextId++;
  curl_easy_setopt(h, CURLOPT_PRIVATE, reinterpret_cast<void *>(id));
  curl_multi_add_handle(impl->multi, h);
  impl->transfers[h] = std::move(t);
  return id;
}

size_t HttpClient::poll(int timeoutMs) {
  int running = 0;
  curl_multi_perform(impl->multi, &running);
  if (running > 0 || impl->transfers.empty())
    curl_multi_poll(impl->multi, nullptr, 0, std::max(0, timeoutMs), nullptr);
  curl_multi_perform(impl->multi, &running);

  std::vector<std::unique_ptr<Transfer>> finished;
  // Stalls (no progress for too long) and deadlines.
  auto now = Clock::now();
  for (auto it = impl->transfers.begin(); it != impl->transfers.end();) {
    Transfer &t = *it->second;
    double elapsed = std::chrono::duration<double>(now - t.start).count();
    std::string why = stallOrDeadline(t, now, elapsed);
    if (why.empty()) {
      ++it;
      continue;
    }
    curl_easy_getinfo(it->first, CURLINFO_RESPONSE_CODE, &t.result.status);
    recordWireBytes(t);
    curl_multi_remove_handle(impl->multi, it->first);
    t.result.seconds = elapsed;
    t.result.error = std::move(why);
    finished.push_back(std::move(it->second));
    it = impl->transfers.erase(it);
  }
  int queued = 0;
  while (CURLMsg *msg = curl_multi_info_read(impl->multi, &queued)) {
    if (msg->msg != CURLMSG_DONE)
      continue;
    CURL *h = msg->easy_handle;
    auto it = impl->transfers.find(h);
    if (it == impl->transfers.end())
      continue;
    std::unique_ptr<Transfer> t = std::move(it->second);
    impl->transfers.erase(it);
    curl_multi_remove_handle(impl->multi, h);
    CURLcode code = msg->data.result;
    t->result.seconds =
        std::chrono::duration<double>(Clock::now() - t->start).count();
    // A response may have started (a stream cut midway).
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &t->result.status);
    recordWireBytes(*t);
    if (t->result.limit == HttpLimit::Size)
      t->result.error =
          llvm::formatv("more than {0} bytes received (the size limit)",
                        t->maxBytes)
              .str();
    else if (code != CURLE_OK)
      t->result.error =
          t->errorBuffer[0] ? t->errorBuffer : curl_easy_strerror(code);
    finished.push_back(std::move(t));
  }
  for (std::unique_ptr<Transfer> &t : finished)
    if (t->done)
      t->done(std::move(t->result));
  return impl->transfers.size();
}

void HttpClient::wakeup() { curl_multi_wakeup(impl->multi); }

size_t HttpClient::inFlight() const { return impl->transfers.size(); }
