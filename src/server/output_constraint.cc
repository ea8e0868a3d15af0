#include "server/output_constraint.h"

#include <fmt/format.h>

#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/json_schema.h"
#include "grammar/schema_pieces.h"
#include "server/json_fields.h"

namespace strata::server {

namespace {

using nlohmann::json;

// Compiles GBNF text into out's constraint; errors are prefixed with the field they came from.
Status set_constraint(const std::string& gbnf, const char* field, CompletionRequest* out) {
  Result<grammar::Grammar> parsed = grammar::parse_gbnf(gbnf);
  if (!parsed.ok()) return Status::InvalidArgument(fmt::format("'{}': {}", field, parsed.status().message()));
  auto compiled = grammar::CompiledGrammar::Compile(*parsed);
  if (!compiled.ok()) return Status::InvalidArgument(fmt::format("'{}': {}", field, compiled.status().message()));
  out->generate.constraint = std::move(compiled).value();
  // A thinking model answers a constrained request without a reasoning block (which the
  // grammar would not allow), unless the client chose otherwise.
  RequestJson& kwargs = out->prompt.template_kwargs;
  if (!kwargs.is_object()) kwargs = RequestJson::object();
  if (!kwargs.contains("enable_thinking")) kwargs["enable_thinking"] = false;
  return Status::Ok();
}

Result<std::string> response_format_gbnf(const RequestJson& format) {
  const std::string type = string_or_empty(format, "type");
  if (type == "json_object") return grammar::any_json_gbnf();
  if (type != "json_schema") {
    return Status::InvalidArgument(fmt::format(
        "'response_format.type' must be \"text\", \"json_object\" or \"json_schema\", got {}",
        describe_value(format.is_object() && format.contains("type") ? format["type"] : format)));
  }
  const RequestJson* spec = find_field(format, "json_schema");
  const RequestJson* schema = spec && spec->is_object() ? find_field(*spec, "schema") : nullptr;
  if (!schema) {
    return Status::InvalidArgument("'response_format.json_schema.schema' is required for type \"json_schema\"");
  }
  if (const RequestJson* strict = find_field(*spec, "strict"); strict && !strict->is_boolean() && !strict->is_null()) {
    return Status::InvalidArgument("'response_format.json_schema.strict' must be a boolean");
  }
  Result<std::string> gbnf = grammar::json_schema_to_gbnf(*schema);
  if (!gbnf.ok()) {
    return Status::InvalidArgument(fmt::format("'response_format.json_schema.schema': {}", gbnf.status().message()));
  }
  return gbnf;
}

}  // namespace

Status parse_openai_output_format(const RequestJson& body, CompletionRequest* out) {
  const RequestJson* format = find_field(body, "response_format");
  const RequestJson* grammar = find_field(body, "grammar");
  if (format && format->is_null()) format = nullptr;
  if (grammar && grammar->is_null()) grammar = nullptr;
  if (format && !format->is_object()) {
    return Status::InvalidArgument(fmt::format("'response_format' must be an object, got {}", describe_value(*format)));
  }
  if (format && string_or_empty(*format, "type") == "text") format = nullptr;
  if (format && grammar) return Status::InvalidArgument("send either 'response_format' or 'grammar', not both");
  if ((format || grammar) && out->generate.constraint) {
    return Status::InvalidArgument(fmt::format("'{}' cannot be combined with a tool_choice that forces a call",
                                               format ? "response_format" : "grammar"));
  }
  if (grammar) {
    if (!grammar->is_string()) {
      return Status::InvalidArgument(fmt::format("'grammar' must be a string of GBNF, got {}", describe_value(*grammar)));
    }
    return set_constraint(grammar->get<std::string>(), "grammar", out);
  }
  if (!format) return Status::Ok();
  STRATA_ASSIGN_OR_RETURN(std::string gbnf, response_format_gbnf(*format));
  return set_constraint(gbnf, "response_format", out);
}

Result<std::string> tool_call_gbnf(const RequestJson& tools) {
  std::string root, rules;
  for (size_t i = 0; i < tools.size(); ++i) {
    const RequestJson& function = tools[i]["function"];
    const std::string name = function["name"].get<std::string>();
    const RequestJson schema = function.contains("parameters") && function["parameters"].is_object()
                                   ? function["parameters"]
                                   : RequestJson{{"type", "object"}, {"additionalProperties", true}};
    Result<grammar::SchemaGbnf> args = grammar::json_schema_rules(schema, fmt::format("t{}-", i));
    if (!args.ok()) {
      return Status::InvalidArgument(
          fmt::format("'tools[{}]' (\"{}\") parameters: {}", i, name, args.status().message()));
    }
    const std::string head = "<tool_call>\n{\"name\": " + json(name).dump() + ", \"arguments\": ";
    root += fmt::format("{}{} {} \"}}\\n</tool_call>\"", root.empty() ? "" : " | ",
                        grammar::gbnf_literal(head), args->expr);
    rules += args->rules;
  }
  return "root ::= " + root + "\n" + grammar::primitive_gbnf_rules() + rules;
}

Status force_tool_call(const RequestJson& tools, CompletionRequest* out) {
  if (!tools.is_array() || tools.empty()) return Status::Ok();
  STRATA_ASSIGN_OR_RETURN(std::string gbnf, tool_call_gbnf(tools));
  return set_constraint(gbnf, "tool_choice", out);
}

}  // namespace strata::server
