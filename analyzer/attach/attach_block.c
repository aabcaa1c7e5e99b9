// SPDX-License-Identifier: MIT
/*
 * attach_block: the shim's block in the process (struct extprof_attach_block,
 * extprof/attach.h): where it is, read back and checked, and the lines of its
 * log said here.  What the block holds is the process's memory: it is never
 * trusted beyond the shim's own limits.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attach/attach.h"

int xp_block_find(pid_t pid, const struct xp_layout *l, uint64_t *addr, struct xp_err *e)
{
	struct xp_err ignored;

	*addr = 0;
	if (!l->shim.found)
		return 0;
	/* a shim without the block is of an older build: addr stays 0 */
	if (xp_object_symbol(pid, &l->shim, EXTPROF_ATTACH_SYMBOL, addr, &ignored))
		*addr = 0;
	(void)e;
	return 0;
}

int xp_block_read(pid_t pid, uint64_t addr, struct extprof_attach_block *blk)
{
	if (xp_mem_read(pid, addr, blk, sizeof(*blk)))
		return -errno;
	if (memcmp(blk->magic, EXTPROF_ATTACH_MAGIC, EXTPROF_ATTACH_MAGIC_LEN) ||
	    blk->version != EXTPROF_ATTACH_VERSION || blk->size != sizeof(*blk))
		return -EPROTO;
	/* the process's memory is the process's: never trusted beyond the shim's limits */
	if (blk->npatches > EXTPROF_ATTACH_PATCHES_MAX || blk->nranges > EXTPROF_ATTACH_RANGES_MAX)
		return -EPROTO;
	blk->dir[sizeof(blk->dir) - 1] = '\0';
	return 0;
}

uint32_t xp_block_say(const struct extprof_attach_block *blk, uint32_t from)
{
	uint32_t end = blk->log_len < sizeof(blk->log) ? blk->log_len : sizeof(blk->log);

	for (uint32_t i = from; i < end;) {
		const char *line = blk->log + i;
		size_t n = strnlen(line, end - i);
		const char *nl = memchr(line, '\n', n);

		if (!n) {
			i++;
			continue;
		}
		n = nl ? (size_t)(nl - line) + 1 : n;
		/* the shim's own "extprof: " prefix, as the shim says it */
		fwrite(line, 1, n, stderr);
		if (!nl)
			fputc('\n', stderr);
		i += (uint32_t)n;
	}
	return end;
}
