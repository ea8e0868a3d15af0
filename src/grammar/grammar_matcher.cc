#include "grammar/grammar_matcher.h"

#include <algorithm>

namespace strata::grammar {

namespace {

using Slot = CompiledGrammar::Slot;

// Pops finished alternatives, then expands rule references until every resulting stack is
// empty (accepting) or has a byte set on top; appends those to *out.
void expand(const CompiledGrammar& g, Stack stack, std::vector<Stack>* out) {
  while (!stack.empty() && g.slots[stack.back()].kind == Slot::Kind::kEnd) stack.pop_back();
  if (stack.empty() || g.slots[stack.back()].kind == Slot::Kind::kBytes) {
    out->push_back(std::move(stack));
    return;
  }
  const uint32_t at = stack.back();
  const uint32_t rule = g.slots[at].value;
  // Return to the slot after the reference, unless that only ends the caller's alternative.
  stack.back() = at + 1;
  while (!stack.empty() && g.slots[stack.back()].kind == Slot::Kind::kEnd) stack.pop_back();
  for (uint32_t start : g.rule_starts[rule]) {
    Stack next = stack;
    next.push_back(start);
    expand(g, std::move(next), out);
  }
}

void sort_unique(std::vector<Stack>* stacks) {
  std::sort(stacks->begin(), stacks->end());
  stacks->erase(std::unique(stacks->begin(), stacks->end()), stacks->end());
}

}  // namespace

Result<std::shared_ptr<const CompiledGrammar>> CompiledGrammar::Compile(const Grammar& grammar) {
  STRATA_RETURN_IF_ERROR(validate_grammar(grammar));
  auto g = std::make_shared<CompiledGrammar>();
  g->rule_starts.resize(grammar.rules.size());
  for (size_t r = 0; r < grammar.rules.size(); ++r) {
    for (const Alternative& alt : grammar.rules[r].alternatives) {
      g->rule_starts[r].push_back(static_cast<uint32_t>(g->slots.size()));
      for (const Element& e : alt) {
        if (e.kind == Element::Kind::kRule) {
          g->slots.push_back({Slot::Kind::kRule, e.rule});
          continue;
        }
        auto it = std::find(g->sets.begin(), g->sets.end(), e.bytes);
        if (it == g->sets.end()) it = g->sets.insert(g->sets.end(), e.bytes);
        g->slots.push_back({Slot::Kind::kBytes, static_cast<uint32_t>(it - g->sets.begin())});
      }
      g->slots.push_back({Slot::Kind::kEnd, 0});
    }
  }
  return std::shared_ptr<const CompiledGrammar>(std::move(g));
}

GrammarMatcher::GrammarMatcher(std::shared_ptr<const CompiledGrammar> grammar) : grammar_(std::move(grammar)) {
  for (uint32_t start : grammar_->rule_starts[0]) expand(*grammar_, Stack{start}, &stacks_);
  sort_unique(&stacks_);
}

bool GrammarMatcher::step(const CompiledGrammar& g, const std::vector<Stack>& from, uint8_t byte,
                          std::vector<Stack>* out) {
  out->clear();
  for (const Stack& stack : from) {
    if (stack.empty()) continue;
    const Slot& top = g.slots[stack.back()];
    if (!g.sets[top.value].has(byte)) continue;
    Stack next = stack;
    ++next.back();
    expand(g, std::move(next), out);
    if (out->size() > kMaxStacks) {
      out->clear();
      return false;
    }
  }
  sort_unique(out);
  return !out->empty();
}

bool GrammarMatcher::accept(std::string_view bytes) {
  std::vector<Stack> current = stacks_, next;
  for (unsigned char b : bytes) {
    if (!step(*grammar_, current, b, &next)) return false;
    current.swap(next);
  }
  stacks_ = std::move(current);
  return true;
}

bool GrammarMatcher::accepting() const {
  return std::any_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return s.empty(); });
}

bool GrammarMatcher::can_continue() const {
  return std::any_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return !s.empty(); });
}

ByteSet GrammarMatcher::next_bytes() const {
  ByteSet out;
  for (const Stack& s : stacks_) {
    if (s.empty()) continue;
    const ByteSet& set = grammar_->sets[grammar_->slots[s.back()].value];
    for (int i = 0; i < 4; ++i) out.bits[i] |= set.bits[i];
  }
  return out;
}

std::string GrammarMatcher::state_key() const {
  std::string key;
  for (const Stack& s : stacks_) {
    key.append(reinterpret_cast<const char*>(s.data()), s.size() * sizeof(uint32_t));
    key.append(4, '\xff');  // no position is 0xffffffff
  }
  return key;
}

}  // namespace strata::grammar
