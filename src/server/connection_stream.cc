#include "server/connection_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/clock.h"

namespace strata::server {

namespace {

constexpr size_t kBufferBytes = 16 * 1024;
constexpr double kReadStopPollS = 0.05;  // how often a waiting read looks at stopping()

int poll_ms(double seconds) { return std::max(0, static_cast<int>(seconds * 1000.0 + 0.999)); }

bool poll_for(int fd, short events, double timeout_s) {
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, poll_ms(timeout_s)) > 0;
}

void ip_and_port(const sockaddr_storage& addr, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

}  // namespace

ConnectionStream::ConnectionStream(int fd, double write_timeout_s, std::function<bool()> stopping)
    : fd_(fd), write_timeout_s_(write_timeout_s), stopping_(std::move(stopping)), buffer_(kBufferBytes) {}

bool ConnectionStream::wait_for_request(double idle_s) {
  if (read_begin_ < read_end_) return true;
  return fill(monotonic_s() + idle_s, /*is_request_deadline=*/false) > 0;
}

void ConnectionStream::begin_request(double deadline_s) {
  deadline_at_s_ = monotonic_s() + deadline_s;
  expired_ = false;
}

ssize_t ConnectionStream::fill(double deadline_at_s, bool is_request_deadline) {
  // Only called once every buffered byte was handed out.
  read_begin_ = read_end_ = 0;
  for (;;) {
    const double left_s = deadline_at_s - monotonic_s();
    if (left_s <= 0) {
      expired_ = expired_ || is_request_deadline;
      return -1;
    }
    if (stopping_ && stopping_()) return -1;
    if (!poll_for(fd_, POLLIN, std::min(left_s, kReadStopPollS))) continue;
    const ssize_t n = ::recv(fd_, buffer_.data() + read_end_, buffer_.size() - read_end_, 0);
    if (n > 0) {
      read_end_ += static_cast<size_t>(n);
      return n;
    }
    if (n == 0) return 0;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
  }
}

bool ConnectionStream::is_readable() const {
  return read_begin_ < read_end_ || poll_for(fd_, POLLIN, std::max(0.0, deadline_at_s_ - monotonic_s()));
}

ssize_t ConnectionStream::read(char* ptr, size_t size) {
  if (expired_) return -1;
  if (read_begin_ == read_end_) {
    const ssize_t got = fill(deadline_at_s_, /*is_request_deadline=*/true);
    if (got <= 0) return got;
  }
  const size_t n = std::min(size, read_end_ - read_begin_);
  std::memcpy(ptr, buffer_.data() + read_begin_, n);
  read_begin_ += n;
  consumed_bytes_ += n;
  return static_cast<ssize_t>(n);
}

bool ConnectionStream::wait_writable() const { return poll_for(fd_, POLLOUT, write_timeout_s_); }

// Writable and not closed by the peer (a readable socket with nothing to read has hung up).
bool ConnectionStream::is_writable() const {
  if (expired_ || !wait_writable()) return false;
  if (!poll_for(fd_, POLLIN, 0)) return true;
  char byte;
  return ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

// All or nothing, as a blocking send would: httplib writes each header line with one call and
// does not retry a short write, so a full socket buffer (a pipelining client that reads late)
// must not cut a line.
ssize_t ConnectionStream::write(const char* ptr, size_t size) {
  if (expired_ || !send_all(ptr, size)) return -1;
  return static_cast<ssize_t>(size);
}

bool ConnectionStream::write_raw(const std::string& bytes) { return send_all(bytes.data(), bytes.size()); }

bool ConnectionStream::send_all(const char* ptr, size_t size) {
  size_t sent = 0;
  while (sent < size) {
    if (!wait_writable()) return false;
    const ssize_t n = ::send(fd_, ptr + sent, size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    if (n > 0) sent += static_cast<size_t>(n);
  }
  return true;
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) ip_and_port(addr, ip, port);
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) ip_and_port(addr, ip, port);
}

}  // namespace strata::server
