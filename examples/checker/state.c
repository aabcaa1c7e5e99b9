// SPDX-License-Identifier: MIT
/*
 * A state's key and back, and printing it.
 *
 * Up to 15 RMs the key is one uint64_t. Layout, low bits first: rmState[i] in bits 2i..2i+1
 * (30 bits for 15 RMs), tmState in bits 30..31, Commit in bit 32, Abort in bit 33, tmPrepared
 * from bit 34, the Prepared messages from bit 49. The layout does not depend on n, so the
 * same state always has the same key, and its tmState is never 3, so no key is all ones.
 *
 * Above 15 RMs the key is the same fields as one big-endian binary number, most significant
 * byte first: the Prepared messages (ceil(n/8) bytes, RM i in bit i of the number they make),
 * then tmPrepared (the same), then one byte Abort << 3 | Commit << 2 | tmState, then rmState
 * (ceil(n/4) bytes, RM i in bits 2i..2i+1). memcmp then orders these keys exactly as the
 * packed keys compare as numbers.
 */
#include <stdio.h>
#include <string.h>

#include "state.h"

#define KEY_TM_SHIFT	   30
#define KEY_COMMIT_SHIFT   32
#define KEY_ABORT_SHIFT	   33
#define KEY_TM_PREP_SHIFT  34
#define KEY_MSG_PREP_SHIFT 49

void state_init(struct tp_state *s, unsigned n)
{
	unsigned i;

	s->n = (uint16_t)n;
	s->tm = TM_INIT;
	s->msg_commit = false;
	s->msg_abort = false;
	s->tm_prepared_n = 0;
	for (i = 0; i < n && i < STATE_MAX_RM; i++) {
		s->rm[i].id = (uint16_t)i;
		s->rm[i].state = RM_WORKING;
		s->rm[i].tm_prepared = 0;
		s->rm[i].msg_prepared = 0;
		s->rm[i].unused = 0;
	}
}

void state_copy(struct tp_state *dst, const struct tp_state *src)
{
	size_t rms = src->n < STATE_MAX_RM ? src->n : STATE_MAX_RM;

	memcpy(dst, src, offsetof(struct tp_state, rm) + rms * sizeof(src->rm[0]));
}

static size_t key_set_bytes(unsigned n)
{
	return (n + 7) / 8;
}

size_t state_key_len(unsigned n)
{
	if (n <= STATE_PACKED_MAX_RM)
		return sizeof(uint64_t);
	return 2 * key_set_bytes(n) + 1 + (n + 3) / 4;
}

/* It runs once per transition: from the last RM down, so that every shift is by a constant. */
static uint64_t state_pack(const struct tp_state *s)
{
	uint64_t rms = 0, tm_prep = 0, msg_prep = 0;
	unsigned i = s->n < STATE_PACKED_MAX_RM ? s->n : STATE_PACKED_MAX_RM;

	while (i--) {
		const struct tp_rm *r = &s->rm[i];

		rms = rms << 2 | (r->state & 3);
		tm_prep = tm_prep << 1 | (r->tm_prepared & 1);
		msg_prep = msg_prep << 1 | (r->msg_prepared & 1);
	}
	return rms | (uint64_t)(s->tm & 3) << KEY_TM_SHIFT |
	       (uint64_t)s->msg_commit << KEY_COMMIT_SHIFT |
	       (uint64_t)s->msg_abort << KEY_ABORT_SHIFT | tm_prep << KEY_TM_PREP_SHIFT |
	       msg_prep << KEY_MSG_PREP_SHIFT;
}

static void state_unpack(uint64_t key, unsigned n, struct tp_state *s)
{
	unsigned i;

	s->n = (uint16_t)n;
	s->tm_prepared_n = 0;
	/* The bound on i spares gcc's -O3 overflow warning a path that n <= 15 rules out. */
	for (i = 0; i < n && i < STATE_PACKED_MAX_RM; i++) {
		struct tp_rm *r = &s->rm[i];

		r->id = (uint16_t)i;
		r->state = (uint8_t)(key >> (2 * i) & 3);
		r->tm_prepared = (uint8_t)(key >> (KEY_TM_PREP_SHIFT + i) & 1);
		r->msg_prepared = (uint8_t)(key >> (KEY_MSG_PREP_SHIFT + i) & 1);
		r->unused = 0;
		s->tm_prepared_n = (uint16_t)(s->tm_prepared_n + r->tm_prepared);
	}
	s->tm = (uint8_t)(key >> KEY_TM_SHIFT & 3);
	s->msg_commit = key >> KEY_COMMIT_SHIFT & 1;
	s->msg_abort = key >> KEY_ABORT_SHIFT & 1;
}

void state_encode(const struct tp_state *s, uint8_t *key)
{
	uint8_t *msg_set, *tm_set, *rms;
	size_t sb, rb, i;

	if (s->n <= STATE_PACKED_MAX_RM) {
		uint64_t packed = state_pack(s);

		memcpy(key, &packed, sizeof(packed));
		return;
	}
	sb = key_set_bytes(s->n);
	rb = ((size_t)s->n + 3) / 4;
	msg_set = key;
	tm_set = key + sb;
	rms = key + 2 * sb + 1;
	memset(key, 0, state_key_len(s->n));
	key[2 * sb] = (uint8_t)(s->msg_abort << 3 | s->msg_commit << 2 | (s->tm & 3));
	for (i = 0; i < s->n && i < STATE_MAX_RM; i++) {
		const struct tp_rm *r = &s->rm[i];

		msg_set[sb - 1 - i / 8] |= (uint8_t)((r->msg_prepared & 1) << (i % 8));
		tm_set[sb - 1 - i / 8] |= (uint8_t)((r->tm_prepared & 1) << (i % 8));
		rms[rb - 1 - i / 4] |= (uint8_t)((r->state & 3) << (2 * (i % 4)));
	}
}

void state_decode(const uint8_t *key, unsigned n, struct tp_state *s)
{
	const uint8_t *msg_set, *tm_set, *rms;
	size_t sb, rb, i;

	if (n <= STATE_PACKED_MAX_RM) {
		uint64_t packed;

		memcpy(&packed, key, sizeof(packed));
		state_unpack(packed, n, s);
		return;
	}
	state_init(s, n);
	sb = key_set_bytes(n);
	rb = ((size_t)n + 3) / 4;
	msg_set = key;
	tm_set = key + sb;
	rms = key + 2 * sb + 1;
	s->tm = key[2 * sb] & 3;
	s->msg_commit = key[2 * sb] >> 2 & 1;
	s->msg_abort = key[2 * sb] >> 3 & 1;
	for (i = 0; i < n && i < STATE_MAX_RM; i++) {
		struct tp_rm *r = &s->rm[i];

		r->state = rms[rb - 1 - i / 4] >> (2 * (i % 4)) & 3;
		r->tm_prepared = tm_set[sb - 1 - i / 8] >> (i % 8) & 1;
		r->msg_prepared = msg_set[sb - 1 - i / 8] >> (i % 8) & 1;
		s->tm_prepared_n = (uint16_t)(s->tm_prepared_n + r->tm_prepared);
	}
}

int state_key_cmp(const uint8_t *a, const uint8_t *b, unsigned n)
{
	uint64_t ka, kb;

	if (n > STATE_PACKED_MAX_RM)
		return memcmp(a, b, state_key_len(n));
	memcpy(&ka, a, sizeof(ka));
	memcpy(&kb, b, sizeof(kb));
	return (ka > kb) - (ka < kb);
}

static const char *const rm_names[] = {"working", "prepared", "committed", "aborted"};
static const char *const tm_names[] = {"init", "committed", "aborted", "?"};

/* Append to buf, never past size, always terminated; a long state is cut, not overrun. */
static size_t state_append(char *buf, size_t size, size_t at, const char *text)
{
	size_t len = strlen(text);

	if (at + 1 >= size)
		return at;
	if (len > size - at - 1)
		len = size - at - 1;
	memcpy(buf + at, text, len);
	buf[at + len] = '\0';
	return at + len;
}

void state_format(const struct tp_state *s, char *buf, size_t size)
{
	char item[32];
	size_t at = 0;
	unsigned i;
	bool first = true;

	if (size == 0)
		return;
	buf[0] = '\0';
	at = state_append(buf, size, at, "tm=");
	at = state_append(buf, size, at, tm_names[s->tm & 3]);
	at = state_append(buf, size, at, " rm=[");
	for (i = 0; i < s->n; i++) {
		at = state_append(buf, size, at, i ? " " : "");
		at = state_append(buf, size, at, rm_names[s->rm[i].state & 3]);
	}
	at = state_append(buf, size, at, "] tmPrepared={");
	for (i = 0; i < s->n; i++) {
		if (!s->rm[i].tm_prepared)
			continue;
		snprintf(item, sizeof(item), "%s%u", first ? "" : " ", i);
		at = state_append(buf, size, at, item);
		first = false;
	}
	at = state_append(buf, size, at, "} msgs={");
	first = true;
	for (i = 0; i < s->n; i++) {
		if (!s->rm[i].msg_prepared)
			continue;
		snprintf(item, sizeof(item), "%sPrepared(%u)", first ? "" : " ", i);
		at = state_append(buf, size, at, item);
		first = false;
	}
	if (s->msg_commit) {
		at = state_append(buf, size, at, first ? "Commit" : " Commit");
		first = false;
	}
	if (s->msg_abort)
		at = state_append(buf, size, at, first ? "Abort" : " Abort");
	state_append(buf, size, at, "}");
}
