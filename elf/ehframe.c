// SPDX-License-Identifier: MIT
/*
 * ehframe: walk the CIEs and FDEs of .eh_frame (the LSB's format, DWARF's
 * .debug_frame with GNU's pointer encodings) for the start and length of
 * each FDE.  Every read is checked against the end of its entry: the bytes
 * come from a file, and `extprof symbols` reads anybody's.
 *
 *   entry:  u32 length (0xffffffff: a u64 follows), then length bytes
 *   CIE:    u32 id 0, u8 version, augmentation "zR..." , code and data
 *           alignment, return register, augmentation data: 'R' gives the
 *           encoding of the FDEs' addresses
 *   FDE:    u32 distance back to its CIE, pc_begin and pc_range in the
 *           CIE's encoding (pc_range without the pc-relative part)
 */
#include <stdbool.h>
#include <string.h>

#include "ehframe.h"

/* DW_EH_PE_*: the low nibble is the format, the high one how it applies. */
#define PE_OMIT	   0xff
#define PE_ABSPTR  0x00
#define PE_ULEB128 0x01
#define PE_UDATA2  0x02
#define PE_UDATA4  0x03
#define PE_UDATA8  0x04
#define PE_SLEB128 0x09
#define PE_SDATA2  0x0a
#define PE_SDATA4  0x0b
#define PE_SDATA8  0x0c
#define PE_PCREL   0x10

struct eh_cursor {
	const uint8_t *p;
	const uint8_t *end;
	bool bad;
};

static uint64_t eh_fixed(struct eh_cursor *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t eh_leb(struct eh_cursor *c, bool sign)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (c->bad || c->p == c->end || shift > 63) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

/* A value in encoding @enc; @field is the address of its first byte. */
static uint64_t eh_encoded(struct eh_cursor *c, uint8_t enc, uint64_t field)
{
	uint64_t v;

	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		v = eh_fixed(c, 8);
		break;
	case PE_UDATA2:
		v = eh_fixed(c, 2);
		break;
	case PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)eh_fixed(c, 2);
		break;
	case PE_UDATA4:
		v = eh_fixed(c, 4);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)eh_fixed(c, 4);
		break;
	case PE_ULEB128:
		v = eh_leb(c, false);
		break;
	case PE_SLEB128:
		v = eh_leb(c, true);
		break;
	default:
		c->bad = true;
		return 0;
	}
	switch (enc & 0x70) {
	case 0:
		return v;
	case PE_PCREL:
		return v + field;
	default:
		/* textrel, datarel, funcrel, aligned: not for FDEs on x86-64 */
		c->bad = true;
		return 0;
	}
}

/* What an FDE needs of its CIE. */
struct eh_cie {
	uint8_t enc; /* the FDE address encoding ('R'), PE_ABSPTR without one */
	bool z;	     /* an FDE has augmentation data (its length first) */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	const uint8_t *init; /* the initial instructions */
	size_t init_len;
};

/* The CIE at @cie (its length field) of the bytes @data, loaded at @addr. */
static int eh_cie_read(const uint8_t *data, size_t size, size_t cie, uint64_t addr,
		       struct eh_cie *out)
{
	struct eh_cursor c = {data + cie, data + size, false};
	uint64_t len = eh_fixed(&c, 4), auglen_data = 0;
	const uint8_t *aug_end = NULL;
	const char *aug;
	size_t auglen;
	uint8_t version;

	if (len == 0xffffffffu)
		len = eh_fixed(&c, 8);
	if (c.bad || len < 4 || len > (uint64_t)(c.end - c.p))
		return -1;
	c.end = c.p + len;
	if (eh_fixed(&c, 4) != 0)
		return -1; /* not a CIE */
	version = (uint8_t)eh_fixed(&c, 1);
	if (c.bad || (version != 1 && version != 3))
		return -1;
	aug = (const char *)c.p;
	auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return -1;
	c.p += auglen + 1;
	out->enc = PE_ABSPTR;
	out->z = aug[0] == 'z';
	if (strstr(aug, "eh"))
		eh_fixed(&c, 8); /* an old GCC's eh_ptr */
	out->code_align = eh_leb(&c, false);
	out->data_align = (int64_t)eh_leb(&c, true);
	out->ra = version == 1 ? eh_fixed(&c, 1) : eh_leb(&c, false);
	if (out->z) {
		auglen_data = eh_leb(&c, false);
		if (c.bad || auglen_data > (uint64_t)(c.end - c.p))
			return -1;
		aug_end = c.p + auglen_data;
	}
	for (const char *a = aug + 1; out->z && *a && !c.bad; a++) {
		uint8_t pe;

		switch (*a) {
		case 'R':
			out->enc = (uint8_t)eh_fixed(&c, 1);
			break;
		case 'P':
			pe = (uint8_t)eh_fixed(&c, 1);
			eh_encoded(&c, pe & 0x7f, addr + (uint64_t)(c.p - data));
			break;
		case 'L':
			eh_fixed(&c, 1);
			break;
		case 'S':
		case 'B':
			break;
		default:
			/* an augmentation we do not know: its data cannot be read */
			return -1;
		}
	}
	if (c.bad)
		return -1;
	if (aug_end)
		c.p = aug_end;
	out->init = c.p;
	out->init_len = (size_t)(c.end - c.p);
	return 0;
}

long ehframe_walk(const uint8_t *data, size_t size, uint64_t addr, ehframe_fn fn, void *arg)
{
	size_t off = 0, last_cie = SIZE_MAX;
	struct eh_cie ci = {.enc = PE_ABSPTR};
	long n = 0;

	while (off + 4 <= size) {
		struct eh_cursor c = {data + off, data + size, false};
		uint64_t len = eh_fixed(&c, 4), id, start, range;
		size_t body, cie;

		if (len == 0)
			break; /* the terminator */
		if (len == 0xffffffffu)
			len = eh_fixed(&c, 8);
		if (c.bad || len < 4 || len > (uint64_t)(c.end - c.p))
			return -1;
		body = (size_t)(c.p - data);
		c.end = c.p + len;
		id = eh_fixed(&c, 4);
		if (id != 0) {
			/* an FDE: id is the distance back from itself to its CIE */
			if (id > body)
				return -1;
			cie = body - (size_t)id;
			if (cie != last_cie) {
				if (eh_cie_read(data, size, cie, addr, &ci))
					return -1;
				last_cie = cie;
			}
			if (ci.enc == PE_OMIT)
				return -1;
			start = eh_encoded(&c, ci.enc, addr + (uint64_t)(c.p - data));
			range = eh_encoded(&c, ci.enc & 0x0f, 0);
			if (c.bad)
				return -1;
			if (range && start + range > start) {
				fn(start, range, arg);
				n++;
			}
		}
		off = body + (size_t)len;
	}
	return n;
}

int ehframe_fde_prog(const uint8_t *fde, struct ehframe_prog *prog)
{
	/* loaded memory: the entries bound every read, the CIE lies before the FDE */
	struct eh_cursor c = {fde, fde + 16, false};
	uint64_t len = eh_fixed(&c, 4), id;
	const uint8_t *body;
	struct eh_cie ci;
	size_t back;

	if (c.bad || len < 8 || len == 0xffffffffu)
		return -1;
	body = c.p;
	c.end = body + len;
	/* the distance back from this field to the CIE, which ends before the FDE */
	id = eh_fixed(&c, 4);
	if (id <= 4)
		return -1;
	back = (size_t)id - 4;
	if (eh_cie_read(fde - back, back, 0, (uint64_t)(uintptr_t)(fde - back), &ci) ||
	    ci.enc == PE_OMIT)
		return -1;
	prog->start = eh_encoded(&c, ci.enc, (uint64_t)(uintptr_t)c.p);
	prog->size = eh_encoded(&c, ci.enc & 0x0f, 0);
	if (ci.z) {
		uint64_t n = eh_leb(&c, false);

		if (n > (uint64_t)(c.end - c.p))
			return -1;
		c.p += n;
	}
	if (c.bad)
		return -1;
	prog->code_align = ci.code_align;
	prog->data_align = ci.data_align;
	prog->ra = ci.ra;
	prog->init = ci.init;
	prog->init_len = ci.init_len;
	prog->ops = c.p;
	prog->ops_len = (size_t)(c.end - c.p);
	return 0;
}
