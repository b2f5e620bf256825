// What a request handler gets: its parameters, the workspace, a way to notice that the client
// cancelled, and work-done progress reporting when the client gave a token.
#pragma once

#include "lsp/ProtocolJson.h"
#include "lsp/Rpc.h"
#include "lsp/Workspace.h"

#include <functional>

namespace isam::lsp {

struct Call {
  const json &params;
  Workspace &workspace;
  std::function<bool()> cancelled;
  std::function<void(const json &message)> send; // $/progress notifications of this request

  // Throws RpcError(RequestCancelled) when the client cancelled the request.
  void checkCancelled() const {
    if (cancelled())
      throw RpcError(RequestCancelled, "cancelled");
  }

  // $/progress on the client's workDoneToken, if it sent one; nothing otherwise.
  void progressBegin(const std::string &title) const {
    progress({{"kind", "begin"}, {"title", title}});
  }
  void progressReport(const std::string &message) const {
    progress({{"kind", "report"}, {"message", message}});
  }
  void progressEnd() const { progress({{"kind", "end"}}); }

  // The open document the request names (params.textDocument.uri), analysed.
  std::shared_ptr<Analysis> document() const { return workspace.current(documentUri(params)); }

private:
  void progress(json value) const {
    if (params.is_object() && params.contains("workDoneToken") &&
        (params["workDoneToken"].is_string() || params["workDoneToken"].is_number_integer()))
      send(notification("$/progress", {{"token", params["workDoneToken"]}, {"value", value}}));
  }
};

using Handler = std::function<json(Call &)>;

struct Feature {
  Handler handler;
  bool slow = false; // runs compiler stages that may take a while: served apart from quick ones
};

// Every request the server answers beyond the lifecycle ones, by method name (Handlers.cpp).
std::map<std::string, Feature> features();

// The capabilities that match features() (for the initialize result).
json serverCapabilities();

} // namespace isam::lsp
