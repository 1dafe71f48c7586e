/*
 * ACPI table parser: RSDP, RSDT/XSDT, MADT and HPET, into plain data.
 *
 * Hardware-free, so it runs on the host under sanitizers and a fuzzer. The
 * parser never touches a physical address itself: every read goes through
 * struct acpi_mem, which the kernel backs with its identity map and the host
 * tests with a buffer. Firmware tables are not trusted: every length and
 * checksum is checked, a bad table is ignored with a message that says what
 * was wrong and where, and parsing goes on with the other tables.
 *
 * Layouts are from the ACPI Specification 6.5, chapter 5.2 ("ACPI System
 * Description Tables"), and the IA-PC HPET Specification 1.0a, section 3.2.4
 * ("The ACPI 2.0 HPET Description Table").
 */
#ifndef LIB_ACPI_H
#define LIB_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Physical memory accessor. map() returns a pointer through which the bytes
 * [phys, phys + len) can be read, or NULL when any of them cannot. Pointers
 * stay valid until acpi_parse() returns; nothing is ever written through them.
 */
struct acpi_mem {
	const void *(*map)(void *ctx, uint64_t phys, size_t len);
	void *ctx;
};

/*
 * Where the RSDP may be on IA-PC (legacy BIOS) systems, ACPI 6.5 5.2.5.1
 * "Finding the RSDP on IA-PC Systems": the first 1 KiB of the EBDA (its
 * segment is the 16-bit word at 0x40E) and the BIOS read-only area
 * 0xE0000-0xFFFFF, on 16-byte boundaries. UEFI systems pass it in the
 * configuration table instead. Multiboot2 gives a copy of the RSDP in a tag
 * (14 for ACPI 1.0, 15 for 2.0+): pass the physical address of that copy.
 */
#define ACPI_EBDA_PTR_PHYS  0x40Eu
#define ACPI_EBDA_SCAN_LEN  1024u
#define ACPI_BIOS_AREA_PHYS 0xE0000u
#define ACPI_BIOS_AREA_LEN  0x20000u

/* Caps on what acpi_info holds; what does not fit is counted, not lost. */
#define ACPI_MAX_TABLES	    64 /* root table entries examined */
#define ACPI_MAX_CPUS	    256
#define ACPI_MAX_IOAPICS    16
#define ACPI_MAX_OVERRIDES  16
#define ACPI_MAX_LAPIC_NMIS ACPI_MAX_CPUS /* firmware often has one per CPU */
#define ACPI_MAX_MSGS	    16
#define ACPI_MSG_LEN	    120
/* Tables longer than this are refused rather than mapped and summed. */
#define ACPI_MAX_TABLE_LEN  (16u << 20)

/* "All processors" in the Local APIC NMI (type 4) / x2APIC NMI (type 0xA). */
#define ACPI_UID_ALL_8 0xFFu
#define ACPI_UID_ALL   0xFFFFFFFFu

/*
 * MPS INTI flags of interrupt source overrides and NMI entries (ACPI 6.5
 * 5.2.12, table "MPS INTI Flags"): polarity in bits 1:0, trigger mode in
 * bits 3:2; 0 means "conforms to the bus" (for ISA: active high, edge).
 */
#define ACPI_INTI_POLARITY_MASK 0x3u
#define ACPI_INTI_POLARITY_BUS	0x0u
#define ACPI_INTI_POLARITY_HIGH 0x1u
#define ACPI_INTI_POLARITY_LOW	0x3u
#define ACPI_INTI_TRIGGER_MASK	0xCu
#define ACPI_INTI_TRIGGER_BUS	0x0u
#define ACPI_INTI_TRIGGER_EDGE	0x4u
#define ACPI_INTI_TRIGGER_LEVEL 0xCu

/* One table listed by the root table (ACPI 6.5 5.2.6 header). */
struct acpi_table {
	char sig[5];	 /* signature, NUL-terminated ("????" if unmappable) */
	uint64_t phys;	 /* address from the RSDT/XSDT entry */
	uint32_t length; /* header length field (0 if unreadable) */
	bool ok;	 /* mapped, length and checksum good */
};

/*
 * A processor from a Processor Local APIC (type 0, 5.2.12.2) or Processor
 * Local x2APIC (type 9, 5.2.12.12) entry, "Local APIC Flags" decoded.
 */
struct acpi_cpu {
	uint32_t apic_id;	/* 8-bit from type 0, 32-bit from type 9 */
	uint32_t acpi_uid;	/* ACPI Processor UID, matches NMI entries */
	bool enabled;		/* flags bit 0: usable now */
	bool online_capable;	/* flags bit 1, MADT revision >= 5, !enabled */
	bool from_x2apic_entry; /* listed by a type 9 entry */
};

/* I/O APIC structure (type 1, 5.2.12.3). */
struct acpi_ioapic {
	uint8_t id;
	uint32_t address;  /* physical base of its registers */
	uint32_t gsi_base; /* first Global System Interrupt it handles */
};

/* Interrupt Source Override (type 2, 5.2.12.5): ISA IRQ -> GSI. */
struct acpi_override {
	uint8_t bus;	/* 0 = ISA, the only value the spec defines */
	uint8_t source; /* bus-relative IRQ (ISA IRQ 0 = PIT) */
	uint32_t gsi;
	uint16_t flags; /* MPS INTI flags */
};

/*
 * Local APIC NMI (type 4, 5.2.12.7) or Local x2APIC NMI (type 0xA,
 * 5.2.12.13): which LINT pin of which processor(s) is wired to NMI.
 */
struct acpi_lapic_nmi {
	uint32_t acpi_uid; /* ACPI_UID_ALL for "all" in either entry type */
	uint8_t lint;	   /* 0 = LINT0, 1 = LINT1 */
	uint16_t flags;	   /* MPS INTI flags */
	bool from_x2apic_entry;
};

/* Multiple APIC Description Table, signature "APIC" (ACPI 6.5 5.2.12). */
struct acpi_madt {
	bool present; /* a MADT passed its checks and was walked */
	uint8_t revision;
	uint64_t lapic_addr;	  /* 32-bit field, or type 5 override */
	bool lapic_addr_override; /* lapic_addr came from a type 5 entry */
	uint32_t flags;		  /* bit 0 PCAT_COMPAT */
	bool pcat_compat;	  /* 8259 PICs present: mask them (5.2.12.4) */
	bool need_x2apic; /* a usable CPU in cpus[] has APIC ID >= 255 */

	size_t ncpus, cpus_dropped;  /* dropped: over ACPI_MAX_CPUS */
	size_t cpus_dropped_enabled; /* of which enabled */
	size_t cpus_duplicate;	     /* APIC ID listed twice, ignored */
	size_t cpus_enabled;	     /* enabled among cpus[] */
	struct acpi_cpu cpus[ACPI_MAX_CPUS];

	size_t nioapics, ioapics_dropped;
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];

	size_t noverrides, overrides_dropped;
	struct acpi_override overrides[ACPI_MAX_OVERRIDES];

	size_t nlapic_nmis, lapic_nmis_dropped;
	struct acpi_lapic_nmi lapic_nmis[ACPI_MAX_LAPIC_NMIS];

	size_t entries;		/* entries walked */
	size_t entries_skipped; /* types this parser does not use */
	size_t entries_bad;	/* malformed for their type, skipped */
	bool truncated;		/* walk stopped on a bad entry length */
};

/*
 * HPET description table, signature "HPET" (IA-PC HPET 1.0a, 3.2.4); the
 * base address is a Generic Address Structure (ACPI 6.5 5.2.3.2).
 */
struct acpi_hpet {
	bool present;	       /* a HPET table passed its checks */
	bool usable;	       /* base is system memory and non-zero */
	uint32_t block_id;     /* Event Timer Block ID, raw */
	uint16_t pci_vendor;   /* block_id bits 31:16 */
	bool legacy_capable;   /* bit 15: LegacyReplacement IRQ routing */
	bool counter_64bit;    /* bit 13: COUNT_SIZE_CAP */
	uint8_t comparators;   /* bits 12:8, plus one */
	uint8_t hw_rev;	       /* bits 7:0 */
	uint8_t address_space; /* GAS space ID: 0 memory, 1 I/O */
	uint8_t bit_width, bit_offset;
	uint64_t address;  /* base of the event timer block */
	uint8_t number;	   /* HPET sequence number */
	uint16_t min_tick; /* minimum periodic clock tick, in ticks */
	uint8_t page_protection;
	size_t extra_tables; /* further HPET tables (other blocks), unused */
};

/* About 10 KiB: keep it in static storage, not on a kernel stack. */
struct acpi_info {
	/* RSDP, ACPI 6.5 5.2.5.3 */
	uint64_t rsdp_phys;
	uint8_t rsdp_revision; /* 0 = ACPI 1.0, 2 = ACPI 2.0 and later */
	char oem_id[7];	       /* NUL-terminated */
	uint64_t rsdt_phys, xsdt_phys;

	/* Root table used: "XSDT", "RSDT", or "" when none was usable. */
	char root_sig[5];
	uint64_t root_phys;

	size_t ntables, tables_dropped; /* dropped: over ACPI_MAX_TABLES */
	struct acpi_table tables[ACPI_MAX_TABLES];

	struct acpi_madt madt;
	struct acpi_hpet hpet;

	/* Problems found, in order; each NUL-terminated, one line. */
	size_t nmsgs, msgs_dropped;
	char msgs[ACPI_MAX_MSGS][ACPI_MSG_LEN];
};

/*
 * Find the RSDP in buf (len bytes that sit at physical address buf_phys):
 * "RSD PTR " on a 16-byte physical boundary with a good checksum over the
 * first 20 bytes and, for revision >= 2, a good extended checksum over its
 * length. Returns true and sets *rsdp_phys for the first valid one.
 */
bool acpi_rsdp_scan(const void *buf, size_t len, uint64_t buf_phys,
		    uint64_t *rsdp_phys);

/*
 * Parse the tables reachable from the RSDP at rsdp_phys into *out (cleared
 * first). Returns true when a root table (XSDT or RSDT) was found good and
 * walked; false when the RSDP or both root tables are unusable. In both
 * cases out->msgs says what was wrong.
 */
bool acpi_parse(const struct acpi_mem *mem, uint64_t rsdp_phys,
		struct acpi_info *out);

/*
 * GSI and MPS INTI flags for ISA IRQ irq: the Interrupt Source Override for
 * it if there is one, else identity with flags 0 (ISA defaults: edge, high).
 */
uint32_t acpi_isa_irq_gsi(const struct acpi_info *info, uint8_t irq,
			  uint16_t *flags);

/*
 * The Local APIC NMI entry that applies to the processor with ACPI UID uid
 * (its own entry first, else an "all processors" entry), or NULL.
 */
const struct acpi_lapic_nmi *acpi_lapic_nmi_for(const struct acpi_info *info,
						uint32_t uid);

#endif
