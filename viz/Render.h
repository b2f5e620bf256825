// Rendering DOT text with Graphviz's libgvc (no `dot` process): layout with the dot engine, then
// SVG or PNG bytes. Graphviz keeps global state, so calls are serialised by a
// mutex; its messages are captured rather than printed. The graph is read (agread from memory,
// as agmemread does) with ids given in reading order, so the same DOT gives the same SVG.
#pragma once

#include <string>

namespace isam::viz {

enum class Format { Dot, Svg, Png };

struct Rendered {
  bool ok = false;
  std::string data;  // the DOT text itself, SVG text or PNG bytes
  std::string error; // Graphviz's messages when !ok
};

// Format::Dot returns the text unchanged (after checking that Graphviz parses it). In a worker
// process once viz::useRenderWorker() was called (RenderWorker.h), in this one otherwise.
Rendered render(const std::string &dot, Format format);

// The same, always in this process.
Rendered renderInProcess(const std::string &dot, Format format);

// Whether Graphviz's parser (agmemread) accepts `dot`; its message otherwise.
bool parses(const std::string &dot, std::string *error = nullptr);

} // namespace isam::viz
