// ResponseStore: the Responses API answers a later request may continue with
// previous_response_id, kept in memory (lost on restart) up to a byte budget, least recently
// used first out.
//
// Each entry is a conversation as chat messages (the request's input turns after those of the
// response it continued, then the answer as an assistant turn; never the instructions, which
// OpenAI does not carry over), the response object as it was answered (for GET
// /v1/responses/{id}) and the request's input as Responses items (for GET .../input_items); its
// size is counted as the JSON text of all three.
// Thread-safe: every method takes the store's mutex.
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "server/request_json.h"

namespace strata::server {

class ResponseStore {
 public:
  // capacity_bytes 0: nothing is kept.
  explicit ResponseStore(size_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // Keeps id's conversation, evicting the least recently used entries beyond the budget; a
  // conversation larger than the whole budget is not kept.
  void put(const std::string& id, RequestJson messages, nlohmann::json answer,
           nlohmann::json input_items = nlohmann::json::array());
  // The conversation of id (which becomes the most recently used), or nullopt when it was
  // never kept or has been evicted or deleted.
  std::optional<RequestJson> get(const std::string& id);
  // The response object of id (which becomes the most recently used), or nullopt likewise.
  std::optional<nlohmann::json> answer(const std::string& id);
  // The input items of id's request (which becomes the most recently used), or nullopt likewise.
  std::optional<nlohmann::json> input_items(const std::string& id);
  // Forgets id; false when it was not kept.
  bool erase(const std::string& id);

  size_t size_bytes() const;
  size_t entries() const;

 private:
  struct Entry {
    std::string id;
    RequestJson messages;
    nlohmann::json answer;
    nlohmann::json input_items;
    size_t bytes = 0;
  };

  // The entry of id moved to the front, or nullptr; mu_ held.
  Entry* touch(const std::string& id);

  const size_t capacity_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace strata::server
