// SPDX-License-Identifier: MIT
/*
 * mpi_work: a small MPI program whose ranks do a known amount of work, one
 * of them more than the others, for the fleet tests
 * (tests/integration/test_fleet.c).  Built only where Open MPI's headers
 * are (meson's ompi-c), and run under mpirun.
 *
 * step(k) does k units of work: k steps of a dependent multiply-add chain,
 * and k added to mpi_units (for EXTPROF_COUNTER=var:mpi_units, where every
 * figure is exact).  Each rank makes N calls of step(K), and rank SLOW
 * FACTOR times as many; then an allreduce of the calls, so that every rank
 * has done its work before any reaches MPI_Finalize.
 *
 *   mpi_work N K SLOW FACTOR [DIE [SLEEP_MS]]
 *
 * With DIE, that rank sleeps SLEEP_MS (default 2000: the others are in
 * MPI_Finalize by then) and kills itself (SIGKILL) before MPI_Finalize.
 * stderr gets "mpi-truth: RANK step CALLS" from each rank, its own count.
 */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "matrix.h"

uint64_t mpi_units;

/* The chain's result goes here, so the compiler must compute it. */
static uint64_t mpi_sink;

HOOKED void step(uint64_t k)
{
	uint64_t x = mpi_sink;

	for (uint64_t i = 0; i < k; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	mpi_sink = x;
	mpi_units += k;
}

int main(int argc, char **argv)
{
	long n, k, slow, factor, die = -1, sleep_ms = 2000, calls, total = 0;
	int rank, size;

	if (argc < 5) {
		fputs("usage: mpi_work N K SLOW FACTOR [DIE [SLEEP_MS]]\n", stderr);
		return 2;
	}
	n = atol(argv[1]);
	k = atol(argv[2]);
	slow = atol(argv[3]);
	factor = atol(argv[4]);
	if (argc > 5)
		die = atol(argv[5]);
	if (argc > 6)
		sleep_ms = atol(argv[6]);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	calls = rank == slow ? n * factor : n;
	for (long i = 0; i < calls; i++)
		step((uint64_t)k);
	fprintf(stderr, "mpi-truth: %d step %ld\n", rank, calls);
	fflush(stderr);
	if (rank == die) {
		struct timespec ts = {sleep_ms / 1000, sleep_ms % 1000 * 1000000};

		nanosleep(&ts, NULL);
		kill(getpid(), SIGKILL);
	}
	if (die < 0)
		MPI_Allreduce(&calls, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d of %d: %ld calls\n", rank, size, calls);
	MPI_Finalize();
	return 0;
}
