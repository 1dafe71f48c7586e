#!/usr/bin/env python3
"""Write the seed inputs of tests/host/fuzz_acpi.c into this directory.

Each seed is one fuzz input: a mode byte, an 8-byte RSDP address, then a
memory image placed at physical address FUZZ_BASE (see fuzz_acpi.c for the
format). The images hold firmware tables laid out as in the ACPI 6.5 spec
(RSDP 5.2.5.3, header 5.2.6, RSDT/XSDT 5.2.7-8, MADT 5.2.12) and the IA-PC
HPET spec (3.2.4): QEMU-like good machines and a few broken ones, so the
fuzzer starts from inputs that reach deep into the parser.

Run: python3 tests/host/corpus/acpi/make_corpus.py  (rewrites the *.bin)
"""
import os
import struct

FUZZ_BASE = 0x10000
HERE = os.path.dirname(os.path.abspath(__file__))

# mode byte bits (fuzz_acpi.c)
RSDP_AT_START, RSDP_SCAN, RSDP_GIVEN = 0, 1, 2
FIX_SUMS = 4


def fix(data, sum_off, length):
    """Set data[sum_off] so that data[0:length] sums to 0 mod 256."""
    data[sum_off] = 0
    data[sum_off] = (-sum(data[:length])) & 0xFF


class Image:
    """A bump allocator over a bytearray at FUZZ_BASE."""

    def __init__(self):
        self.mem = bytearray()

    def alloc(self, size):
        off = (len(self.mem) + 15) & ~15
        self.mem.extend(b"\0" * (off + size - len(self.mem)))
        return off

    def put(self, blob):
        off = self.alloc(len(blob))
        self.mem[off:off + len(blob)] = blob
        return FUZZ_BASE + off


def table(sig, rev, body):
    t = bytearray(struct.pack("<4sIBB6s8sI4sI", sig, 36 + len(body), rev, 0,
                              b"BOCHS ", b"BXPC    ", 1, b"BXPC", 1) + body)
    fix(t, 9, len(t))
    return bytes(t)


def root(sig, addrs):
    fmt = "<Q" if sig == b"XSDT" else "<I"
    return table(sig, 1, b"".join(struct.pack(fmt, a) for a in addrs))


def rsdp(rev, rsdt, xsdt=0):
    r = bytearray(struct.pack("<8sB6sBIIQB3x", b"RSD PTR ", 0, b"BOCHS ", rev,
                              rsdt, 36, xsdt, 0))
    fix(r, 8, 20)
    if rev >= 2:
        fix(r, 32, 36)
        return bytes(r)
    return bytes(r[:20])


# MADT entries (ACPI 6.5 5.2.12.x)
def lapic(uid, apic_id, flags=1):
    return struct.pack("<BBBBI", 0, 8, uid, apic_id, flags)


def ioapic(ioapic_id, addr, gsi_base):
    return struct.pack("<BBBBII", 1, 12, ioapic_id, 0, addr, gsi_base)


def iso(src, gsi, flags, bus=0):
    return struct.pack("<BBBBIH", 2, 10, bus, src, gsi, flags)


def lapic_nmi(uid, lint, flags=0):
    return struct.pack("<BBBHB", 4, 6, uid, flags, lint)


def lapic_addr(addr):
    return struct.pack("<BBHQ", 5, 12, 0, addr)


def x2apic(apic_id, uid, flags=1):
    return struct.pack("<BBHIII", 9, 16, 0, apic_id, flags, uid)


def x2apic_nmi(uid, lint, flags=0):
    return struct.pack("<BBHIB3x", 0xA, 12, flags, uid, lint)


def madt(entries, rev=3, lapic_base=0xFEE00000, flags=1):
    return table(b"APIC", rev, struct.pack("<II", lapic_base, flags) +
                 b"".join(entries))


def hpet(block_id=0x8086A201, space=0, addr=0xFED00000):
    return table(b"HPET", 1, struct.pack("<IBBBBQBHB", block_id, space, 64,
                                         0, 0, addr, 0, 0x80, 0))


def qemu_madt(ncpus, q35):
    e = [lapic(i, i) for i in range(ncpus)]
    e += [ioapic(0, 0xFEC00000, 0), iso(0, 2, 0)]
    e += [iso(9, 9, 0xD)] if q35 else [iso(i, i, 0xD) for i in (5, 9, 10, 11)]
    e.append(lapic_nmi(0xFF, 1))
    return madt(e)


def machine(tables, rev, mode=RSDP_AT_START, pad=0):
    """RSDP first (or after pad bytes), then tables, then the roots."""
    img = Image()
    img.alloc(pad)
    rs = img.alloc(36)
    addrs = [img.put(t) for t in tables]
    rsdt = img.put(root(b"RSDT", addrs))
    xsdt = img.put(root(b"XSDT", addrs)) if rev >= 2 else 0
    r = rsdp(rev, rsdt, xsdt)
    img.mem[rs:rs + len(r)] = r
    return bytes([mode]) + struct.pack("<Q", FUZZ_BASE + rs) + bytes(img.mem)


def facp():
    return table(b"FACP", 5, bytes(208))


def seeds():
    yield "pc", machine([facp(), qemu_madt(2, False), hpet()], 0)
    yield "q35", machine([facp(), qemu_madt(4, True), hpet()], 2, FIX_SUMS)
    yield "scan", machine([qemu_madt(1, False)], 2, RSDP_SCAN, pad=0x40)
    yield "given", machine([hpet(space=1, addr=0x500)], 0, RSDP_GIVEN, 0x20)
    yield "x2apic", machine([madt([
        lapic(0, 0), x2apic(0x100, 1), x2apic(0x12345, 2, 2),
        x2apic(0, 9), lapic(5, 0xFF, 0), lapic_addr(0xFEE0000000),
        lapic_addr(0x1000), x2apic(0xFFFFFFFF, 7),
        x2apic_nmi(0xFFFFFFFF, 1), x2apic_nmi(2, 0, 0xD),
        lapic_nmi(3, 2)], rev=5)], 2)
    yield "bad_entries", machine([madt([
        lapic(0, 0), struct.pack("<BB", 0, 6) + bytes(4), iso(0, 2, 0, bus=1),
        struct.pack("<BB", 0x0B, 4) + bytes(2), struct.pack("<BB", 1, 0)]),
        hpet()], 0, FIX_SUMS)
    yield "many_cpus", machine([madt(
        [x2apic(i, i, 1 - i % 2) for i in range(300)] +
        [ioapic(i, 0xFEC00000 + i * 0x1000, i * 24) for i in range(20)] +
        [iso(i, 100 + i, 0xD) for i in range(20)] +
        [x2apic_nmi(i, 1) for i in range(260)],
        rev=4)], 2)


def main():
    for name, data in seeds():
        with open(os.path.join(HERE, name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
