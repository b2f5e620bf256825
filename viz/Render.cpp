#include "viz/Render.h"

#include "viz/RenderWorker.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <deque>
#include <map>
#include <mutex>
#include <string_view>

namespace isam::viz {

namespace {

std::mutex graphvizMutex;
std::string *captured = nullptr; // where Graphviz's messages go, while the mutex is held

int captureMessage(char *message) {
  if (captured && message)
    *captured += message;
  return 0;
}

// Holds the mutex and routes Graphviz's messages into `messages` for its lifetime.
class GraphvizLock {
public:
  explicit GraphvizLock(std::string &messages) : lock_(graphvizMutex) {
    captured = &messages;
    previousHandler_ = agseterrf(captureMessage);
    previousLevel_ = agseterr(AGWARN);
    agreseterrors();
  }
  ~GraphvizLock() {
    agseterr(previousLevel_);
    agseterrf(previousHandler_);
    captured = nullptr;
  }
  GraphvizLock(const GraphvizLock &) = delete;
  GraphvizLock &operator=(const GraphvizLock &) = delete;
  bool failed() const { return agerrors() >= AGERR; }

private:
  std::lock_guard<std::mutex> lock_;
  agusererrf previousHandler_ = nullptr;
  agerrlevel_t previousLevel_ = AGWARN;
};

// Object ids in reading order. Graphviz's default id discipline uses the address of each
// interned name as its id, and iterates subgraphs in id order, so the same DOT could give SVG
// with its clusters in a different order from one run to the next. Ids handed out in the order
// names are first read make the SVG a function of the DOT text alone.
struct Ids {
  std::map<std::string, IDTYPE, std::less<>> byName;
  std::deque<std::string> names; // id 2(i + 1) names names[i]; stable addresses
  IDTYPE anonymous = 1;          // odd ids for unnamed objects, as Graphviz's own
};

void *idOpen(Agraph_t *, Agdisc_t *) {
  return new Ids;
}

long idMap(void *state, int, char *str, IDTYPE *id, int create) {
  auto *ids = static_cast<Ids *>(state);
  if (!str) {
    *id = ids->anonymous;
    ids->anonymous += 2;
    return 1;
  }
  if (auto it = ids->byName.find(std::string_view(str)); it != ids->byName.end()) {
    *id = it->second;
    return 1;
  }
  if (!create)
    return 0;
  ids->names.emplace_back(str);
  *id = 2 * IDTYPE(ids->names.size());
  ids->byName.emplace(ids->names.back(), *id);
  return 1;
}

long idAlloc(void *, int, IDTYPE) {
  return 0;
} // no caller-chosen ids, as Graphviz's own

void idFree(void *, int, IDTYPE) {} // names live until the graph is closed

char *idPrint(void *state, int, IDTYPE id) {
  auto *ids = static_cast<Ids *>(state);
  if (id % 2 != 0 || id == 0 || id / 2 > ids->names.size())
    return nullptr;
  return ids->names[size_t(id / 2 - 1)].data();
}

void idClose(void *state) {
  delete static_cast<Ids *>(state);
}

void idRegister(void *, int, void *) {}

Agiddisc_t orderedIds = {idOpen, idMap, idAlloc, idFree, idPrint, idClose, idRegister};

struct Text {
  const std::string &data;
  size_t at = 0;
};

// Reads a line at a time, as Graphviz's own reader of strings does.
int readText(void *chan, char *buf, int size) {
  auto *t = static_cast<Text *>(chan);
  int n = 0;
  while (n < size && t->at < t->data.size()) {
    char c = t->data[t->at++];
    buf[n++] = c;
    if (c == '\n')
      break;
  }
  return n;
}

Agiodisc_t textIo = {readText, nullptr, nullptr};

// agmemread with the ordered id discipline.
Agraph_t *readDot(const std::string &dot) {
  textIo.putstr = AgIoDisc.putstr;
  textIo.flush = AgIoDisc.flush;
  static Agdisc_t disc = {&AgMemDisc, &orderedIds, &textIo};
  Text text{dot};
  return agread(&text, &disc);
}

} // namespace

bool parses(const std::string &dot, std::string *error) {
  std::string messages;
  bool ok = false;
  {
    GraphvizLock session(messages);
    Agraph_t *g = agmemread(dot.c_str());
    ok = g != nullptr && !session.failed();
    if (g)
      agclose(g);
  }
  if (error)
    *error = messages.empty() && !ok ? "Graphviz could not parse the graph" : messages;
  return ok;
}

Rendered render(const std::string &dot, Format format) {
  return detail::workerConfigured() ? detail::renderInWorker(dot, format)
                                    : renderInProcess(dot, format);
}

Rendered renderInProcess(const std::string &dot, Format format) {
  Rendered out;
  std::string messages;
  {
    GraphvizLock session(messages);
    Agraph_t *g = readDot(dot);
    if (!g || session.failed()) {
      if (g)
        agclose(g);
      out.error = messages.empty() ? "Graphviz could not parse the graph" : messages;
      return out;
    }
    if (format == Format::Dot) {
      agclose(g);
      out.ok = true;
      out.data = dot;
      return out;
    }
    GVC_t *gvc = gvContext();
    if (!gvc) {
      agclose(g);
      out.error = "Graphviz could not create a context";
      return out;
    }
    if (gvLayout(gvc, g, "dot") != 0 || session.failed()) {
      out.error = messages.empty() ? "Graphviz could not lay the graph out" : messages;
    } else {
      char *data = nullptr;
      unsigned int length = 0;
      const char *name = format == Format::Svg ? "svg" : "png";
      if (gvRenderData(gvc, g, name, &data, &length) != 0 || !data || session.failed()) {
        out.error = messages.empty() ? std::string("Graphviz could not render ") + name : messages;
      } else {
        out.data.assign(data, length);
        out.ok = true;
      }
      if (data)
        gvFreeRenderData(data);
      gvFreeLayout(gvc, g);
    }
    agclose(g);
    gvFreeContext(gvc);
  }
  if (out.ok)
    out.error = messages; // warnings, if any
  return out;
}

} // namespace isam::viz
