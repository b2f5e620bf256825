// The layer suite: the full-size instances of samples/dwsep.isam, samples/gru.isam and
// samples/lstm.isam (not the *_small / *_unit test instances), compiled by isamap and run against
// the same computation built from oneDNN primitives (OnednnLayers.h), on the same inputs.
#include "OnednnLayers.h"
#include "Suites.h"

#include <exception>
#include <functional>
#include <map>

namespace isam::bench {

namespace {

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int64_t sizeOf(const ir::Kernel &k, const std::string &name) {
  for (const auto &[n, v] : k.sizes)
    if (n == name)
      return v;
  return 0;
}

// One oneDNN variant of a layer: its column name and how to build it from the inputs (by
// tensor name).
struct Variant {
  std::string column;
  std::function<std::unique_ptr<OnednnLayer>(const ir::Kernel &, std::map<std::string, Buffer> &)>
      make;
};

// `output`: the output compared with oneDNN's (the one OnednnLayer::result gives).
void runSample(Context &cx, const std::string &sample, const std::string &output,
               const std::vector<Variant> &variants, Report &report) {
  const Options &o = cx.options;
  const std::string file = o.sourceDir + "/samples/" + sample;
  std::string error;
  std::vector<std::string> names = instanceNames(file, error);
  if (!error.empty()) {
    std::fprintf(stderr, "%s: %s\n", file.c_str(), error.c_str());
    return;
  }
  // oneDNN's thread count is its OpenMP runtime's, set through the sgemm library's handle.
  SgemmLibrary *onednn = nullptr;
  for (SgemmLibrary *lib : cx.libraries)
    if (lib && lib->name() == "onednn")
      onednn = lib;

  for (const std::string &name : names) {
    if (endsWith(name, "_small") || endsWith(name, "_unit") ||
        name.find(o.filter) == std::string::npos)
      continue;
    CompiledKernel ck = compileInstance(file, {name, "", {}}, cx.target, cx.executor);
    if (ck.kernel.tensors.empty()) { // not even instantiated: nothing to size the buffers by
      std::fprintf(stderr, "%s: %s\n", name.c_str(), ck.error.c_str());
      continue;
    }
    // Every input and output, by name.
    std::map<std::string, Buffer> buffers;
    std::vector<void *> args;
    uint64_t seed = 1;
    for (const auto &t : ck.kernel.tensors) {
      if (t.role == ir::TensorRole::Local)
        continue;
      Buffer &b = buffers[t.name] = Buffer(size_t(t.elementCount()));
      if (t.role == ir::TensorRole::Input)
        fillRandom(b, seed++);
      args.push_back(b.data());
    }
    if (!buffers.count(output)) {
      std::fprintf(stderr, "%s: no output %s\n", name.c_str(), output.c_str());
      continue;
    }
    size_t outCount = buffers[output].size();
    Buffer ref(outCount);

    for (int threads : o.threads) {
      Row row;
      row.label = name;
      row.threads = threads;
      row.flops = ck.kernel.flopCount(); // 2 per multiply-accumulate, 1 per other operation
      row.bytes = kernelBytes(ck.kernel);
      row.rooflineGflops = cx.roofline.gflops(row.flops, row.bytes, threads);
      row.compiled = ck.entry != nullptr;
      row.compileMs = ck.compileMs();
      row.mapScheduleMs = ck.mapScheduleMs;
      row.times = ck.times;

      std::string reference;
      for (const Variant &v : variants) {
        Figure f;
        if (!onednn) {
          f.note = "not loaded";
        } else if (!onednn->setThreads(threads)) {
          f.note = "cannot run on " + std::to_string(threads) + " threads";
        } else {
          try {
            // Created after the thread count is set: oneDNN plans its threading then.
            std::unique_ptr<OnednnLayer> layer = v.make(ck.kernel, buffers);
            f.timing = timeCalls([&] { layer->run(); }, o.repeat);
            f.measured = true;
            f.gflops = row.flops / f.timing.bestS / 1e9;
            f.note = layer->implementation();
            if (o.check && reference.empty()) {
              layer->result(ref.data());
              reference = v.column;
            }
          } catch (const std::exception &e) {
            f.note = std::string("oneDNN: ") + e.what();
          }
        }
        row.libraries.push_back(f);
      }

      measureIsamap(row, ck, args, threads, o, buffers[output], ref, outCount, reference);
      report.add(std::move(row));
    }
  }
}

} // namespace

void runLayerSuite(Context &cx, Report &dwsep, Report &gru, Report &lstm) {
  auto dwsepVariant = [](bool blocked) {
    return [blocked](const ir::Kernel &k, std::map<std::string, Buffer> &b) {
      return makeDwsep(sizeOf(k, "C"), sizeOf(k, "H"), sizeOf(k, "W"), sizeOf(k, "F"),
                       b["I"].data(), b["D"].data(), b["P"].data(), blocked);
    };
  };
  runSample(cx, "dwsep.isam", "O",
            {{"onednn-nchw", dwsepVariant(false)}, {"onednn-blocked", dwsepVariant(true)}}, dwsep);
  runSample(cx, "gru.isam", "Hn",
            {{"onednn-lbr-gru",
              [](const ir::Kernel &k, std::map<std::string, Buffer> &b) {
                return makeLbrGru(sizeOf(k, "B"), sizeOf(k, "I"), sizeOf(k, "H"), b["X"].data(),
                                  b["Hp"].data(), b["W"].data(), b["U"].data(), b["Bx"].data(),
                                  b["Bh"].data());
              }}},
            gru);
  // Hn reads Cn and every gate: comparing it checks the whole cell.
  runSample(cx, "lstm.isam", "Hn",
            {{"onednn-lstm",
              [](const ir::Kernel &k, std::map<std::string, Buffer> &b) {
                return makeLstm(sizeOf(k, "B"), sizeOf(k, "I"), sizeOf(k, "H"), b["X"].data(),
                                b["Hp"].data(), b["Cp"].data(), b["W"].data(), b["U"].data(),
                                b["Bias"].data());
              }}},
            lstm);
}

} // namespace isam::bench
