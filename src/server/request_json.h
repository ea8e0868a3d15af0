// RequestJson: the type the server parses request bodies into, nlohmann::ordered_json, so that
// every object keeps its keys in the order the client sent them. Chat templates see tools, their
// JSON schemas, tool-call arguments and chat_template_kwargs in that order (`tools|tojson` writes
// them as Hugging Face's apply_chat_template, vLLM and llama.cpp do); responses are built as
// nlohmann::json, as before.
//
// parse_ordered_json() builds a RequestJson in time linear in the text (nlohmann's own ordered
// parse looks every key up with a linear search, quadratic in an object's size), and refuses any
// object with more than max_object_keys members, so that no body can make the server's later
// per-key work (lookups, template dicts) quadratic either.
//
// Unlike nlohmann::json's, an ordered object keeps its members in a vector: adding a key moves
// them, so no reference or iterator into an object may be held across an insertion into it.
//
// Stateless free function; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace strata::server {

using RequestJson = nlohmann::ordered_json;

// The most members one JSON object of a request may have (far above any real schema or
// logit_bias map).
inline constexpr size_t kMaxObjectKeys = 10000;

struct OrderedJsonParse {
  enum class Error {
    kNone,
    kSyntax,          // not JSON: message is nlohmann's (the same text json::parse throws)
    kNumberOverflow,  // a number too large for a double: message is nlohmann's
    kTooManyKeys,     // an object has more than max_object_keys members: message is its path
                      // ("tools[0].function.parameters", "" for the top-level value)
  };
  Error error = Error::kNone;
  std::string message;
  RequestJson value;  // the parsed value when error is kNone, else null
};

// Parses text (one JSON value, nothing after it but whitespace). A key sent twice in one object
// keeps its first position and takes its last value, as nlohmann's ordered_json parse does.
OrderedJsonParse parse_ordered_json(std::string_view text, size_t max_object_keys = kMaxObjectKeys);

// The message a client gets for kTooManyKeys: names the object (or the body) and the limit.
std::string too_many_keys_message(const std::string& path, size_t max_object_keys = kMaxObjectKeys);

}  // namespace strata::server
