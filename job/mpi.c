/*
 * MPI, when built with it (HAVE_MPI): started only when the program runs
 * under mpirun (its environment says so), so that a plain run never pays
 * for it; only the main thread of each rank calls MPI (MPI_THREAD_FUNNELED).
 * The messages of a run: other ranks ask rank 0 for jobs, rank 0 hands out
 * job indexes, the others send each result back (its index and summary:
 * every rank runs the same binary) and say when they are done. Without
 * MPI, there is one rank and none of the messages is ever sent.
 */
#include "config.h"
#include "job/job_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

#ifdef HAVE_MPI
#include <mpi.h>

enum { TAG_REQUEST = 1, TAG_WORK, TAG_RESULT, TAG_DONE, TAG_GATHER };

static bool active;
static unsigned rank, n_ranks = 1, local_ranks = 1;

/* A result on the wire. */
struct wire_result {
	uint64_t idx;
	uint32_t keep, pad;
	struct job_summary sum;
};

/* True when started by an MPI launcher (Open MPI, MPICH/Hydra, PMIx, Slurm's PMI). */
static bool under_launcher(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
					    "PMI_RANK", "MPI_LOCALNRANKS" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(vars); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

int job_mpi_init(int *argc, char ***argv, struct strbuf *err)
{
	MPI_Comm node;
	int provided, r, n;

	if (!under_launcher())
		return 0;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		strbuf_addstr(err, "MPI_Init_thread failed");
		return -1;
	}
	active = true;
	if (provided < MPI_THREAD_FUNNELED) {
		strbuf_addstr(err, "the MPI library does not allow threads (MPI_THREAD_FUNNELED)");
		return -1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	rank = (unsigned)r;
	n_ranks = (unsigned)n;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &n);
	local_ranks = (unsigned)n;
	MPI_Comm_free(&node);
	return 0;
}

void job_mpi_finalize(void)
{
	if (active)
		MPI_Finalize();
	active = false;
}

unsigned job_rank(void)
{
	return rank;
}

unsigned job_ranks(void)
{
	return n_ranks;
}

unsigned job_mpi_local_ranks(void)
{
	return local_ranks;
}

void job_mpi_bcast(void *data, size_t n)
{
	if (n_ranks > 1)
		MPI_Bcast(data, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
}

bool job_mpi_poll(struct job_mpi_msg *m)
{
	struct wire_result *w;
	MPI_Status st;
	int flag = 0, count;

	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
	if (!flag)
		return false;
	m->from = (unsigned)st.MPI_SOURCE;
	switch (st.MPI_TAG) {
	case TAG_REQUEST:
		MPI_Recv(&count, 1, MPI_INT, st.MPI_SOURCE, TAG_REQUEST, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		m->kind = JOB_MPI_REQUEST;
		m->count = (unsigned)count;
		return true;
	case TAG_RESULT:
		w = xmalloc(sizeof(*w));
		MPI_Recv(w, (int)sizeof(*w), MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		m->kind = JOB_MPI_RESULT;
		m->idx = w->idx;
		m->keep = w->keep != 0;
		memcpy(m->sum, &w->sum, sizeof(w->sum));
		free(w);
		return true;
	case TAG_DONE:
		MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		m->kind = JOB_MPI_DONE;
		return true;
	default:
		BUG("unexpected MPI message tag %d from rank %d", st.MPI_TAG, st.MPI_SOURCE);
	}
}

void job_mpi_send_work(unsigned to, const uint64_t *idx, size_t n)
{
	MPI_Send(idx, (int)n, MPI_UINT64_T, (int)to, TAG_WORK, MPI_COMM_WORLD);
}

void job_mpi_request(unsigned count)
{
	int c = (int)count;
	MPI_Send(&c, 1, MPI_INT, 0, TAG_REQUEST, MPI_COMM_WORLD);
}

bool job_mpi_poll_work(uint64_t *idx, size_t cap, size_t *n)
{
	MPI_Status st;
	int flag = 0, count;

	MPI_Iprobe(0, TAG_WORK, MPI_COMM_WORLD, &flag, &st);
	if (!flag)
		return false;
	MPI_Get_count(&st, MPI_UINT64_T, &count);
	if ((size_t)count > cap)
		BUG("rank 0 sent %d jobs for %zu places", count, cap);
	MPI_Recv(idx, count, MPI_UINT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	*n = (size_t)count;
	return true;
}

void job_mpi_send_result(uint64_t idx, bool keep, const struct job_summary *sum)
{
	struct wire_result *w = xcalloc(1, sizeof(*w));

	w->idx = idx;
	w->keep = keep;
	memcpy(&w->sum, sum, sizeof(*sum));
	MPI_Send(w, (int)sizeof(*w), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
	free(w);
}

void job_mpi_send_done(void)
{
	MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
}

void job_mpi_gather(const void *mine, size_t n, void *const *bufs)
{
	unsigned r;

	if (rank != 0) {
		MPI_Send(mine, (int)n, MPI_BYTE, 0, TAG_GATHER, MPI_COMM_WORLD);
		return;
	}
	for (r = 1; r < n_ranks; r++)
		MPI_Recv(bufs[r], (int)n, MPI_BYTE, (int)r, TAG_GATHER, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
}

#else /* !HAVE_MPI */

int job_mpi_init(int *argc, char ***argv, struct strbuf *err)
{
	return 0;
}

void job_mpi_finalize(void)
{
}

unsigned job_rank(void)
{
	return 0;
}

unsigned job_ranks(void)
{
	return 1;
}

unsigned job_mpi_local_ranks(void)
{
	return 1;
}

void job_mpi_bcast(void *data, size_t n)
{
}

bool job_mpi_poll(struct job_mpi_msg *m)
{
	return false;
}

void job_mpi_send_work(unsigned to, const uint64_t *idx, size_t n)
{
	BUG("MPI message without MPI");
}

void job_mpi_request(unsigned count)
{
	BUG("MPI message without MPI");
}

bool job_mpi_poll_work(uint64_t *idx, size_t cap, size_t *n)
{
	BUG("MPI message without MPI");
}

void job_mpi_send_result(uint64_t idx, bool keep, const struct job_summary *sum)
{
	BUG("MPI message without MPI");
}

void job_mpi_send_done(void)
{
	BUG("MPI message without MPI");
}

void job_mpi_gather(const void *mine, size_t n, void *const *bufs)
{
}

#endif
