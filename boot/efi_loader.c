/*
 * BOOTX64.EFI: btslab's direct EFI entry, built with GNU-EFI (make efi).
 *
 * The kernel (build/btslab.elf, linked at 1 MiB) is embedded in this
 * application. The loader gathers what kernel_main needs into a struct
 * boot_info (memory map as E820 types, GOP framebuffer, ACPI RSDP, the
 * command line from the load options), copies the kernel's PT_LOAD
 * segments to the physical addresses they are linked at, exits boot
 * services and jumps to the kernel's 64-bit EFI entry (efi_entry64 in
 * boot/efi_entry.asm) with the boot_info in RDI.
 *
 * Everything the kernel reads before it has copied the boot_info lies
 * below 4 GiB (the kernel's own page tables map only that much). After
 * ExitBootServices nothing here calls the firmware; the runtime services
 * stay identity-mapped (SetVirtualAddressMap is never called), so the
 * kernel can still write EFI variables at the end of the run.
 */
#include <efi.h>
#include <efilib.h>

#include "kernel/boot_info.h"

/* The kernel image, linked in by the Makefile (objcopy -I binary). */
extern const unsigned char _binary_kernel_elf_start[];
extern const unsigned char _binary_kernel_elf_end[];

#define ENTRY_SYMBOL "efi_entry64"
#define PAGE	     4096ull
#define BELOW_4G     0xFFFFFFFFull
#define MAP_SLACK    8 /* descriptors: the map grows while we look */
#define EXIT_TRIES   4

/* ELF64, only what loading needs. */
#define PT_LOAD	    1
#define SHT_SYMTAB  2
#define ELF_MAGIC   0x464C457Fu /* "\x7FELF" little-endian */
#define ELF_CLASS64 2
#define EM_X86_64   62

struct elf64_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct elf64_shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link, info;
	uint64_t addralign, entsize;
};

struct elf64_sym {
	uint32_t name;
	uint8_t info, other;
	uint16_t shndx;
	uint64_t value, size;
};

typedef void __attribute__((sysv_abi,
			    noreturn)) (*kernel_entry)(struct boot_info *bi);

static EFI_GUID acpi20_guid = ACPI_20_TABLE_GUID;
static EFI_GUID acpi10_guid = ACPI_TABLE_GUID;

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static EFI_STATUS fail(EFI_STATUS st, const CHAR16 *what)
{
	Print(L"btslab.efi: %s: %r\r\n", what, st);
	Print(L"btslab.efi: cannot start the kernel; back to the firmware in "
	      L"10 s\r\n");
	uefi_call_wrapper(BS->Stall, 1, 10 * 1000 * 1000);
	return st;
}

static void copy_bytes(void *dst, const void *src, uint64_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	while (n--)
		*d++ = *s++;
}

static int same_str(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/*
 * Load options to ASCII. The shell passes the whole command line, program
 * first; GRUB's chainloader and boot entries pass only the arguments. A
 * first word with '\' or ".efi" and no '=' is the program: dropped. Text
 * that is not printable UCS-2 (binary options of some boot managers) is
 * ignored entirely.
 */
static void command_line(EFI_LOADED_IMAGE *img, struct boot_info *bi)
{
	const CHAR16 *s = img->LoadOptions;
	UINTN n = img->LoadOptionsSize / sizeof(CHAR16), i, out = 0, start = 0;

	if (!s)
		return;
	for (i = 0; i < n && s[i]; i++)
		if (s[i] < 0x20 || s[i] > 0x7E)
			return;
	n = i;
	while (start < n && s[start] == ' ')
		start++;
	for (i = start; i < n && s[i] != ' '; i++)
		;
	{
		int path = 0, eq = 0;

		for (UINTN k = start; k < i; k++) {
			path |= s[k] == '\\' || s[k] == '/' ||
				(s[k] == '.' && k + 4 == i);
			eq |= s[k] == '=';
		}
		if (path && !eq)
			start = i;
	}
	while (start < n && s[start] == ' ')
		start++;
	for (i = start; i < n; i++) {
		if (out + 1 == BOOT_CMDLINE_MAX) {
			bi->cmdline_truncated = true;
			break;
		}
		bi->cmdline[out++] = (char)s[i];
	}
	while (out && bi->cmdline[out - 1] == ' ')
		out--;
	bi->cmdline[out] = 0;
}

static void framebuffer(struct boot_info *bi)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;
	EFI_STATUS st;

	st = uefi_call_wrapper(BS->LocateProtocol, 3, &GraphicsOutputProtocol,
			       NULL, (void **)&gop);
	if (EFI_ERROR(st) || !gop || !gop->Mode || !gop->Mode->Info)
		return;
	info = gop->Mode->Info;
	if (info->PixelFormat == PixelBltOnly || !gop->Mode->FrameBufferBase)
		return;
	bi->fb.present = true;
	bi->fb.addr = gop->Mode->FrameBufferBase;
	bi->fb.width = info->HorizontalResolution;
	bi->fb.height = info->VerticalResolution;
	bi->fb.bpp = 32;
	bi->fb.pitch = info->PixelsPerScanLine * 4;
	bi->fb.type = 1;
	if (info->PixelFormat == PixelRedGreenBlueReserved8BitPerColor) {
		bi->fb.red_pos = 0, bi->fb.green_pos = 8, bi->fb.blue_pos = 16;
	} else if (info->PixelFormat == PixelBlueGreenRedReserved8BitPerColor) {
		bi->fb.red_pos = 16, bi->fb.green_pos = 8, bi->fb.blue_pos = 0;
	} else {
		/* PixelBitMask: position and width of each mask. */
		UINT32 m[3] = { info->PixelInformation.RedMask,
				info->PixelInformation.GreenMask,
				info->PixelInformation.BlueMask };
		uint8_t pos[3] = { 0, 0, 0 }, size[3] = { 0, 0, 0 };

		for (int c = 0; c < 3; c++) {
			while (m[c] && !(m[c] & 1))
				m[c] >>= 1, pos[c]++;
			while (m[c] & 1)
				m[c] >>= 1, size[c]++;
		}
		bi->fb.red_pos = pos[0], bi->fb.green_pos = pos[1];
		bi->fb.blue_pos = pos[2];
		bi->fb.red_size = size[0], bi->fb.green_size = size[1];
		bi->fb.blue_size = size[2];
		return;
	}
	bi->fb.red_size = bi->fb.green_size = bi->fb.blue_size = 8;
}

static void acpi_rsdp(struct boot_info *bi)
{
	const void *rsdp = NULL;

	/* ACPI 2.0 (XSDT) first, then 1.0. */
	for (int pass = 0; pass < 2 && !rsdp; pass++)
		for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
			EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];

			if (!CompareGuid(&t->VendorGuid,
					 pass ? &acpi10_guid : &acpi20_guid)) {
				rsdp = t->VendorTable;
				break;
			}
		}
	if (!rsdp)
		return;
	/* Revision >= 2: the 36-byte structure; else the first 20 bytes. */
	bi->rsdp_len = ((const uint8_t *)rsdp)[15] >= 2 ? 36 : 20;
	copy_bytes(bi->rsdp, rsdp, bi->rsdp_len);
}

/* Check the image and find the span its PT_LOAD segments cover. */
static EFI_STATUS kernel_span(const struct elf64_ehdr *eh, uint64_t *lo,
			      uint64_t *hi)
{
	const struct elf64_phdr *ph;

	if (*(const uint32_t *)eh->ident != ELF_MAGIC ||
	    eh->ident[4] != ELF_CLASS64 || eh->machine != EM_X86_64 ||
	    eh->phentsize != sizeof(*ph))
		return EFI_LOAD_ERROR;
	ph = (const void *)((const uint8_t *)eh + eh->phoff);
	*lo = ~0ull;
	*hi = 0;
	for (unsigned i = 0; i < eh->phnum; i++) {
		if (ph[i].type != PT_LOAD || !ph[i].memsz)
			continue;
		if (ph[i].paddr < *lo)
			*lo = ph[i].paddr;
		if (ph[i].paddr + ph[i].memsz > *hi)
			*hi = ph[i].paddr + ph[i].memsz;
	}
	if (*lo >= *hi || *hi > BELOW_4G)
		return EFI_LOAD_ERROR;
	*lo &= ~(PAGE - 1);
	*hi = (*hi + PAGE - 1) & ~(PAGE - 1);
	return EFI_SUCCESS;
}

static uint64_t kernel_symbol(const struct elf64_ehdr *eh, const char *name)
{
	const uint8_t *base = (const uint8_t *)eh;
	const struct elf64_shdr *sh = (const void *)(base + eh->shoff);

	if (!eh->shoff || eh->shentsize != sizeof(*sh))
		return 0;
	for (unsigned i = 0; i < eh->shnum; i++) {
		const struct elf64_sym *sym;
		const char *str;

		if (sh[i].type != SHT_SYMTAB || sh[i].link >= eh->shnum)
			continue;
		sym = (const void *)(base + sh[i].offset);
		str = (const char *)(base + sh[sh[i].link].offset);
		for (uint64_t k = 0; k < sh[i].size / sizeof(*sym); k++)
			if (same_str(str + sym[k].name, name))
				return sym[k].value;
	}
	return 0;
}

static void load_segments(const struct elf64_ehdr *eh)
{
	const struct elf64_phdr *ph =
		(const void *)((const uint8_t *)eh + eh->phoff);

	for (unsigned i = 0; i < eh->phnum; i++) {
		uint8_t *dst = (uint8_t *)ph[i].paddr;

		if (ph[i].type != PT_LOAD)
			continue;
		copy_bytes(dst, (const uint8_t *)eh + ph[i].offset,
			   ph[i].filesz);
		for (uint64_t k = ph[i].filesz; k < ph[i].memsz; k++)
			dst[k] = 0;
	}
}

static uint32_t e820_type(UINT32 efi_type)
{
	switch (efi_type) {
	case EfiLoaderCode:
	case EfiLoaderData:
	case EfiBootServicesCode:
	case EfiBootServicesData:
	case EfiConventionalMemory:
		return MEM_USABLE;
	case EfiACPIReclaimMemory:
		return MEM_ACPI_RECLAIM;
	case EfiACPIMemoryNVS:
		return MEM_ACPI_NVS;
	case EfiUnusableMemory:
		return MEM_BAD;
	default: /* runtime services, MMIO, reserved, persistent */
		return MEM_RESERVED;
	}
}

/* The EFI map as E820 regions, neighbours of one type merged. */
static void convert_map(struct boot_info *bi, const uint8_t *map, UINTN size,
			UINTN desc_size)
{
	for (UINTN off = 0; off + desc_size <= size; off += desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)(map + off);
		uint64_t len = d->NumberOfPages * PAGE;
		uint32_t type = e820_type(d->Type);
		struct mem_region *last = bi->nmem ? &bi->mem[bi->nmem - 1] : 0;

		if (last && last->type == type &&
		    last->base + last->len == d->PhysicalStart) {
			last->len += len;
		} else if (bi->nmem == BOOT_MAX_REGIONS) {
			bi->mem_dropped++;
		} else {
			bi->mem[bi->nmem].base = d->PhysicalStart;
			bi->mem[bi->nmem].len = len;
			bi->mem[bi->nmem].type = type;
			bi->nmem++;
		}
	}
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	const struct elf64_ehdr *eh = (const void *)_binary_kernel_elf_start;
	EFI_PHYSICAL_ADDRESS bi_page = BELOW_4G, kernel_lo;
	EFI_LOADED_IMAGE *img = NULL;
	struct boot_info *bi;
	uint64_t tsc = rdtsc(), lo = 0, hi = 0, entry;
	UINTN map_size = 0, map_key, desc_size, map_cap;
	UINT32 desc_version;
	uint8_t *map = NULL;
	EFI_STATUS st;

	InitializeLib(image, systab);
	st = kernel_span(eh, &lo, &hi);
	entry = kernel_symbol(eh, ENTRY_SYMBOL);
	if (EFI_ERROR(st) || entry < lo || entry >= hi)
		return fail(EFI_LOAD_ERROR, L"the embedded kernel image");

	/* boot_info below 4 GiB: the kernel reads it with its own tables. */
	st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress,
			       EfiLoaderData, (sizeof(*bi) + PAGE - 1) / PAGE,
			       &bi_page);
	if (EFI_ERROR(st))
		return fail(st, L"memory for the boot information");
	bi = (struct boot_info *)bi_page;
	ZeroMem(bi, sizeof(*bi));
	bi->path = BOOT_EFI;
	bi->firmware = FIRMWARE_UEFI;
	bi->entry_tsc = tsc;
	bi->efi_runtime = (uint64_t)systab->RuntimeServices;
	copy_bytes(bi->loader, "btslab.efi (GNU-EFI)", 21);

	st = uefi_call_wrapper(BS->HandleProtocol, 3, image,
			       &LoadedImageProtocol, (void **)&img);
	if (!EFI_ERROR(st) && img)
		command_line(img, bi);
	framebuffer(bi);
	acpi_rsdp(bi);

	/* The kernel's own addresses, or nothing. */
	kernel_lo = lo;
	st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
			       EfiLoaderData, (hi - lo) / PAGE, &kernel_lo);
	if (EFI_ERROR(st)) {
		Print(L"btslab.efi: the kernel must be at 0x%lx-0x%lx, which "
		      L"the firmware uses\r\n",
		      lo, hi);
		return fail(st, L"allocating the kernel's memory");
	}
	load_segments(eh);

	/* The map, then ExitBootServices with its key; retry if it moved. */
	st = uefi_call_wrapper(BS->GetMemoryMap, 5, &map_size, NULL, &map_key,
			       &desc_size, &desc_version);
	if (st != EFI_BUFFER_TOO_SMALL)
		return fail(st, L"GetMemoryMap");
	map_cap = map_size + MAP_SLACK * desc_size;
	st = uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, map_cap,
			       (void **)&map);
	if (EFI_ERROR(st))
		return fail(st, L"memory for the memory map");
	for (int tries = 0;; tries++) {
		map_size = map_cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &map_size,
				       (EFI_MEMORY_DESCRIPTOR *)map, &map_key,
				       &desc_size, &desc_version);
		if (EFI_ERROR(st))
			return fail(st, L"GetMemoryMap");
		st = uefi_call_wrapper(BS->ExitBootServices, 2, image, map_key);
		if (!EFI_ERROR(st))
			break;
		if (tries + 1 == EXIT_TRIES)
			return fail(st, L"ExitBootServices");
	}
	/* No boot services from here on: no Print, no allocation. */
	convert_map(bi, map, map_size, desc_size);
	((kernel_entry)entry)(bi);
}
