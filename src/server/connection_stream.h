// ConnectionStream: one accepted socket as an httplib::Stream that lives as long as the
// connection, not one request. Bytes read past the end of a request stay buffered for the next
// one, so pipelined requests (several written in one send) are all answered, in order. Each
// request's head and body must arrive before a deadline; when it passes, reads fail and writes
// are suppressed so the owner can answer 408 itself.
//
// Borrows the socket (the owner closes it). Used by one connection thread only; not
// thread-safe. Invariant: read_begin_ <= read_end_ <= buffer_.size().
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <httplib.h>

namespace strata::server {

class ConnectionStream final : public httplib::Stream {
 public:
  // stopping: polled while waiting, so a server that stops is not held up by a silent client.
  ConnectionStream(int fd, double write_timeout_s, std::function<bool()> stopping);

  // Waits up to idle_s for the first byte of the next request (already buffered or arriving).
  // False when none came, the peer closed, or the server is stopping.
  bool wait_for_request(double idle_s);
  // Starts a request: its head and body must be read within deadline_s from now.
  void begin_request(double deadline_s);
  // True once a read ran past the current request's deadline.
  bool deadline_expired() const { return expired_; }
  // Bytes handed to the reader since the connection opened.
  uint64_t bytes_consumed() const { return consumed_bytes_; }
  // Writes bytes that bypass the suppression after a deadline (the 408 answer).
  bool write_raw(const std::string& bytes);

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return fd_; }

 private:
  // Receives more bytes into the buffer before deadline_at_s; >0 bytes, 0 at EOF, -1 on error,
  // deadline or stop.
  ssize_t fill(double deadline_at_s, bool is_request_deadline);
  bool wait_writable() const;
  // Sends every byte, waiting up to the write timeout each time the socket is full.
  bool send_all(const char* ptr, size_t size);

  int fd_;
  double write_timeout_s_;
  std::function<bool()> stopping_;
  std::vector<char> buffer_;
  size_t read_begin_ = 0;
  size_t read_end_ = 0;
  double deadline_at_s_ = 0;  // monotonic
  bool expired_ = false;
  uint64_t consumed_bytes_ = 0;
};

}  // namespace strata::server
