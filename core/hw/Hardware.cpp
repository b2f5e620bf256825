#include "hw/Hardware.h"

#include <algorithm>
#include <sstream>

namespace isam::hw {

int Target::memoryIndex(const std::string &name) const {
  for (size_t i = 0; i < memories.size(); ++i)
    if (memories[i].name == name)
      return int(i);
  return -1;
}

const Instruction *Target::instruction(const std::string &name) const {
  for (const auto &i : instructions)
    if (i.name == name)
      return &i;
  return nullptr;
}

bool Target::isAncestor(int ancestor, int memory) const {
  for (int m = memories[memory].parent; m >= 0; m = memories[m].parent)
    if (m == ancestor)
      return true;
  return false;
}

namespace {

double flopsPerCycle(const Instruction &i) {
  if (i.isMove || i.semantics.statements.empty())
    return 0;
  const ir::Statement &s = i.semantics.statements[0];
  return double(s.pointCount()) * s.flopsPerPoint() * i.cost.perCycle;
}

} // namespace

const Instruction *Target::peakInstruction() const {
  const Instruction *peak = nullptr;
  double best = 0;
  for (const auto &i : instructions)
    if (double f = flopsPerCycle(i); f > best)
      best = f, peak = &i;
  return peak;
}

double Target::peakFlopsPerCycle() const {
  const Instruction *peak = peakInstruction();
  return peak ? flopsPerCycle(*peak) : 0;
}

void Target::setClock(double hz) {
  if (hz <= 0 || hz == clockHz)
    return;
  double scale = clockHz / hz;
  for (auto &m : memories)
    if (m.bandwidthPerSecond)
      m.bandwidthBytesPerCycle *= scale;
  for (auto &i : instructions)
    if (i.cost.bandwidthPerSecond)
      i.cost.bandwidthBytesPerCycle *= scale;
  clockHz = hz;
}

bool Target::isSoftwareManaged(int memory) const {
  if (memories[memory].isRegisters)
    return true;
  for (const auto &in : instructions) {
    if (!in.isMove)
      continue;
    bool fills = false, fromOutside = false;
    for (const auto &op : in.semantics.tensors) {
      int m = memoryIndex(op.memory);
      if (op.role != ir::TensorRole::Input)
        fills = fills || m == memory;
      else
        fromOutside = fromOutside || (m >= 0 && isAncestor(m, memory));
    }
    if (fills && fromOutside)
      return true;
  }
  return false;
}

namespace {

std::string bytes(uint64_t b) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && b % 1024 == 0 && u < 4) {
    b /= 1024;
    ++u;
  }
  return std::to_string(b) + " " + units[u];
}

} // namespace

std::string printTarget(const Target &t) {
  std::ostringstream out;
  out << "target " << t.name << "\n";
  if (!t.triple.empty())
    out << "  llvm triple \"" << t.triple << "\" cpu \"" << t.cpu << "\" features \"" << t.features
        << "\"\n";
  out << "  cores " << t.cores << ", clock " << t.clockHz / 1e9 << " GHz\n";
  for (const auto &m : t.memories) {
    out << "  " << (m.isRegisters ? "registers " : "memory ") << m.name;
    if (m.parent >= 0)
      out << " : " << t.memories[m.parent].name;
    if (m.isRegisters)
      out << "  count " << m.registerCount << ", width " << m.registerBytes << " B";
    else
      out << "  size " << bytes(m.sizeBytes);
    if (m.lineBytes)
      out << ", line " << m.lineBytes << " B";
    if (m.banks > 1)
      out << ", banks " << m.banks;
    if (m.bandwidthBytesPerCycle > 0)
      out << ", bandwidth " << m.bandwidthBytesPerCycle << " B/cycle";
    if (m.latencyCycles > 0)
      out << ", latency " << m.latencyCycles;
    if (m.misses > 0)
      out << ", misses " << m.misses;
    if (m.streams > 0)
      out << ", streams " << m.streams;
    if (m.ways > 0)
      out << ", ways " << m.ways;
    out << "\n";
  }
  for (const auto &u : t.units) {
    out << "  unit " << u.name << "  count " << u.count;
    if (u.queue > 1)
      out << ", queue " << u.queue;
    out << "\n";
  }
  for (const auto &i : t.instructions) {
    out << "  " << (i.isMove ? "move " : "instr ") << i.name;
    if (!i.sizeParams.empty()) {
      out << "<";
      for (size_t p = 0; p < i.sizeParams.size(); ++p)
        out << (p ? ", " : "") << i.sizeParams[p];
      out << ">";
    }
    if (i.unit >= 0)
      out << " on " << t.units[i.unit].name;
    out << "  latency " << i.cost.latencyCycles << ", per_cycle " << i.cost.perCycle;
    if (i.cost.bandwidthBytesPerCycle > 0)
      out << ", bandwidth " << i.cost.bandwidthBytesPerCycle << " B/cycle";
    out << "\n";
    for (const auto &op : i.semantics.tensors) {
      out << "    " << ir::tensorRoleName(op.role) << " " << op.name << ": "
          << ir::elemTypeName(op.type);
      if (!op.shape.empty()) {
        out << "[";
        for (size_t d = 0; d < op.shape.size(); ++d)
          out << (d ? ", " : "")
              << (op.shapeParams[d].empty() ? std::to_string(op.shape[d]) : op.shapeParams[d]);
        out << "]";
      }
      out << " in " << op.memory << "\n";
    }
    for (const auto &s : i.semantics.statements)
      out << "    " << ir::printStatement(s, i.semantics.tensors) << "\n";
    if (!i.asmTemplate.empty())
      out << "    asm \"" << i.asmTemplate << "\"\n";
  }
  return out.str();
}

std::string printSystem(const System &s) {
  std::ostringstream out;
  out << "system " << s.name << "\n";
  for (const auto &h : s.hosts)
    out << "  host " << h << "\n";
  for (const auto &d : s.devices)
    out << "  device " << d << "\n";
  for (const auto &group : s.shared) {
    out << "  shared";
    for (size_t i = 0; i < group.size(); ++i)
      out << (i ? ", " : " ") << group[i].target << "." << group[i].memory;
    out << "\n";
  }
  for (const auto &l : s.links)
    out << "  link " << l.from.target << "." << l.from.memory << " -> " << l.to.target << "."
        << l.to.memory << "  bandwidth " << l.bandwidthBytesPerCycle << " B/cycle\n";
  return out.str();
}

} // namespace isam::hw
