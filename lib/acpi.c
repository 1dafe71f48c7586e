/*
 * ACPI table parser (see lib/acpi.h): RSDP, root table and table headers;
 * the tables the kernel uses are in lib/acpi_madt.c and lib/acpi_hpet.c.
 *
 * Every physical range goes through the accessor, after an overflow check;
 * every multi-byte field is copied out with memcpy, since firmware tables
 * are byte-packed and may sit at any alignment.
 */
#include <stdarg.h>

#include "lib/acpi.h"
#include "lib/acpi_internal.h"
#include "lib/format.h"
#include "lib/string.h"

/* Root System Description Pointer, ACPI 6.5 5.2.5.3. */
struct acpi_rsdp {
	char signature[8]; /* "RSD PTR " */
	uint8_t checksum;  /* first 20 bytes (the ACPI 1.0 part) sum to 0 */
	char oem_id[6];
	uint8_t revision; /* 0 for ACPI 1.0, 2 for 2.0 and later */
	uint32_t rsdt_address;
	/* Revision >= 2 only: */
	uint32_t length; /* of the whole structure, 36 */
	uint64_t xsdt_address;
	uint8_t extended_checksum; /* all length bytes sum to 0 */
	uint8_t reserved[3];
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP layout");

#define RSDP_V1_LEN 20u
#define RSDP_ALIGN  16u

struct parser {
	const struct acpi_mem *mem;
	struct acpi_info *info;
};

void acpi_msg(struct acpi_info *info, const char *fmt, ...)
{
	va_list ap;

	if (info->nmsgs >= ACPI_MAX_MSGS) {
		info->msgs_dropped++;
		return;
	}
	va_start(ap, fmt);
	lib_vsnprintf(info->msgs[info->nmsgs++], ACPI_MSG_LEN, fmt, ap);
	va_end(ap);
}

static uint8_t sum_bytes(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return sum;
}

/* Copy n firmware characters as a printable, NUL-terminated string. */
static void copy_text(char *dst, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? src[i] : '?';
	dst[n] = '\0';
}

/* The accessor, refusing ranges that wrap around the address space. */
static const void *map(const struct parser *p, uint64_t phys, size_t len)
{
	if (len == 0 || phys > UINT64_MAX - (len - 1))
		return NULL;
	return p->mem->map(p->mem->ctx, phys, len);
}

/* The name people know a table by, for messages. */
static const char *table_name(const char sig[5])
{
	if (memcmp(sig, "APIC", 4) == 0)
		return "MADT";
	if (memcmp(sig, "FACP", 4) == 0)
		return "FADT";
	return sig;
}

/*
 * Map and check the table at phys: header readable, length within
 * [36, ACPI_MAX_TABLE_LEN], the whole length readable, bytes summing to 0.
 * want is the signature required (NULL: any). On failure, one message ending
 * in why_not, and NULL. Fills rec (if not NULL) as far as it got.
 */
static const uint8_t *load_table(const struct parser *p, uint64_t phys,
				 const char *want, const char *why_not,
				 struct acpi_table *rec)
{
	struct acpi_table t = { .sig = "????", .phys = phys };
	struct acpi_sdt_header h;
	const uint8_t *tab = NULL;
	const void *hp = map(p, phys, sizeof(h));
	const char *name = want ? want : "table";
	uint8_t sum;

	if (!hp) {
		acpi_msg(p->info, "%s at 0x%llx: header not readable%s", name,
			 (unsigned long long)phys, why_not);
		goto out;
	}
	memcpy(&h, hp, sizeof(h));
	copy_text(t.sig, h.signature, 4);
	t.length = h.length;
	name = table_name(t.sig);
	if (want && memcmp(h.signature, want, 4) != 0) {
		acpi_msg(p->info,
			 "%s at 0x%llx: signature \"%s\" (want "
			 "\"%s\")%s",
			 want, (unsigned long long)phys, t.sig, want, why_not);
		goto out;
	}
	if (h.length < sizeof(h) || h.length > ACPI_MAX_TABLE_LEN) {
		acpi_msg(p->info, "%s at 0x%llx: length %u (want %zu..%u)%s",
			 name, (unsigned long long)phys, h.length, sizeof(h),
			 ACPI_MAX_TABLE_LEN, why_not);
		goto out;
	}
	tab = map(p, phys, h.length);
	if (!tab) {
		acpi_msg(p->info,
			 "%s at 0x%llx: length %u runs into "
			 "unreadable memory%s",
			 name, (unsigned long long)phys, h.length, why_not);
		goto out;
	}
	sum = sum_bytes(tab, h.length);
	if (sum != 0) {
		acpi_msg(p->info, "%s at 0x%llx: checksum 0x%02x (want 0)%s",
			 name, (unsigned long long)phys, sum, why_not);
		tab = NULL;
		goto out;
	}
	t.ok = true;
out:
	if (rec)
		*rec = t;
	return tab;
}

/* Check one table listed by the root table and parse what we know. */
static void visit_table(const struct parser *p, uint64_t phys)
{
	struct acpi_info *info = p->info;
	struct acpi_table *rec = &info->tables[info->ntables++];
	const uint8_t *tab = load_table(p, phys, NULL, ", ignored", rec);

	if (!tab)
		return;
	if (memcmp(rec->sig, "APIC", 4) == 0) {
		if (info->madt.present)
			acpi_msg(info,
				 "MADT at 0x%llx: a MADT was already "
				 "parsed, this one ignored",
				 (unsigned long long)phys);
		else
			acpi_parse_madt(info, tab, rec->length, phys);
	} else if (memcmp(rec->sig, "HPET", 4) == 0) {
		acpi_parse_hpet(info, tab, rec->length, phys);
	}
}

/* Walk the RSDT (4-byte entries) or XSDT (8-byte entries) at tab. */
static void walk_root(const struct parser *p, const uint8_t *tab, uint32_t len,
		      size_t esz)
{
	struct acpi_info *info = p->info;
	size_t body = len - sizeof(struct acpi_sdt_header);
	size_t n = body / esz;

	if (body % esz)
		acpi_msg(info,
			 "%s: length %u leaves %zu bytes after the last "
			 "%zu-byte entry, ignored",
			 info->root_sig, len, body % esz, esz);
	for (size_t i = 0; i < n; i++) {
		uint64_t phys = 0;

		if (info->ntables == ACPI_MAX_TABLES) {
			info->tables_dropped = n - i;
			acpi_msg(info,
				 "%s: %zu entries, only the first %d "
				 "examined",
				 info->root_sig, n, ACPI_MAX_TABLES);
			return;
		}
		/* Little-endian: the low esz bytes of phys. */
		memcpy(&phys, tab + sizeof(struct acpi_sdt_header) + i * esz,
		       esz);
		if (phys == 0) {
			acpi_msg(info, "%s: entry %zu is 0, skipped",
				 info->root_sig, i);
			continue;
		}
		visit_table(p, phys);
	}
}

/* Try the root table at phys with signature sig; true if it was walked. */
static bool use_root(const struct parser *p, uint64_t phys, const char *sig,
		     const char *why_not)
{
	const uint8_t *tab = load_table(p, phys, sig, why_not, NULL);
	struct acpi_sdt_header h;

	if (!tab)
		return false;
	memcpy(&h, tab, sizeof(h));
	memcpy(p->info->root_sig, sig, 5);
	p->info->root_phys = phys;
	walk_root(p, tab, h.length, sig[0] == 'X' ? 8 : 4);
	return true;
}

/*
 * The ACPI 2.0 part of the RSDP: true when its length and extended checksum
 * are good, so that xsdt_address can be trusted. Otherwise the ACPI 1.0 part
 * (which has its own checksum) still gives the RSDT.
 */
static bool check_rsdp_v2(const struct parser *p, uint64_t phys,
			  struct acpi_rsdp *r)
{
	const void *full, *hp = map(p, phys, sizeof(*r));
	uint8_t sum;

	if (!hp) {
		acpi_msg(p->info,
			 "RSDP at 0x%llx: revision %u but 36 bytes "
			 "not readable, using the RSDT only",
			 (unsigned long long)phys, r->revision);
		return false;
	}
	memcpy(r, hp, sizeof(*r));
	if (r->length < sizeof(*r) || r->length > ACPI_MAX_TABLE_LEN) {
		acpi_msg(p->info,
			 "RSDP at 0x%llx: length %u (want %zu..%u), "
			 "using the RSDT only",
			 (unsigned long long)phys, r->length, sizeof(*r),
			 ACPI_MAX_TABLE_LEN);
		return false;
	}
	full = map(p, phys, r->length);
	if (!full) {
		acpi_msg(p->info,
			 "RSDP at 0x%llx: length %u runs into "
			 "unreadable memory, using the RSDT only",
			 (unsigned long long)phys, r->length);
		return false;
	}
	sum = sum_bytes(full, r->length);
	if (sum != 0) {
		acpi_msg(p->info,
			 "RSDP at 0x%llx: extended checksum 0x%02x "
			 "(want 0), using the RSDT only",
			 (unsigned long long)phys, sum);
		return false;
	}
	return true;
}

/* Check the RSDP and record it; false if it cannot be used at all. */
static bool parse_rsdp(const struct parser *p, uint64_t phys)
{
	struct acpi_info *info = p->info;
	struct acpi_rsdp r = { 0 };
	const void *v1 = map(p, phys, RSDP_V1_LEN);
	uint8_t sum;

	if (!v1) {
		acpi_msg(info, "RSDP at 0x%llx: not readable",
			 (unsigned long long)phys);
		return false;
	}
	memcpy(&r, v1, RSDP_V1_LEN);
	if (memcmp(r.signature, "RSD PTR ", 8) != 0) {
		char sig[9];

		copy_text(sig, r.signature, 8);
		acpi_msg(info,
			 "RSDP at 0x%llx: signature \"%s\" (want "
			 "\"RSD PTR \")",
			 (unsigned long long)phys, sig);
		return false;
	}
	sum = sum_bytes(v1, RSDP_V1_LEN);
	if (sum != 0) {
		acpi_msg(info, "RSDP at 0x%llx: checksum 0x%02x (want 0)",
			 (unsigned long long)phys, sum);
		return false;
	}
	info->rsdp_phys = phys;
	info->rsdp_revision = r.revision;
	copy_text(info->oem_id, r.oem_id, 6);
	info->rsdt_phys = r.rsdt_address;
	if (r.revision >= 2 && check_rsdp_v2(p, phys, &r))
		info->xsdt_phys = r.xsdt_address;
	return true;
}

bool acpi_parse(const struct acpi_mem *mem, uint64_t rsdp_phys,
		struct acpi_info *out)
{
	const struct parser p = { .mem = mem, .info = out };

	memset(out, 0, sizeof(*out));
	if (!parse_rsdp(&p, rsdp_phys))
		return false;
	/* ACPI 6.5 5.2.7-5.2.8: when there is an XSDT, the OS uses it. */
	if (out->xsdt_phys &&
	    use_root(&p, out->xsdt_phys, "XSDT",
		     out->rsdt_phys ? ", falling back to RSDT" : ""))
		return true;
	if (out->rsdt_phys && use_root(&p, out->rsdt_phys, "RSDT", ""))
		return true;
	acpi_msg(out, "no usable root table (RSDT 0x%llx, XSDT 0x%llx)",
		 (unsigned long long)out->rsdt_phys,
		 (unsigned long long)out->xsdt_phys);
	return false;
}

/* Is there a valid RSDP at off in buf (off is 16-byte aligned)? */
static bool rsdp_at(const uint8_t *buf, size_t len, size_t off)
{
	struct acpi_rsdp r;
	size_t left = len - off;

	if (left < RSDP_V1_LEN || memcmp(buf + off, "RSD PTR ", 8) != 0 ||
	    sum_bytes(buf + off, RSDP_V1_LEN) != 0)
		return false;
	memcpy(&r, buf + off, RSDP_V1_LEN);
	if (r.revision < 2)
		return true;
	if (left < sizeof(r))
		return false;
	memcpy(&r, buf + off, sizeof(r));
	return r.length >= sizeof(r) && r.length <= left &&
	       sum_bytes(buf + off, r.length) == 0;
}

bool acpi_rsdp_scan(const void *buf, size_t len, uint64_t buf_phys,
		    uint64_t *rsdp_phys)
{
	/* Offset of the first 16-byte aligned physical address. */
	size_t off = (RSDP_ALIGN - (buf_phys % RSDP_ALIGN)) % RSDP_ALIGN;

	for (; off < len; off += RSDP_ALIGN) {
		if (rsdp_at(buf, len, off)) {
			*rsdp_phys = buf_phys + off;
			return true;
		}
		if (len - off <= RSDP_ALIGN)
			break;
	}
	return false;
}

uint32_t acpi_isa_irq_gsi(const struct acpi_info *info, uint8_t irq,
			  uint16_t *flags)
{
	const struct acpi_madt *m = &info->madt;

	for (size_t i = 0; i < m->noverrides; i++) {
		if (m->overrides[i].source == irq) {
			if (flags)
				*flags = m->overrides[i].flags;
			return m->overrides[i].gsi;
		}
	}
	/*
	 * ACPI 6.5 5.2.12.5: without an override, ISA IRQs are identity
	 * mapped and have the ISA defaults (edge, active high).
	 */
	if (flags)
		*flags = 0;
	return irq;
}

const struct acpi_lapic_nmi *acpi_lapic_nmi_for(const struct acpi_info *info,
						uint32_t uid)
{
	const struct acpi_madt *m = &info->madt;
	const struct acpi_lapic_nmi *all = NULL;

	for (size_t i = 0; i < m->nlapic_nmis; i++) {
		if (m->lapic_nmis[i].acpi_uid == uid)
			return &m->lapic_nmis[i];
		if (m->lapic_nmis[i].acpi_uid == ACPI_UID_ALL && !all)
			all = &m->lapic_nmis[i];
	}
	return all;
}
