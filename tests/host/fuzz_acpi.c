/*
 * libFuzzer target for the ACPI parser (lib/acpi.c, acpi_madt.c, acpi_hpet.c).
 *
 * The input is a physical memory image: firmware tables are the one input
 * the kernel takes from the machine unchecked, and a bad one must give a
 * message, never a crash, a hang or an out-of-bounds read. Layout:
 *
 *   byte 0      mode: bits 1:0 where the RSDP is (0, 3: at the image start;
 *               1: where acpi_rsdp_scan finds it; 2: bytes 1..8),
 *               bit 2 fix the checksums along the RSDP -> root -> table
 *               chain first (random bytes almost never sum to 0, so without
 *               it the fuzzer would rarely get past a checksum),
 *               bits 7:4 the scan buffer's physical address, mod 16
 *   bytes 1..8  an arbitrary RSDP address, little-endian
 *   bytes 9..   the image, at physical address FUZZ_BASE
 *
 * The image is copied to an allocation of exactly its size, so ASan sees any
 * read the accessor did not grant. After parsing, the invariants of struct
 * acpi_info are checked: counts within their caps, strings terminated, no
 * duplicate or broadcast APIC IDs, need_x2apic consistent, and so on.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/acpi.h"

#define FUZZ_BASE   0x10000u
#define HDR_LEN	    9
#define SDT_HDR_LEN 36
#define SDT_SUM_OFF 9

#define CHECK(c)                                                         \
	do {                                                             \
		if (!(c)) {                                              \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
				__FILE__, __LINE__, #c);                 \
			abort();                                         \
		}                                                        \
	} while (0)

struct image {
	uint8_t *buf;
	size_t len;
};

static const void *img_map(void *ctx, uint64_t phys, size_t len)
{
	const struct image *im = ctx;
	uint64_t off = phys - FUZZ_BASE;

	if (phys < FUZZ_BASE || off > im->len || len > im->len - off)
		return NULL;
	return im->buf + off;
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* The bytes at phys, if at least n of them are in the image. */
static uint8_t *in_image(const struct image *im, uint64_t phys, size_t n)
{
	return (uint8_t *)img_map((void *)im, phys, n);
}

static void fix_sum(uint8_t *p, size_t len, size_t sum_off)
{
	uint8_t sum = 0;

	p[sum_off] = 0;
	for (size_t i = 0; i < len; i++)
		sum += p[i];
	p[sum_off] = -sum;
}

/* Fix the checksum of the table at phys if all its length is in the image. */
static uint8_t *fix_table(const struct image *im, uint64_t phys)
{
	uint8_t *p = in_image(im, phys, SDT_HDR_LEN);
	uint32_t len;

	if (!p)
		return NULL;
	len = get_le(p + 4, 4);
	if (len < SDT_HDR_LEN || !in_image(im, phys, len))
		return NULL;
	fix_sum(p, len, SDT_SUM_OFF);
	return p;
}

/* Leaves first, then the root that lists them, then the RSDP. */
static void fix_root(const struct image *im, uint64_t phys, size_t esz)
{
	uint8_t *p = in_image(im, phys, SDT_HDR_LEN);
	uint32_t len;
	size_t n;

	if (!p)
		return;
	len = get_le(p + 4, 4);
	if (len < SDT_HDR_LEN || !in_image(im, phys, len))
		return;
	n = (len - SDT_HDR_LEN) / esz;
	for (size_t i = 0; i < n && i < ACPI_MAX_TABLES; i++)
		fix_table(im, get_le(p + SDT_HDR_LEN + i * esz, esz));
	fix_table(im, phys);
}

static void fix_chain(const struct image *im, uint64_t rsdp)
{
	uint8_t *p = in_image(im, rsdp, 20);
	uint32_t len;

	if (!p)
		return;
	fix_root(im, get_le(p + 16, 4), 4);
	fix_sum(p, 20, 8);
	if (p[15] < 2 || !in_image(im, rsdp, 36))
		return;
	fix_root(im, get_le(p + 24, 8), 8);
	len = get_le(p + 20, 4);
	if (len >= 36 && in_image(im, rsdp, len))
		fix_sum(p, len, 32);
}

static bool terminated(const char *s, size_t size)
{
	return memchr(s, 0, size) != NULL;
}

static void check_cpus(const struct acpi_madt *m)
{
	size_t enabled = 0;
	bool need = false;

	CHECK(m->ncpus <= ACPI_MAX_CPUS);
	CHECK(m->cpus_dropped_enabled <= m->cpus_dropped);
	CHECK(m->cpus_dropped == 0 || m->ncpus == ACPI_MAX_CPUS);
	for (size_t i = 0; i < m->ncpus; i++) {
		const struct acpi_cpu *c = &m->cpus[i];

		enabled += c->enabled;
		CHECK(!(c->enabled && c->online_capable));
		CHECK(!c->online_capable || m->revision >= 5);
		CHECK(c->apic_id != 0xFFFFFFFFu);
		CHECK(c->from_x2apic_entry || c->apic_id < 0xFF);
		if ((c->enabled || c->online_capable) && c->apic_id > 254)
			need = true;
		for (size_t j = 0; j < i; j++)
			CHECK(m->cpus[j].apic_id != c->apic_id);
	}
	CHECK(enabled == m->cpus_enabled);
	CHECK(need == m->need_x2apic);
}

/* The first override for irq, else identity with the ISA defaults. */
static void check_isa_irq(const struct acpi_info *info, uint8_t irq)
{
	const struct acpi_madt *m = &info->madt;
	uint16_t flags;
	uint32_t gsi = acpi_isa_irq_gsi(info, irq, &flags);

	CHECK(gsi == acpi_isa_irq_gsi(info, irq, NULL));
	for (size_t i = 0; i < m->noverrides; i++) {
		if (m->overrides[i].source == irq) {
			CHECK(gsi == m->overrides[i].gsi);
			CHECK(flags == m->overrides[i].flags);
			return;
		}
	}
	CHECK(gsi == irq && flags == 0);
}

static void check_madt(const struct acpi_info *info)
{
	const struct acpi_madt *m = &info->madt;

	if (!m->present) {
		CHECK(m->ncpus == 0 && m->nioapics == 0);
		CHECK(m->noverrides == 0 && m->nlapic_nmis == 0);
		return;
	}
	check_cpus(m);
	CHECK(m->nioapics <= ACPI_MAX_IOAPICS);
	CHECK(m->noverrides <= ACPI_MAX_OVERRIDES);
	CHECK(m->nlapic_nmis <= ACPI_MAX_LAPIC_NMIS);
	CHECK(m->pcat_compat == (m->flags & 1));
	for (size_t i = 0; i < m->noverrides; i++)
		CHECK(m->overrides[i].bus == 0);
	for (size_t i = 0; i < m->nlapic_nmis; i++)
		CHECK(m->lapic_nmis[i].lint <= 1);
	CHECK(m->entries_bad + m->entries_skipped <= m->entries);
	for (uint8_t irq = 0; irq < 16; irq++)
		check_isa_irq(info, irq);
	for (size_t i = 0; i < m->ncpus; i++) {
		const struct acpi_lapic_nmi *n =
			acpi_lapic_nmi_for(info, m->cpus[i].acpi_uid);

		CHECK(!n || n->acpi_uid == m->cpus[i].acpi_uid ||
		      n->acpi_uid == ACPI_UID_ALL);
	}
}

static void check_info(const struct acpi_info *info, bool ok)
{
	CHECK(info->nmsgs <= ACPI_MAX_MSGS);
	CHECK(info->msgs_dropped == 0 || info->nmsgs == ACPI_MAX_MSGS);
	for (size_t i = 0; i < info->nmsgs; i++) {
		CHECK(terminated(info->msgs[i], ACPI_MSG_LEN));
		CHECK(info->msgs[i][0] != '\0');
	}
	/* A failed parse always says why. */
	CHECK(ok || info->nmsgs > 0);
	CHECK(terminated(info->oem_id, sizeof(info->oem_id)));
	CHECK(terminated(info->root_sig, sizeof(info->root_sig)));
	if (ok)
		CHECK(!strcmp(info->root_sig, "XSDT") ||
		      !strcmp(info->root_sig, "RSDT"));
	else
		CHECK(info->root_sig[0] == '\0' && info->ntables == 0);
	CHECK(info->ntables <= ACPI_MAX_TABLES);
	CHECK(info->tables_dropped == 0 || info->ntables == ACPI_MAX_TABLES);
	for (size_t i = 0; i < info->ntables; i++)
		CHECK(strlen(info->tables[i].sig) == 4);
	check_madt(info);
	if (info->hpet.present) {
		CHECK(info->hpet.comparators >= 1);
		CHECK(info->hpet.comparators <= 32);
	}
}

/* The scan finds only an aligned, in-buffer RSDP. */
static void fuzz_scan(const uint8_t *buf, size_t len, uint64_t buf_phys)
{
	uint64_t phys = 0;

	if (!acpi_rsdp_scan(buf, len, buf_phys, &phys))
		return;
	CHECK(phys % 16 == 0);
	CHECK(phys >= buf_phys && phys - buf_phys + 20 <= len);
	CHECK(!memcmp(buf + (phys - buf_phys), "RSD PTR ", 8));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info info;
	struct image im;
	struct acpi_mem mem = { img_map, &im };
	uint64_t rsdp = FUZZ_BASE;
	uint8_t mode;
	bool ok;

	if (size < HDR_LEN)
		return 0;
	mode = data[0];
	im.len = size - HDR_LEN;
	im.buf = malloc(im.len ? im.len : 1);
	if (!im.buf)
		return 0;
	memcpy(im.buf, data + HDR_LEN, im.len);

	fuzz_scan(im.buf, im.len, FUZZ_BASE + (mode >> 4));
	switch (mode & 3) {
	case 1:
		acpi_rsdp_scan(im.buf, im.len, FUZZ_BASE, &rsdp);
		break;
	case 2:
		rsdp = get_le(data + 1, 8);
		break;
	}
	if (mode & 4)
		fix_chain(&im, rsdp);

	ok = acpi_parse(&mem, rsdp, &info);
	check_info(&info, ok);
	free(im.buf);
	return 0;
}
