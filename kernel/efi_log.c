/*
 * The log's tail in EFI variables (see kernel/efi_log.h), the way Linux's
 * efi-pstore keeps crash logs: small chunks, each its own variable, so a
 * full variable store loses the oldest text first.
 *
 * Variables, all under the btslab vendor GUID below, non-volatile and
 * readable at runtime (so efivarfs shows them):
 *   BtslabLog00 .. BtslabLog24  the last TAIL_BYTES of the log in CHUNK-byte
 *                               pieces, 00 the newest; older pieces first
 *                               when reassembled
 *   BtslabLogInfo               "btslab-log 1 chunks=N bytes=B total=T ...":
 *                               written last, so its absence means the
 *                               save did not finish
 * Each save deletes what the previous run left beyond its own chunks, and
 * nothing else is ever written to the machine.
 *
 * The save runs when the closing line ("# btslab done: ...") has gone
 * through this console: the log is complete then, and nothing may follow
 * it in the log, so the outcome is told by BtslabLogInfo itself.
 */
#include "kernel/efi_log.h"

#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/options.h"
#include "lib/format.h"
#include "lib/string.h"

#define TAIL_BYTES (24 * 1024)
#define CHUNK	   1000
#define MAX_CHUNKS ((TAIL_BYTES + CHUNK - 1) / CHUNK)

#define EFI_RT_SIGNATURE 0x56524553544E5552ull /* "RUNTSERV" */
#define EFI_NOT_FOUND	 (0x8000000000000000ull | 14)
#define EFI_ERROR_BIT	 0x8000000000000000ull
/* Non-volatile, boot-service and runtime access. */
#define VAR_ATTRS	 0x7u

#define CLOSING "# btslab done:"

struct efi_guid {
	uint32_t a;
	uint16_t b, c;
	uint8_t d[8];
};

typedef uint64_t __attribute__((ms_abi)) (*efi_set_variable)(
	const uint16_t *name, const struct efi_guid *vendor, uint32_t attrs,
	uint64_t size, const void *data);

/* UEFI 2.x, EFI_RUNTIME_SERVICES: the header, then the services in order. */
struct efi_runtime_services {
	uint64_t signature;
	uint32_t revision, header_size, crc32, reserved;
	void *get_time, *set_time, *get_wakeup_time, *set_wakeup_time;
	void *set_virtual_address_map, *convert_pointer;
	void *get_variable, *get_next_variable_name;
	efi_set_variable set_variable;
};

/* 903592cc-01ba-46fd-a5f6-bdb2ee0d58e6, also in tools/efivars. */
static const struct efi_guid btslab_guid = { 0x903592cc,
					     0x01ba,
					     0x46fd,
					     { 0xa5, 0xf6, 0xbd, 0xb2, 0xee,
					       0x0d, 0x58, 0xe6 } };

static const struct efi_runtime_services *rt;
static char tail[TAIL_BYTES];
static uint64_t total; /* bytes of log seen */
static char line_head[sizeof(CLOSING)];
static unsigned line_pos;
static bool saved;

static void var_name(uint16_t *out, const char *name)
{
	while (*name)
		*out++ = (uint16_t)*name++;
	*out = 0;
}

static uint64_t set_var(const char *name, const void *data, uint64_t size)
{
	uint16_t wide[32];

	var_name(wide, name);
	return rt->set_variable(wide, &btslab_guid, size ? VAR_ATTRS : 0, size,
				data);
}

static void save(void)
{
	uint64_t have = total < TAIL_BYTES ? total : TAIL_BYTES;
	uint64_t st = 0, saved_bytes = 0;
	unsigned chunks = 0;
	char name[16], info[160];
	static char piece[CHUNK];

	saved = true;
	set_var("BtslabLogInfo", NULL, 0);
	for (; chunks < MAX_CHUNKS && saved_bytes < have; chunks++) {
		uint64_t n =
			have - saved_bytes < CHUNK ? have - saved_bytes : CHUNK;
		uint64_t end = total - saved_bytes;

		for (uint64_t i = 0; i < n; i++)
			piece[i] = tail[(end - n + i) % TAIL_BYTES];
		lib_snprintf(name, sizeof(name), "BtslabLog%02u", chunks);
		st = set_var(name, piece, n);
		if (st & EFI_ERROR_BIT)
			break;
		saved_bytes += n;
	}
	/* The previous run's extra chunks. */
	for (unsigned k = chunks; k < MAX_CHUNKS; k++) {
		lib_snprintf(name, sizeof(name), "BtslabLog%02u", k);
		set_var(name, NULL, 0);
	}
	lib_snprintf(info, sizeof(info),
		     "btslab-log 1 chunks=%u bytes=%lu total=%lu chunk=%u "
		     "status=%s error=0x%lx\n",
		     chunks, saved_bytes, total, CHUNK,
		     st & EFI_ERROR_BIT ? "partial" : "complete", st);
	set_var("BtslabLogInfo", info, strlen(info));
}

static void efi_log_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		tail[total++ % TAIL_BYTES] = s[i];
		if (s[i] == '\n') {
			bool closing = line_pos == sizeof(CLOSING) - 1 &&
				       !memcmp(line_head, CLOSING, line_pos);

			line_pos = 0;
			if (closing && !saved && strcmp(settings.save, "none"))
				save();
		} else if (line_pos < sizeof(CLOSING) - 1) {
			line_head[line_pos++] = s[i];
		}
	}
}

static struct console efi_log_console = {
	.name = "efi-vars",
	.write = efi_log_write,
};

void efi_log_init(const struct boot_info *bi)
{
	const struct efi_runtime_services *r = (const void *)bi->efi_runtime;

	/* Below 4 GiB: the kernel's identity map covers only that much. */
	if (!r || bi->efi_runtime >= (1ull << 32) - sizeof(*r) ||
	    r->signature != EFI_RT_SIGNATURE || !r->set_variable)
		return;
	rt = r;
	console_register(&efi_log_console);
}
