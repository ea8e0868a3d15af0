#include "server/request_json.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace strata::server {

namespace {

using OrderedObject = RequestJson::object_t;  // nlohmann::ordered_map: a vector of (key, value) pairs

// Up to this many members, duplicates are looked for pairwise; above, by sorting indices.
constexpr size_t kPairwiseDuplicateCheck = 16;

bool has_duplicate_keys(const OrderedObject::Container& members) {
  const size_t n = members.size();
  if (n <= kPairwiseDuplicateCheck) {
    for (size_t i = 1; i < n; ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (members[i].first == members[j].first) return true;
      }
    }
    return false;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return members[a].first < members[b].first; });
  for (size_t i = 1; i < n; ++i) {
    if (members[order[i]].first == members[order[i - 1]].first) return true;
  }
  return false;
}

// Each key once, at its first position, with its last value (what ordered_map's operator[]
// gives a parse that assigns every member in turn).
void drop_duplicate_keys(OrderedObject* members) {
  if (!has_duplicate_keys(*members)) return;
  OrderedObject unique;
  OrderedObject::Container& unique_members = unique;  // ordered_map's operator[] takes keys only
  std::unordered_map<std::string_view, size_t> position;  // views into *members, unchanged here
  for (auto& [key, value] : *members) {
    auto [it, added] = position.emplace(key, unique.size());
    if (added) {
      unique_members.emplace_back(key, std::move(value));
    } else {
      unique_members[it->second].second = std::move(value);
    }
  }
  *members = std::move(unique);
}

// A SAX handler that builds the value as nlohmann's DOM parser does, except that an object's
// members are appended without a lookup (duplicates are resolved once, when the object closes)
// and an object may hold at most max_keys members.
class OrderedBuilder {
 public:
  using number_integer_t = RequestJson::number_integer_t;
  using number_unsigned_t = RequestJson::number_unsigned_t;
  using number_float_t = RequestJson::number_float_t;
  using string_t = RequestJson::string_t;
  using binary_t = RequestJson::binary_t;

  explicit OrderedBuilder(size_t max_keys) : max_keys_(max_keys) {}

  bool null() { return add(RequestJson(nullptr)) != nullptr; }
  bool boolean(bool v) { return add(RequestJson(v)) != nullptr; }
  bool number_integer(number_integer_t v) { return add(RequestJson(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) { return add(RequestJson(v)) != nullptr; }
  bool number_float(number_float_t v, const string_t&) { return add(RequestJson(v)) != nullptr; }
  bool string(string_t& v) { return add(RequestJson(std::move(v))) != nullptr; }
  bool binary(binary_t& v) { return add(RequestJson::binary(std::move(v))) != nullptr; }

  bool start_object(size_t) {
    open_.push_back(add(RequestJson::object()));
    return true;
  }
  bool key(string_t& k) {
    OrderedObject& members = open_.back()->get_ref<OrderedObject&>();
    if (members.size() >= max_keys_) {
      result_.error = OrderedJsonParse::Error::kTooManyKeys;
      result_.message = open_path();
      return false;
    }
    members.OrderedObject::Container::emplace_back(std::move(k), nullptr);
    member_ = &members.back().second;
    return true;
  }
  bool end_object() {
    drop_duplicate_keys(&open_.back()->get_ref<OrderedObject&>());
    open_.pop_back();
    return true;
  }
  bool start_array(size_t) {
    open_.push_back(add(RequestJson::array()));
    return true;
  }
  bool end_array() {
    open_.pop_back();
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& e) {
    result_.error = e.id == 406 ? OrderedJsonParse::Error::kNumberOverflow : OrderedJsonParse::Error::kSyntax;
    result_.message = e.what();
    return false;
  }

  OrderedJsonParse take() {
    if (result_.error == OrderedJsonParse::Error::kNone) result_.value = std::move(root_);
    return std::move(result_);
  }

 private:
  // Places v: as the whole value, the open array's next element or the open object's member.
  RequestJson* add(RequestJson v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    if (open_.back()->is_array()) {
      RequestJson::array_t& items = open_.back()->get_ref<RequestJson::array_t&>();
      items.push_back(std::move(v));
      return &items.back();
    }
    *member_ = std::move(v);
    return member_;
  }

  // The path of the innermost open container: each open container is the last element or
  // member of the one around it.
  std::string open_path() const {
    std::string path;
    for (size_t i = 0; i + 1 < open_.size(); ++i) {
      const RequestJson& parent = *open_[i];
      if (parent.is_array()) {
        path += fmt::format("[{}]", parent.size() - 1);
      } else {
        path += (path.empty() ? "" : ".") + parent.get_ref<const OrderedObject&>().back().first;
      }
    }
    return path;
  }

  size_t max_keys_;
  RequestJson root_;
  std::vector<RequestJson*> open_;  // the open objects and arrays, outermost first
  RequestJson* member_ = nullptr;   // the object member whose value comes next
  OrderedJsonParse result_;
};

}  // namespace

OrderedJsonParse parse_ordered_json(std::string_view text, size_t max_object_keys) {
  OrderedBuilder builder(max_object_keys);
  try {
    RequestJson::sax_parse(text.begin(), text.end(), &builder);
  } catch (const nlohmann::json::exception& e) {  // the lexer reports through parse_error; kept safe
    OrderedJsonParse failed;
    failed.error = OrderedJsonParse::Error::kSyntax;
    failed.message = e.what();
    return failed;
  }
  return builder.take();
}

std::string too_many_keys_message(const std::string& path, size_t max_object_keys) {
  if (path.empty()) {
    return fmt::format("request body is an object with more than {} keys (the most one JSON object may have)",
                       max_object_keys);
  }
  return fmt::format("'{}' is an object with more than {} keys (the most one JSON object may have)", path,
                     max_object_keys);
}

}  // namespace strata::server
