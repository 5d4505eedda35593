// The JIT: one mapping holding the text, after it a 16-byte stub per
// external symbol (`jmp [rip+0]; dq target`), so rel32 calls reach targets
// anywhere in the address space, and from the next page on the read-only data
// (one mapping keeps it within rip-relative reach). Written while RW, then the
// code pages made RX and the data pages R.
#include "codegen/x86/jit.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "ir/error.h"
#include "runtime/tirc_runtime.h"

namespace tirc {

struct JitModule::Mapping {
  uint8_t* base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base) munmap(base, size);
  }
};

namespace {

void* resolve(const std::string& name) {
  if (name == "tirc_parallel_for") return reinterpret_cast<void*>(&tirc_parallel_for);
  if (name == "tirc_set_num_threads") return reinterpret_cast<void*>(&tirc_set_num_threads);
  if (name == "tirc_get_num_threads") return reinterpret_cast<void*>(&tirc_get_num_threads);
  if (name == "tirc_alloc") return reinterpret_cast<void*>(&tirc_alloc);
  if (name == "tirc_free") return reinterpret_cast<void*>(&tirc_free);
  void* p = dlsym(RTLD_DEFAULT, name.c_str());
  if (!p) throw Error("jit: cannot resolve external symbol '" + name + "'");
  return p;
}

constexpr size_t kStubBytes = 16;

}  // namespace

JitModule::JitModule(const MachineCode& code)
    : mapping_(std::make_unique<Mapping>()), symbols_(code.symbols) {
  std::map<std::string, size_t> stub_of;
  for (const auto& c : code.external_calls) stub_of.emplace(c.symbol, stub_of.size());
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t stubs_at = (code.text.size() + 15) / 16 * 16;
  const size_t code_bytes =
      std::max<size_t>((stubs_at + stub_of.size() * kStubBytes + page - 1) / page * page, page);
  const size_t rodata_at = code_bytes;  // page-aligned, so 64-aligned
  const size_t rodata_bytes = (code.rodata.size() + page - 1) / page * page;
  const size_t bytes = code_bytes + rodata_bytes;
  if (bytes > (size_t{1} << 31))
    throw Error("jit: code and read-only data of " + std::to_string(bytes) +
                " bytes exceed rip-relative reach (2 GiB)");
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw Error("jit: mmap of " + std::to_string(bytes) + " bytes failed");
  mapping_->base = static_cast<uint8_t*>(p);
  mapping_->size = bytes;
  uint8_t* base = mapping_->base;
  if (!code.text.empty()) std::memcpy(base, code.text.data(), code.text.size());
  for (const auto& [name, index] : stub_of) {
    uint8_t* stub = base + stubs_at + index * kStubBytes;
    const uint8_t jmp[6] = {0xFF, 0x25, 0, 0, 0, 0};  // jmp qword [rip + 0]
    std::memcpy(stub, jmp, 6);
    uint64_t target = reinterpret_cast<uint64_t>(resolve(name));
    std::memcpy(stub + 6, &target, 8);
  }
  for (const auto& c : code.external_calls) {
    if (c.offset + 4 > code.text.size()) throw Error("jit: external call outside the text");
    const int64_t stub = static_cast<int64_t>(stubs_at + stub_of.at(c.symbol) * kStubBytes);
    const int32_t rel = static_cast<int32_t>(stub - static_cast<int64_t>(c.offset + 4));
    std::memcpy(base + c.offset, &rel, 4);
  }
  if (!code.rodata.empty()) std::memcpy(base + rodata_at, code.rodata.data(), code.rodata.size());
  for (const auto& d : code.data_references) {
    if (d.offset + 4 > code.text.size()) throw Error("jit: data reference outside the text");
    if (d.rodata_offset > code.rodata.size()) throw Error("jit: data reference outside rodata");
    const int64_t target = static_cast<int64_t>(rodata_at + d.rodata_offset);
    const int32_t rel = static_cast<int32_t>(target - static_cast<int64_t>(d.offset + 4));
    std::memcpy(base + d.offset, &rel, 4);
  }
  if (mprotect(base, code_bytes, PROT_READ | PROT_EXEC) != 0)
    throw Error("jit: mprotect to read+exec failed");
  if (rodata_bytes && mprotect(base + rodata_at, rodata_bytes, PROT_READ) != 0)
    throw Error("jit: mprotect of read-only data failed");
}

JitModule::~JitModule() = default;
JitModule::JitModule(JitModule&&) noexcept = default;
JitModule& JitModule::operator=(JitModule&&) noexcept = default;

void* JitModule::address(std::string_view symbol) const {
  for (const auto& s : symbols_)
    if (s.name == symbol) return mapping_->base + s.offset;
  throw Error("jit: no symbol '" + std::string(symbol) + "'");
}

JitModule::PackedFn JitModule::packed(std::string_view symbol) const {
  return reinterpret_cast<PackedFn>(address(std::string(symbol) + "_packed"));
}

int call_jit(const JitModule& module, std::string_view symbol, const PrimFunc& f,
             const std::vector<Argument>& args) {
  if (args.size() != f->params.size())
    throw Error("call_jit: " + std::string(symbol) + " takes " + std::to_string(f->params.size()) +
                " arguments, got " + std::to_string(args.size()));
  std::vector<void*> pointers(args.size());
  std::vector<uint64_t> scalars(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Param& p = f->params[i];
    if (p.buffer) {
      NDArray* a = args[i].array;
      if (!a)
        throw Error("call_jit: argument " + std::to_string(i) + " (" + p.buffer->name +
                    ") needs an array");
      if (a->dtype() != p.buffer->dtype)
        throw Error("call_jit: buffer " + p.buffer->name + " is " + p.buffer->dtype.str() +
                    ", the array is " + a->dtype().str());
      if (a->shape().size() != p.buffer->shape.size())
        throw Error("call_jit: buffer " + p.buffer->name + " has " +
                    std::to_string(p.buffer->shape.size()) + " dimensions, the array " +
                    std::to_string(a->shape().size()));
      for (size_t d = 0; d < a->shape().size(); ++d) {
        auto e = as_const_int(p.buffer->shape[d]);
        if (!e || *e != a->shape()[d])
          throw Error("call_jit: shape of buffer " + p.buffer->name +
                      " does not match the array in dimension " + std::to_string(d));
      }
      pointers[i] = a->data();
      continue;
    }
    DataType t = p.var->dtype;
    uint64_t bits = 0;
    if (t.is_float()) {
      if (t.bits() == 64) {
        std::memcpy(&bits, &args[i].float_value, 8);
      } else if (t.bits() == 32) {
        float v = static_cast<float>(args[i].float_value);
        std::memcpy(&bits, &v, 4);
      } else {
        throw Error("call_jit: scalar parameter " + p.var->name + " of type " + t.str() +
                    " is not supported");
      }
    } else {
      int64_t v = args[i].int_value;
      std::memcpy(&bits, &v, 8);  // little-endian: narrower types read the low bytes
    }
    scalars[i] = bits;
    pointers[i] = &scalars[i];
  }
  return module.packed(symbol)(pointers.data());
}

}  // namespace tirc
