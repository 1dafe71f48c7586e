/*
 * From the multiboot information (version 1 from QEMU -kernel, version 2
 * from GRUB) to struct boot_info. Both are read in place, before anything
 * else allocates memory: the loader put them somewhere free.
 *
 * QEMU's multiboot loader passes "<kernel path> <-append text>" as the
 * command line; GRUB passes only the arguments. A first word that holds a
 * '/' and no '=' is taken as the path and dropped.
 */
#include "kernel/boot_info.h"

#include "lib/string.h"

#define MB1_MAGIC 0x2BADB002u
#define MB2_MAGIC 0x36D76289u

#define MB1_FLAG_CMDLINE (1u << 2)
#define MB1_FLAG_MMAP	 (1u << 6)
#define MB1_FLAG_LOADER	 (1u << 9)

#define MB2_TAG_END	    0
#define MB2_TAG_CMDLINE	    1
#define MB2_TAG_LOADER	    2
#define MB2_TAG_MMAP	    6
#define MB2_TAG_FRAMEBUFFER 8
#define MB2_TAG_EFI32	    11
#define MB2_TAG_EFI64	    12
#define MB2_TAG_ACPI_OLD    14
#define MB2_TAG_ACPI_NEW    15
#define MB2_TAG_EFI_MMAP    17

struct mb1_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
} __attribute__((packed));

struct mb1_mmap_entry {
	uint32_t size; /* of the rest of the entry */
	uint64_t base, len;
	uint32_t type;
} __attribute__((packed));

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_mmap {
	uint32_t type, size;
	uint32_t entry_size, entry_version;
	/* entries follow */
};

struct mb2_mmap_entry {
	uint64_t base, len;
	uint32_t type, reserved;
};

struct mb2_framebuffer {
	uint32_t type, size;
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp, fb_type;
	uint16_t reserved;
	/* fb_type 1 (RGB) only: */
	uint8_t red_pos, red_size, green_pos, green_size;
	uint8_t blue_pos, blue_size;
};

static struct boot_info boot_info;

static void copy_str(char *dst, size_t cap, const char *src, bool *truncated)
{
	size_t n = strnlen(src, cap);

	if (n == cap) {
		n = cap - 1;
		if (truncated)
			*truncated = true;
	}
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* Drop a leading kernel path (see the top of this file). */
static void strip_path(char *s)
{
	char *p = s, *end;
	bool slash = false, eq = false;

	while (*p == ' ')
		p++;
	for (end = p; *end && *end != ' '; end++) {
		slash |= *end == '/';
		eq |= *end == '=';
	}
	if (!slash || eq)
		return;
	while (*end == ' ')
		end++;
	memmove(s, end, strlen(end) + 1);
}

static void add_region(struct boot_info *bi, uint64_t base, uint64_t len,
		       uint32_t type)
{
	if (bi->nmem == BOOT_MAX_REGIONS) {
		bi->mem_dropped++;
		return;
	}
	bi->mem[bi->nmem].base = base;
	bi->mem[bi->nmem].len = len;
	bi->mem[bi->nmem].type = type;
	bi->nmem++;
}

static void parse_mb1(struct boot_info *bi, const struct mb1_info *mb)
{
	bi->path = BOOT_MULTIBOOT1;
	bi->firmware = FIRMWARE_BIOS; /* QEMU loads multiboot1 from SeaBIOS */
	if (mb->flags & MB1_FLAG_CMDLINE)
		copy_str(bi->cmdline, sizeof(bi->cmdline),
			 (const char *)(uint64_t)mb->cmdline,
			 &bi->cmdline_truncated);
	if (mb->flags & MB1_FLAG_LOADER)
		copy_str(bi->loader, sizeof(bi->loader),
			 (const char *)(uint64_t)mb->boot_loader_name, 0);
	if (mb->flags & MB1_FLAG_MMAP) {
		uint64_t p = mb->mmap_addr, end = p + mb->mmap_length;

		while (p + sizeof(struct mb1_mmap_entry) <= end) {
			const struct mb1_mmap_entry *e = (const void *)p;

			add_region(bi, e->base, e->len, e->type);
			p += e->size + sizeof(e->size);
		}
	}
}

static void parse_mb2(struct boot_info *bi, const uint8_t *info)
{
	uint32_t total = *(const uint32_t *)info;
	const uint8_t *p = info + 8, *end = info + total;

	bi->path = BOOT_MULTIBOOT2;
	bi->firmware = FIRMWARE_BIOS;
	while (p + sizeof(struct mb2_tag) <= end) {
		const struct mb2_tag *tag = (const void *)p;
		const char *payload = (const char *)(tag + 1);
		unsigned plen = tag->size - sizeof(*tag);

		if (tag->type == MB2_TAG_END || tag->size < sizeof(*tag))
			break;
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			copy_str(bi->cmdline, sizeof(bi->cmdline), payload,
				 &bi->cmdline_truncated);
			break;
		case MB2_TAG_LOADER:
			copy_str(bi->loader, sizeof(bi->loader), payload, 0);
			break;
		case MB2_TAG_MMAP: {
			const struct mb2_mmap *m = (const void *)tag;
			const uint8_t *e = (const uint8_t *)(m + 1);

			if (m->entry_size < sizeof(struct mb2_mmap_entry))
				break;
			for (; e + m->entry_size <= p + tag->size;
			     e += m->entry_size) {
				const struct mb2_mmap_entry *me =
					(const void *)e;

				add_region(bi, me->base, me->len, me->type);
			}
			break;
		}
		case MB2_TAG_FRAMEBUFFER: {
			const struct mb2_framebuffer *fb = (const void *)tag;

			bi->fb.present = true;
			bi->fb.addr = fb->addr;
			bi->fb.pitch = fb->pitch;
			bi->fb.width = fb->width;
			bi->fb.height = fb->height;
			bi->fb.bpp = fb->bpp;
			bi->fb.type = fb->fb_type;
			if (fb->fb_type == 1 && tag->size >= sizeof(*fb)) {
				bi->fb.red_pos = fb->red_pos;
				bi->fb.red_size = fb->red_size;
				bi->fb.green_pos = fb->green_pos;
				bi->fb.green_size = fb->green_size;
				bi->fb.blue_pos = fb->blue_pos;
				bi->fb.blue_size = fb->blue_size;
			}
			break;
		}
		case MB2_TAG_EFI32:
		case MB2_TAG_EFI64:
		case MB2_TAG_EFI_MMAP:
			bi->firmware = FIRMWARE_UEFI;
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			/* Prefer the ACPI 2.0 copy when both are there. */
			if (tag->type == MB2_TAG_ACPI_OLD && bi->rsdp_len > 20)
				break;
			bi->rsdp_len = plen < sizeof(bi->rsdp)
					       ? plen
					       : sizeof(bi->rsdp);
			memcpy(bi->rsdp, payload, bi->rsdp_len);
			break;
		}
		p += (tag->size + 7) & ~7u;
	}
}

extern uint64_t boot_entry_tsc;

/* Called from boot/entry.asm in long mode, on the boot stack. */
void __attribute__((noreturn)) boot_main(uint32_t magic, uint32_t info)
{
	struct boot_info *bi = &boot_info;

	bi->entry_tsc = boot_entry_tsc;
	bi->magic = magic;
	if (magic == MB2_MAGIC)
		parse_mb2(bi, (const uint8_t *)(uint64_t)info);
	else if (magic == MB1_MAGIC)
		parse_mb1(bi, (const struct mb1_info *)(uint64_t)info);
	else
		bi->path = BOOT_MULTIBOOT1; /* unknown loader: no information */
	strip_path(bi->cmdline);
	kernel_main(bi);
}

const char *boot_path_name(enum boot_path p)
{
	switch (p) {
	case BOOT_MULTIBOOT1:
		return "multiboot1";
	case BOOT_MULTIBOOT2:
		return "multiboot2";
	case BOOT_EFI:
		return "efi";
	}
	return "?";
}

const char *firmware_name(enum firmware_kind f)
{
	return f == FIRMWARE_UEFI ? "uefi" : "bios";
}
