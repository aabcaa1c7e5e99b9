// SPDX-License-Identifier: MIT
/*
 * rank: the process's MPI rank and its job's size, as the launcher that
 * started it says them in the environment, for every dump of the process
 * (docs/dump-format.md: rank, job_size).  The launchers, most specific
 * first: Open MPI's mpirun (OMPI_COMM_WORLD_RANK/SIZE), MPICH's and Intel
 * MPI's Hydra and other PMI launchers (PMI_RANK/PMI_SIZE), Slurm's srun
 * (SLURM_PROCID/SLURM_NTASKS).
 * Nothing of MPI is called: a process started by none of them has no rank.
 */
#include <stdlib.h>

#include "core/log.h"
#include "core/state.h"
#include "store/rank.h"

struct rank_source {
	const char *rank;
	const char *size;
};

static const struct rank_source rank_sources[] = {
	{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
	{"PMI_RANK", "PMI_SIZE"},
	{"SLURM_PROCID", "SLURM_NTASKS"},
};

/* A whole decimal number below 2^31 in @s: 0, or -1. */
static int rank_number(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (1u << 31))
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v >= (1u << 31))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

void rank_fill(struct dump_meta *meta)
{
	meta->rank = 0;
	meta->job_size = 0;
	for (size_t i = 0; i < sizeof(rank_sources) / sizeof(rank_sources[0]); i++) {
		const struct rank_source *s = &rank_sources[i];
		const char *r = getenv(s->rank), *n = getenv(s->size);
		uint32_t rank, size;

		if (!r)
			continue;
		if (rank_number(r, &rank) || rank_number(n, &size) || rank >= size) {
			log_msg("%s=%s, %s=%s: not a rank and a job size; the dumps say no rank",
				s->rank, r, s->size, n ? n : "");
			return;
		}
		meta->rank = rank;
		meta->job_size = size;
		return;
	}
}
