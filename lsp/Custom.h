// Request handlers: isamap's own requests (isamap/mappings, isamap/schedule, isamap/diagram,
// isamap/targetCode; parameters and results in the README).
#pragma once

#include "lsp/Call.h"

namespace isam::lsp {

json mappingsRequest(Call &call);
json scheduleRequest(Call &call);
json diagramRequest(Call &call);
json targetCodeRequest(Call &call);

} // namespace isam::lsp
