// SPDX-License-Identifier: MIT
/*
 * Packing a state into one 64-bit key and back, and printing it.
 *
 * Layout, low bits first: rmState[i] in bits 2i..2i+1 (30 bits for 15 RMs), tmState in bits
 * 30..31, Commit in bit 32, Abort in bit 33, tmPrepared from bit 34, the Prepared messages
 * from bit 49. The layout does not depend on n, so the same state always has the same key.
 */
#include <stdio.h>
#include <string.h>

#include "state.h"

#define KEY_TM_SHIFT	   30
#define KEY_COMMIT_SHIFT   32
#define KEY_ABORT_SHIFT	   33
#define KEY_TM_PREP_SHIFT  34
#define KEY_MSG_PREP_SHIFT 49
#define KEY_SET_MASK	   0x7fffu

void state_init(struct tp_state *s, unsigned n)
{
	memset(s, 0, sizeof(*s));
	s->n = (uint8_t)n;
	s->tm = TM_INIT;
}

uint64_t state_encode(const struct tp_state *s)
{
	uint64_t key = 0;
	unsigned i;

	for (i = 0; i < s->n && i < STATE_MAX_RM; i++)
		key |= (uint64_t)(s->rm[i] & 3) << (2 * i);
	key |= (uint64_t)(s->tm & 3) << KEY_TM_SHIFT;
	key |= (uint64_t)s->msg_commit << KEY_COMMIT_SHIFT;
	key |= (uint64_t)s->msg_abort << KEY_ABORT_SHIFT;
	key |= (uint64_t)(s->tm_prepared & KEY_SET_MASK) << KEY_TM_PREP_SHIFT;
	key |= (uint64_t)(s->msg_prepared & KEY_SET_MASK) << KEY_MSG_PREP_SHIFT;
	return key;
}

void state_decode(uint64_t key, unsigned n, struct tp_state *s)
{
	unsigned i;

	/* The bound on i spares gcc's -O3 overflow warning a path that n <= 15 rules out. */
	state_init(s, n);
	for (i = 0; i < n && i < STATE_MAX_RM; i++)
		s->rm[i] = (uint8_t)(key >> (2 * i) & 3);
	s->tm = (uint8_t)(key >> KEY_TM_SHIFT & 3);
	s->msg_commit = key >> KEY_COMMIT_SHIFT & 1;
	s->msg_abort = key >> KEY_ABORT_SHIFT & 1;
	s->tm_prepared = (uint16_t)(key >> KEY_TM_PREP_SHIFT & KEY_SET_MASK);
	s->msg_prepared = (uint16_t)(key >> KEY_MSG_PREP_SHIFT & KEY_SET_MASK);
}

static const char *const rm_names[] = { "working", "prepared", "committed", "aborted" };
static const char *const tm_names[] = { "init", "committed", "aborted", "?" };

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
		at = state_append(buf, size, at, rm_names[s->rm[i] & 3]);
	}
	at = state_append(buf, size, at, "] tmPrepared={");
	for (i = 0; i < s->n; i++) {
		if (!(s->tm_prepared >> i & 1))
			continue;
		snprintf(item, sizeof(item), "%s%u", first ? "" : " ", i);
		at = state_append(buf, size, at, item);
		first = false;
	}
	at = state_append(buf, size, at, "} msgs={");
	first = true;
	for (i = 0; i < s->n; i++) {
		if (!(s->msg_prepared >> i & 1))
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
