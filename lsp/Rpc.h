// JSON-RPC 2.0 as the Language Server Protocol uses it: error codes, the error a handler throws
// to answer a request with one, and typed access to parameters that answers a wrong type with
// InvalidParams naming the field.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace isam::lsp {

using json = nlohmann::json;

enum ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  RequestCancelled = -32800,
  ContentModified = -32801,
};

struct RpcError : std::runtime_error {
  RpcError(int code, const std::string &message) : std::runtime_error(message), code(code) {}
  int code;
};

// `obj[key]` when present and of the right kind; RpcError(InvalidParams) otherwise.
const json &required(const json &obj, const char *key);
std::string stringAt(const json &obj, const char *key);
int64_t integerAt(const json &obj, const char *key);
// Absent or null gives `fallback`; a wrong type is still an error.
std::string optionalString(const json &obj, const char *key, const std::string &fallback = {});
int64_t optionalInteger(const json &obj, const char *key, int64_t fallback);

// The deepest nesting of arrays and objects a message may have (the protocol's messages need
// about ten levels; settings a few more).
constexpr size_t kMaxJsonDepth = 256;

// One message body parsed. RpcError(ParseError) for text that is not JSON, and for nesting deeper
// than kMaxJsonDepth, found by a linear scan before the parser sees the text: copying, comparing
// and printing a json value recurse once per level, so a few hundred kilobytes of '[' would
// overflow the stack wherever the message is used.
json parseMessage(std::string_view body);

json response(const json &id, json result);
json errorResponse(const json &id, int code, const std::string &message);
json notification(const std::string &method, json params);

} // namespace isam::lsp
