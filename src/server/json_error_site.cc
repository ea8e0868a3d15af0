#include "server/json_error_site.h"

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata::server {

namespace {

using nlohmann::json;

// A SAX consumer that keeps only the chain of containers around the current value: the member
// name inside objects, the element index inside arrays. It stops at the first error.
class PathTracker : public nlohmann::json_sax<json> {
 public:
  std::string path() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.is_array) {
        if (f.index >= 0) out += "[" + std::to_string(f.index) + "]";
      } else if (f.has_key) {
        if (!out.empty()) out += ".";
        out += f.key;
      }
    }
    return out;
  }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    begin_value();
    frames_.push_back(Frame{false, -1, false, {}});
    return true;
  }
  bool key(string_t& name) override {
    frames_.back().has_key = true;
    frames_.back().key = name;
    return true;
  }
  bool end_object() override { return end_container(); }
  bool start_array(std::size_t) override {
    begin_value();
    frames_.push_back(Frame{true, -1, false, {}});
    return true;
  }
  bool end_array() override { return end_container(); }
  // The failing token has not been reported as a value: inside an array it is the next element.
  bool parse_error(std::size_t byte, const std::string& token,
                   const nlohmann::detail::exception&) override {
    begin_value();
    // nlohmann reports the offset just past the token; the message points at its start.
    byte_ = byte >= token.size() ? byte - token.size() : 0;
    token_ = token;
    return false;
  }
  size_t byte() const { return byte_; }
  const std::string& token() const { return token_; }

 private:
  struct Frame {
    bool is_array = false;
    int64_t index = -1;  // arrays: the element being read
    bool has_key = false;
    std::string key;  // objects: the member being read
  };

  // A value starts: inside an array it is the next element.
  void begin_value() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }
  // A scalar is complete.
  bool value() {
    begin_value();
    return true;
  }
  bool end_container() {
    frames_.pop_back();
    return true;
  }

  std::vector<Frame> frames_;
  size_t byte_ = 0;
  std::string token_;
};

}  // namespace

JsonErrorSite json_error_site(std::string_view body) {
  PathTracker tracker;
  json::sax_parse(body.begin(), body.end(), &tracker, nlohmann::detail::input_format_t::json,
                  /*strict=*/true);
  return {tracker.path(), tracker.byte(), tracker.token()};
}

}  // namespace strata::server
