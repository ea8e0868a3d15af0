#include "server/response_store.h"

#include <utility>

namespace strata::server {

void ResponseStore::put(const std::string& id, RequestJson messages, nlohmann::json answer,
                        nlohmann::json input_items) {
  const size_t bytes = messages.dump().size() + answer.dump().size() + input_items.dump().size() + id.size();
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(id); it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  if (bytes > capacity_bytes_) return;
  while (bytes_ + bytes > capacity_bytes_ && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().id);
    lru_.pop_back();
  }
  lru_.push_front(Entry{id, std::move(messages), std::move(answer), std::move(input_items), bytes});
  index_[id] = lru_.begin();
  bytes_ += bytes;
}

ResponseStore::Entry* ResponseStore::touch(const std::string& id) {
  auto it = index_.find(id);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &*it->second;
}

std::optional<RequestJson> ResponseStore::get(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  const Entry* e = touch(id);
  if (e == nullptr) return std::nullopt;
  return e->messages;
}

std::optional<nlohmann::json> ResponseStore::answer(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  const Entry* e = touch(id);
  if (e == nullptr) return std::nullopt;
  return e->answer;
}

std::optional<nlohmann::json> ResponseStore::input_items(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  const Entry* e = touch(id);
  if (e == nullptr) return std::nullopt;
  return e->input_items;
}

bool ResponseStore::erase(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(id);
  if (it == index_.end()) return false;
  bytes_ -= it->second->bytes;
  lru_.erase(it->second);
  index_.erase(it);
  return true;
}

size_t ResponseStore::size_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t ResponseStore::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lru_.size();
}

}  // namespace strata::server
