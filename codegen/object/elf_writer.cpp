#include "codegen/object/elf_writer.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "ir/error.h"

namespace tirc {
namespace {

// A string table: "\0name\0name\0...", offsets of each name, sharing nothing
// clever (tails are not merged) so the layout is easy to check by eye.
class StringTable {
 public:
  StringTable() { bytes_.push_back('\0'); }
  uint32_t add(std::string_view s) {
    if (s.empty()) return 0;
    auto offset = static_cast<uint32_t>(bytes_.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.push_back('\0');
    return offset;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Section indices in the order the sections are written.
enum SectionIndex : uint16_t {
  kNull = 0,
  kText,
  kRelaText,
  kNoteGnuStack,
  kSymtab,
  kStrtab,
  kShstrtab,
  kNumSections,
  // Only when there is read-only data, after the others so objects without
  // it keep their layout.
  kRodata = kNumSections
};

// The host is x86-64 (little endian, like the object), so <elf.h>'s structs
// are already laid out byte for byte as the file wants them.
template <class T>
void append_struct(std::vector<uint8_t>& out, const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

void pad_to(std::vector<uint8_t>& out, uint64_t alignment) {
  while (out.size() % alignment != 0) out.push_back(0);
}

void check(const MachineCode& code) {
  const uint64_t align = code.text_alignment;
  if (align == 0 || (align & (align - 1)) != 0)
    throw Error("ELF writer: text alignment " + std::to_string(align) + " is not a power of two");
  std::map<std::string_view, int> seen;
  for (const auto& s : code.symbols) {
    if (s.name.empty()) throw Error("ELF writer: a symbol has no name");
    if (s.name.find('\0') != std::string::npos)
      throw Error("ELF writer: symbol name contains a NUL byte");
    if (++seen[s.name] > 1) throw Error("ELF writer: duplicate symbol '" + s.name + "'");
    if (s.offset > code.text.size() || s.size > code.text.size() - s.offset)
      throw Error("ELF writer: symbol '" + s.name + "' lies outside the text");
  }
  for (const auto& c : code.external_calls) {
    if (c.symbol.empty()) throw Error("ELF writer: an external call has no symbol");
    if (c.offset < 1 || c.offset + 4 > code.text.size())
      throw Error("ELF writer: external call to '" + c.symbol + "' at offset " +
                  std::to_string(c.offset) + " lies outside the text");
    const MachineCode::Symbol* local = code.find(c.symbol);
    if (local && !local->global)
      throw Error("ELF writer: external call to local symbol '" + c.symbol + "'");
  }
  const uint64_t ro_align = code.rodata_alignment;
  if (ro_align == 0 || (ro_align & (ro_align - 1)) != 0)
    throw Error("ELF writer: rodata alignment " + std::to_string(ro_align) +
                " is not a power of two");
  for (const auto& d : code.data_references) {
    if (d.offset + 4 > code.text.size())
      throw Error("ELF writer: data reference at offset " + std::to_string(d.offset) +
                  " lies outside the text");
    if (d.rodata_offset > code.rodata.size())
      throw Error("ELF writer: data reference to rodata offset " + std::to_string(d.rodata_offset) +
                  " lies outside the rodata");
  }
}

}  // namespace

std::vector<uint8_t> write_elf_object(const MachineCode& code) {
  check(code);

  // Symbols: null, the .text section symbol, local functions, then globals
  // (defined functions, then each undefined external once). ELF requires every
  // local before the first global; sh_info of .symtab says where globals start.
  StringTable strtab;
  std::vector<Elf64_Sym> symbols(1, Elf64_Sym{});
  Elf64_Sym section{};
  section.st_info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION);
  section.st_shndx = kText;
  symbols.push_back(section);
  const bool has_rodata = !code.rodata.empty() || !code.data_references.empty();
  const uint16_t num_sections = has_rodata ? kNumSections + 1 : kNumSections;
  const auto rodata_symbol = static_cast<uint32_t>(symbols.size());
  if (has_rodata) {
    section.st_shndx = kRodata;
    symbols.push_back(section);
  }

  std::map<std::string, uint32_t> index_of;  // symbol name -> .symtab index
  auto add_defined = [&](const MachineCode::Symbol& s) {
    Elf64_Sym sym{};
    sym.st_name = strtab.add(s.name);
    sym.st_info = ELF64_ST_INFO(s.global ? STB_GLOBAL : STB_LOCAL, STT_FUNC);
    sym.st_other = STV_DEFAULT;
    sym.st_shndx = kText;
    sym.st_value = s.offset;
    sym.st_size = s.size;
    index_of[s.name] = static_cast<uint32_t>(symbols.size());
    symbols.push_back(sym);
  };
  for (const auto& s : code.symbols)
    if (!s.global) add_defined(s);
  const auto first_global = static_cast<uint32_t>(symbols.size());
  for (const auto& s : code.symbols)
    if (s.global) add_defined(s);
  for (const auto& c : code.external_calls) {
    if (index_of.count(c.symbol)) continue;  // defined here, or already added
    Elf64_Sym sym{};
    sym.st_name = strtab.add(c.symbol);
    sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE);
    sym.st_shndx = SHN_UNDEF;
    index_of[c.symbol] = static_cast<uint32_t>(symbols.size());
    symbols.push_back(sym);
  }

  // Relocations sorted by offset, as assemblers write them. Displacements are
  // relative to the end of their 4-byte field, hence the -4 in each addend.
  std::vector<Elf64_Rela> relocations;
  for (const auto& c : code.external_calls) {
    Elf64_Rela r{};
    r.r_offset = c.offset;
    r.r_info = ELF64_R_INFO(index_of.at(c.symbol), R_X86_64_PLT32);
    r.r_addend = -4;
    relocations.push_back(r);
  }
  for (const auto& d : code.data_references) {
    Elf64_Rela r{};
    r.r_offset = d.offset;
    r.r_info = ELF64_R_INFO(rodata_symbol, R_X86_64_PC32);
    r.r_addend = static_cast<int64_t>(d.rodata_offset) - 4;
    relocations.push_back(r);
  }
  // By offset; each patched field has one relocation, so the order is total.
  // (Not std::stable_sort: libstdc++ 12's calls the deprecated
  // get_temporary_buffer, an error under clang 19 with -Werror.)
  std::sort(relocations.begin(), relocations.end(), [](const auto& a, const auto& b) {
    return std::tie(a.r_offset, a.r_info, a.r_addend) < std::tie(b.r_offset, b.r_info, b.r_addend);
  });

  StringTable shstrtab;
  const uint32_t name_text = shstrtab.add(".text");
  const uint32_t name_rela = shstrtab.add(".rela.text");
  const uint32_t name_note = shstrtab.add(".note.GNU-stack");
  const uint32_t name_symtab = shstrtab.add(".symtab");
  const uint32_t name_strtab = shstrtab.add(".strtab");
  const uint32_t name_shstrtab = shstrtab.add(".shstrtab");
  const uint32_t name_rodata = has_rodata ? shstrtab.add(".rodata") : 0;

  // File layout: header, then each section's contents, then the section headers.
  std::vector<uint8_t> out(sizeof(Elf64_Ehdr), 0);
  out.reserve(sizeof(Elf64_Ehdr) + code.text.size() + code.rodata.size() + code.text_alignment +
              code.rodata_alignment + relocations.size() * sizeof(Elf64_Rela) +
              symbols.size() * sizeof(Elf64_Sym) + strtab.bytes().size() + 4096);
  std::vector<Elf64_Shdr> headers(num_sections, Elf64_Shdr{});

  pad_to(out, code.text_alignment);
  headers[kText] = Elf64_Shdr{name_text,
                              SHT_PROGBITS,
                              SHF_ALLOC | SHF_EXECINSTR,
                              0,
                              out.size(),
                              code.text.size(),
                              0,
                              0,
                              code.text_alignment,
                              0};
  out.insert(out.end(), code.text.begin(), code.text.end());

  if (has_rodata) {
    pad_to(out, code.rodata_alignment);
    headers[kRodata] = Elf64_Shdr{
        name_rodata, SHT_PROGBITS,          SHF_ALLOC, 0, out.size(), code.rodata.size(), 0,
        0,           code.rodata_alignment, 0};
    out.insert(out.end(), code.rodata.begin(), code.rodata.end());
  }

  pad_to(out, 8);
  headers[kRelaText] = Elf64_Shdr{name_rela,
                                  SHT_RELA,
                                  SHF_INFO_LINK,
                                  0,
                                  out.size(),
                                  relocations.size() * sizeof(Elf64_Rela),
                                  kSymtab,
                                  kText,
                                  8,
                                  sizeof(Elf64_Rela)};
  for (const auto& r : relocations) append_struct(out, r);

  // Empty and flagless: tells the linker the stack need not be executable.
  headers[kNoteGnuStack] = Elf64_Shdr{name_note, SHT_PROGBITS, 0, 0, out.size(), 0, 0, 0, 1, 0};

  pad_to(out, 8);
  headers[kSymtab] = Elf64_Shdr{name_symtab, SHT_SYMTAB,
                                0,           0,
                                out.size(),  symbols.size() * sizeof(Elf64_Sym),
                                kStrtab,     first_global,
                                8,           sizeof(Elf64_Sym)};
  for (const auto& s : symbols) append_struct(out, s);

  headers[kStrtab] =
      Elf64_Shdr{name_strtab, SHT_STRTAB, 0, 0, out.size(), strtab.bytes().size(), 0, 0, 1, 0};
  out.insert(out.end(), strtab.bytes().begin(), strtab.bytes().end());

  headers[kShstrtab] =
      Elf64_Shdr{name_shstrtab, SHT_STRTAB, 0, 0, out.size(), shstrtab.bytes().size(), 0, 0, 1, 0};
  out.insert(out.end(), shstrtab.bytes().begin(), shstrtab.bytes().end());

  pad_to(out, 8);
  const uint64_t section_headers_at = out.size();
  for (const auto& h : headers) append_struct(out, h);

  Elf64_Ehdr eh{};
  eh.e_ident[EI_MAG0] = ELFMAG0;
  eh.e_ident[EI_MAG1] = ELFMAG1;
  eh.e_ident[EI_MAG2] = ELFMAG2;
  eh.e_ident[EI_MAG3] = ELFMAG3;
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_ident[EI_OSABI] = ELFOSABI_SYSV;
  eh.e_type = ET_REL;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_shoff = section_headers_at;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = num_sections;
  eh.e_shstrndx = kShstrtab;
  std::memcpy(out.data(), &eh, sizeof eh);
  return out;
}

}  // namespace tirc
