#include "grammar/grammar.h"

#include <fmt/format.h>

namespace strata::grammar {

namespace {

// Which rules can match the empty string (a fixpoint over the alternatives).
std::vector<bool> nullable_rules(const Grammar& g) {
  std::vector<bool> nullable(g.rules.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < g.rules.size(); ++r) {
      if (nullable[r]) continue;
      for (const Alternative& alt : g.rules[r].alternatives) {
        bool all = true;
        for (const Element& e : alt) all = all && e.kind == Element::Kind::kRule && nullable[e.rule];
        if (all) {
          nullable[r] = changed = true;
          break;
        }
      }
    }
  }
  return nullable;
}

// Depth-first search for a cycle through leftmost references; returns the rule on it or -1.
int find_left_cycle(const std::vector<std::vector<uint32_t>>& edges) {
  enum Mark : uint8_t { kNew, kOnPath, kDone };
  std::vector<Mark> mark(edges.size(), kNew);
  std::vector<std::pair<uint32_t, size_t>> stack;
  for (uint32_t start = 0; start < edges.size(); ++start) {
    if (mark[start] != kNew) continue;
    stack.push_back({start, 0});
    mark[start] = kOnPath;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == edges[node].size()) {
        mark[node] = kDone;
        stack.pop_back();
        continue;
      }
      const uint32_t to = edges[node][next++];
      if (mark[to] == kOnPath) return static_cast<int>(to);
      if (mark[to] == kNew) {
        mark[to] = kOnPath;
        stack.push_back({to, 0});
      }
    }
  }
  return -1;
}

}  // namespace

Status validate_grammar(const Grammar& g) {
  if (g.rules.empty()) return Status::InvalidArgument("grammar: no rules");
  for (const Rule& rule : g.rules) {
    if (rule.alternatives.empty()) {
      return Status::InvalidArgument(fmt::format("grammar: rule '{}' has no alternatives", rule.name));
    }
    for (const Alternative& alt : rule.alternatives) {
      for (const Element& e : alt) {
        if (e.kind == Element::Kind::kRule && e.rule >= g.rules.size()) {
          return Status::InvalidArgument(fmt::format("grammar: rule '{}' refers to a missing rule", rule.name));
        }
      }
    }
  }
  const std::vector<bool> nullable = nullable_rules(g);
  std::vector<std::vector<uint32_t>> leftmost(g.rules.size());
  for (size_t r = 0; r < g.rules.size(); ++r) {
    for (const Alternative& alt : g.rules[r].alternatives) {
      for (const Element& e : alt) {
        if (e.kind != Element::Kind::kRule) break;
        leftmost[r].push_back(e.rule);
        if (!nullable[e.rule]) break;
      }
    }
  }
  if (int r = find_left_cycle(leftmost); r >= 0) {
    return Status::InvalidArgument(fmt::format(
        "grammar: rule '{}' is left-recursive (it can reach itself without reading a byte)", g.rules[r].name));
  }
  return Status::Ok();
}

}  // namespace strata::grammar
