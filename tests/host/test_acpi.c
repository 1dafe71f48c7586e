/*
 * Unit tests for the ACPI parser (lib/acpi.c, acpi_madt.c, acpi_hpet.c).
 *
 * Each test builds firmware tables byte by byte in a fake physical memory
 * image (from the ACPI 6.5 layouts, independently of the parser's structs),
 * fixes the checksums, and parses. The image is copied into an allocation
 * of exactly the readable size first, so ASan catches any read the accessor
 * did not grant. Shapes follow what QEMU's SeaBIOS (pc: RSDT only) and OVMF
 * (q35: XSDT) hand over; the broken ones follow what fuzzing and real
 * firmware bugs produce.
 */
#include <cmocka.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/acpi.h"

#define IMG_PHYS 0x80000ull
#define IMG_SIZE 0x20000u

#define LAPIC_ENABLED	     1u
#define LAPIC_ONLINE_CAPABLE 2u
#define PCAT_COMPAT	     1u
#define INTI_LEVEL_HIGH	     0xDu /* level triggered, active high */

static struct {
	uint8_t buf[IMG_SIZE];
	size_t used;	 /* bump allocator */
	size_t readable; /* bytes the accessor serves, from IMG_PHYS */
	uint64_t hole_lo, hole_hi; /* [lo, hi) refused too */
} img;

static struct acpi_info info;

/* --- the fake physical memory ------------------------------------------ */

struct window {
	const uint8_t *buf;
	size_t len;
	uint64_t hole_lo, hole_hi;
};

static const void *win_map(void *ctx, uint64_t phys, size_t len)
{
	const struct window *w = ctx;
	uint64_t off;

	if (phys < IMG_PHYS)
		return NULL;
	off = phys - IMG_PHYS;
	if (off > w->len || len > w->len - off)
		return NULL;
	if (phys < w->hole_hi && phys + len > w->hole_lo)
		return NULL;
	return w->buf + off;
}

static int setup(void **state)
{
	(void)state;
	memset(&img, 0, sizeof(img));
	img.readable = IMG_SIZE;
	return 0;
}

static bool parse(uint64_t rsdp)
{
	uint8_t *copy = malloc(img.readable);
	struct window w = { copy, img.readable, img.hole_lo, img.hole_hi };
	struct acpi_mem mem = { win_map, &w };
	bool ok;

	assert_non_null(copy);
	memcpy(copy, img.buf, img.readable);
	ok = acpi_parse(&mem, rsdp, &info);
	free(copy);
	for (size_t i = 0; i < info.nmsgs; i++)
		assert_true(memchr(info.msgs[i], 0, ACPI_MSG_LEN) != NULL);
	return ok;
}

static void dump_msgs(void)
{
	for (size_t i = 0; i < info.nmsgs; i++)
		print_message("  msg: %s\n", info.msgs[i]);
}

static void expect_msg(const char *needle)
{
	for (size_t i = 0; i < info.nmsgs; i++)
		if (strstr(info.msgs[i], needle))
			return;
	dump_msgs();
	fail_msg("no message contains \"%s\"", needle);
}

static void expect_no_msgs(void)
{
	if (info.nmsgs) {
		dump_msgs();
		fail_msg("%zu unexpected messages", info.nmsgs);
	}
}

/* --- table builders ---------------------------------------------------- */

static uint64_t alloc(size_t len)
{
	size_t off = (img.used + 15) & ~(size_t)15;

	assert_true(off + len <= IMG_SIZE);
	img.used = off + len;
	return IMG_PHYS + off;
}

static uint8_t *at(uint64_t phys)
{
	return img.buf + (phys - IMG_PHYS);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

/* Set p[sum_off] so that the len bytes at p add up to 0. */
static void fix_sum(uint8_t *p, size_t len, size_t sum_off)
{
	uint8_t sum = 0;

	p[sum_off] = 0;
	for (size_t i = 0; i < len; i++)
		sum += p[i];
	p[sum_off] = -sum;
}

/* System Description Table Header (ACPI 6.5 5.2.6), then body. */
static uint64_t mk_table(const char *sig, uint8_t rev, const void *body,
			 size_t n)
{
	uint64_t phys = alloc(36 + n);
	uint8_t *p = at(phys);

	memcpy(p, sig, 4);
	put32(p + 4, 36 + n);
	p[8] = rev;
	memcpy(p + 10, "BOCHS ", 6);
	memcpy(p + 16, "BXPC    ", 8);
	put32(p + 24, 1);
	memcpy(p + 28, "BXPC", 4);
	put32(p + 32, 1);
	memcpy(p + 36, body, n);
	fix_sum(p, 36 + n, 9);
	return phys;
}

/* Re-fix a table's checksum after poking at it (length from its header). */
static void refix(uint64_t phys)
{
	uint8_t *p = at(phys);

	fix_sum(p, p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24, 9);
}

static uint64_t mk_root(bool xsdt, const uint64_t *tables, size_t n)
{
	uint8_t body[8 * 80] = { 0 };
	size_t esz = xsdt ? 8 : 4;

	assert_true(n <= 80);
	for (size_t i = 0; i < n; i++) {
		if (xsdt)
			put64(body + i * esz, tables[i]);
		else
			put32(body + i * esz, tables[i]);
	}
	return mk_table(xsdt ? "XSDT" : "RSDT", 1, body, n * esz);
}

/* RSDP (5.2.5.3): 20 bytes for revision 0, 36 from revision 2. */
static void fill_rsdp(uint8_t *p, uint8_t rev, uint64_t rsdt, uint64_t xsdt)
{
	memcpy(p, "RSD PTR ", 8);
	memcpy(p + 9, "BOCHS ", 6);
	p[15] = rev;
	put32(p + 16, rsdt);
	if (rev >= 2) {
		put32(p + 20, 36);
		put64(p + 24, xsdt);
	}
	/* The extended checksum covers the first one: fix that first. */
	fix_sum(p, 20, 8);
	if (rev >= 2)
		fix_sum(p, 36, 32);
}

static uint64_t mk_rsdp(uint8_t rev, uint64_t rsdt, uint64_t xsdt)
{
	uint64_t phys = alloc(36);

	fill_rsdp(at(phys), rev, rsdt, xsdt);
	return phys;
}

struct madt {
	uint8_t b[8192];
	size_t n;
};

static struct madt mb;

static void madt_start(uint32_t lapic_addr, uint32_t flags)
{
	memset(&mb, 0, sizeof(mb));
	put32(mb.b, lapic_addr);
	put32(mb.b + 4, flags);
	mb.n = 8;
}

static uint8_t *madt_entry(uint8_t type, uint8_t len)
{
	uint8_t *p = mb.b + mb.n;

	assert_true(mb.n + len <= sizeof(mb.b));
	p[0] = type;
	p[1] = len;
	mb.n += len < 2 ? 2 : len;
	return p;
}

static void madt_lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t *p = madt_entry(0, 8);

	p[2] = uid;
	p[3] = id;
	put32(p + 4, flags);
}

static void madt_ioapic(uint8_t id, uint32_t addr, uint32_t gsi_base)
{
	uint8_t *p = madt_entry(1, 12);

	p[2] = id;
	put32(p + 4, addr);
	put32(p + 8, gsi_base);
}

static void madt_iso(uint8_t bus, uint8_t src, uint32_t gsi, uint16_t flags)
{
	uint8_t *p = madt_entry(2, 10);

	p[2] = bus;
	p[3] = src;
	put32(p + 4, gsi);
	put16(p + 8, flags);
}

static void madt_nmi(uint8_t uid, uint16_t flags, uint8_t lint)
{
	uint8_t *p = madt_entry(4, 6);

	p[2] = uid;
	put16(p + 3, flags);
	p[5] = lint;
}

static void madt_lapic_addr(uint64_t addr)
{
	put64(madt_entry(5, 12) + 4, addr);
}

static void madt_x2apic(uint32_t id, uint32_t flags, uint32_t uid)
{
	uint8_t *p = madt_entry(9, 16);

	put32(p + 4, id);
	put32(p + 8, flags);
	put32(p + 12, uid);
}

static void madt_x2nmi(uint16_t flags, uint32_t uid, uint8_t lint)
{
	uint8_t *p = madt_entry(0xA, 12);

	put16(p + 2, flags);
	put32(p + 4, uid);
	p[8] = lint;
}

static uint64_t madt_finish(uint8_t rev)
{
	return mk_table("APIC", rev, mb.b, mb.n);
}

/* What QEMU builds: CPUs, one I/O APIC, overrides, NMI to all on LINT1. */
static uint64_t madt_qemu(int ncpus, bool q35)
{
	static const uint8_t pc_level[] = { 5, 9, 10, 11 };

	madt_start(0xFEE00000, PCAT_COMPAT);
	for (int i = 0; i < ncpus; i++)
		madt_lapic(i, i, LAPIC_ENABLED);
	madt_ioapic(0, 0xFEC00000, 0);
	madt_iso(0, 0, 2, 0);
	if (q35)
		madt_iso(0, 9, 9, INTI_LEVEL_HIGH);
	else
		for (size_t i = 0; i < sizeof(pc_level); i++)
			madt_iso(0, pc_level[i], pc_level[i], INTI_LEVEL_HIGH);
	madt_nmi(0xFF, 0, 1);
	return madt_finish(3);
}

/* HPET table body (IA-PC HPET 1.0a 3.2.4) after the header. */
static uint64_t mk_hpet(uint32_t block_id, uint8_t space, uint64_t addr)
{
	uint8_t body[20] = { 0 };

	put32(body, block_id);
	body[4] = space;
	body[5] = 64;
	put64(body + 8, addr);
	body[16] = 0;		/* HPET number */
	put16(body + 17, 0x80); /* minimum tick */
	body[19] = 0;		/* page protection */
	return mk_table("HPET", 1, body, sizeof(body));
}

#define QEMU_HPET_ID 0x8086A201u /* Intel, legacy, 64-bit, 3 timers, rev 1 */

static uint64_t mk_facp(void)
{
	uint8_t body[208] = { 0 };

	return mk_table("FACP", 5, body, sizeof(body));
}

struct machine {
	uint64_t rsdp, rsdt, xsdt, facp, madt, hpet;
};

/* A pc (RSDP revision 0, RSDT) or q35 (revision 2, XSDT and RSDT). */
static struct machine mk_machine(bool q35, int ncpus)
{
	struct machine m = {
		.facp = mk_facp(),
		.madt = madt_qemu(ncpus, q35),
		.hpet = mk_hpet(QEMU_HPET_ID, 0, 0xFED00000),
	};
	uint64_t t[3] = { m.facp, m.madt, m.hpet };

	m.rsdt = mk_root(false, t, 3);
	if (q35)
		m.xsdt = mk_root(true, t, 3);
	m.rsdp = mk_rsdp(q35 ? 2 : 0, m.rsdt, m.xsdt);
	return m;
}

/* Parse a revision 0 RSDP whose RSDT lists t[0..n). */
static bool parse_tables(const uint64_t *t, size_t n)
{
	return parse(mk_rsdp(0, mk_root(false, t, n), 0));
}

/* Parse the MADT built in mb, alone; the root must be usable. */
static void parse_madt(uint8_t rev)
{
	uint64_t t = madt_finish(rev);

	assert_true(parse_tables(&t, 1));
	assert_true(info.madt.present);
}

static const char *fmt(const char *f, ...)
{
	static char buf[256];
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return buf;
}

/* --- good machines ----------------------------------------------------- */

static void check_qemu_madt(int ncpus)
{
	const struct acpi_madt *m = &info.madt;

	assert_true(m->present);
	assert_int_equal(m->lapic_addr, 0xFEE00000);
	assert_false(m->lapic_addr_override);
	assert_true(m->pcat_compat);
	assert_false(m->need_x2apic);
	assert_int_equal(m->ncpus, ncpus);
	assert_int_equal(m->cpus_enabled, ncpus);
	for (int i = 0; i < ncpus; i++) {
		assert_int_equal(m->cpus[i].apic_id, i);
		assert_int_equal(m->cpus[i].acpi_uid, i);
		assert_true(m->cpus[i].enabled);
		assert_false(m->cpus[i].from_x2apic_entry);
	}
	assert_int_equal(m->nioapics, 1);
	assert_int_equal(m->ioapics[0].id, 0);
	assert_int_equal(m->ioapics[0].address, 0xFEC00000);
	assert_int_equal(m->ioapics[0].gsi_base, 0);
	assert_int_equal(m->nlapic_nmis, 1);
	assert_int_equal(m->lapic_nmis[0].acpi_uid, ACPI_UID_ALL);
	assert_int_equal(m->lapic_nmis[0].lint, 1);
	assert_false(m->truncated);
	assert_int_equal(m->entries_bad, 0);
	assert_int_equal(m->entries_skipped, 0);
}

static void check_qemu_hpet(void)
{
	const struct acpi_hpet *h = &info.hpet;

	assert_true(h->present);
	assert_true(h->usable);
	assert_int_equal(h->address, 0xFED00000);
	assert_int_equal(h->address_space, 0);
	assert_int_equal(h->bit_width, 64);
	assert_int_equal(h->pci_vendor, 0x8086);
	assert_true(h->legacy_capable);
	assert_true(h->counter_64bit);
	assert_int_equal(h->comparators, 3);
	assert_int_equal(h->hw_rev, 1);
	assert_int_equal(h->min_tick, 0x80);
	assert_int_equal(h->extra_tables, 0);
}

/* SeaBIOS on pc: ACPI 1.0 RSDP, RSDT; PIT on GSI 2, PCI IRQs level. */
static void test_qemu_pc(void **state)
{
	struct machine m = mk_machine(false, 2);
	uint16_t flags = 0xFFFF;

	(void)state;
	assert_true(parse(m.rsdp));
	expect_no_msgs();
	assert_string_equal(info.root_sig, "RSDT");
	assert_int_equal(info.root_phys, m.rsdt);
	assert_int_equal(info.rsdp_phys, m.rsdp);
	assert_int_equal(info.rsdp_revision, 0);
	assert_string_equal(info.oem_id, "BOCHS ");
	assert_int_equal(info.ntables, 3);
	assert_string_equal(info.tables[0].sig, "FACP");
	assert_string_equal(info.tables[1].sig, "APIC");
	assert_int_equal(info.tables[1].phys, m.madt);
	assert_string_equal(info.tables[2].sig, "HPET");
	for (size_t i = 0; i < info.ntables; i++)
		assert_true(info.tables[i].ok);
	check_qemu_madt(2);
	check_qemu_hpet();
	assert_int_equal(info.madt.revision, 3);
	assert_int_equal(info.madt.noverrides, 5);
	assert_int_equal(acpi_isa_irq_gsi(&info, 0, &flags), 2);
	assert_int_equal(flags, 0);
	assert_int_equal(acpi_isa_irq_gsi(&info, 11, &flags), 11);
	assert_int_equal(flags, INTI_LEVEL_HIGH);
	assert_int_equal(acpi_isa_irq_gsi(&info, 4, &flags), 4);
	assert_int_equal(flags, 0);
	assert_int_equal(acpi_lapic_nmi_for(&info, 1)->lint, 1);
}

/* OVMF on q35: ACPI 2.0 RSDP, the XSDT is used. */
static void test_qemu_q35(void **state)
{
	struct machine m = mk_machine(true, 4);
	uint16_t flags;

	(void)state;
	assert_true(parse(m.rsdp));
	expect_no_msgs();
	assert_string_equal(info.root_sig, "XSDT");
	assert_int_equal(info.rsdp_revision, 2);
	assert_int_equal(info.xsdt_phys, m.xsdt);
	assert_int_equal(info.rsdt_phys, m.rsdt);
	assert_int_equal(info.root_phys, m.xsdt);
	assert_int_equal(info.ntables, 3);
	check_qemu_madt(4);
	check_qemu_hpet();
	assert_int_equal(info.madt.noverrides, 2);
	assert_int_equal(acpi_isa_irq_gsi(&info, 0, NULL), 2);
	assert_int_equal(acpi_isa_irq_gsi(&info, 9, &flags), 9);
	assert_int_equal(flags, INTI_LEVEL_HIGH);
}

/* --- RSDP -------------------------------------------------------------- */

static void test_rsdp_bad_checksum(void **state)
{
	struct machine m = mk_machine(false, 1);

	(void)state;
	at(m.rsdp)[8] += 0x12;
	assert_false(parse(m.rsdp));
	expect_msg(fmt("RSDP at 0x%llx: checksum 0x12 (want 0)",
		       (unsigned long long)m.rsdp));
	assert_false(info.madt.present);
	assert_string_equal(info.root_sig, "");
}

static void test_rsdp_bad_signature(void **state)
{
	struct machine m = mk_machine(false, 1);

	(void)state;
	at(m.rsdp)[3] = 0x01;
	assert_false(parse(m.rsdp));
	expect_msg("signature \"RSD?PTR \" (want \"RSD PTR \")");
}

static void test_rsdp_unreadable(void **state)
{
	(void)state;
	assert_false(parse(IMG_PHYS - 16));
	expect_msg("not readable");
	assert_false(parse(IMG_PHYS + IMG_SIZE - 10));
	expect_msg("not readable");
	assert_false(parse(UINT64_MAX - 4));
	expect_msg("not readable");
}

/* Bad extended checksum: the 1.0 part has its own, so the RSDT is used. */
static void test_rsdp_bad_ext_checksum(void **state)
{
	struct machine m = mk_machine(true, 1);

	(void)state;
	at(m.rsdp)[32] += 0x40;
	assert_true(parse(m.rsdp));
	expect_msg("extended checksum 0x40 (want 0), using the RSDT only");
	assert_int_equal(info.nmsgs, 1);
	assert_string_equal(info.root_sig, "RSDT");
	assert_int_equal(info.xsdt_phys, 0);
	assert_true(info.madt.present);
}

static void test_rsdp_bad_length(void **state)
{
	struct machine m = mk_machine(true, 1);
	uint8_t *p = at(m.rsdp);

	(void)state;
	put32(p + 20, 20);
	fix_sum(p, 36, 32);
	assert_true(parse(m.rsdp));
	expect_msg("length 20 (want 36..16777216), using the RSDT only");
	assert_string_equal(info.root_sig, "RSDT");

	put32(p + 20, IMG_SIZE);
	fix_sum(p, 36, 32);
	assert_true(parse(m.rsdp));
	expect_msg("length 131072 runs into unreadable memory, using the "
		   "RSDT only");
	assert_string_equal(info.root_sig, "RSDT");
}

/* Revision 2, but the 36 bytes are not all readable: RSDT. */
static void test_rsdp_v2_cut(void **state)
{
	struct machine m = mk_machine(true, 1);

	(void)state;
	img.hole_lo = m.rsdp + 24;
	img.hole_hi = m.rsdp + 36;
	assert_true(parse(m.rsdp));
	expect_msg("revision 2 but 36 bytes not readable, using the RSDT "
		   "only");
	assert_string_equal(info.root_sig, "RSDT");
}

/* --- root tables ------------------------------------------------------- */

static void test_xsdt_bad_checksum(void **state)
{
	struct machine m = mk_machine(true, 2);

	(void)state;
	at(m.xsdt)[9] += 0x12;
	assert_true(parse(m.rsdp));
	expect_msg(fmt("XSDT at 0x%llx: checksum 0x12 (want 0), falling "
		       "back to RSDT",
		       (unsigned long long)m.xsdt));
	assert_string_equal(info.root_sig, "RSDT");
	assert_int_equal(info.root_phys, m.rsdt);
	check_qemu_madt(2);
	check_qemu_hpet();
}

static void test_xsdt_bad_signature(void **state)
{
	struct machine m = mk_machine(true, 2);

	(void)state;
	at(m.xsdt)[3] = 'X';
	refix(m.xsdt);
	assert_true(parse(m.rsdp));
	expect_msg("signature \"XSDX\" (want \"XSDT\"), falling back to RSDT");
	assert_string_equal(info.root_sig, "RSDT");
}

static void test_xsdt_unreadable(void **state)
{
	struct machine m = mk_machine(true, 2);
	uint64_t rsdp = mk_rsdp(2, m.rsdt, 0xFFFFFFFFFFFFFFF0ull);

	(void)state;
	assert_true(parse(rsdp));
	expect_msg("XSDT at 0xfffffffffffffff0: header not readable, "
		   "falling back to RSDT");
	assert_string_equal(info.root_sig, "RSDT");
	check_qemu_madt(2);
}

/* No RSDT to fall back to: the parse fails and says why. */
static void test_xsdt_bad_no_rsdt(void **state)
{
	uint64_t t = mk_facp();
	uint64_t xsdt = mk_root(true, &t, 1);

	(void)state;
	at(xsdt)[9]++;
	assert_false(parse(mk_rsdp(2, 0, xsdt)));
	expect_msg("checksum 0x01 (want 0)");
	expect_msg("no usable root table (RSDT 0x0, XSDT 0x");
	assert_int_equal(info.ntables, 0);
}

static void test_rsdt_wrong_signature(void **state)
{
	uint64_t facp = mk_facp();

	(void)state;
	assert_false(parse(mk_rsdp(0, facp, 0)));
	expect_msg("signature \"FACP\" (want \"RSDT\")");
	expect_msg("no usable root table");
}

/* A zero entry is skipped; stray bytes after the last entry ignored. */
static void test_root_zero_entry_odd_length(void **state)
{
	uint8_t body[10] = { 0 };

	(void)state;
	madt_qemu(1, false);
	put32(body + 4, madt_finish(3));
	assert_true(parse(mk_rsdp(0, mk_table("RSDT", 1, body, 10), 0)));
	expect_msg("RSDT: entry 0 is 0, skipped");
	expect_msg("RSDT: length 46 leaves 2 bytes after the last 4-byte "
		   "entry, ignored");
	assert_int_equal(info.ntables, 1);
	assert_true(info.madt.present);
}

static void test_root_cap(void **state)
{
	uint64_t t[70];

	(void)state;
	for (size_t i = 0; i < 70; i++)
		t[i] = mk_facp();
	assert_true(parse(mk_rsdp(2, 0, mk_root(true, t, 70))));
	assert_int_equal(info.ntables, ACPI_MAX_TABLES);
	assert_int_equal(info.tables_dropped, 70 - ACPI_MAX_TABLES);
	expect_msg("XSDT: 70 entries, only the first 64 examined");
	assert_int_equal(info.nmsgs, 1);
}

/* --- table headers ----------------------------------------------------- */

/* A bad MADT is ignored with a message; the HPET is still parsed. */
static void test_table_bad_checksum(void **state)
{
	struct machine m = mk_machine(true, 2);

	(void)state;
	at(m.madt)[9] += 0x21;
	assert_true(parse(m.rsdp));
	expect_msg(fmt("MADT at 0x%llx: checksum 0x21 (want 0), ignored",
		       (unsigned long long)m.madt));
	assert_int_equal(info.nmsgs, 1);
	assert_int_equal(info.ntables, 3);
	assert_string_equal(info.tables[1].sig, "APIC");
	assert_false(info.tables[1].ok);
	assert_true(info.tables[0].ok);
	assert_true(info.tables[2].ok);
	assert_false(info.madt.present);
	check_qemu_hpet();
}

static void test_table_bad_length(void **state)
{
	struct machine m = mk_machine(false, 2);
	uint8_t *p = at(m.madt);

	(void)state;
	put32(p + 4, 20);
	refix(m.madt);
	assert_true(parse(m.rsdp));
	expect_msg(fmt("MADT at 0x%llx: length 20 (want 36..16777216), "
		       "ignored",
		       (unsigned long long)m.madt));
	assert_false(info.madt.present);
	assert_int_equal(info.tables[1].length, 20);
	check_qemu_hpet();

	put32(p + 4, 0x1000001);
	assert_true(parse(m.rsdp));
	expect_msg("length 16777217 (want 36..16777216), ignored");

	put32(p + 4, IMG_SIZE);
	assert_true(parse(m.rsdp));
	expect_msg("MADT at 0x");
	expect_msg("length 131072 runs into unreadable memory, ignored");
	assert_false(info.madt.present);
	check_qemu_hpet();
}

/* The last bytes of a table are not readable (a hole in the map). */
static void test_table_cut_by_hole(void **state)
{
	struct machine m = mk_machine(false, 2);

	(void)state;
	img.hole_lo = m.hpet + 40;
	img.hole_hi = m.hpet + 41;
	assert_true(parse(m.rsdp));
	expect_msg(fmt("HPET at 0x%llx: length 56 runs into unreadable "
		       "memory, ignored",
		       (unsigned long long)m.hpet));
	assert_false(info.hpet.present);
	assert_true(info.madt.present);
}

static void test_table_unreadable_address(void **state)
{
	uint64_t t[3] = { 0xFFFFFFF0u, IMG_PHYS - 8, mk_facp() };
	uint64_t x[2] = { UINT64_MAX - 8, 0xFFFFFFFFFFFFF000ull };

	(void)state;
	assert_true(parse_tables(t, 3));
	expect_msg("table at 0xfffffff0: header not readable, ignored");
	expect_msg(fmt("table at 0x%llx: header not readable, ignored",
		       (unsigned long long)(IMG_PHYS - 8)));
	assert_int_equal(info.ntables, 3);
	assert_string_equal(info.tables[0].sig, "????");
	assert_false(info.tables[0].ok);
	assert_true(info.tables[2].ok);

	assert_true(parse(mk_rsdp(2, 0, mk_root(true, x, 2))));
	expect_msg("table at 0xfffffffffffffff7: header not readable");
	expect_msg("table at 0xfffffffffffff000: header not readable");
}

/* --- MADT ---------------------------------------------------------------- */

static void test_madt_short(void **state)
{
	uint8_t body[4] = { 0 };
	uint64_t t = mk_table("APIC", 3, body, sizeof(body));

	(void)state;
	assert_true(parse_tables(&t, 1));
	expect_msg(fmt("MADT at 0x%llx: length 40 (min 44), ignored",
		       (unsigned long long)t));
	assert_false(info.madt.present);
}

/*
 * An entry length that leaves no way to find the next entry stops the walk
 * (no infinite loop on 0); what came before is kept.
 */
static void test_madt_bad_entry_length(void **state)
{
	static const struct {
		uint8_t len;
		const char *msg;
	} cases[] = {
		{ 0, "MADT: entry at offset 0x34 has length 0 (min 2), rest "
		     "of table ignored" },
		{ 1, "MADT: entry at offset 0x34 has length 1 (min 2), rest "
		     "of table ignored" },
		{ 25, "MADT: entry type 0 at offset 0x34 has length 25, past "
		      "the table end at 0x4c, rest of table ignored" },
		{ 255, "has length 255, past the table end at 0x4c" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setup(state);
		madt_start(0xFEE00000, 0);
		madt_lapic(0, 0, LAPIC_ENABLED);
		madt_lapic(1, 1, LAPIC_ENABLED);
		mb.b[8 + 8 + 1] = cases[i].len;
		madt_lapic(2, 2, LAPIC_ENABLED);
		madt_lapic(3, 3, LAPIC_ENABLED);
		parse_madt(3);
		expect_msg(cases[i].msg);
		assert_int_equal(info.nmsgs, 1);
		assert_true(info.madt.truncated);
		assert_int_equal(info.madt.ncpus, 1);
		assert_int_equal(info.madt.entries, 1);
	}
}

static void test_madt_trailing_byte(void **state)
{
	(void)state;
	madt_start(0xFEE00000, 0);
	madt_lapic(0, 0, LAPIC_ENABLED);
	mb.b[mb.n++] = 0;
	parse_madt(3);
	expect_msg("MADT: 1 byte(s) at offset 0x34, too few for an entry, "
		   "ignored");
	assert_true(info.madt.truncated);
	assert_int_equal(info.madt.ncpus, 1);
}

/* Too short for its type: skipped by its length, the walk goes on. */
static void test_madt_entry_short_for_type(void **state)
{
	(void)state;
	madt_start(0xFEE00000, 0);
	madt_entry(0, 6);
	madt_entry(9, 12);
	madt_entry(2, 9);
	madt_entry(5, 11);
	madt_lapic(1, 1, LAPIC_ENABLED);
	parse_madt(3);
	expect_msg("MADT: local APIC entry (type 0) at offset 0x2c has "
		   "length 6 (want 8), skipped");
	expect_msg("MADT: local x2APIC entry (type 9) at offset 0x32 has "
		   "length 12 (want 16), skipped");
	expect_msg("interrupt source override entry (type 2) at offset 0x3e "
		   "has length 9 (want 10), skipped");
	expect_msg("local APIC address override entry (type 5) at offset "
		   "0x47 has length 11 (want 12), skipped");
	assert_int_equal(info.madt.entries_bad, 4);
	assert_int_equal(info.madt.entries, 5);
	assert_false(info.madt.truncated);
	assert_int_equal(info.madt.ncpus, 1);
	assert_int_equal(info.madt.cpus[0].apic_id, 1);
}

/* Longer than its type needs: accepted (later revisions append fields). */
static void test_madt_entry_longer(void **state)
{
	uint8_t *p;

	(void)state;
	madt_start(0xFEE00000, 0);
	p = madt_entry(0, 10);
	p[2] = 4;
	p[3] = 5;
	p[4] = LAPIC_ENABLED;
	madt_lapic(1, 1, LAPIC_ENABLED);
	parse_madt(3);
	expect_no_msgs();
	assert_int_equal(info.madt.ncpus, 2);
	assert_int_equal(info.madt.cpus[0].apic_id, 5);
	assert_int_equal(info.madt.cpus[0].acpi_uid, 4);
}

static void test_madt_unknown_types(void **state)
{
	(void)state;
	madt_start(0xFEE00000, 0);
	madt_entry(0x0B, 80); /* GIC CPU interface */
	madt_entry(0x80, 4);  /* OEM */
	madt_entry(3, 8);     /* NMI source: not used here */
	madt_entry(0x7F, 2);  /* reserved, minimal */
	madt_lapic(0, 0, LAPIC_ENABLED);
	parse_madt(3);
	expect_no_msgs();
	assert_int_equal(info.madt.entries_skipped, 4);
	assert_int_equal(info.madt.entries, 5);
	assert_int_equal(info.madt.ncpus, 1);
}

/* --- processors -------------------------------------------------------- */

/* x2APIC entries with IDs above 255: x2APIC mode is required. */
static void test_x2apic_high_ids(void **state)
{
	const struct acpi_madt *m = &info.madt;

	(void)state;
	madt_start(0xFEE00000, 0);
	madt_lapic(0, 0, LAPIC_ENABLED);
	madt_x2apic(0x100, LAPIC_ENABLED, 1);
	madt_x2apic(0x12345, LAPIC_ENABLED, 0x10000);
	madt_x2nmi(0, ACPI_UID_ALL, 1);
	parse_madt(4);
	expect_no_msgs();
	assert_true(m->need_x2apic);
	assert_int_equal(m->ncpus, 3);
	assert_int_equal(m->cpus_enabled, 3);
	assert_false(m->cpus[0].from_x2apic_entry);
	assert_int_equal(m->cpus[1].apic_id, 0x100);
	assert_true(m->cpus[1].from_x2apic_entry);
	assert_int_equal(m->cpus[2].apic_id, 0x12345);
	assert_int_equal(m->cpus[2].acpi_uid, 0x10000);
	assert_int_equal(m->nlapic_nmis, 1);
	assert_true(m->lapic_nmis[0].from_x2apic_entry);
	assert_int_equal(acpi_lapic_nmi_for(&info, 0x10000)->lint, 1);
}

/* Which IDs need x2APIC mode: 255 does (xAPIC broadcast); unusable don't. */
static void test_need_x2apic(void **state)
{
	static const struct {
		uint32_t id, flags;
		uint8_t rev;
		bool need;
	} cases[] = {
		{ 254, LAPIC_ENABLED, 4, false },
		{ 255, LAPIC_ENABLED, 4, true },
		{ 300, 0, 4, false },
		{ 300, LAPIC_ONLINE_CAPABLE, 4, false },
		{ 300, LAPIC_ONLINE_CAPABLE, 5, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setup(state);
		madt_start(0xFEE00000, 0);
		madt_lapic(0, 0, LAPIC_ENABLED);
		madt_x2apic(cases[i].id, cases[i].flags, 1);
		parse_madt(cases[i].rev);
		assert_int_equal(info.madt.ncpus, 2);
		assert_int_equal(info.madt.need_x2apic, cases[i].need);
	}
}

/* Enabled / Online Capable decoding (ACPI 6.5 5.2.12.2). */
static void test_disabled_online_capable(void **state)
{
	const struct acpi_cpu *c = info.madt.cpus;
	static const uint32_t flags[] = { 1, 0, 2, 3 };

	for (uint8_t rev = 4; rev <= 5; rev++) {
		setup(state);
		madt_start(0xFEE00000, 0);
		for (uint8_t i = 0; i < 4; i++)
			madt_lapic(i, i, flags[i]);
		parse_madt(rev);
		expect_no_msgs();
		assert_int_equal(info.madt.ncpus, 4);
		assert_int_equal(info.madt.cpus_enabled, 2);
		assert_true(c[0].enabled);
		assert_false(c[1].enabled);
		assert_false(c[1].online_capable);
		assert_false(c[2].enabled);
		/* Bit 1 means Online Capable from MADT revision 5 only. */
		assert_int_equal(c[2].online_capable, rev >= 5);
		/* ... and only for a processor that is not enabled. */
		assert_true(c[3].enabled);
		assert_false(c[3].online_capable);
	}
}

/* More CPUs than ACPI_MAX_CPUS: the first are kept, the rest counted. */
static void test_cpu_cap(void **state)
{
	const struct acpi_madt *m = &info.madt;

	(void)state;
	madt_start(0xFEE00000, 0);
	for (uint32_t i = 0; i < 300; i++)
		madt_x2apic(i, i % 2 ? 0 : LAPIC_ENABLED, i);
	parse_madt(4);
	assert_int_equal(m->ncpus, ACPI_MAX_CPUS);
	assert_int_equal(m->cpus_dropped, 300 - ACPI_MAX_CPUS);
	assert_int_equal(m->cpus_dropped_enabled, (300 - ACPI_MAX_CPUS) / 2);
	assert_int_equal(m->cpus_enabled, ACPI_MAX_CPUS / 2);
	assert_int_equal(m->cpus[255].apic_id, 255);
	expect_msg("MADT: 44 CPUs over the cap of 256 not used (22 of them "
		   "enabled)");
	assert_int_equal(info.nmsgs, 1);
}

/* A CPU listed both as type 0 and type 9 is kept once. */
static void test_duplicate_apic_ids(void **state)
{
	(void)state;
	madt_start(0xFEE00000, 0);
	madt_lapic(0, 0, LAPIC_ENABLED);
	madt_lapic(1, 1, LAPIC_ENABLED);
	madt_x2apic(0, LAPIC_ENABLED, 0);
	madt_x2apic(1, 0, 1);
	madt_x2apic(2, LAPIC_ENABLED, 2);
	parse_madt(4);
	assert_int_equal(info.madt.ncpus, 3);
	assert_int_equal(info.madt.cpus_duplicate, 2);
	assert_false(info.madt.cpus[1].from_x2apic_entry);
	assert_true(info.madt.cpus[1].enabled);
	expect_msg("MADT: 2 CPU entries ignored: APIC ID listed before");
}

/* The broadcast IDs are no processor's; firmware uses them for absent. */
static void test_broadcast_ids(void **state)
{
	(void)state;
	madt_start(0xFEE00000, 0);
	madt_lapic(0, 0, LAPIC_ENABLED);
	madt_lapic(5, 0xFF, 0);
	madt_lapic(6, 0xFF, LAPIC_ENABLED);
	madt_x2apic(0xFFFFFFFF, LAPIC_ENABLED, 7);
	parse_madt(4);
	assert_int_equal(info.madt.ncpus, 1);
	assert_int_equal(info.nmsgs, 2);
	expect_msg("MADT: local APIC entry at offset 0x3c has the broadcast "
		   "APIC ID 0xff, skipped");
	expect_msg("MADT: x2APIC entry at offset 0x44 has the broadcast "
		   "APIC ID 0xffffffff, skipped");
}

/* --- interrupt wiring -------------------------------------------------- */

static void test_lapic_addr_override(void **state)
{
	(void)state;
	madt_start(0xFEE00000, 0);
	madt_lapic_addr(0xFEE0000000ull);
	madt_lapic_addr(0x1234000ull);
	parse_madt(3);
	assert_true(info.madt.lapic_addr_override);
	assert_int_equal(info.madt.lapic_addr, 0xFEE0000000ull);
	assert_false(info.madt.pcat_compat);
	expect_msg("MADT: second local APIC address override at offset 0x38, "
		   "ignored");
}

static void test_lapic_nmi(void **state)
{
	const struct acpi_lapic_nmi *n;

	(void)state;
	madt_start(0xFEE00000, 0);
	madt_nmi(0xFF, 0, 1);
	madt_nmi(2, INTI_LEVEL_HIGH, 0);
	madt_x2nmi(0x5, 7, 1);
	madt_nmi(3, 0, 2);
	parse_madt(3);
	expect_msg("MADT: local APIC NMI entry at offset 0x44 names LINT2 "
		   "(want 0 or 1), skipped");
	assert_int_equal(info.madt.nlapic_nmis, 3);
	n = acpi_lapic_nmi_for(&info, 2);
	assert_int_equal(n->lint, 0);
	assert_int_equal(n->flags, INTI_LEVEL_HIGH);
	n = acpi_lapic_nmi_for(&info, 7);
	assert_int_equal(n->lint, 1);
	assert_int_equal(n->flags, 5);
	assert_true(n->from_x2apic_entry);
	n = acpi_lapic_nmi_for(&info, 5);
	assert_int_equal(n->acpi_uid, ACPI_UID_ALL);
	assert_false(n->from_x2apic_entry);

	setup(state);
	madt_start(0xFEE00000, 0);
	madt_nmi(2, 0, 1);
	parse_madt(3);
	assert_null(acpi_lapic_nmi_for(&info, 3));
}

static void test_ioapic_override_caps(void **state)
{
	const struct acpi_madt *m = &info.madt;

	(void)state;
	madt_start(0xFEE00000, PCAT_COMPAT);
	for (uint8_t i = 0; i < 20; i++) {
		madt_ioapic(i, 0xFEC00000 + i * 0x1000u, i * 24u);
		madt_iso(0, i, 100u + i, INTI_LEVEL_HIGH);
	}
	parse_madt(3);
	assert_int_equal(m->nioapics, ACPI_MAX_IOAPICS);
	assert_int_equal(m->ioapics_dropped, 20 - ACPI_MAX_IOAPICS);
	assert_int_equal(m->ioapics[15].gsi_base, 15 * 24);
	assert_int_equal(m->noverrides, ACPI_MAX_OVERRIDES);
	assert_int_equal(m->overrides_dropped, 20 - ACPI_MAX_OVERRIDES);
	expect_msg("MADT: 4 I/O APICs over the cap of 16 not used");
	expect_msg("MADT: 4 interrupt source overrides over the cap of 16 not "
		   "used");
	assert_int_equal(acpi_isa_irq_gsi(&info, 3, NULL), 103);
}

static void test_override_bad_bus(void **state)
{
	(void)state;
	madt_start(0xFEE00000, 0);
	madt_iso(1, 0, 2, 0);
	parse_madt(3);
	expect_msg("MADT: interrupt source override at offset 0x2c has bus 1 "
		   "(want 0, ISA), skipped");
	assert_int_equal(info.madt.noverrides, 0);
	assert_int_equal(acpi_isa_irq_gsi(&info, 0, NULL), 0);
}

static void test_second_madt(void **state)
{
	uint64_t t[2];

	(void)state;
	madt_start(0xFEE00000, 0);
	madt_lapic(0, 0, LAPIC_ENABLED);
	t[0] = madt_finish(3);
	madt_lapic(1, 1, LAPIC_ENABLED);
	t[1] = madt_finish(3);
	assert_true(parse_tables(t, 2));
	expect_msg(fmt("MADT at 0x%llx: a MADT was already parsed, this one "
		       "ignored",
		       (unsigned long long)t[1]));
	assert_int_equal(info.madt.ncpus, 1);
}

/* --- HPET -------------------------------------------------------------- */

static void test_hpet_variants(void **state)
{
	uint8_t body[16] = { 0 };
	uint64_t t[2];

	(void)state;
	t[0] = mk_table("HPET", 1, body, sizeof(body));
	assert_true(parse_tables(t, 1));
	expect_msg(fmt("HPET at 0x%llx: length 52 (min 56), ignored",
		       (unsigned long long)t[0]));
	assert_false(info.hpet.present);

	/* In I/O space: recorded but not usable. */
	t[0] = mk_hpet(0x10DE1F00, 1, 0x500);
	assert_true(parse_tables(t, 1));
	assert_true(info.hpet.present);
	assert_false(info.hpet.usable);
	assert_int_equal(info.hpet.comparators, 32);
	assert_false(info.hpet.legacy_capable);
	assert_false(info.hpet.counter_64bit);
	assert_int_equal(info.hpet.pci_vendor, 0x10DE);
	expect_msg("base 0x500 in address space 1 (want non-zero, space 0 = "
		   "memory), not usable");

	/* Two blocks: the first is used, the second counted. */
	t[0] = mk_hpet(QEMU_HPET_ID, 0, 0xFED00000);
	t[1] = mk_hpet(QEMU_HPET_ID, 0, 0);
	assert_true(parse_tables(t, 2));
	assert_true(info.hpet.usable);
	assert_int_equal(info.hpet.address, 0xFED00000);
	assert_int_equal(info.hpet.extra_tables, 1);
	expect_no_msgs();
}

/* --- messages ---------------------------------------------------------- */

static void test_messages_cap(void **state)
{
	uint64_t t[30] = { 0 };

	(void)state;
	assert_true(parse_tables(t, 30));
	assert_int_equal(info.nmsgs, ACPI_MAX_MSGS);
	assert_int_equal(info.msgs_dropped, 30 - ACPI_MAX_MSGS);
	assert_string_equal(info.msgs[15], "RSDT: entry 15 is 0, skipped");
	for (size_t i = 0; i < info.nmsgs; i++)
		assert_true(strlen(info.msgs[i]) < ACPI_MSG_LEN);
}

/* --- RSDP scan --------------------------------------------------------- */

static void test_rsdp_scan(void **state)
{
	size_t len = ACPI_BIOS_AREA_LEN;
	uint8_t *bios = calloc(1, len);
	uint64_t phys = 0;

	(void)state;
	assert_non_null(bios);
	assert_false(acpi_rsdp_scan(bios, len, ACPI_BIOS_AREA_PHYS, &phys));

	/* Misaligned: not found. */
	fill_rsdp(bios + 0x48, 0, 0x1000, 0);
	assert_false(acpi_rsdp_scan(bios, len, ACPI_BIOS_AREA_PHYS, &phys));

	/* Bad checksum, then bad extended checksum: skipped. */
	fill_rsdp(bios + 0x100, 0, 0x1000, 0);
	bios[0x108]++;
	fill_rsdp(bios + 0x200, 2, 0x1000, 0x2000);
	bios[0x220]++;
	assert_false(acpi_rsdp_scan(bios, len, ACPI_BIOS_AREA_PHYS, &phys));

	/* A good one after them is found. */
	fill_rsdp(bios + 0x3F0, 2, 0x1000, 0x2000);
	assert_true(acpi_rsdp_scan(bios, len, ACPI_BIOS_AREA_PHYS, &phys));
	assert_int_equal(phys, 0xE03F0);
	memset(bios, 0, len);

	/* At the end of the area: only what fits in len counts. */
	fill_rsdp(bios + len - 64, 2, 0x1000, 0x2000);
	assert_false(
		acpi_rsdp_scan(bios, len - 32, ACPI_BIOS_AREA_PHYS, &phys));
	assert_true(acpi_rsdp_scan(bios, len - 28, ACPI_BIOS_AREA_PHYS, &phys));
	assert_int_equal(phys, ACPI_BIOS_AREA_PHYS + len - 64);
	memset(bios, 0, len);
	fill_rsdp(bios + len - 32, 0, 0x1000, 0);
	assert_true(acpi_rsdp_scan(bios, len - 12, ACPI_BIOS_AREA_PHYS, &phys));
	assert_int_equal(phys, ACPI_BIOS_AREA_PHYS + len - 32);
	assert_false(
		acpi_rsdp_scan(bios, len - 13, ACPI_BIOS_AREA_PHYS, &phys));
	free(bios);
}

/* Alignment is physical: a buffer not on 16 bytes shifts the grid. */
static void test_rsdp_scan_unaligned_buffer(void **state)
{
	uint8_t *ebda = calloc(1, ACPI_EBDA_SCAN_LEN);
	uint64_t phys = 0;

	(void)state;
	assert_non_null(ebda);
	fill_rsdp(ebda, 0, 0x1000, 0);
	assert_false(acpi_rsdp_scan(ebda, ACPI_EBDA_SCAN_LEN, 0x9FC08, &phys));
	fill_rsdp(ebda + 8, 0, 0x1000, 0);
	assert_true(acpi_rsdp_scan(ebda, ACPI_EBDA_SCAN_LEN, 0x9FC08, &phys));
	assert_int_equal(phys, 0x9FC10);
	assert_false(acpi_rsdp_scan(ebda, 0, 0x9FC08, &phys));
	assert_false(acpi_rsdp_scan(ebda, 7, 0x9FC08, &phys));
	free(ebda);
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_qemu_pc),
		T(test_qemu_q35),
		T(test_rsdp_bad_checksum),
		T(test_rsdp_bad_signature),
		T(test_rsdp_unreadable),
		T(test_rsdp_bad_ext_checksum),
		T(test_rsdp_bad_length),
		T(test_rsdp_v2_cut),
		T(test_xsdt_bad_checksum),
		T(test_xsdt_bad_signature),
		T(test_xsdt_unreadable),
		T(test_xsdt_bad_no_rsdt),
		T(test_rsdt_wrong_signature),
		T(test_root_zero_entry_odd_length),
		T(test_root_cap),
		T(test_table_bad_checksum),
		T(test_table_bad_length),
		T(test_table_cut_by_hole),
		T(test_table_unreadable_address),
		T(test_madt_short),
		T(test_madt_bad_entry_length),
		T(test_madt_trailing_byte),
		T(test_madt_entry_short_for_type),
		T(test_madt_entry_longer),
		T(test_madt_unknown_types),
		T(test_x2apic_high_ids),
		T(test_need_x2apic),
		T(test_disabled_online_capable),
		T(test_cpu_cap),
		T(test_duplicate_apic_ids),
		T(test_broadcast_ids),
		T(test_lapic_addr_override),
		T(test_lapic_nmi),
		T(test_ioapic_override_caps),
		T(test_override_bad_bus),
		T(test_second_madt),
		T(test_hpet_variants),
		T(test_messages_cap),
		T(test_rsdp_scan),
		T(test_rsdp_scan_unaligned_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
