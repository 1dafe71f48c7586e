/*
 * MADT walk (see lib/acpi.h): processors, I/O APICs, interrupt source
 * overrides, local APIC NMI wiring and the local APIC address, from the
 * Multiple APIC Description Table, ACPI 6.5 5.2.12.
 *
 * The table body is a list of entries, each starting with a type byte and a
 * length byte. A length that cannot be right (under 2, or past the table
 * end) leaves no way to find the next entry, so the walk stops there; an
 * entry merely too short for its type is skipped by its length.
 */
#include "lib/acpi.h"
#include "lib/acpi_internal.h"
#include "lib/string.h"

/* Interrupt Controller Structure header, ACPI 6.5 5.2.12. */
struct madt_entry {
	uint8_t type;
	uint8_t length; /* of the whole entry */
} __attribute__((packed));

/* Processor Local APIC Structure, 5.2.12.2. */
struct madt_lapic {
	struct madt_entry h;
	uint8_t acpi_uid;
	uint8_t apic_id;
	uint32_t flags; /* Local APIC Flags */
} __attribute__((packed));

/* I/O APIC Structure, 5.2.12.3. */
struct madt_ioapic {
	struct madt_entry h;
	uint8_t id;
	uint8_t reserved;
	uint32_t address;
	uint32_t gsi_base;
} __attribute__((packed));

/* Interrupt Source Override Structure, 5.2.12.5. */
struct madt_override {
	struct madt_entry h;
	uint8_t bus; /* 0: ISA */
	uint8_t source;
	uint32_t gsi;
	uint16_t flags; /* MPS INTI flags */
} __attribute__((packed));

/* Local APIC NMI Structure, 5.2.12.7. */
struct madt_lapic_nmi {
	struct madt_entry h;
	uint8_t acpi_uid; /* 0xFF: all processors */
	uint16_t flags;
	uint8_t lint;
} __attribute__((packed));

/* Local APIC Address Override Structure, 5.2.12.8. */
struct madt_lapic_addr {
	struct madt_entry h;
	uint16_t reserved;
	uint64_t address;
} __attribute__((packed));

/* Processor Local x2APIC Structure, 5.2.12.12. */
struct madt_x2apic {
	struct madt_entry h;
	uint16_t reserved;
	uint32_t x2apic_id;
	uint32_t flags; /* Local APIC Flags, as in type 0 */
	uint32_t acpi_uid;
} __attribute__((packed));

/* Local x2APIC NMI Structure, 5.2.12.13. */
struct madt_x2apic_nmi {
	struct madt_entry h;
	uint16_t flags;
	uint32_t acpi_uid; /* 0xFFFFFFFF: all processors */
	uint8_t lint;
	uint8_t reserved[3];
} __attribute__((packed));

_Static_assert(sizeof(struct madt_lapic) == 8, "MADT type 0");
_Static_assert(sizeof(struct madt_ioapic) == 12, "MADT type 1");
_Static_assert(sizeof(struct madt_override) == 10, "MADT type 2");
_Static_assert(sizeof(struct madt_lapic_nmi) == 6, "MADT type 4");
_Static_assert(sizeof(struct madt_lapic_addr) == 12, "MADT type 5");
_Static_assert(sizeof(struct madt_x2apic) == 16, "MADT type 9");
_Static_assert(sizeof(struct madt_x2apic_nmi) == 12, "MADT type 0xA");

/* The fixed part: header, Local Interrupt Controller Address, Flags. */
#define MADT_LAPIC_ADDR_OFF 36u
#define MADT_FLAGS_OFF	    40u
#define MADT_ENTRIES_OFF    44u
/* Dual 8259s present too; the OS masks them to use the APICs (5.2.12.4). */
#define MADT_PCAT_COMPAT    (1u << 0)

/* Local APIC Flags, 5.2.12.2 ("Local APIC Flags" table). */
#define LAPIC_ENABLED		(1u << 0)
#define LAPIC_ONLINE_CAPABLE	(1u << 1)
/* Online Capable was reserved before MADT revision 5 (ACPI 6.3). */
#define MADT_REV_ONLINE_CAPABLE 5

/*
 * 0xFF is the xAPIC broadcast ID and 0xFFFFFFFF the x2APIC one: no processor
 * has them. IDs from 255 up can only be reached in x2APIC mode (5.2.12.12).
 */
#define XAPIC_BROADCAST	 0xFFu
#define X2APIC_BROADCAST 0xFFFFFFFFu
#define XAPIC_MAX_ID	 254u

struct walk {
	struct acpi_info *info;
	struct acpi_madt *m;
	uint32_t off; /* of the current entry, for messages */
};

static void add_cpu(struct walk *w, uint32_t apic_id, uint32_t uid,
		    uint32_t flags, bool x2)
{
	struct acpi_madt *m = w->m;
	struct acpi_cpu c = {
		.apic_id = apic_id,
		.acpi_uid = uid,
		.enabled = flags & LAPIC_ENABLED,
		.from_x2apic_entry = x2,
	};

	/* Online Capable has a meaning only for a disabled processor. */
	c.online_capable = !c.enabled &&
			   m->revision >= MADT_REV_ONLINE_CAPABLE &&
			   (flags & LAPIC_ONLINE_CAPABLE);
	if (apic_id == (x2 ? X2APIC_BROADCAST : XAPIC_BROADCAST)) {
		/* Firmware lists absent CPUs so; only a usable one is odd. */
		if (c.enabled || c.online_capable)
			acpi_msg(w->info,
				 "MADT: %s entry at offset 0x%x has "
				 "the broadcast APIC ID 0x%x, skipped",
				 x2 ? "x2APIC" : "local APIC", w->off, apic_id);
		return;
	}
	/* Some firmware lists a CPU both as type 0 and type 9: keep one. */
	for (size_t i = 0; i < m->ncpus; i++) {
		if (m->cpus[i].apic_id == apic_id) {
			m->cpus_duplicate++;
			return;
		}
	}
	if (m->ncpus == ACPI_MAX_CPUS) {
		m->cpus_dropped++;
		m->cpus_dropped_enabled += c.enabled;
		return;
	}
	m->cpus[m->ncpus++] = c;
	m->cpus_enabled += c.enabled;
	if ((c.enabled || c.online_capable) && apic_id > XAPIC_MAX_ID)
		m->need_x2apic = true;
}

static void on_lapic(struct walk *w, const uint8_t *e)
{
	struct madt_lapic r;

	memcpy(&r, e, sizeof(r));
	add_cpu(w, r.apic_id, r.acpi_uid, r.flags, false);
}

static void on_x2apic(struct walk *w, const uint8_t *e)
{
	struct madt_x2apic r;

	memcpy(&r, e, sizeof(r));
	add_cpu(w, r.x2apic_id, r.acpi_uid, r.flags, true);
}

static void on_ioapic(struct walk *w, const uint8_t *e)
{
	struct acpi_madt *m = w->m;
	struct madt_ioapic r;

	memcpy(&r, e, sizeof(r));
	if (m->nioapics == ACPI_MAX_IOAPICS) {
		m->ioapics_dropped++;
		return;
	}
	m->ioapics[m->nioapics++] = (struct acpi_ioapic){
		.id = r.id,
		.address = r.address,
		.gsi_base = r.gsi_base,
	};
}

static void on_override(struct walk *w, const uint8_t *e)
{
	struct acpi_madt *m = w->m;
	struct madt_override r;

	memcpy(&r, e, sizeof(r));
	/* 5.2.12.5: Bus is 0, meaning ISA; nothing else is defined. */
	if (r.bus != 0) {
		acpi_msg(w->info,
			 "MADT: interrupt source override at offset "
			 "0x%x has bus %u (want 0, ISA), skipped",
			 w->off, r.bus);
		m->entries_bad++;
		return;
	}
	if (m->noverrides == ACPI_MAX_OVERRIDES) {
		m->overrides_dropped++;
		return;
	}
	m->overrides[m->noverrides++] = (struct acpi_override){
		.bus = r.bus,
		.source = r.source,
		.gsi = r.gsi,
		.flags = r.flags,
	};
}

static void add_nmi(struct walk *w, uint32_t uid, uint8_t lint, uint16_t flags,
		    bool x2)
{
	struct acpi_madt *m = w->m;

	/* A local APIC has two LINT pins. */
	if (lint > 1) {
		acpi_msg(w->info,
			 "MADT: %s NMI entry at offset 0x%x names "
			 "LINT%u (want 0 or 1), skipped",
			 x2 ? "x2APIC" : "local APIC", w->off, lint);
		m->entries_bad++;
		return;
	}
	if (m->nlapic_nmis == ACPI_MAX_LAPIC_NMIS) {
		m->lapic_nmis_dropped++;
		return;
	}
	m->lapic_nmis[m->nlapic_nmis++] = (struct acpi_lapic_nmi){
		.acpi_uid = uid,
		.lint = lint,
		.flags = flags,
		.from_x2apic_entry = x2,
	};
}

static void on_lapic_nmi(struct walk *w, const uint8_t *e)
{
	struct madt_lapic_nmi r;

	memcpy(&r, e, sizeof(r));
	add_nmi(w, r.acpi_uid == ACPI_UID_ALL_8 ? ACPI_UID_ALL : r.acpi_uid,
		r.lint, r.flags, false);
}

static void on_x2apic_nmi(struct walk *w, const uint8_t *e)
{
	struct madt_x2apic_nmi r;

	memcpy(&r, e, sizeof(r));
	add_nmi(w, r.acpi_uid, r.lint, r.flags, true);
}

static void on_lapic_addr(struct walk *w, const uint8_t *e)
{
	struct madt_lapic_addr r;

	memcpy(&r, e, sizeof(r));
	/* 5.2.12.8: at most one; it replaces the 32-bit address. */
	if (w->m->lapic_addr_override) {
		acpi_msg(w->info,
			 "MADT: second local APIC address override "
			 "at offset 0x%x, ignored",
			 w->off);
		w->m->entries_bad++;
		return;
	}
	w->m->lapic_addr = r.address;
	w->m->lapic_addr_override = true;
}

static const struct madt_kind {
	uint8_t type;
	uint8_t min_len;
	const char *name;
	void (*parse)(struct walk *w, const uint8_t *e);
} madt_kinds[] = {
	{ 0x0, sizeof(struct madt_lapic), "local APIC", on_lapic },
	{ 0x1, sizeof(struct madt_ioapic), "I/O APIC", on_ioapic },
	{ 0x2, sizeof(struct madt_override), "interrupt source override",
	  on_override },
	{ 0x4, sizeof(struct madt_lapic_nmi), "local APIC NMI", on_lapic_nmi },
	{ 0x5, sizeof(struct madt_lapic_addr), "local APIC address override",
	  on_lapic_addr },
	{ 0x9, sizeof(struct madt_x2apic), "local x2APIC", on_x2apic },
	{ 0xA, sizeof(struct madt_x2apic_nmi), "local x2APIC NMI",
	  on_x2apic_nmi },
};

static void parse_entry(struct walk *w, const uint8_t *e)
{
	const struct madt_kind *k = NULL;

	for (size_t i = 0; i < sizeof(madt_kinds) / sizeof(*k); i++)
		if (madt_kinds[i].type == e[0])
			k = &madt_kinds[i];
	if (!k) {
		/* Other controllers (SAPIC, GIC, ...), reserved, OEM. */
		w->m->entries_skipped++;
		return;
	}
	/* Longer is accepted: later revisions may append fields. */
	if (e[1] < k->min_len) {
		acpi_msg(w->info,
			 "MADT: %s entry (type %u) at offset 0x%x "
			 "has length %u (want %u), skipped",
			 k->name, e[0], w->off, e[1], k->min_len);
		w->m->entries_bad++;
		return;
	}
	k->parse(w, e);
}

/* One line for each cap that was exceeded: the kernel must say so. */
static void report_caps(struct acpi_info *info)
{
	const struct acpi_madt *m = &info->madt;

	if (m->cpus_dropped)
		acpi_msg(info,
			 "MADT: %zu CPUs over the cap of %d not used "
			 "(%zu of them enabled)",
			 m->cpus_dropped, ACPI_MAX_CPUS,
			 m->cpus_dropped_enabled);
	if (m->cpus_duplicate)
		acpi_msg(info,
			 "MADT: %zu CPU entr%s ignored: APIC ID listed "
			 "before",
			 m->cpus_duplicate,
			 m->cpus_duplicate == 1 ? "y" : "ies");
	if (m->ioapics_dropped)
		acpi_msg(info,
			 "MADT: %zu I/O APICs over the cap of %d not "
			 "used",
			 m->ioapics_dropped, ACPI_MAX_IOAPICS);
	if (m->overrides_dropped)
		acpi_msg(info,
			 "MADT: %zu interrupt source overrides over "
			 "the cap of %d not used",
			 m->overrides_dropped, ACPI_MAX_OVERRIDES);
	if (m->lapic_nmis_dropped)
		acpi_msg(info,
			 "MADT: %zu local APIC NMI entries over the "
			 "cap of %d not used",
			 m->lapic_nmis_dropped, ACPI_MAX_LAPIC_NMIS);
}

/*
 * Check the length byte of the entry at off; false (with a message) when
 * the walk cannot go on.
 */
static bool entry_fits(struct acpi_info *info, const uint8_t *tab, uint32_t len,
		       uint32_t off)
{
	if (len - off < sizeof(struct madt_entry)) {
		acpi_msg(info,
			 "MADT: %u byte(s) at offset 0x%x, too few for "
			 "an entry, ignored",
			 len - off, off);
		return false;
	}
	if (tab[off + 1] < sizeof(struct madt_entry)) {
		acpi_msg(info,
			 "MADT: entry at offset 0x%x has length %u "
			 "(min 2), rest of table ignored",
			 off, tab[off + 1]);
		return false;
	}
	if (tab[off + 1] > len - off) {
		acpi_msg(info,
			 "MADT: entry type %u at offset 0x%x has length "
			 "%u, past the table end at 0x%x, rest of table "
			 "ignored",
			 tab[off], off, tab[off + 1], len);
		return false;
	}
	return true;
}

void acpi_parse_madt(struct acpi_info *info, const uint8_t *tab, uint32_t len,
		     uint64_t phys)
{
	struct acpi_madt *m = &info->madt;
	struct walk w = { .info = info, .m = m };
	uint32_t addr32;

	if (len < MADT_ENTRIES_OFF) {
		acpi_msg(info, "MADT at 0x%llx: length %u (min %u), ignored",
			 (unsigned long long)phys, len, MADT_ENTRIES_OFF);
		return;
	}
	m->present = true;
	m->revision = tab[offsetof(struct acpi_sdt_header, revision)];
	memcpy(&addr32, tab + MADT_LAPIC_ADDR_OFF, sizeof(addr32));
	memcpy(&m->flags, tab + MADT_FLAGS_OFF, sizeof(m->flags));
	m->lapic_addr = addr32;
	m->pcat_compat = m->flags & MADT_PCAT_COMPAT;
	for (w.off = MADT_ENTRIES_OFF; w.off < len; w.off += tab[w.off + 1]) {
		if (!entry_fits(info, tab, len, w.off)) {
			m->truncated = true;
			break;
		}
		m->entries++;
		parse_entry(&w, tab + w.off);
	}
	report_caps(info);
}
