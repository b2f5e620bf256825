#include "lsp/Rpc.h"

namespace isam::lsp {

namespace {

[[noreturn]] void wrong(const char *key, const char *expected) {
  throw RpcError(InvalidParams, std::string("parameter '") + key + "' must be " + expected);
}

} // namespace

const json &required(const json &obj, const char *key) {
  if (!obj.is_object())
    throw RpcError(InvalidParams, std::string("parameters must be an object with '") + key + "'");
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    throw RpcError(InvalidParams, std::string("missing parameter '") + key + "'");
  return *it;
}

std::string stringAt(const json &obj, const char *key) {
  const json &v = required(obj, key);
  if (!v.is_string())
    wrong(key, "a string");
  return v.get<std::string>();
}

int64_t integerAt(const json &obj, const char *key) {
  const json &v = required(obj, key);
  if (!v.is_number_integer())
    wrong(key, "an integer");
  return v.get<int64_t>();
}

std::string optionalString(const json &obj, const char *key, const std::string &fallback) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null())
    return fallback;
  return stringAt(obj, key);
}

int64_t optionalInteger(const json &obj, const char *key, int64_t fallback) {
  if (!obj.is_object() || !obj.contains(key) || obj[key].is_null())
    return fallback;
  return integerAt(obj, key);
}

json parseMessage(std::string_view body) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (inString) {
      if (c == '\\')
        ++i; // an escaped character, '"' included
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw RpcError(ParseError, "the message nests arrays and objects more than " +
                                       std::to_string(kMaxJsonDepth) + " levels deep");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  try {
    return json::parse(body);
  } catch (const json::parse_error &e) {
    throw RpcError(ParseError, std::string("invalid JSON: ") + e.what());
  }
}

json response(const json &id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json errorResponse(const json &id, int code, const std::string &message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json notification(const std::string &method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

} // namespace isam::lsp
